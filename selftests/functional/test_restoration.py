#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""The switchover puts keystoneEndpoint back, whatever ends it.

Against the shared embedded cloud (keystoneEndpoint api0, switchover
target api1): a failed assertion, tempest's per-test timeout, SIGTERM of
the whole run, SIGTERM of ``tempest run`` alone; each case ends with the
Glance CR and the catalog back on api0. When the restore itself fails,
the test's message gives the command that restores by hand, and running
that command (with kubectl for oc) does restore it.
"""

import json
import os
import re
import shlex
import signal
import subprocess

from glance_multiapi_kernel import polling
from selftests.functional import base
from selftests.functional import tempest_workspace
from selftests.functional import test_kubeapi
from glance_multiapi_tests.results.gate import subunit_stream

SWITCHOVER = ('glance_multiapi_tests.tests.scenario.test_switchover.'
              'KeystoneEndpointSwitchoverTest.test_switch_keystone_endpoint')
ORIGINAL = 'api0'
TARGET = 'api1'
# NOTE: bounds of each wait; the embedded cloud converges in seconds.
WAIT = 120
# NOTE: the convergence_timeout the runs get (overrides()). A signalled
# worker undoes the switch before it exits, and the undo may wait that
# long for the catalog: the run's processes get it and a minute more.
# Beside stress-ng --cpu 2 a SIGTERMed run outlived WAIT.
CONVERGENCE = 300
SESSION_WAIT = CONVERGENCE + 60
# NOTE: the pod ci-framework's periodic job makes (CR <name>-<stage>),
# and the grace its deletion gets here.
POD = 'glance-multiapi-tempest'
GRACE = 15
# NOTE: tools/setup-env.sh unpacks Debian's kubectl into the venv.
KUBECTL = os.path.join(os.path.dirname(base.BIN), 'debian-kubectl', 'usr',
                       'bin', 'kubectl')


def session_pids(sid):
    """Live processes of session sid (a run started in a new session)."""
    found = []
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % entry) as f:
                fields = f.read().rpartition(')')[2].split()
        except OSError:
            continue
        if fields[0] not in ('Z', 'X') and int(fields[3]) == sid:
            found.append(int(entry))
    return found


def describe_pids(pids):
    """'still running: PID (command line), ...' of session_pids()."""
    shown = []
    for pid in pids:
        try:
            with open('/proc/%d/cmdline' % pid, 'rb') as f:
                argv = f.read().replace(b'\0', b' ').decode(errors='replace')
        except OSError:
            argv = 'gone'
        shown.append('%d (%s)' % (pid, argv.strip()[:200]))
    return 'still running: %s' % ', '.join(shown)


class RestorationTest(base.CloudTestCase):
    """Each way a switchover can end leaves the cloud on api0."""

    def setUp(self):
        super().setUp()
        self.assertEqual(ORIGINAL, self.spec_endpoint(),
                         'the shared cloud is not on %s before the test'
                         % ORIGINAL)
        # NOTE: whatever the plugin does, the next test gets api0 back.
        self.addCleanup(self.force_original)
        self.addCleanup(self.cli, 'patch', '--clear-faults')

    def spec_endpoint(self):
        return self.doc()['spec']['keystoneEndpoint']

    def force_original(self):
        if self.spec_endpoint() != ORIGINAL:
            self.cli('patch', '--type', 'merge', '-p', json.dumps(
                {'spec': {'keystoneEndpoint': ORIGINAL}}), check=True)

    def overrides(self, convergence_timeout=CONVERGENCE):
        return {'glance_multiapi': {
            'convergence_timeout': convergence_timeout,
            'image_timeout': 60, 'switchover_target': TARGET}}

    def assertBackOnOriginal(self):
        """The spec, status and catalog name api0 again (polled)."""
        def check():
            cr = self.doc()
            status = cr['status']['apiEndpoint']
            wanted = [{i: status['%s-%s' % (ORIGINAL, i)]
                       for i in ('public', 'internal')}]
            found = test_kubeapi.image_catalog(self.state_dir)
            return (cr['spec']['keystoneEndpoint'] == ORIGINAL and
                    found == wanted), 'spec %s, catalog %s (wanted %s)' % (
                        cr['spec']['keystoneEndpoint'], found, wanted)

        polling.poll(check, timeout=WAIT, interval=0.5,
                     what='the Glance CR and the catalog back on %s' %
                     ORIGINAL, describe=str)

    def start_switchover(self, overrides):
        """A background tempest run of the switchover in its own session.

        Returns (process, workspace) once the Glance CR's spec names the
        target, i.e. while the change is pending.
        """
        argv, workspace = self.tempest_argv(SWITCHOVER.replace('.', r'\.'),
                                            overrides)
        out = open(os.path.join(workspace, 'subunit'), 'wb')
        self.addCleanup(out.close)
        proc = subprocess.Popen(argv, cwd=workspace, stdout=out,
                                stderr=subprocess.DEVNULL,
                                env=tempest_workspace.env(),
                                start_new_session=True)
        self.addCleanup(self.kill_session, proc)
        polling.poll(lambda: (self.spec_endpoint() == TARGET or
                              proc.poll() is not None, self.spec_endpoint()),
                     timeout=WAIT, interval=0.2,
                     what='the switchover to patch keystoneEndpoint to %s'
                     % TARGET, describe=str)
        self.assertIsNone(proc.poll(), 'tempest ended before the patch '
                          'could be seen')
        return proc, workspace

    @staticmethod
    def kill_session(proc):
        for pid in session_pids(proc.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.wait(timeout=30)

    def wait_session_gone(self, proc, workspace):
        """Every process of the run's session exits on its own (bounded).

        When one does not, the failure ends with the end of the run's
        tempest.log (what the worker's undo was waiting for), since the
        workspace goes at cleanup.
        """
        try:
            proc.wait(timeout=SESSION_WAIT)
            polling.poll(lambda: (not session_pids(proc.pid),
                                  session_pids(proc.pid)),
                         timeout=SESSION_WAIT, interval=0.2,
                         what='every process of the tempest run to exit',
                         describe=describe_pids)
        except (subprocess.TimeoutExpired, polling.PollTimeout) as exc:
            try:
                log = self.tempest_log(workspace)[-4000:]
            except OSError as read_exc:
                log = 'no tempest.log: %s' % read_exc
            self.fail('%s\nthe end of its tempest.log:\n%s' % (exc, log))

    def tempest_log(self, workspace):
        with open(os.path.join(workspace, 'tempest.log')) as f:
            return f.read()

    def test_failed_assertion_restores(self):
        # NOTE: api1 writes to another store, so the check after the
        # switch fails; its cleanup must still switch back.
        with self.fault('wrong-default-store=%s' % TARGET):
            results = self.run_tempest(SWITCHOVER.replace('.', r'\.'),
                                       overrides=self.overrides())
        self.assertOutcome(results, SWITCHOVER, 'fail',
                           'after switching keystoneEndpoint api0 -> api1',
                           'expected ceph1')
        self.assertBackOnOriginal()

    def test_test_timeout_restores(self):
        # NOTE: the catalog never follows, and tempest's own per-test
        # timeout (OS_TEST_TIMEOUT) cuts the wait short.
        with self.fault('patch-not-reconciled'):
            results = self.run_tempest(
                SWITCHOVER.replace('.', r'\.'), overrides=self.overrides(),
                env={'OS_TEST_TIMEOUT': '20'})
        self.assertOutcome(results, SWITCHOVER, 'fail', 'TimeoutException')
        self.assertBackOnOriginal()

    def test_sigterm_of_the_run_restores(self):
        # NOTE: a cancelled CI job or GNU timeout signals the whole
        # process group: tempest, the shell stestr starts each worker
        # through, and the worker.
        self.cli('patch', '--clear-faults', '--fault', 'patch-not-reconciled',
                 check=True)
        proc, workspace = self.start_switchover(self.overrides())
        os.killpg(proc.pid, signal.SIGTERM)
        self.wait_session_gone(proc, workspace)
        self.cli('patch', '--clear-faults', check=True)
        self.assertBackOnOriginal()
        self.assertIn('SIGTERM: undid the switch of keystoneEndpoint from '
                      'api0 to api1, then stopped',
                      self.tempest_log(workspace))

    def test_sigterm_of_tempest_alone_restores(self):
        # NOTE: only "tempest run" dies; its worker and the shell between
        # them live on, and the worker's watcher must notice.
        self.cli('patch', '--clear-faults', '--fault', 'patch-not-reconciled',
                 check=True)
        proc, workspace = self.start_switchover(self.overrides())
        proc.send_signal(signal.SIGTERM)
        self.wait_session_gone(proc, workspace)
        self.cli('patch', '--clear-faults', check=True)
        self.assertBackOnOriginal()
        log = self.tempest_log(workspace)
        self.assertIn('SIGTERM (process %d that ran this worker is gone): '
                      'undid the switch of keystoneEndpoint from api0 to '
                      'api1, then stopped' % proc.pid, log)

    def kubectl(self, *args, stdin=None):
        proc = subprocess.run(
            [KUBECTL, '--kubeconfig', os.path.join(self.state_dir,
                                                   'kubeconfig')] +
            list(args), input=stdin, capture_output=True, text=True,
            timeout=60)
        self.assertEqual(0, proc.returncode, proc.stderr)
        return proc.stdout

    def test_pod_deletion_restores_within_the_grace(self):
        # NOTE: as on a cluster: deleting the run's pod signals none of its
        # processes (PID 1, bash, ignores SIGTERM); the API marks the Pod
        # (deletionTimestamp), and when the grace ends the kubelet
        # SIGKILLs them all. Only the run's look at its Pod can save it.
        # NOTE: --validate=false: this API serves no OpenAPI document.
        pod = {'apiVersion': 'v1', 'kind': 'Pod',
               'metadata': {'name': POD, 'namespace': 'openstack'},
               'spec': {'terminationGracePeriodSeconds': GRACE}}
        self.kubectl('create', '--validate=false', '-f', '-',
                     stdin=json.dumps(pod))
        self.addCleanup(self.kubectl, 'delete', 'pod', POD,
                        '--grace-period=0', '--force', '--wait=false')
        self.cli('patch', '--clear-faults', '--fault', 'patch-not-reconciled',
                 check=True)
        overrides = self.overrides()
        overrides['glance_multiapi'].update(pod_name=POD,
                                            pod_watch_interval=1)
        proc, workspace = self.start_switchover(overrides)
        self.kubectl('delete', 'pod', POD, '--wait=false')
        try:
            polling.poll(lambda: (self.spec_endpoint() == ORIGINAL,
                                  self.spec_endpoint()),
                         timeout=GRACE, interval=0.5, what='the run to put '
                         'keystoneEndpoint back', describe=str)
        except polling.PollTimeout:
            pass  # NOTE: assertBackOnOriginal below names what was seen
        # NOTE: the kubelet's SIGKILL when the grace period ends.
        self.kill_session(proc)
        self.cli('patch', '--clear-faults', check=True)
        self.assertBackOnOriginal()
        self.assertIn('pod %s is being deleted' % POD,
                      self.tempest_log(workspace))

    def test_failed_restore_names_the_command_by_hand(self):
        # NOTE: the catalog never follows; by the time the wait fails, the
        # API refuses patches, so the restore fails too.
        self.cli('patch', '--clear-faults', '--fault', 'patch-not-reconciled',
                 check=True)
        proc, workspace = self.start_switchover(self.overrides(
            convergence_timeout=15))
        self.cli('patch', '--clear-faults', '--fault', 'patch-not-reconciled',
                 '--fault', 'kube-forbid=patch:openstackcontrolplanes',
                 check=True)
        proc.wait(timeout=WAIT)
        with open(os.path.join(workspace, 'subunit'), 'rb') as f:
            results = subunit_stream.parse_subunit(f)
        details = self.assertOutcome(
            results, SWITCHOVER, 'fail', 'undoing the switch of '
            'keystoneEndpoint from api0 to api1 failed',
            '403', 'restore it by hand with: oc ')
        self.assertEqual(TARGET, self.spec_endpoint())
        command = re.search(r'restore it by hand with: (oc .*?)\s*$',
                            details, re.M).group(1)
        words = shlex.split(command)
        self.assertEqual(['oc', '--kubeconfig'], words[:2], command)
        self.cli('patch', '--clear-faults', check=True)
        ran = subprocess.run([KUBECTL] + words[1:], capture_output=True,
                             text=True, timeout=60)
        self.assertEqual(0, ran.returncode, ran.stderr)
        self.assertBackOnOriginal()

    def test_healthy_switchover_restores(self):
        results = self.run_tempest(SWITCHOVER.replace('.', r'\.'),
                                   overrides=self.overrides())
        self.assertOutcome(results, SWITCHOVER, 'success')
        self.assertBackOnOriginal()


class OptInTest(base.CloudTestCase):
    """Unless tempest.conf opts in, no scenario touches the deployment."""

    def test_disruptive_scenarios_skip_without_their_option(self):
        results = self.run_tempest(
            r'glance_multiapi_tests\.tests\.scenario\.test_(switchover|'
            r'grow_shrink)', overrides={'glance_multiapi': {
                'run_switchover': None, 'run_grow_shrink': None}})
        # NOTE: skip_checks skips the class: tempest reports setUpClass.
        self.assertOutcome(results, 'KeystoneEndpointSwitchoverTest', 'skip',
                           '[glance_multiapi] run_switchover is False (the '
                           'default)', 'set [glance_multiapi] '
                           'run_switchover = True to run it')
        self.assertOutcome(results, 'GrowShrinkTest', 'skip',
                           '[glance_multiapi] run_grow_shrink is False')
        before = json.loads(self.cli('get', '-o', 'json',
                                     check=True).stdout)
        self.assertEqual(ORIGINAL, before['spec']['keystoneEndpoint'])
