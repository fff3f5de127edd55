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

"""glance-multiapi-cloud on bad arguments and files: one row, one test.

Every row fails before any service starts (the busy port, which needs
the cloud to reach its first port, is a functional test:
selftests/functional/test_cli_bad_input.py), so the real console script
runs here, in well under a second.
"""

import json
import os
import socket
import subprocess
import time

import fixtures
import testscenarios
import testtools

from glance_multiapi_cloud import errors
from selftests import cli_runs
from selftests.unit import cloud_records

load_tests = testscenarios.load_tests_apply_scenarios

WRONG_TYPES = b'glanceAPIs: [api0, api1]\nkeystoneEndpoint: {a: 1}\n'
ROLE_WRONG_TYPES = b'kind: Role\nmetadata: x\nrules: {verbs: get}\n'
STATE = 'a-cloud/state.json'


def _row(name, argv, code, *needles, **extra):
    return (name, dict(argv=argv, code=code, needles=needles, **extra))


def _up(name, option, path, *needles, code=22, **extra):
    return _row(name, ['up', '--state-dir', '{work}/cloud', option, path],
                code, *needles, **extra)


def _on_state(name, verb, code, *needles, **extra):
    return _row(name, [verb, '--state-dir', '{work}/a-cloud'], code,
                *needles, **extra)


class TestCloudBadInput(testscenarios.WithScenarios,
                        cli_runs.BadInputCase):

    script = 'glance-multiapi-cloud'
    extra_files = {'wrong-types': WRONG_TYPES,
                   'role-wrong-types': ROLE_WRONG_TYPES}
    scenarios = [
        _up('spec_binary', '--spec', '{binary}', '{binary}', 'UTF-8'),
        _up('spec_empty', '--spec', '{empty}', '{empty}', 'glanceAPIs'),
        _up('spec_directory', '--spec', '{dir}', '{dir}'),
        _up('spec_missing', '--spec', '{missing}', '{missing}'),
        _up('spec_symlink_loop', '--spec', '{loop}', '{loop}'),
        _up('spec_deeply_nested', '--spec', '{nested}', '{nested}',
            'nested'),
        _up('spec_wrong_types', '--spec', '{work}/wrong-types',
            'wrong-types', 'glanceAPIs'),
        _up('spec_unreadable', '--spec', '{unreadable}', '{unreadable}',
            'ermission', unreadable=True),
        _up('role_binary', '--kube-role', '{binary}', '{binary}', 'UTF-8'),
        _up('role_empty', '--kube-role', '{empty}', '{empty}', 'Role'),
        _up('role_directory', '--kube-role', '{dir}', '{dir}'),
        _up('role_symlink_loop', '--kube-role', '{loop}', '{loop}'),
        _up('role_deeply_nested', '--kube-role', '{nested}', '{nested}'),
        _up('role_wrong_types', '--kube-role', '{work}/role-wrong-types',
            'role-wrong-types', 'metadata.name'),
        _up('role_unreadable', '--kube-role', '{unreadable}',
            '{unreadable}', unreadable=True),
        _row('state_dir_is_a_file', ['up', '--state-dir', '{afile}'], 22,
             '{afile}', 'not a folder'),
        _row('state_dir_under_a_file',
             ['up', '--state-dir', '{afile}/cloud'], 22, '{afile}/cloud'),
        _row('state_dir_symlink_loop', ['up', '--state-dir', '{loop}'], 22,
             '{loop}'),
        _row('state_dir_env_is_a_file', ['up'], 22, '{afile}',
             env={'GLANCE_MULTIAPI_CLOUD_DIR': '{afile}'}),
        _up('base_port_negative', '--base-port', '-1', '--base-port -1'),
        _up('base_port_huge', '--base-port', '99999999999',
            '--base-port 99999999999'),
        _up('base_port_not_a_number', '--base-port', 'x', 'x',
            code=2),
        _up('fault_unknown', '--fault', 'no-such-fault', 'no-such-fault'),
        _up('heat_profile_unknown', '--heat-profile', 'x', 'x', code=2),
        _row('status_state_dir_is_a_file',
             ['status', '--state-dir', '{afile}'], 3, '{afile}'),
        _row('down_state_dir_symlink_loop',
             ['down', '--state-dir', '{loop}'], 3, '{loop}'),
        _row('get_no_cloud', ['get', '--state-dir', '{dir}'], 3, '{dir}'),
        _row('restart_missing_state_dir',
             ['restart', 'keystone', '--state-dir', '{missing}'], 3,
             '{missing}'),
        _row('patch_no_cloud',
             ['patch', '--state-dir', '{dir}', '-p', '{{"spec": ['], 3,
             '{dir}'),
        _row('patch_nothing', ['patch', '--state-dir', '{dir}'], 2,
             'patch needs'),
        _on_state('state_json_binary', 'status', 1, STATE, 'corrupt',
                  files={STATE: cli_runs.BINARY}),
        _on_state('state_json_deeply_nested', 'get', 1, STATE, 'corrupt',
                  files={STATE: cli_runs.NESTED.encode()}),
        _on_state('state_json_wrong_types', 'down', 1, STATE, 'corrupt',
                  files={STATE: b'["spec"]'}),
        _on_state('state_json_empty', 'status', 1, STATE, 'corrupt',
                  files={STATE: b''}),
    ]


