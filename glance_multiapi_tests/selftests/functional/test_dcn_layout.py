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
"""The DCN layout: two split APIs and an edge one, on a cloud of its own.

An edge API exposes only an internal endpoint and is never in the
catalog; the endpoint, catalog and placement checks must judge it
through that endpoint (they failed with KeyError 'public' before).
"""

import json
import os

from glance_multiapi_tests.selftests.functional import base

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..',
                                     '..'))
DCN_SPEC = os.path.join(REPO, 'etc', 'glance-multiapi-cloud-dcn.yaml')
CHECKS = (r'glance_multiapi_tests\.tests\.api\.'
          r'(test_store_placement|test_endpoints|test_catalog)\.')


class DcnLayoutTest(base.CloudTestCase):
    """The read-only multi-API checks pass on the DCN layout."""

    cloud_env = 'GLANCE_MULTIAPI_FUNCTIONAL_DCN_CLOUD'
    up_args = ('--spec', DCN_SPEC, '--no-registry', '--no-fileserver')

    def test_checks_pass_with_an_edge_api(self):
        results = self.run_tempest(CHECKS, concurrency=2)
        self.assertEqual(6, len(results), results)
        for test_id, (status, details) in sorted(results.items()):
            self.assertEqual('success', status,
                             '%s: %s' % (test_id, details))
        doc = json.loads(self.cli('get', '-o', 'json', check=True).stdout)
        self.assertEqual('edge', doc['spec']['glanceAPIs']['edge0']['type'])
        self.assertEqual(['edge0-internal'], sorted(
            k for k in doc['status']['apiEndpoint'] if k.startswith('edge0')))
