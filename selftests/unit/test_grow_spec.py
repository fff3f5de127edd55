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

"""What the grow/shrink scenario adds: a given spec, or a copy."""

import json
import types

from tempest.lib import exceptions
import testtools

from glance_multiapi_tests.multiapi import discovery
from glance_multiapi_tests.tests.scenario import test_grow_shrink

CONF_TEXT = ('[DEFAULT]\nenabled_backends = ceph0:rbd\n'
             '[glance_store]\ndefault_backend = ceph0\n')


def opts(spec=None, store=None):
    return types.SimpleNamespace(grow_api_spec=spec, grow_api_store=store)


class CopiedSpecTest(testtools.TestCase):

    def test_copies_what_it_serves_not_its_addresses(self):
        api = discovery.Api(name='default', type='split', spec={
            'replicas': 3, 'customServiceConfig': CONF_TEXT,
            'networkAttachments': ['storage'],
            'override': {'service': {'internal': {'metadata': {
                'annotations': {'metallb.universe.tf/loadBalancerIPs':
                                '172.17.0.80'}}}}},
            'tls': {'api': {'internal': {'secretName': 'cert-x'}}}})
        self.assertEqual({'type': 'split', 'replicas': 3,
                          'customServiceConfig': CONF_TEXT,
                          'networkAttachments': ['storage']},
                         test_grow_shrink.copied_spec(api))

    def test_defaulted_type_is_written_out(self):
        api = discovery.Api(name='a', type='single', spec={})
        self.assertEqual({'type': 'single'},
                         test_grow_shrink.copied_spec(api))


class GivenSpecTest(testtools.TestCase):

    def test_store_defaults_to_its_default_backend(self):
        spec = {'type': 'split', 'customServiceConfig': CONF_TEXT}
        self.assertEqual((spec, 'ceph0'), test_grow_shrink._given_spec(
            opts(json.dumps(spec))))
        self.assertEqual('other', test_grow_shrink._given_spec(
            opts(json.dumps(spec), 'other'))[1])

    def test_bad_spec_is_invalid_configuration(self):
        for text in ('{', '[1]', '{"type": "split"}'):
            exc = self.assertRaises(exceptions.InvalidConfiguration,
                                    test_grow_shrink._given_spec,
                                    opts(text))
            self.assertIn('grow_api_', str(exc))