def _closed_port():
    sock = socket.socket()
    sock.bind(('127.0.0.1', 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


def _pidfile_kind(path, kind):
    if kind == 'fifo':
        os.mkfifo(path)
    elif kind == 'link_to_dev_zero':
        os.symlink('/dev/zero', path)
    elif kind == 'folder':
        os.mkdir(path)
    else:
        with open(path, 'w') as f:
            f.write({'list': '[1, 2]', 'string': '"12"', 'bool_pid':
                     '{"pid": true, "start": "1"}', 'not_json': 'pid'}[kind])


class TestCloudStateFiles(testscenarios.WithScenarios, testtools.TestCase):
    """The files of a state dir that is not as up left it, read safely.

    A pidfile that is a FIFO, a link to /dev/zero, a folder, or holds a
    list, a string or no pid names no process: status and down take the
    service as not running, at once (a FIFO hung them, /dev/zero was
    read without end, a list was an internal error). status writes
    nothing, not even the port claim a record without ports made it
    write.
    """

    scenarios = [('%s_%s' % (verb, kind), dict(verb=verb, kind=kind))
                 for verb in ('status', 'down')
                 for kind in ('fifo', 'link_to_dev_zero', 'folder', 'list',
                              'string', 'bool_pid', 'not_json')]

    def setUp(self):
        super().setUp()
        self.work = self.useFixture(fixtures.TempDir()).path
        for name in ('home', 'tmp', 'cwd', 'cloud', 'cloud/run'):
            os.mkdir(os.path.join(self.work, name))
        os.chmod(os.path.join(self.work, 'cloud'), 0o700)
        state = cloud_records.state_json()
        state['ports'].update(keystone=_closed_port(),
                              kubeapi=_closed_port())
        with open(os.path.join(self.work, 'cloud', 'state.json'), 'w') as f:
            json.dump(state, f)
        self.pidfile = os.path.join(self.work, 'cloud', 'run',
                                    'keystone.pid')

    def run_cloud(self, *argv):
        env = {'PATH': os.environ.get('PATH', '/usr/bin:/bin'),
               'HOME': os.path.join(self.work, 'home'),
               'TMPDIR': os.path.join(self.work, 'tmp'), 'LANG': 'C.UTF-8'}
        started = time.monotonic()
        proc = subprocess.run(
            [os.path.join(cli_runs.BIN, 'glance-multiapi-cloud')] +
            list(argv) + ['--state-dir', os.path.join(self.work, 'cloud')],
            env=env, cwd=os.path.join(self.work, 'cwd'), capture_output=True,
            text=True, timeout=cli_runs.TIMEOUT)
        shown = 'exit %d\nstdout: %s\nstderr: %s' % (
            proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
        self.assertLess(time.monotonic() - started, 20, shown)
        self.assertNotIn('Traceback', proc.stdout + proc.stderr, shown)
        return proc, shown

    def test_pidfile_names_no_process(self):
        _pidfile_kind(self.pidfile, self.kind)
        before = cli_runs._tree(self.work)
        proc, shown = self.run_cloud(self.verb)
        after = cli_runs._tree(self.work)
        if self.verb == 'status':
            # NOTE: a service that is not running fails no status.
            self.assertEqual(0, proc.returncode, shown)
            self.assertRegex(proc.stdout, r'keystone +DOWN', shown)
            self.assertEqual(before, after, 'status wrote files')
        else:
            self.assertEqual(0, proc.returncode, shown)
            self.assertIn('stopped: nothing was running', proc.stdout,
                          shown)
            # NOTE: down removes the pidfiles (a folder stays); its lock
            # is made and the claims of its ports released.
            gone = set(before) - set(after)
            self.assertLessEqual(gone, {'cloud/run/keystone.pid'}, shown)


class TestCloudRecordOfSpecOnly(testtools.TestCase):
    """status of a record without the ports of its services."""

    def test_status_refuses_it_and_writes_nothing(self):
        self._status({'spec': cloud_records.SPEC}, 'keystone')

    def test_status_claims_no_port_for_a_service_unrecorded(self):
        # NOTE: the port claim status wrote, in the temporary folder.
        state = cloud_records.state_json()
        state['ports']['keystone'] = _closed_port()
        self._status(state, 'kubeapi')

    def _status(self, state, missing):
        work = self.useFixture(fixtures.TempDir()).path
        for name in ('home', 'tmp', 'cwd', 'cloud'):
            os.mkdir(os.path.join(work, name))
        with open(os.path.join(work, 'cloud', 'state.json'), 'w') as f:
            json.dump(state, f)
        before = cli_runs._tree(work)
        proc = subprocess.run(
            [os.path.join(cli_runs.BIN, 'glance-multiapi-cloud'), 'status',
             '--state-dir', os.path.join(work, 'cloud')],
            env={'PATH': os.environ.get('PATH', '/usr/bin:/bin'),
                 'HOME': os.path.join(work, 'home'),
                 'TMPDIR': os.path.join(work, 'tmp')},
            capture_output=True, text=True, timeout=cli_runs.TIMEOUT)
        shown = 'exit %d\nstdout: %s\nstderr: %s' % (
            proc.returncode, proc.stdout, proc.stderr)
        self.assertNotIn('Traceback', proc.stderr, shown)
        self.assertEqual(errors.EXIT_FAILED, proc.returncode, shown)
        self.assertEqual(1, len(proc.stderr.strip().splitlines()), shown)
        self.assertIn('records no port for %s' % missing, proc.stderr,
                      shown)
        self.assertEqual(before, cli_runs._tree(work), 'status wrote files')
