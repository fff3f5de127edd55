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
"""The default spec is the DCN layout: two split APIs and an edge one.

An edge API exposes only an internal endpoint and is never in the
catalog; the endpoint, catalog and placement checks must judge it
through that endpoint (they failed with KeyError 'public' before). The
cloud is one of the class's own, brought up with no --spec at all.
"""

import json

from selftests.functional import base

CHECKS = (r'glance_multiapi_tests\.tests\.api\.'
          r'(test_store_placement|test_endpoints|test_catalog)\.')


class DcnLayoutTest(base.CloudTestCase):
    """The read-only multi-API checks pass on the default (DCN) layout."""

    cloud_env = 'GLANCE_MULTIAPI_FUNCTIONAL_DCN_CLOUD'
    up_args = ('--no-registry', '--no-fileserver')

    def test_default_spec_is_dcn(self):
        doc = self.doc()
        spec = doc['spec']
        self.assertEqual('api0', spec['keystoneEndpoint'])
        self.assertEqual(
            {'api0': 'split', 'api1': 'split', 'edge0': 'edge'},
            {name: api['type'] for name, api in spec['glanceAPIs'].items()})
        self.assertEqual(['edge0-internal'], sorted(
            k for k in doc['status']['apiEndpoint'] if k.startswith('edge0')))
        status = json.loads(self.cli('status', '-o', 'json',
                                     check=True).stdout)
        self.assertEqual(
            {'api0': ['ceph0', 'ceph2'], 'api1': ['ceph1'],
             'edge0': ['ceph0', 'ceph2']},
            {name: api['stores'] for name, api in status['apis'].items()})

    def test_checks_pass_with_an_edge_api(self):
        results = self.run_tempest(CHECKS, concurrency=2)
        self.assertEqual(7, len(results), results)
        for test_id, (status, details) in sorted(results.items()):
            self.assertEqual('success', status,
                             '%s: %s' % (test_id, details))
