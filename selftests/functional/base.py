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

"""Base class of the functional self-tests: one real embedded cloud.

The functional job (tools/run-functional.sh) brings one cloud up and
exports GLANCE_MULTIAPI_FUNCTIONAL_CLOUD; every test class reuses it. A
class run on its own (no such variable) brings up a private cloud and
takes it down afterwards. What the checks of a running cloud read of it
(processes, sockets, file modes) is in cloud_inspect.py.
"""

import atexit
import contextlib
import io
import json
import logging
import os
import shutil
import stat
import socket
import subprocess
import sys
import tempfile
import threading
import time

import requests
import testtools
import yaml

from glance_multiapi_cloud import errors as cloud_errors
from glance_multiapi_cloud.kubeapi.embedded import glance as kubeglance
from glance_multiapi_cloud import state as state_mod
from glance_multiapi_tests.results.gate import subunit_stream
from selftests.functional import cloud_inspect
from selftests.functional import tempest_workspace

ENV_CLOUD = 'GLANCE_MULTIAPI_FUNCTIONAL_CLOUD'
# NOTE: the uploader's classes, and the others that only read a cloud
# (test_ci_results), inject no faults; tools/run-functional.sh gives them
# a cloud of their own, so they run beside the classes that do.
ENV_UPLOADER_CLOUD = 'GLANCE_MULTIAPI_FUNCTIONAL_UPLOADER_CLOUD'
ENV_ARTIFACTS = 'GLANCE_MULTIAPI_FUNCTIONAL_ARTIFACTS'
REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), '..',
                                     '..'))
BIN = os.path.dirname(sys.executable)
LOG = logging.getLogger(__name__)


def cli_argv(state_dir, *args):
    return [os.path.join(BIN, 'glance-multiapi-cloud'), '--state-dir',
            state_dir] + list(args)


# NOTE: restarts per service in the restart-under-load tests. The ports
# lie outside the ephemeral range (test_ports_lie_outside_the_ephemeral_
# range), which is what keeps a restart from losing one; these rounds show
# it under a churning client. Three rounds by default: each round of
# keystone and the heat services costs tens of CPU-seconds on two cores,
# where the functional stage is CPU-bound. GLANCE_MULTIAPI_RESTART_ROUNDS=20
# is the thorough run (about 15 minutes more).
RESTART_ROUNDS = int(os.environ.get('GLANCE_MULTIAPI_RESTART_ROUNDS', '3'))
# NOTE: bounds of the client loop that runs beside the restarts.
CHURN_MAX_CONNECTIONS = 100000
CHURN_MAX_SECONDS = 900
CHURN_PACE = 0.005
# NOTE: connections the client must have made per restart, so that it
# really ran beside them: a restart is at least a second (an interpreter
# and the service's imports; the registry's is shorter, keystone's
# longer) and the client makes over a hundred a second.
CHURN_PER_RESTART = 50


class _OwnedCloud(object):
    """A cloud a test class brought up itself (not a shared one)."""

    def __init__(self, key, name):
        self.key = key
        self.name = name
        self.folder = tempfile.mkdtemp(prefix='gmt-functional-')
        self.state_dir = os.path.join(self.folder, 'cloud')

    def down(self):
        try:
            self._keep_artifacts()
        except (OSError, subprocess.SubprocessError) as exc:
            # NOTE: the cloud must go whether or not its logs were kept.
            LOG.warning('could not keep the artifacts of %s: %s',
                        self.state_dir, exc)
        finally:
            subprocess.run(cli_argv(self.state_dir, 'down'),
                           capture_output=True)
            shutil.rmtree(self.folder, ignore_errors=True)

    def _keep_artifacts(self):
        """Keep its logs, masked, in a folder named after its class.

        tools/run-functional.sh names the folder and drops it when the
        run passed: only then is it known whether a log is needed.
        """
        folder = os.environ.get(ENV_ARTIFACTS)
        if not folder:
            return
        subprocess.run(
            [sys.executable, os.path.join(REPO, 'tools',
                                          'collect_artifacts.py'),
             '--state-dir', self.state_dir, '--exit-code', '1',
             os.path.join(folder, self.name)],
            capture_output=True, timeout=300)


# NOTE: the last cloud a class brought up itself stays up for the next
# class of this process that wants the same kind (cloud_env and
# up_args): HeatChecksTest and KubeApiHeatTest run one after the other
# in one worker, and a heat cloud costs about a minute of both cores to
# bring up. Any other class, or the process's exit, takes it down.
_kept = []


def _down_kept():
    while _kept:
        _kept.pop().down()


atexit.register(_down_kept)


