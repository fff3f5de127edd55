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


"""The doctor's rows of endpoints and of the catalog, without a network."""

import testtools

from glance_multiapi_tests.doctor import checks
from glance_multiapi_tests.doctor import report
from glance_multiapi_tests.multiapi import probes
from selftests.unit.doctor_fixtures import deployment as _deployment
from selftests.unit.doctor_fixtures import INVALID
from selftests.unit.doctor_fixtures import service as _service


class EndpointRowsTest(testtools.TestCase):

    def test_api_and_catalog_endpoints_are_both_listed(self):
        deployment = _deployment(api0='http://a:1', api1='http://b:2')
        found = [_service(('public', 'http://a:1'),
                          ('admin', 'http://a:1'))]
        self.assertEqual(
            [('endpoint', 'api0', 'public', 'http://a:1'),
             ('endpoint', 'api1', 'public', 'http://b:2'),
             ('catalog-endpoint', 'api0', 'public', 'http://a:1')],
            checks.endpoint_targets(deployment, found, ['public'],
                                    'RegionOne'))

    def test_failure_marks_every_row_of_its_url(self):
        targets = [('endpoint', 'api1', 'public', INVALID),
                   ('catalog-endpoint', None, 'public', INVALID),
                   ('endpoint', 'api0', 'public', 'http://a:1')]
        failure = probes.Failure(probes.Target('api1', 'public', INVALID),
                                 'DNS', 'Name or service not known')
        rows = checks.endpoint_rows(targets, [failure])
        self.assertEqual(['FAIL', 'FAIL', 'OK'], [r.status for r in rows])
        self.assertEqual('DNS: Name or service not known', rows[1].message)
        self.assertEqual(report.EXIT_PROBLEM, rows[0].exit_code)

    def test_nothing_to_probe_is_a_skip(self):
        rows = checks.check_endpoints([], 1, None)
        self.assertEqual([report.SKIP], [r.status for r in rows])


class CatalogRowsTest(testtools.TestCase):

    def test_keystone_endpoint_api_alone_is_ok(self):
        rows = checks.catalog_rows([_service(('public', 'http://a:1'))],
                                   _deployment(api0='http://a:1',
                                               api1='http://b:2'),
                                   ['public'], None)
        self.assertEqual([report.OK], [r.status for r in rows])

    def test_each_ownership_problem_is_a_row(self):
        found = [_service(('public', 'http://a:1')),
                 _service(('public', 'http://b:2'), name='glance-api1')]
        rows = checks.catalog_rows(found, _deployment(
            api0='http://a:1', api1='http://b:2'), ['public'], None)
        self.assertEqual(2, len(rows))
        self.assertIn('holds 2 services', rows[0].message)
        self.assertIn("api1's public endpoint", rows[1].message)

    def test_without_discovery_only_the_count(self):
        found = [_service(('public', 'http://a:1')),
                 _service(('public', 'http://b:2'), name='other')]
        rows = checks.catalog_rows(found, None, ['public'], None)
        self.assertEqual(report.FAIL, rows[0].status)
        self.assertIn('holds 2 services of type image', rows[0].message)

    def test_unread_catalog_is_a_skip(self):
        rows = checks.catalog_rows(None, None, ['public'], None)
        self.assertEqual(report.SKIP, rows[0].status)
