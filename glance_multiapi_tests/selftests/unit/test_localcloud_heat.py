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

"""heat.conf of the embedded cloud, the files it leaves in /dev/shm and
the faults that break heat."""

import configparser
import os
import shutil
import tempfile

import fixtures
import testtools

from glance_multiapi_tests.localcloud import errors
from glance_multiapi_tests.localcloud import faults
from glance_multiapi_tests.localcloud.components import heat
from glance_multiapi_tests.localcloud import state as state_mod

# NOTE: heat.conf depends on the faults only, not on the Glance APIs.
SPEC = {'keystoneEndpoint': 'api0', 'glanceAPIs': {}}


class HeatConfTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        root = tempfile.mkdtemp(prefix='gmt-unit-heat-')
        self.addCleanup(shutil.rmtree, root, ignore_errors=True)
        self.state = state_mod.State(root)
        self.state.data.update({'spec': SPEC,
                                'ports': {'keystone': 5000,
                                          'rabbitmq': 5672,
                                          'heat-api': 8004,
                                          'heat-api-cfn': 8000},
                                'options': {'heat': True}})
        self.useFixture(fixtures.MockPatchObject(heat, '_heat_etc',
                                                 lambda: '/etc/heat'))

    def _rabbit_section(self):
        parser = configparser.ConfigParser(interpolation=None)
        parser.read_string(heat._conf_text(self.state))
        return dict(parser['oslo_messaging_rabbit'])

    def test_healthy_heat_keeps_rpc_queues(self):
        section = self._rabbit_section()
        self.assertEqual('true', section.get('use_queue_manager'))
        self.assertEqual('glance-multiapi-cloud-5672', section['hostname'])

    def test_lossy_engine_stop_uses_oslo_messaging_defaults(self):
        self.state.data['faults'] = [['heat-lossy-engine-stop', None]]
        section = self._rabbit_section()
        self.assertNotIn('use_queue_manager', section)
        self.assertNotIn('hostname', section)

    def test_write_conf_reports_changes_only(self):
        os.makedirs(self.state.path('heat'))
        self.assertTrue(heat._write_conf(self.state))
        self.assertFalse(heat._write_conf(self.state))
        self.assertEqual(0o600, os.stat(heat._conf_path(self.state)).st_mode
                         & 0o777)
        self.state.data['faults'] = [['heat-lossy-engine-stop', None]]
        self.assertTrue(heat._write_conf(self.state))

    def test_remove_shm_files_only_this_clouds(self):
        shm = tempfile.mkdtemp(prefix='gmt-unit-shm-')
        self.addCleanup(shutil.rmtree, shm, ignore_errors=True)
        names = ['glance-multiapi-cloud-5672_heat-engine_qmanager',
                 'glance-multiapi-cloud-5672_heat-api_qmanager',
                 'glance-multiapi-cloud-56720_heat-api_qmanager',
                 'somebody-else_heat-engine_qmanager']
        for name in names:
            open(os.path.join(shm, name), 'w').close()
        self.useFixture(fixtures.MockPatchObject(heat, 'SHM_DIR', shm))
        heat._remove_shm_files(self.state)
        self.assertEqual(sorted(names[2:]), sorted(os.listdir(shm)))

    def test_remove_shm_files_without_broker_port(self):
        del self.state.data['ports']['rabbitmq']
        heat._remove_shm_files(self.state)
        self.assertNotIn('rabbitmq', self.state.data['ports'])


class HeatFaultsTest(testtools.TestCase):

    def test_heat_faults_need_heat(self):
        for name in ('heat-engine-down', 'heat-lossy-engine-stop'):
            exc = self.assertRaises(errors.Invalid, faults.Faults,
                                    [[name, None]], SPEC, with_heat=False)
            self.assertEqual('fault %s needs heat (up --with-heat)' % name,
                             str(exc))
            faults.Faults([[name, None]], SPEC, with_heat=True)

    def test_heat_faults_take_no_argument(self):
        exc = self.assertRaises(errors.Invalid, faults.Faults,
                                [['heat-engine-down', 'api0']], SPEC)
        self.assertEqual('fault heat-engine-down takes no argument',
                         str(exc))

    def test_glance_faults_do_not_need_heat(self):
        faults.Faults([['patch-not-reconciled', None]], SPEC,
                      with_heat=False)
