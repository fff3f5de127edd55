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

import testtools

from glance_multiapi_tests.multiapi import catalog
from glance_multiapi_tests.multiapi import discovery

INTERFACES = ['public', 'internal']


def _deployment(keystone='api0'):
    def api(name, port, api_type='split'):
        urls = {'internal': 'http://127.0.0.1:%d' % (port + 1)}
        if api_type != 'edge':
            urls['public'] = 'http://127.0.0.1:%d' % port
        return discovery.Api(name=name, type=api_type, endpoints=urls)
    apis = {'api0': api('api0', 9000), 'api1': api('api1', 9010),
            'edge0': api('edge0', 9020, 'edge')}
    return discovery.Deployment(apis=apis, keystone_endpoint=keystone,
                                source='test')


def _service(*endpoints, name='glance', sid='s1'):
    return {'type': 'image', 'name': name, 'id': sid, 'endpoints': [
        {'interface': i, 'url': u, 'region': 'RegionOne'}
        for i, u in endpoints]}


GOOD = [_service(('public', 'http://127.0.0.1:9000/'),
                 ('internal', 'HTTP://127.0.0.1:9001')),
        {'type': 'identity', 'name': 'keystone', 'endpoints': []}]


class CatalogTest(testtools.TestCase):

    def problems(self, found, keystone='api0'):
        return catalog.ownership_problems(found, _deployment(keystone),
                                          INTERFACES, 'RegionOne')

    def test_normalise(self):
        self.assertEqual(catalog.normalise_url('http://H:80/'),
                         catalog.normalise_url('http://h'))
        self.assertNotEqual(catalog.normalise_url('http://h:81'),
                            catalog.normalise_url('http://h'))

    def test_healthy(self):
        self.assertEqual([], self.problems(GOOD))

    def test_wrong_owner(self):
        problems = self.problems(GOOD, keystone='api1')
        self.assertEqual(2, len(problems))
        self.assertIn("api0's public endpoint; expected api1's "
                      "http://127.0.0.1:9010", problems[0])

    def test_two_services(self):
        found = GOOD + [_service(('public', 'http://127.0.0.1:9010'),
                                 name='glance2', sid='s2')]
        problems = self.problems(found)
        self.assertIn('holds 2 services', problems[0])
        self.assertIn('glance2 (id s2)', problems[0])

    def test_no_service(self):
        problems = self.problems(GOOD[1:])
        self.assertEqual(['the catalog holds 0 services of type \'image\' '
                          '(none); expected exactly one, owned by api0 '
                          '(keystoneEndpoint)'], problems)

    def test_edge_api_never(self):
        found = [_service(('public', 'http://127.0.0.1:9000'),
                          ('internal', 'http://127.0.0.1:9001'),
                          ('internal', 'http://127.0.0.1:9021'))]
        problems = self.problems(found)
        self.assertEqual(1, len(problems), problems)
        self.assertIn('edge API edge0 appears', problems[0])

    def test_other_api_on_unchecked_interface(self):
        found = [_service(('public', 'http://127.0.0.1:9000'),
                          ('internal', 'http://127.0.0.1:9001'),
                          ('admin', 'http://127.0.0.1:9011'))]
        problems = self.problems(found)
        self.assertIn('API api1 appears', problems[0])

    def test_missing_interface(self):
        problems = self.problems([_service(
            ('public', 'http://127.0.0.1:9000'))])
        self.assertIn('no internal endpoint', problems[0])

    def test_targets_and_snapshot(self):
        targets = catalog.image_targets(GOOD, _deployment(), INTERFACES)
        self.assertEqual(('catalog(glance, api0)', 'internal',
                          'HTTP://127.0.0.1:9001'), targets[0])
        self.assertEqual(catalog.snapshot(GOOD), catalog.snapshot(
            [_service(('public', 'http://127.0.0.1:9000'),
                      ('internal', 'http://127.0.0.1:9001'))]))
