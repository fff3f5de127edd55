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

"""The consolidated heat checks against a real heat of the embedded cloud.

The shared functional cloud has no heat, so these classes bring up their
own with ``up --with-heat`` (about a minute more each), or reuse the ones
named by GLANCE_MULTIAPI_HEAT_CLOUD and GLANCE_MULTIAPI_OPERATOR_HEAT_CLOUD
(``--heat-profile operator``).
"""

import contextlib
import json
import os
import shutil
import socket
import subprocess
import tempfile

import testtools

from glance_multiapi_cloud.kubeapi.embedded import heat as kubeheat
from selftests.functional import base

ENV_HEAT_CLOUD = 'GLANCE_MULTIAPI_HEAT_CLOUD'
ENV_OPERATOR_HEAT_CLOUD = 'GLANCE_MULTIAPI_OPERATOR_HEAT_CLOUD'
_T = 'glance_multiapi_tests.tests.'
SERVICES = _T + 'api.test_heat_services.HeatServicesTest.'
API_TESTS = ('test_orchestration_version_document',
             'test_cloudformation_version_document',
             'test_list_engine_services',
             'test_create_delete_minimal_stack')
RESTART = _T + 'scenario.test_heat_engine_restart.HeatEngineRestartTest.' \
    'test_restart_engine_during_stack_create'
# NOTE: heat-rpc-timeout windows, counted from the restart's start: one
# that ends while the stack is still in progress (SLOW waits 30 s), and
# one that never ends on its own: it lasts until the test's own cleanup
# deletes the stack (heat-rpc-timeout=delete), so the test waits out no
# window sized to outlast the restart, and its stack needs no SLOW
# resource to keep the restart long. The never-ending windows' tests,
# and the operator profile's stranded stacks, give terminal_timeout only
# 20 s: a failure or a stack that outlasts 20 s outlasts 45 s the same
# way.
RPC_TIMEOUTS_END = 20
NEVER_END_GRACE = 20
RPC_TIMEOUTS_NEVER_END = 'heat-rpc-timeout=delete'
SLOW_FOR_RPC_TIMEOUTS = {'in_progress_seconds': 30}
# NOTE: the tests whose verdict needs the restart to land while the stack
# is in progress hold each resource 30 s, not 10: on two cores busy with
# the whole project run the restart took 24 to 28 s (pod deleted, new
# engine listed), and 46 s (the old engine stopped after 33 s) in a cold
# run building its venvs meanwhile; the stack was done by then, and the
# scenario rightly said the restart did not overlap its work.
RESTART_LANDS = {'in_progress_seconds': 30}
# NOTE: what must never reach the user: tempest's own KeyError on heat's
# 500 body, or a traceback from inside its rest client.
TEMPEST_INTERNALS = ("KeyError: 'message'", 'tempest/lib/common/rest_client')


class HeatCloudTestCase(base.CloudTestCase):
    """A CloudTestCase whose cloud runs heat too."""

    # NOTE: the shared functional cloud has no heat; this one does.
    cloud_env = ENV_HEAT_CLOUD
    # NOTE: heat-api waits 10 s, not 30, for an engine that is gone: the
    # tests that stop or lose it would otherwise wait that at every call.
    up_args = ('--with-heat', '--heat-rpc-timeout', '10')

    @contextlib.contextmanager
    def heat_state(self, name):
        """Put heat's images in state name for the block, then the default."""
        self.cli('patch', '--heat-state', name, check=True)
        try:
            yield
        finally:
            self.cli('patch', '--heat-state', kubeheat.DEFAULT_STATE,
                     check=True)

    def overrides(self):
        # NOTE: a stuck stack must fail in 45 s, not the 5 minutes a
        # cluster gets (a healthy one ends a few seconds after the restart).
        return {'consolidated_heat': {'terminal_timeout': 45,
                                      'in_progress_seconds': 10,
                                      'build_timeout': 120}}

    def _restart_scenario(self, *faults, **overrides):
        conf = self.overrides()
        conf['consolidated_heat'].update(overrides)
        with self.fault(*faults):
            results = self.run_tempest(RESTART.replace('.', r'\.'),
                                       overrides=conf)
        (status, details), = [v for k, v in results.items()
                              if RESTART in k]
        return status, details

    def assertNoTempestInternals(self, details):
        for needle in TEMPEST_INTERNALS:
            self.assertNotIn(needle, details, details[-3000:])

    def assertRpcTimeoutsSeen(self, details):
        # NOTE: each 500 is recorded in the printed timeline.
        self.assertRegex(details, r'(stack show|resource list): HTTP 500 '
                         r'MessagingTimeout', details[-3000:])


