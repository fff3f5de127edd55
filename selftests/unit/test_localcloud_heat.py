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
the faults that break heat, the heat profiles."""

import configparser
import io
import os
import shutil
import tempfile
import time

import fixtures
import testtools

from glance_multiapi_cloud import cli
from glance_multiapi_cloud import cloud
from glance_multiapi_cloud import errors
from glance_multiapi_cloud import faults
from glance_multiapi_cloud import heatconf
from glance_multiapi_cloud.components import heat
from glance_multiapi_cloud.runtime import heat_faults
from glance_multiapi_cloud import record as record_mod
from glance_multiapi_cloud import state as state_mod

# NOTE: heat.conf depends on the faults only, not on the Glance APIs.
SPEC = {'keystoneEndpoint': 'api0', 'glanceAPIs': {}}


class HeatConfTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        root = tempfile.mkdtemp(prefix='gmt-unit-heat-')
        self.addCleanup(shutil.rmtree, root, ignore_errors=True)
        self.state = state_mod.State(root)
        self.state.record = record_mod.Record.from_json({
            'spec': SPEC, 'ports': {'keystone': 5000, 'rabbitmq': 5672,
                                    'heat-api': 8004, 'heat-api-cfn': 8000},
            'options': {'heat': True}})
        self.useFixture(fixtures.MockPatchObject(heatconf, 'heat_etc',
                                                 lambda: '/etc/heat'))

    def _conf(self, profile=None):
        if profile:
            self.state.record.options.heat_profile = profile
        # NOTE: [DEFAULT] as a plain section, not merged into the others.
        parser = configparser.ConfigParser(interpolation=None,
                                           default_section='no-defaults')
        parser.read_string(heat._conf_text(self.state))
        return parser

    def test_embedded_profile_is_the_default(self):
        conf = self._conf()
        self.assertEqual('embedded', heatconf.profile(self.state))
        self.assertEqual('1', conf['DEFAULT']['num_engine_workers'])
        section = dict(conf['oslo_messaging_rabbit'])
        self.assertEqual('true', section.get('use_queue_manager'))
        self.assertEqual('glance-multiapi-cloud-5672', section['hostname'])
        for option in ('rabbit_quorum_queue', 'amqp_durable_queues'):
            self.assertNotIn(option, section)

    def test_operator_profile_renders_heat_operator_conf(self):
        # NOTE: heat-operator templates/heat/config/00-default.conf with
        # QuorumQueues true (its RabbitMQ supports them, as Debian's).
        conf = self._conf('operator')
        self.assertEqual('4', conf['DEFAULT']['num_engine_workers'])
        self.assertEqual({'heartbeat_timeout_threshold': '0',
                          'rabbit_quorum_queue': 'true',
                          'rabbit_transient_quorum_queue': 'true',
                          'amqp_durable_queues': 'true'},
                         dict(conf['oslo_messaging_rabbit']))
        # NOTE: oslo.service's default, which the operator's 60 s pod
        # termination grace period is aligned with.
        self.assertEqual('60', conf['DEFAULT']['graceful_shutdown_timeout'])

    def test_write_conf_reports_changes_only(self):
        os.makedirs(self.state.path('heat'))
        self.assertTrue(heat._write_conf(self.state))
        self.assertFalse(heat._write_conf(self.state))
        self.assertEqual(0o600, os.stat(heatconf.conf_path(self.state)).st_mode
                         & 0o777)
        self.state.record.options.heat_profile = 'operator'
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
        self.useFixture(fixtures.MockPatchObject(heatconf, 'SHM_DIR', shm))
        heatconf.remove_shm_files(self.state)
        self.assertEqual(sorted(names[2:]), sorted(os.listdir(shm)))

    def test_remove_shm_files_without_broker_port(self):
        del self.state.record.ports['rabbitmq']
        heatconf.remove_shm_files(self.state)
        self.assertNotIn('rabbitmq', self.state.record.ports)


class HeatFaultsTest(testtools.TestCase):

    def test_heat_faults_need_heat(self):
        for name, arg in (('heat-engine-down', None),
                          ('heat-image-drift', 'heat-engine')):
            exc = self.assertRaises(errors.Invalid, faults.Faults,
                                    [[name, arg]], SPEC, with_heat=False)
            self.assertEqual('fault %s needs heat (up --with-heat)' % name,
                             str(exc))
            faults.Faults([[name, arg]], SPEC, with_heat=True)

    def test_lossy_engine_stop_fault_is_gone(self):
        # NOTE: replaced by up --heat-profile operator.
        exc = self.assertRaises(errors.Invalid, faults.parse,
                                'heat-lossy-engine-stop')
        self.assertIn('unknown fault', str(exc))

    def test_heat_faults_take_no_argument(self):
        exc = self.assertRaises(errors.Invalid, faults.Faults,
                                [['heat-engine-down', 'api0']], SPEC)
        self.assertEqual('fault heat-engine-down takes no argument',
                         str(exc))

    def test_glance_faults_do_not_need_heat(self):
        faults.Faults([['patch-not-reconciled', None]], SPEC,
                      with_heat=False)

    def test_rpc_timeout_needs_seconds(self):
        for arg in (None, '', '0', 'x', '20:-1', '20:y', 'nan', 'inf',
                    'delete:inf', 'Delete'):
            exc = self.assertRaises(errors.Invalid, faults.Faults,
                                    [['heat-rpc-timeout', arg]], SPEC)
            self.assertIn('fault heat-rpc-timeout needs SECONDS[:DELAY]',
                          str(exc))
        self.assertRaises(errors.Invalid, faults.Faults,
                          [['heat-rpc-timeout', '20']], SPEC,
                          with_heat=False)

    def test_rpc_timeout_window_counts_from_the_restart(self):
        active = faults.Faults([['heat-rpc-timeout', '20:1.5']], SPEC)
        self.assertIsNone(active.rpc_timeout(None))
        self.assertEqual(1.5, active.rpc_timeout(0))
        self.assertEqual(1.5, active.rpc_timeout(19.9))
        self.assertIsNone(active.rpc_timeout(20))
        self.assertIsNone(faults.Faults([], SPEC).rpc_timeout(1))

    def test_rpc_timeout_until_delete_ends_when_lifted(self):
        active = faults.Faults([['heat-rpc-timeout', 'delete:0.5']], SPEC)
        self.assertIsNone(active.rpc_timeout(None))
        self.assertEqual(0.5, active.rpc_timeout(0))
        self.assertEqual(0.5, active.rpc_timeout(1e6))
        self.assertIsNone(active.rpc_timeout(1, lifted=True))
        self.assertTrue(active.lifted_by('delete_stack'))
        self.assertFalse(active.lifted_by('show_stack'))
        # NOTE: a timed window is not ended by a delete.
        timed = faults.Faults([['heat-rpc-timeout', '20']], SPEC)
        self.assertFalse(timed.lifted_by('delete_stack'))
        self.assertEqual(0, timed.rpc_timeout(1, lifted=True))

    def _cloud_with_rpc_fault(self, arg):
        """(root, state) of a saved cloud under heat-rpc-timeout=arg."""
        root = tempfile.mkdtemp(prefix='gmt-unit-heat-')
        self.addCleanup(shutil.rmtree, root, ignore_errors=True)
        os.mkdir(os.path.join(root, 'heat'))
        state = state_mod.State(root)
        state.record = record_mod.Record.from_json({
            'spec': SPEC, 'faults': [['heat-rpc-timeout', arg]]})
        state.save()
        return root, state

    def test_rpc_delay_lifted_by_the_first_delete_of_a_restart(self):
        root, _state = self._cloud_with_rpc_fault('delete')
        # NOTE: no restart yet: a delete neither fails nor lifts.
        self.assertIsNone(heat_faults.rpc_delay(root, 'delete_stack'))
        self.assertFalse(heat_faults.lifted(root))
        heat_faults.mark_restart(root)
        self.assertEqual(0, heat_faults.rpc_delay(root, 'show_stack'))
        self.assertIsNone(heat_faults.rpc_delay(root, 'delete_stack'))
        self.assertIsNone(heat_faults.rpc_delay(root, 'show_stack'))
        # NOTE: the next restart fails calls again until its own delete.
        with open(heat_faults.marker_path(root), 'w') as f:
            f.write('%.6f\n' % (time.time() + 1))
        self.assertEqual(0, heat_faults.rpc_delay(root, 'show_stack'))

    def test_rpc_delay_reads_faults_and_restart_marker(self):
        root, state = self._cloud_with_rpc_fault('30')
        self.assertIsNone(heat_faults.rpc_delay(root))
        heat_faults.mark_restart(root)
        self.assertEqual(0, heat_faults.rpc_delay(root))
        state.record.faults = []
        state.save()
        self.assertIsNone(heat_faults.rpc_delay(root))


class HeatProfileOptionTest(testtools.TestCase):

    def test_up_takes_a_known_profile_embedded_by_default(self):
        parser = cli.build_parser()
        self.assertEqual('embedded', parser.parse_args(
            ['up', '--with-heat']).heat_profile)
        self.assertEqual('operator', parser.parse_args(
            ['up', '--with-heat', '--heat-profile', 'operator']).heat_profile)
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', io.StringIO()))
        self.assertRaises(SystemExit, parser.parse_args,
                          ['up', '--heat-profile', 'lossy'])

    def test_cloud_up_refuses_unknown_profile_before_starting(self):
        root = tempfile.mkdtemp(prefix='gmt-unit-heat-')
        self.addCleanup(shutil.rmtree, root, ignore_errors=True)
        state = state_mod.State(root)
        text, source = cli._read_spec(None)
        exc = self.assertRaises(errors.Invalid, cloud.up, state,
                                cloud.UpRequest(
                                    spec_text=text, spec_source=source,
                                    options=record_mod.Options(
                                        heat=True, heat_profile='lossy')))
        self.assertEqual("unknown heat profile 'lossy'; known: embedded, "
                         "operator", str(exc))
        self.assertIsNone(state.record)


class ServiceSysPathTest(testtools.TestCase):
    """Services and uploader leave their working folder off sys.path."""

    def setUp(self):
        super().setUp()
        from glance_multiapi_cloud import runtime
        self.runtime = runtime
        folder = self.useFixture(fixtures.TempDir()).path
        self.useFixture(fixtures.MockPatch('os.getcwd', return_value=folder))
        self.folder = folder
        self.path = ['', '.', folder, '/venv/site-packages', '/std']
        self.useFixture(fixtures.MockPatch('sys.path', list(self.path)))

    def test_working_folder_entries_go_the_rest_stay(self):
        import sys
        self.runtime.leave_working_folder_off_sys_path()
        self.assertEqual(['/venv/site-packages', '/std'], sys.path)

    def test_the_uploader_and_the_services_share_one_rule(self):
        from glance_multiapi_kernel import syspath
        self.assertIs(syspath.leave_working_folder_off_sys_path,
                      self.runtime.leave_working_folder_off_sys_path)

    def test_a_vanished_working_folder_drops_only_dot_and_empty(self):
        import sys
        self.useFixture(fixtures.MockPatch(
            'os.getcwd', side_effect=FileNotFoundError(2, 'gone')))
        self.runtime.leave_working_folder_off_sys_path()
        self.assertEqual([self.folder, '/venv/site-packages', '/std'],
                         sys.path)

    def test_outside_uwsgi_the_wsgi_modules_change_nothing(self):
        import sys
        from unittest import mock
        self.assertNotIn('uwsgi', sys.modules)
        self.runtime.uwsgi_sys_path()
        self.assertEqual(self.path, sys.path)
        with mock.patch.dict(sys.modules, {'uwsgi': object()}):
            self.runtime.uwsgi_sys_path()
        self.assertEqual(['/venv/site-packages', '/std'], sys.path)
