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

"""Proof that the switchover and shrink checks catch a route or status
that does not follow the patch, and pass when they do.

Against the shared cloud, one case at a time (faults are cloud-wide).
"""

import json
import os

from selftests.functional import base
from selftests.functional import test_multiapi_faults

SWITCHOVER = test_multiapi_faults.SWITCHOVER
GROW_SHRINK = test_multiapi_faults.GROW_SHRINK
SCENARIOS = (r'glance_multiapi_tests\.tests\.scenario\.test_(switchover|'
             r'grow_shrink)\.')


class RouteFaultsTest(base.CloudTestCase):
    """route-not-moved and shrink-leaves-status fail the changed checks."""

    overrides = test_multiapi_faults.MultiApiFaultsTest.overrides

    def run_one(self, test_id):
        return self.run_tempest(test_id.replace('.', r'\.'),
                                overrides=self.overrides())

    def url(self, key):
        with open(os.path.join(self.state_dir, 'state.json')) as f:
            return 'http://127.0.0.1:%d' % json.load(f)['ports'][key]

    def test_healthy_cloud_passes_switchover_and_shrink(self):
        with self.fault():
            results = self.run_tempest(SCENARIOS, overrides=self.overrides())
        self.assertOutcome(results, SWITCHOVER, 'success')
        self.assertOutcome(results, GROW_SHRINK, 'success')

    def test_route_not_moved_fails_switchover(self):
        with self.fault('route-not-moved'):
            results = self.run_one(SWITCHOVER)
        # NOTE: api1's status keeps its Service URL, the catalog's public
        # URL stays api0's route: judged against the fresh status.
        self.assertOutcome(
            results, SWITCHOVER, 'fail',
            'waiting for the catalog to hold exactly one image service, '
            'owned by api1, with its URLs as the Glance CR\'s status now '
            'gives them',
            'public endpoint is %s, api0\'s public endpoint; expected '
            'api1\'s %s (keystoneEndpoint is api1)' % (
                self.url('route-glance-api0-public'),
                self.url('glance-api1-public')),
            'status.apiEndpoint of api1: internal=%s, public=%s' % (
                self.url('glance-api1-internal'),
                self.url('glance-api1-public')))

    def test_shrink_leaves_status_fails_grow_shrink(self):
        with self.fault('shrink-leaves-status'):
            results = self.run_one(GROW_SHRINK)
        self.assertOutcome(
            results, GROW_SHRINK, 'fail',
            'after removing apigrow: timed out',
            'waiting for API apigrow to leave the Glance CR '
            '(spec.glanceAPIs and its status.apiEndpoint keys '
            'apigrow-internal, apigrow-public)',
            'last seen: gone from spec.glanceAPIs; status.apiEndpoint '
            'still has apigrow-internal, apigrow-public')
        status = self.cli('get', '-o', 'json', check=True).stdout
        self.assertNotIn('apigrow-', status, 'clearing the fault must '
                         'drop the left status keys')