class HeatChecksTest(HeatCloudTestCase):
    """Each heat check passes on a healthy heat and fails on a broken one."""

    def test_cloud_reports_heat(self):
        proc = self.cli('status', '-o', 'json', check=True)
        services = json.loads(proc.stdout)['services']
        for name in ('heat-api', 'heat-api-cfn', 'heat-engine', 'rabbitmq'):
            self.assertTrue(services.get(name, {}).get('ready'),
                            '%s not ready: %s' % (name, services.get(name)))

    def test_heat_listens_on_loopback_only(self):
        found = self.assertLoopbackOnly(at_least=12)
        commands = {item.command for item in found}
        # NOTE: the Erlang distribution port is the node's remote control.
        self.assertIn('beam.smp', commands)
        self.assertIn('epmd', commands)

    def test_heat_credentials_are_private(self):
        self.assertPrivateFiles(['heat/heat.conf', 'clouds.yaml',
                                 'tempest/etc/tempest.conf'])

    # NOTE: the APIs and the engine in two tests: all three in one took
    # 119 s in a CI run on two cores.
    def test_heat_apis_restart_under_client_load_never_lose_a_port(self):
        self.restart_under_load(['heat-api', 'heat-api-cfn'])
        self.test_cloud_reports_heat()

    def test_heat_engine_restarts_under_client_load_never_lose_a_port(self):
        self.restart_under_load(['heat-engine'])
        self.test_cloud_reports_heat()

    def test_healthy_heat_passes_api_tests(self):
        with self.fault():
            results = self.run_tempest(
                r'glance_multiapi_tests\.tests\.api\.test_heat_services',
                overrides=self.overrides())
        for test in API_TESTS:
            self.assertOutcome(results, SERVICES + test, 'success')

    def test_engine_down_fails_services_test(self):
        with self.fault('heat-engine-down'):
            status = json.loads(self.cli('status', '-o', 'json').stdout)
            self.assertFalse(status['services']['heat-engine']['running'])
            results = self.run_tempest(
                (SERVICES + 'test_list_engine_services').replace('.', r'\.'),
                overrides=self.overrides())
        self.assertOutcome(results, 'test_list_engine_services', 'fail',
                           'heat-engine')

    def test_engine_restart_scenario_passes(self):
        status, details = self._restart_scenario(**RESTART_LANDS)
        self.assertEqual('success', status, details[-2000:])
        self.assertIn('reached CREATE_COMPLETE', details, details[-2000:])
        # NOTE: the proof it went through the restart: the new engine was
        # listed, the old one gone, while "after" was still in progress.
        self.assertIn('after CREATE_IN_PROGRESS, slow CREATE_COMPLETE; '
                      'engines: 1 new, 0 old listed', details,
                      details[-2000:])

    def test_restart_that_restarts_nothing_fails_scenario(self):
        # NOTE: a restart command that does nothing must not pass: the
        # stack completes but no new engine was ever listed.
        status, details = self._restart_scenario(
            restart_command='true {service}')
        self.assertEqual('fail', status, details[-2000:])
        self.assertIn('no new heat-engine was listed while stack',
                      details, details[-2000:])

    def test_engine_pod_never_back_fails_scenario(self):
        # NOTE: the ReplicaSet's new pod never runs (ImagePullBackOff):
        # the rollout must time out naming the Deployment and the pod.
        # NOTE: the stack cannot be deleted without an engine: its cleanup
        # waits build_timeout in vain, each call the RPC timeout.
        status, details = self._restart_scenario(
            'pod-not-replaced=heat-engine', restart_timeout=20,
            build_timeout=20)
        self.assertEqual('fail', status, details[-2000:])
        self.assertIn('waiting for Deployment heat-engine (namespace '
                      'openstack) to roll out again', details,
                      details[-2000:])
        self.assertIn('readyReplicas 0/1; pods: heat-engine-', details)
        self.assertIn('Pending not Ready (ImagePullBackOff)', details)

    def test_pod_deletion_nobody_acts_on_fails_scenario(self):
        # NOTE: a restart that restarts nothing, the Kubernetes way: the
        # pod is marked deleted, its engine runs on, no replacement.
        status, details = self._restart_scenario(
            'pod-delete-ignored=heat-engine', restart_timeout=30,
            build_timeout=40)
        self.assertEqual('fail', status, details[-2000:])
        self.assertIn('to roll out again after its pod(s) heat-engine-',
                      details, details[-2000:])
        self.assertRegex(details, r'pods: heat-engine-\S+ Terminating not '
                         r'Ready', details[-2000:])

    def test_rpc_timeouts_that_end_in_the_window_pass_scenario(self):
        status, details = self._restart_scenario(
            'heat-rpc-timeout=%d' % RPC_TIMEOUTS_END,
            **SLOW_FOR_RPC_TIMEOUTS)
        self.assertEqual('success', status, details[-3000:])
        self.assertIn('reached CREATE_COMPLETE', details, details[-3000:])
        self.assertRpcTimeoutsSeen(details)
        self.assertNoTempestInternals(details)

    def test_rpc_timeouts_that_never_end_fail_scenario(self):
        status, details = self._restart_scenario(
            RPC_TIMEOUTS_NEVER_END, terminal_timeout=NEVER_END_GRACE,
            **RESTART_LANDS)
        self.assertEqual('fail', status, details[-3000:])
        self.assertIn('then heat-api kept failing: ', details,
                      details[-3000:])
        # NOTE: heat-api answers its engine list with 503 when the RPC
        # call times out (services.py), everything else with 500.
        self.assertRegex(details, r'still failed %d s after the heat-engine '
                         r'restart ended: (engine list: HTTP 503|[a-z ]+: '
                         r'HTTP 500 MessagingTimeout) \([0-9]+ times since '
                         % NEVER_END_GRACE, details[-3000:])
        self.assertIn('stack show: HTTP 500 MessagingTimeout', details,
                      details[-3000:])
        self.assertIn('last seen before: CREATE_IN_PROGRESS; ', details,
                      details[-3000:])
        self.assertNoTempestInternals(details)

    def test_resource_done_before_restart_fails_scenario(self):
        status, details = self._restart_scenario(in_progress_seconds=0)
        self.assertEqual('fail', status, details[-2000:])
        # NOTE: caught before the restart, or right after it started.
        self.assertTrue('completed before the restart' in details or
                        'the restart did not hit slow in progress' in
                        details, details[-2000:])


