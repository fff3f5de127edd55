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

"""Where the route is and which URLs status and catalog publish."""

import testtools

from glance_multiapi_cloud.components import glance
from glance_multiapi_cloud.components import router
from glance_multiapi_cloud import record as record_mod
from glance_multiapi_cloud import state as state_mod

PORTS = {'glance-api0-public': 20001, 'glance-api0-internal': 20002,
         'glance-api1-public': 20003, 'glance-api1-internal': 20004,
         'glance-edge0-internal': 20005,
         'route-glance-api0-public': 20006,
         'route-glance-api1-public': 20007}


def make_state(keystone_endpoint='api0', routed='api0', faults=(),
               status=None):
    state = state_mod.State('/nonexistent')
    apis = {name: {'type': kind, 'replicas': 1}
            for name, kind in (('api0', 'split'), ('api1', 'split'),
                               ('edge0', 'edge'))}
    state.record = record_mod.Record.from_json({
        'spec': {'keystoneEndpoint': keystone_endpoint, 'glanceAPIs': apis},
        'ports': dict(PORTS), 'faults': [list(f) for f in faults],
        'route': {'api': routed} if routed else None,
        'status': {'apiEndpoint': status or {}}})
    return state


def url(port):
    return 'http://127.0.0.1:%d' % port


class RouteTest(testtools.TestCase):

    def test_route_goes_to_keystone_endpoint(self):
        state = make_state(keystone_endpoint='api1', routed='api0')
        self.assertEqual('api1', router.wanted_api(state))

    def test_route_not_moved_keeps_the_old_api(self):
        state = make_state(keystone_endpoint='api1', routed='api0',
                           faults=[('route-not-moved', None)])
        self.assertEqual('api0', router.wanted_api(state))

    def test_route_not_moved_cannot_keep_a_removed_api(self):
        state = make_state(keystone_endpoint='api1', routed='gone',
                           faults=[('route-not-moved', None)])
        self.assertEqual('api1', router.wanted_api(state))

    def test_status_has_the_route_for_the_routed_api_only(self):
        state = make_state()
        faults = state.faults
        self.assertEqual({
            'api0-public': url(20006), 'api0-internal': url(20002),
            'api1-public': url(20003), 'api1-internal': url(20004),
            'edge0-internal': url(20005)},
            glance.status_endpoints(state, faults))

    def test_catalog_public_is_the_route_wherever_it_is(self):
        state = make_state(keystone_endpoint='api1', routed='api0',
                           faults=[('route-not-moved', None)])
        faults = state.faults
        self.assertEqual({'public': url(20006), 'internal': url(20004)},
                         glance.catalog_urls(state, 'api1', faults))
        self.assertEqual(url(20003), glance.status_endpoints(
            state, faults)['api1-public'])

    def test_another_api_in_the_catalog_keeps_its_service_url(self):
        # NOTE: catalog-wrong-api registers api1 while api0 has the route.
        state = make_state()
        faults = state.faults
        self.assertEqual({'public': url(20003), 'internal': url(20004)},
                         glance.catalog_urls(state, 'api1', faults))

    def test_removed_api_status_goes(self):
        state = make_state(status={'gone-public': 'http://x',
                                   'gone-internal': 'http://y'})
        faults = state.faults
        self.assertNotIn('gone-public', glance.status_endpoints(state,
                                                                faults))

    def test_shrink_leaves_status_keeps_removed_keys(self):
        state = make_state(status={'gone-public': 'http://x',
                                   'gone-internal': 'http://y'},
                           faults=[('shrink-leaves-status', None)])
        faults = state.faults
        endpoints = glance.status_endpoints(state, faults)
        self.assertEqual(('http://x', 'http://y'), (
            endpoints['gone-public'], endpoints['gone-internal']))
