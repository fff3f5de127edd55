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

"""Artifacts of a cloud: status.json and an owned cloud's teardown."""

import importlib.util
import json
import os
import shutil
import stat
import subprocess
import sys

import fixtures
import testtools

from selftests.functional import base

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), '..',
                                     '..'))


def load_tool():
    # NOTE: as "python tools/collect_artifacts.py" runs it: tools/ on
    # sys.path (its checkout_path); not left to another test module.
    tools = os.path.join(REPO, 'tools')
    if tools not in sys.path:
        sys.path.insert(0, tools)
    spec = importlib.util.spec_from_file_location(
        'collect_artifacts', os.path.join(REPO, 'tools',
                                          'collect_artifacts.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class WriteStatusTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.tool = load_tool()
        folder = self.useFixture(fixtures.TempDir()).path
        self.tool.BIN = folder
        self.dest = os.path.join(folder, 'dest')
        os.mkdir(self.dest)

    def stub(self, stdout, rc):
        path = os.path.join(self.tool.BIN, 'glance-multiapi-cloud')
        with open(path, 'w') as f:
            f.write("#!/bin/bash\nprintf '%%s' '%s'\necho 'api1 not ready' "
                    ">&2\nexit %d\n" % (stdout, rc))
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)

    def read(self, name):
        with open(os.path.join(self.dest, name)) as f:
            return f.read()

    def test_ready_cloud(self):
        self.stub('{"apis": {"api0": "ok"}}', 0)
        self.assertEqual(['status.json'],
                         self.tool.write_status('/no/state', self.dest))
        self.assertEqual({'apis': {'api0': 'ok'}},
                         json.loads(self.read('status.json')))

    def test_service_not_ready_keeps_the_document(self):
        self.stub('{"apis": {"api1": "down"}}', 1)
        self.assertEqual(['status.json', 'status-error.txt'],
                         self.tool.write_status('/no/state', self.dest))
        self.assertEqual({'apis': {'api1': 'down'}},
                         json.loads(self.read('status.json')))
        error = self.read('status-error.txt')
        self.assertIn('status_exit_code: 1', error)
        self.assertIn('api1 not ready', error)

    def test_output_that_is_not_json(self):
        self.stub('Traceback', 1)
        self.assertEqual(['status-error.txt'],
                         self.tool.write_status('/no/state', self.dest))
        self.assertIn('status_exit_code: 1', self.read('status-error.txt'))

    def test_command_missing(self):
        self.assertEqual(['status-error.txt'],
                         self.tool.write_status('/no/state', self.dest))
        self.assertIn('status_exit_code: none',
                      self.read('status-error.txt'))


class OwnedCloudTeardownTest(testtools.TestCase):
    """base.CloudTestCase's clouds of their own: kept, reused, taken down."""

    def setUp(self):
        super().setUp()
        self.calls = []
        self.useFixture(fixtures.MockPatch(
            'selftests.functional.base.cli_argv',
            side_effect=lambda *args: self.calls.append(args) or ['true']))
        self.useFixture(fixtures.MockPatch(
            'selftests.functional.base._kept', []))
        self.useFixture(fixtures.EnvironmentVariable(base.ENV_ARTIFACTS))

    def owned(self):
        cloud = base._OwnedCloud(('X', ()), 'Owned')
        self.addCleanup(shutil.rmtree, cloud.folder, ignore_errors=True)
        return cloud

    def test_down_and_removal_after_a_collection_timeout(self):
        cloud = self.owned()

        def timeout():
            raise subprocess.TimeoutExpired('collect_artifacts.py', 300)

        cloud._keep_artifacts = timeout
        cloud.down()
        self.assertEqual([(cloud.state_dir, 'down')], self.calls)
        self.assertFalse(os.path.exists(cloud.folder))

    def classes(self, env_a='GMT_UNIT_A', env_b='GMT_UNIT_B'):
        class A(base.CloudTestCase):
            cloud_env = env_a
            up_args = ('--with-heat',)

        class B(A):
            cloud_env = env_b

        for env in (env_a, env_b):
            self.useFixture(fixtures.EnvironmentVariable(env))
        return A, B

    def test_next_class_of_the_same_kind_reuses_the_cloud(self):
        a, b = self.classes(env_b='GMT_UNIT_A')
        a.setUpClass()
        a.tearDownClass()
        b.setUpClass()
        self.addCleanup(b._teardown_owned)
        self.assertEqual(a.state_dir, b.state_dir)
        self.assertEqual([(a.state_dir, 'up', '-q', '--with-heat')],
                         self.calls)

    def test_another_kind_takes_the_kept_cloud_down_first(self):
        a, b = self.classes()
        a.setUpClass()
        a.tearDownClass()
        self.assertTrue(os.path.isdir(os.path.dirname(a.state_dir)))
        b.setUpClass()
        self.addCleanup(b._teardown_owned)
        self.assertNotEqual(a.state_dir, b.state_dir)
        self.assertEqual([(a.state_dir, 'up', '-q', '--with-heat'),
                          (a.state_dir, 'down'),
                          (b.state_dir, 'up', '-q', '--with-heat')],
                         self.calls)
        self.assertFalse(os.path.exists(os.path.dirname(a.state_dir)))

    def test_exit_takes_the_kept_cloud_down(self):
        a, _b = self.classes()
        a.setUpClass()
        a.tearDownClass()
        base._down_kept()
        self.assertEqual((a.state_dir, 'down'), self.calls[-1])
        self.assertEqual([], base._kept)


class MaskFilesTest(testtools.TestCase):
    """--mask: the doctor's reports, masked in place."""

    def setUp(self):
        super().setUp()
        self.tool = load_tool()
        self.folder = self.useFixture(fixtures.TempDir()).path
        self.state = os.path.join(self.folder, 'cloud')
        os.makedirs(os.path.join(self.state, 'tempest', 'etc'))
        with open(os.path.join(self.state, 'state.json'), 'w') as f:
            json.dump({'passwords': {'admin': 'admin-pw-1'},
                       'kube': {'token': 'kube-token-2'}}, f)
        with open(os.path.join(self.state, 'tempest', 'etc',
                               'tempest.conf'), 'w') as f:
            f.write('[auth]\nadmin_password = conf-pw-3\n')

    def test_doctor_reports_masked(self):
        report = {'discovery_command': 'oc get glance --token=kube-token-2',
                  'password': 'conf-pw-3',
                  'note': 'login admin-pw-1 and conf-pw-3'}
        json_path = os.path.join(self.folder, 'doctor.json')
        text_path = os.path.join(self.folder, 'doctor.txt')
        with open(json_path, 'w') as f:
            json.dump(report, f, indent=2)
        with open(text_path, 'w') as f:
            f.write('discovery: oc get glance --token=kube-token-2\n')
        self.assertEqual(0, self.tool.main(
            ['--state-dir', self.state, '--mask', json_path,
             '--mask', text_path]))
        with open(json_path) as f:
            masked = f.read()
        with open(text_path) as f:
            masked_text = f.read()
        for secret in ('admin-pw-1', 'kube-token-2', 'conf-pw-3'):
            self.assertNotIn(secret, masked + masked_text)
        self.assertEqual('***', json.loads(masked)['password'])
        self.assertIn('--token=***', masked_text)

    def test_mask_with_dest_is_bad_usage(self):
        self.assertRaises(SystemExit, self.tool.main,
                          ['--state-dir', self.state, '--mask', 'x', 'dest'])