class HeatOperatorProfileTest(HeatCloudTestCase):
    """heat as the heat-operator configures it (--heat-profile operator).

    What happens to a stack across an engine restart under the operator's
    own settings.
    """

    cloud_env = ENV_OPERATOR_HEAT_CLOUD
    # NOTE: the operator leaves rpc_response_timeout at oslo's 60 s; a
    # short one only shortens the waits on a stopped engine, it changes
    # no verdict (HeatCloudTestCase).
    up_args = ('--with-heat', '--heat-profile', 'operator',
               '--heat-rpc-timeout', '10')

    def test_operator_heat_conf(self):
        with open(os.path.join(self.state_dir, 'heat', 'heat.conf')) as f:
            text = f.read()
        for line in ('num_engine_workers = 4', 'rabbit_quorum_queue = true',
                     'rabbit_transient_quorum_queue = true',
                     'amqp_durable_queues = true'):
            self.assertIn(line, text)
        self.assertNotIn('use_queue_manager', text)

    def test_operator_settings_strand_stack_on_restart(self):
        # NOTE: measured, not wished for: under the operator's own
        # heat.conf the work for the next resource is lost in the restart
        # and the stack stays CREATE_IN_PROGRESS (README, "heat-engine
        # restart"). Should heat or the operator fix it, this fails and
        # the README note changes.
        status, details = self._restart_scenario(
            terminal_timeout=NEVER_END_GRACE, **RESTART_LANDS)
        self.assertEqual('fail', status, details[-2000:])
        self.assertIn('stayed in progress', details, details[-2000:])
        self.assertIn('after INIT_COMPLETE, slow CREATE_COMPLETE; '
                      'engines: 4 new, 0 old listed', details,
                      details[-2000:])

    def test_operator_rpc_timeouts_that_end_keep_the_verdict(self):
        # NOTE: slow 500s (2 s each) for 20 s, then the operator profile's
        # own verdict: the stack is stranded.
        status, details = self._restart_scenario(
            'heat-rpc-timeout=%d:2' % RPC_TIMEOUTS_END,
            terminal_timeout=NEVER_END_GRACE, **SLOW_FOR_RPC_TIMEOUTS)
        self.assertEqual('fail', status, details[-3000:])
        self.assertIn('stayed in progress', details, details[-3000:])
        self.assertRpcTimeoutsSeen(details)
        self.assertNoTempestInternals(details)

    def test_operator_rpc_timeouts_that_never_end_fail_naming_them(self):
        status, details = self._restart_scenario(
            RPC_TIMEOUTS_NEVER_END, terminal_timeout=NEVER_END_GRACE)
        self.assertEqual('fail', status, details[-3000:])
        self.assertIn('then heat-api kept failing: ', details,
                      details[-3000:])
        self.assertIn('HTTP 500 MessagingTimeout', details, details[-3000:])
        self.assertIn('last seen before: ', details, details[-3000:])
        self.assertNoTempestInternals(details)


