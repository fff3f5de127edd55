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

"""The typed record of state.json: round trip, old files, bad ones."""

import json
import os

import fixtures
import testtools

from glance_multiapi_cloud.kubeapi.embedded import heat as kubeheat
from glance_multiapi_cloud import errors
from glance_multiapi_cloud import record as record_mod
from glance_multiapi_cloud import state as state_mod

SPEC = {'keystoneEndpoint': 'api0',
        'glanceAPIs': {'api0': {'type': 'single', 'replicas': 1}}}
# NOTE: the shape up wrote before the record was typed (the release of
# 2026-12), with every key it could hold.
PREVIOUS = {
    'spec': SPEC, 'faults': [['api-down', 'api0']], 'annotations': {},
    'base_port': None, 'port_block': 30208,
    'ports': {'keystone': 30208, 'glance-api0-internal': 30209},
    'passwords': {'admin': 'pw'}, 'speed': {'client_start': 0.4},
    'options': {'registry': True, 'fileserver': True, 'heat': False,
                'tls': False, 'heat_profile': 'embedded',
                'heat_rpc_timeout': 30, 'kube_namespace': 'openstack',
                'kube_account': None},
    'kube': {'namespace': 'openstack', 'token': 't', 'tokens': {'t': 'sa'},
             'secrets': {}, 'rules': None, 'account': 'sa',
             'uid_seed': '6a1a0c5e-0000-4000-8000-000000000000',
             'created': '2026-12-01T00:00:00Z', 'generation': 3},
    'status': {'apiEndpoint': {'api0-public': 'http://127.0.0.1:1'}},
    'reconciled_spec': SPEC, 'route': {'api': 'api0'},
    'api_keys': {'api0': 'k'}, 'startup_seconds': 12.5,
    'startup_steps': {'keystone start': 3.0},
}


class RecordTest(testtools.TestCase):

    def test_a_previous_release_state_loads_and_round_trips(self):
        record = record_mod.Record.from_json(PREVIOUS)
        self.assertEqual('api0', record.spec['keystoneEndpoint'])
        self.assertEqual(3, record.kube.generation)
        self.assertFalse(record.options.heat)
        # NOTE: a field it did not write takes its default.
        self.assertEqual(kubeheat.DEFAULT_STATE,
                         record.options.heat_state)
        self.assertIsNone(record.deployed)
        again = record_mod.Record.from_json(record.to_json())
        self.assertEqual(record, again)

    def test_unknown_or_mistyped_fields_are_named(self):
        for change, words in (
                ({'surprise': 1}, 'surprise not known to this release'),
                ({'ports': []},
                 'ports is a list, not what this release writes'),
                ({'startup_seconds': 'x'}, 'startup_seconds is a string'),
                ({'options': dict(PREVIOUS['options'], heat='yes')},
                 'options: heat is a string'),
                ({'kube': dict(PREVIOUS['kube'], generation=True)},
                 'kube: generation is true or false'),
                ({'options': 5}, 'options is a number'),
                ({'spec': None}, 'is not the record of a cloud')):
            exc = self.assertRaises(record_mod.RecordError,
                                    record_mod.Record.from_json,
                                    dict(PREVIOUS, **change), 'x.json')
            self.assertIn(words, str(exc))
            self.assertTrue(str(exc).startswith('x.json'), str(exc))

    def test_state_refuses_a_bad_file_in_one_line(self):
        root = self.useFixture(fixtures.TempDir()).path
        with open(os.path.join(root, state_mod.STATE_FILE), 'w') as f:
            json.dump(dict(PREVIOUS, surprise=1), f)
        exc = self.assertRaises(errors.CloudError,
                                state_mod.State(root).load)
        self.assertIn('state.json is corrupt: ', str(exc))
        self.assertIn('surprise not known to this release', str(exc))
        self.assertNotIn('\n', str(exc))

    def test_state_saves_what_it_loads(self):
        root = self.useFixture(fixtures.TempDir()).path
        state = state_mod.State(root)
        state.record = record_mod.Record.from_json(PREVIOUS)
        state.save()
        loaded = state_mod.State(root).load()
        self.assertEqual(state.record, loaded.record)
