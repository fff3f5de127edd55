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

"""Every component of the embedded cloud offers the same verbs."""

import dataclasses
import os
import pkgutil
import shutil
import tempfile

import testtools

from glance_multiapi_cloud import cli
from glance_multiapi_cloud import cloud
from glance_multiapi_cloud import components
from glance_multiapi_cloud.components import heat
from glance_multiapi_cloud.kubeapi.embedded import objects as kubeobjects
from glance_multiapi_cloud import record as record_mod
from glance_multiapi_cloud import state as state_mod

SPEC = {'keystoneEndpoint': 'api0', 'glanceAPIs': {
    'api0': {'type': 'split', 'replicas': 1, 'customServiceConfig': ''}}}


class ComponentsTest(testtools.TestCase):

    def test_every_component_has_every_verb(self):
        for comp in components.modules():
            for verb in components.VERBS:
                self.assertTrue(callable(getattr(comp, verb, None)),
                                '%s has no verb %s()' % (comp.__name__,
                                                         verb))
            self.assertIsInstance(getattr(comp, 'ENTRIES', None), tuple,
                                  comp.__name__)

    def test_every_component_module_is_listed(self):
        names = {info.name for info in pkgutil.iter_modules(
            [os.path.dirname(components.__file__)])}
        self.assertEqual(names, {comp.name for comp in
                                 components.COMPONENTS})

    def test_stop_waves_hold_every_component_heat_first(self):
        waves = components.stop_waves()
        self.assertCountEqual(components.modules(),
                              [comp for wave in waves for comp in wave])
        self.assertEqual([heat], waves[0])

    def test_every_setting_is_an_option_field_and_a_flag_of_up(self):
        settings = components.settings()
        self.assertEqual(list(settings), [
            f.name for f in dataclasses.fields(record_mod.Options)])
        parser = cli.build_parser()
        defaults = parser.parse_args(['up'])
        self.assertEqual(record_mod.Options(), record_mod.Options(**{
            field: getattr(defaults, field) for field in settings}))
        for field, setting in settings.items():
            if setting.kind is bool:
                given, wanted = [], not setting.default
            else:
                wanted = (setting.choices or ('7',))[-1]
                given = [wanted]
            args = parser.parse_args(['up', setting.flag] + given)
            self.assertEqual(str(wanted), str(getattr(args, field)), field)

    def test_state_dir_entries_are_declared_once(self):
        own = cloud.own_entries()
        self.assertEqual(len(own), len(set(own)), own)
        for entry in ('kubeconfig', 'kube-configmaps', 'heat', 'files'):
            self.assertIn(entry, own)

    def test_the_control_plane_turns_on_what_the_options_do(self):
        with_heat = record_mod.Record(spec=SPEC, options=record_mod.Options(
            heat=True))
        with_heat.kube.uid_seed = '6a1a0c5e-0000-4000-8000-000000000000'
        spec = kubeobjects.controlplane(with_heat)['spec']
        self.assertEqual(['glance', 'heat'], sorted(spec))
        self.assertEqual({'enabled': True}, spec['heat'])

    def test_restart_is_none_for_names_not_its_own(self):
        root = tempfile.mkdtemp(prefix='gmt-unit-components-')
        self.addCleanup(shutil.rmtree, root, ignore_errors=True)
        state = state_mod.State(root)
        state.record = record_mod.Record.from_json({
            'spec': SPEC, 'ports': {},
            'options': {'registry': True, 'fileserver': True,
                        'heat': True}})
        for comp in components.modules():
            self.assertIsNone(comp.restart(state, 'no-such-service'),
                              comp.__name__)
        self.assertEqual({}, state.record.ports)