class HeatCloudLifecycleTest(testtools.TestCase):
    """up --with-heat and down leave nothing of heat running."""

    def test_down_stops_broker_and_epmd(self):
        work = tempfile.mkdtemp(prefix='gmt-functional-heat-down-')
        self.addCleanup(shutil.rmtree, work, ignore_errors=True)
        state = os.path.join(work, 'cloud')
        self.addCleanup(subprocess.run, base.cli_argv(state, 'down'),
                        capture_output=True)
        proc = subprocess.run(base.cli_argv(
            state, 'up', '-q', '--with-heat', '--no-registry',
            '--no-fileserver'), capture_output=True, text=True, timeout=600)
        self.assertEqual(0, proc.returncode, proc.stderr)
        with open(os.path.join(state, 'state.json')) as f:
            ports = json.load(f)['ports']
        pids = {}
        for name in ('rabbitmq', 'epmd', 'heat-engine', 'heat-api'):
            with open(os.path.join(state, 'run', name + '.pid')) as f:
                pids[name] = json.load(f)['pid']
        # NOTE: oslo.messaging's queue manager keeps counters in /dev/shm;
        # heat's services made theirs by now, "down" must remove them.
        prefix = 'glance-multiapi-cloud-%d_' % ports['rabbitmq']
        self.assertNotEqual([], _shm_files(prefix))
        proc = subprocess.run(base.cli_argv(state, 'down'),
                              capture_output=True, text=True, timeout=300)
        self.assertEqual(0, proc.returncode, proc.stderr)
        self.assertEqual([], _shm_files(prefix))
        for name in ('heat-engine', 'rabbitmq', 'epmd'):
            self.assertIn(name, proc.stdout)
        for name, pid in pids.items():
            self.assertFalse(_alive(pid), '%s (pid %d) still runs after '
                             'down' % (name, pid))
        for key in ('rabbitmq', 'epmd', 'heat-api'):
            self.assertTrue(_port_free(ports[key]), '%s port %d still '
                            'taken after down' % (key, ports[key]))


def _shm_files(prefix):
    return [name for name in os.listdir('/dev/shm')
            if name.startswith(prefix)]


def _alive(pid):
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except OSError:
        return False


def _port_free(port):
    sock = socket.socket()
    # NOTE: closed connections in TIME_WAIT do not count, a listener does.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(('127.0.0.1', port))
        return True
    except OSError:
        return False
    finally:
        sock.close()