class CloudTestCase(testtools.TestCase):
    """A test against a running embedded cloud.

    Subclasses that need another kind of cloud set cloud_env (the variable
    naming a shared one) and up_args (extra ``up`` arguments).
    """

    state_dir = None
    _owned = None
    cloud_env = ENV_CLOUD
    up_args = ()

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        shared = os.environ.get(cls.cloud_env)
        if shared:
            cls.state_dir = os.path.abspath(shared)
            return
        key = (cls.cloud_env, tuple(cls.up_args))
        if _kept and _kept[-1].key == key:
            cls._owned = _kept.pop()
            cls.state_dir = cls._owned.state_dir
            return
        _down_kept()
        cls._owned = _OwnedCloud(key, cls.__name__)
        cls.state_dir = cls._owned.state_dir
        proc = subprocess.run(
            cli_argv(cls.state_dir, 'up', '-q', *cls.up_args),
            capture_output=True, text=True, timeout=600)
        if proc.returncode:
            cls._teardown_owned()
            raise RuntimeError('could not bring up a cloud (up %s): %s' % (
                ' '.join(cls.up_args), proc.stderr.strip()))

    @classmethod
    def _teardown_owned(cls):
        owned, cls._owned = cls._owned, None
        if owned:
            owned.down()

    @classmethod
    def tearDownClass(cls):
        # NOTE: kept for the next class (_kept), unless setUpClass failed.
        if cls._owned:
            _kept.append(cls._owned)
            cls._owned = None
        super().tearDownClass()

    def cli(self, *args, check=False):
        """Run glance-multiapi-cloud on this cloud; CompletedProcess."""
        proc = subprocess.run(cli_argv(self.state_dir, *args),
                              capture_output=True, text=True, timeout=600)
        if check and proc.returncode:
            self.fail('glance-multiapi-cloud %s failed (%d): %s' % (
                ' '.join(args), proc.returncode, proc.stderr.strip()))
        return proc

    def doc(self):
        """The cloud's Glance CR-shaped document, as ``get -o json`` has it.

        Read here (kubeglance.document, what ``get`` prints), not by
        a CLI process: tests poll it (a switchover pending, the cloud back
        on api0), and each ``get`` process cost 0.4 to 0.5 CPU-s. The
        state file is written by rename, so a read never sees half of it.
        ``get`` itself is run where it is what a test checks.
        """
        try:
            doc = kubeglance.document(state_mod.State(self.state_dir))
        except cloud_errors.CloudError as exc:
            self.fail('glance-multiapi-cloud get: %s' % exc)
        return json.loads(json.dumps(doc))

    def verify(self, url):
        """The cloud's CA for an https URL (its certs.py), else True."""
        if url.startswith('https:'):
            return os.path.join(self.state_dir, 'tls', 'ca.crt')
        return True

    def token_and_catalog(self, cloud='demo'):
        """(token, catalog) of a clouds.yaml user, from keystone itself."""
        with open(os.path.join(self.state_dir, 'clouds.yaml')) as f:
            auth = yaml.safe_load(f)['clouds'][cloud]['auth']
        identity = {'methods': ['password'], 'password': {'user': {
            'name': auth['username'], 'domain': {'id': 'default'},
            'password': auth['password']}}}
        scope = {'project': {'name': auth['project_name'],
                             'domain': {'id': 'default'}}}
        resp = requests.post(auth['auth_url'] + '/auth/tokens', json={
            'auth': {'identity': identity, 'scope': scope}}, timeout=30,
            verify=self.verify(auth['auth_url']))
        self.assertEqual(201, resp.status_code, resp.text)
        return resp.headers['X-Subject-Token'], resp.json()['token'][
            'catalog']

    @contextlib.contextmanager
    def fault(self, *names):
        """Inject faults for the duration of the block, then clear them."""
        args = []
        for name in names:
            args += ['--fault', name]
        self.cli('patch', '--clear-faults', *args, check=True)
        try:
            yield
        finally:
            self.cli('patch', '--clear-faults', check=True)

    def run_tempest(self, regex, overrides=None, concurrency=1,
                    timeout=1200, env=None):
        """Run tempest on this cloud; {test id: (status, details)}.

        overrides: {group: {option: value}} applied to a copy of the
        cloud's tempest.conf, so tests can point options elsewhere; a
        value of None removes the option.
        """
        proc = self.tempest_stream(regex, overrides, concurrency, timeout,
                                   env=env)
        results = subunit_stream.parse_subunit(io.BytesIO(proc.stdout))
        results = {k: v for k, v in results.items()
                   if v[0] in ('success', 'fail', 'skip')}
        if not results:
            self.fail('tempest ran no test for %r (exit %d): %s' % (
                regex, proc.returncode,
                proc.stderr.decode(errors='replace')[-2000:]))
        return results

    def tempest_stream(self, regex, overrides=None, concurrency=1,
                       timeout=1200, env=None):
        """Run tempest as run_tempest does; its CompletedProcess.

        stdout holds the subunit v2 stream. env: variables added to the
        environment (e.g. OS_TEST_TIMEOUT). A one-worker run is the worker
        tempest would start (tempest_workspace.run_command): only its
        stream is read here.
        """
        workspace, conf_path, selected = self._tempest_workspace(
            regex, overrides)
        argv, added = tempest_workspace.run_command(
            workspace, conf_path, selected, concurrency)
        return subprocess.run(argv, cwd=workspace, capture_output=True,
                              timeout=timeout,
                              env=tempest_workspace.env(**dict(
                                  added, **(env or {}))))

    def _tempest_workspace(self, regex, overrides):
        """(workspace, tempest.conf path, selection) of one tempest run.

        The workspace (tempest.conf in etc/, tempest.log, the stestr
        repository) goes at cleanup.
        """
        workspace = tempfile.mkdtemp(prefix='gmt-tempest-')
        self.addCleanup(shutil.rmtree, workspace, ignore_errors=True)
        conf_path = tempest_workspace.fill(
            workspace, os.path.join(self.state_dir, 'tempest'), overrides)
        return (workspace, conf_path,
                tempest_workspace.selection(workspace, regex))

    def tempest_argv(self, regex, overrides=None, concurrency=1):
        """(argv, workspace) of a ``tempest run`` on a copy of tempest.conf.

        For the tests that signal or kill the run: its processes are
        tempest's, whatever the concurrency.
        """
        workspace, conf_path, selected = self._tempest_workspace(
            regex, overrides)
        return (tempest_workspace.run_argv(conf_path, selected, concurrency),
                workspace)

    def assertOutcome(self, results, test_name, status, *needles):
        """The one test whose id contains test_name ended so, naming..."""
        matches = {k: v for k, v in results.items() if test_name in k}
        self.assertEqual(1, len(matches),
                         'expected one test matching %r, got %s' % (
                             test_name, sorted(results)))
        (test_id, (got, details)), = matches.items()
        self.assertEqual(status, got, '%s: wanted %s, got %s:\n%s' % (
            test_id, status, got, details[-3000:]))
        for needle in needles:
            self.assertIn(needle, details, '%s: message lacks %r' % (
                test_id, needle))
        return details

    def assertLoopbackOnly(self, at_least):
        """Every listener of the cloud's processes is on loopback."""
        pids = cloud_inspect.cloud_pids(self.state_dir)
        found = cloud_inspect.listeners(pids)
        self.assertGreaterEqual(len(found), at_least, 'expected at least %d '
                                'listeners of %s, found %s' % (
                                    at_least, sorted(set(pids.values())),
                                    found))
        wide = [item for item in found
                if item.host not in ('127.0.0.1', '::1')]
        self.assertEqual([], wide, 'listeners beyond loopback')
        return found

    def assertPrivateFiles(self, secrets):
        """The state dir is 0700 and nothing in it is open to others.

        secrets: paths (relative to the state dir) that hold a password
        or key and must exist, so the walk cannot pass on an empty dir.
        """
        self.assertEqual(0o700, stat.S_IMODE(os.stat(self.state_dir).st_mode))
        for path in secrets:
            mode = os.stat(os.path.join(self.state_dir, path)).st_mode
            self.assertEqual(0o600, stat.S_IMODE(mode), path)
        # NOTE: tempest runs write their lock files (lock_path) in
        # tempest/lock with their own umask; they hold nothing.
        self.assertEqual([], cloud_inspect.loose_paths(
            self.state_dir, skip=('tempest/lock',)))

    def restart_under_load(self, names, rounds=RESTART_ROUNDS):
        """Restart each service rounds times while a client churns ports.

        A thread opens and closes TCP connections to every port of the
        cloud (bounded in count and time); each connection takes a local
        port from the kernel's ephemeral range, as tempest's and the
        services' own clients do. Fails on any restart that did not
        succeed, quoting its one-line error, and when the client made
        fewer than CHURN_PER_RESTART connections per restart. Returns
        the connections made.
        """
        with open(os.path.join(self.state_dir, 'state.json')) as f:
            targets = sorted(set(json.load(f)['ports'].values()))
        stop = threading.Event()
        made = []

        def churn():
            deadline = time.monotonic() + CHURN_MAX_SECONDS
            while (not stop.is_set() and len(made) < CHURN_MAX_CONNECTIONS
                   and time.monotonic() < deadline):
                port = targets[len(made) % len(targets)]
                try:
                    socket.create_connection(('127.0.0.1', port),
                                             timeout=1).close()
                except OSError:
                    pass
                made.append(port)
                stop.wait(CHURN_PACE)

        thread = threading.Thread(target=churn, daemon=True)
        thread.start()
        failures = []
        try:
            for name in names:
                for attempt in range(rounds):
                    proc = self.cli('restart', name)
                    if proc.returncode:
                        failures.append('%s restart %d: exit %d: %s' % (
                            name, attempt + 1, proc.returncode,
                            proc.stderr.strip()))
        finally:
            stop.set()
            thread.join(timeout=30)
        self.assertEqual([], failures, '%d of %d restarts failed' % (
            len(failures), rounds * len(names)))
        self.assertGreater(
            len(made), CHURN_PER_RESTART * rounds * len(names),
            'the client made too few connections beside %d restarts of %s'
            % (rounds * len(names), ', '.join(names)))
        return len(made)
