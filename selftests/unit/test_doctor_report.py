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


import json

import testtools

from glance_multiapi_tests.doctor import report
from glance_multiapi_tests.multiapi import discovery

PROG = 'glance-multiapi-doctor'

DNS_FAIL = report.fail(
    'endpoint', 'DNS: Name or service not known', api='api1',
    interface='public', url='http://glance-api1-public.openstack.invalid')


class ExitCodeTest(testtools.TestCase):

    def test_all_ok_or_skipped_is_healthy(self):
        checks = [report.ok('config', 'read'),
                  report.skip('discovery', 'not configured')]
        self.assertEqual(0, report.exit_code(checks))

    def test_first_failure_decides(self):
        checks = [report.ok('config', 'read'),
                  report.fail('discovery', 'no CR', report.EXIT_DISCOVERY),
                  report.fail('keystone', '401', report.EXIT_CREDENTIALS),
                  DNS_FAIL]
        self.assertEqual(23, report.exit_code(checks))

    def test_endpoint_problem_is_one(self):
        self.assertEqual(1, report.exit_code([report.ok('x', 'y'),
                                              DNS_FAIL]))

    def test_codes_are_documented_once(self):
        codes = [code for code, _ in report.EXIT_CODES]
        self.assertEqual(sorted(set(codes)), codes)
        self.assertEqual([0, 1, 2, 22, 23, 24, 25, 26, 70], codes)
        text = report.exit_code_help()
        for code in codes:
            self.assertIn('  %3d  ' % code, text)


class TextTest(testtools.TestCase):

    def test_one_line_per_check_then_verdict(self):
        checks = [report.ok('config', 'f: read'), DNS_FAIL]
        lines = report.as_text(checks, PROG).splitlines()
        self.assertEqual(3, len(lines))
        self.assertEqual('OK   config           f: read', lines[0])
        self.assertEqual(
            'FAIL endpoint         api1 public '
            'http://glance-api1-public.openstack.invalid: DNS: Name or '
            'service not known', lines[1])
        self.assertEqual(PROG + ': FAILED (exit 1): 1 of 2 check(s) '
                         'failed', lines[2])

    def test_healthy_verdict_counts_skips(self):
        checks = [report.ok('a', 'b'), report.skip('c', 'd')]
        self.assertEqual(PROG + ': healthy: 1 check(s) passed, 1 skipped',
                         report.verdict(checks, PROG))

    def test_verdict_for_a_log_names_the_first_failure(self):
        checks = [report.ok('a', 'b'), DNS_FAIL,
                  report.fail('catalog', 'two image services')]
        self.assertEqual(
            PROG + ': FAILED (exit 1): 2 of 3 check(s) failed; first: '
            'endpoint api1 public http://glance-api1-public.openstack.'
            'invalid: DNS: Name or service not known',
            report.verdict(checks, PROG))


class JsonTest(testtools.TestCase):

    def test_document_shape(self):
        api = discovery.Api(name='api0', type='split',
                            endpoints={'public': 'http://h:9292'},
                            default_store='ceph0')
        deployment = discovery.Deployment(apis={'api0': api},
                                          keystone_endpoint='api0',
                                          source='test')
        doc = json.loads(report.as_json([report.ok('config', 'read'),
                                         DNS_FAIL], deployment))
        self.assertFalse(doc['ok'])
        self.assertEqual(1, doc['exit_code'])
        self.assertEqual({'OK': 1, 'FAIL': 1, 'SKIP': 0}, doc['counts'])
        self.assertEqual({'name': 'endpoint', 'status': 'FAIL',
                          'api': 'api1', 'interface': 'public',
                          'url': 'http://glance-api1-public.openstack.'
                                 'invalid',
                          'message': 'DNS: Name or service not known'},
                         doc['checks'][1])
        self.assertEqual({'source': 'test', 'keystone_endpoint': 'api0',
                          'apis': {'api0': {
                              'type': 'split',
                              'endpoints': {'public': 'http://h:9292'},
                              'default_store': 'ceph0'}}},
                         doc['deployment'])

    def test_healthy_without_deployment(self):
        doc = json.loads(report.as_json([report.ok('config', 'read')]))
        self.assertTrue(doc['ok'])
        self.assertIsNone(doc['deployment'])


class StrictTest(testtools.TestCase):

    def test_skip_becomes_a_failure_with_its_own_code(self):
        checks = [report.ok('config', 'read'),
                  report.skip('discovery', 'no way to learn the APIs'),
                  report.fail('catalog', 'two services')]
        strict = report.strict(checks)
        self.assertEqual(['OK', 'FAIL', 'FAIL'],
                         [c.status for c in strict])
        self.assertEqual('not run, and --strict allows no SKIP: no way to '
                         'learn the APIs', strict[1].message)
        # NOTE: the earliest broken stage decides, as without --strict.
        self.assertEqual(report.EXIT_SKIPPED_STRICT,
                         report.exit_code(strict))
        self.assertEqual(report.EXIT_HEALTHY,
                         report.exit_code(checks[:2]))

    def test_nothing_skipped_changes_nothing(self):
        checks = [report.ok('config', 'read')]
        self.assertEqual(checks, report.strict(checks))
