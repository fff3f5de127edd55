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

import os
import pkgutil
import shutil
import tempfile

import testtools

from glance_multiapi_cloud import components
from glance_multiapi_cloud import record as record_mod
from glance_multiapi_cloud import state as state_mod

SPEC = {'keystoneEndpoint': 'api0', 'glanceAPIs': {
    'api0': {'type': 'split', 'replicas': 1, 'customServiceConfig': ''}}}


class ComponentsTest(testtools.TestCase):

    def test_every_component_has_every_verb(self):
        for comp in components.COMPONENTS:
            for verb in components.VERBS:
                self.assertTrue(callable(getattr(comp, verb, None)),
                                '%s has no verb %s()' % (comp.__name__,
                                                         verb))

    def test_every_component_module_is_listed(self):
        names = {info.name for info in pkgutil.iter_modules(
            [os.path.dirname(components.__file__)])}
        self.assertEqual(names, {comp.__name__.rsplit('.', 1)[1]
                                 for comp in components.COMPONENTS})

    def test_stop_waves_hold_every_component_heat_first(self):
        stopped = [comp for wave in components.STOP_WAVES for comp in wave]
        self.assertCountEqual(components.COMPONENTS, stopped)
        self.assertEqual((components.heat,), components.STOP_WAVES[0])

    def test_restart_is_none_for_names_not_its_own(self):
        root = tempfile.mkdtemp(prefix='gmt-unit-components-')
        self.addCleanup(shutil.rmtree, root, ignore_errors=True)
        state = state_mod.State(root)
        state.record = record_mod.Record.from_json({
            'spec': SPEC, 'ports': {},
            'options': {'registry': True, 'fileserver': True,
                        'heat': True}})
        for comp in components.COMPONENTS:
            self.assertIsNone(comp.restart(state, 'no-such-service'),
                              comp.__name__)
        self.assertEqual({}, state.record.ports)
