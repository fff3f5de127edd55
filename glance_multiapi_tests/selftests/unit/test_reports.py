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

"""JUnit XML and HTML reports of synthetic subunit streams."""

import os
import subprocess
import sys
from xml.etree import ElementTree

import fixtures
import testtools

from glance_multiapi_tests.selftests import reports
from glance_multiapi_tests.selftests import subunit_results
from glance_multiapi_tests.selftests.unit import synthetic_subunit

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..',
                                     '..'))
REPORT = os.path.join(REPO, 'tools', 'subunit_report.py')
CLS = 'glance_multiapi_tests.tests.api.test_endpoints.ImageEndpointsTest'
REASON = '[glance_multiapi] sets none of kubernetes_api'


class SplitIdTest(testtools.TestCase):

    def test_plain_id_with_tags(self):
        self.assertEqual((CLS, 'test_a[id-1,smoke]'),
                         reports.split_id(CLS + '.test_a[id-1,smoke]'))

    def test_class_fixture(self):
        self.assertEqual((CLS, 'setUpClass'),
                         reports.split_id('setUpClass (%s)' % CLS))


class ReportCommandTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.folder = self.useFixture(fixtures.TempDir()).path

    def report(self, *args):
        proc = subprocess.run([sys.executable, REPORT] + list(args),
                              capture_output=True, text=True, timeout=60,
                              cwd=REPO)
        self.assertEqual(0, proc.returncode, proc.stderr)

    def read(self, name):
        with open(os.path.join(self.folder, name), encoding='utf-8') as f:
            return f.read()

    def test_junit_counts_failure_text_and_skip_reason(self):
        path = synthetic_subunit.write(
            self.folder, 'suite.subunit',
            (CLS + '.test_a[id-1]', 'success'),
            (CLS + '.test_b[id-2]', 'fail',
             {'traceback': 'Traceback\nAssertionError: api1 <down> & \x01',
              'pythonlogging': 'log line'}),
            ('setUpClass (%s)' % CLS.replace('Endpoints', 'Other'), 'skip',
             {'reason': REASON}),
            (CLS + '.test_c', 'inprogress'))
        self.report('--require', 'multiapi,heat', path)
        root = ElementTree.fromstring(self.read('suite.junit.xml'))
        suite = root.find('testsuite')
        self.assertEqual(
            {'name': 'suite', 'tests': '5', 'failures': '2', 'errors': '1',
             'skipped': '1'},
            {k: v for k, v in suite.attrib.items() if k != 'time'})
        cases = {(c.get('classname'), c.get('name')): c
                 for c in suite.findall('testcase')}
        failure = cases[(CLS, 'test_b[id-2]')].find('failure')
        self.assertTrue(failure.text.startswith('traceback:\nTraceback\n'))
        self.assertIn('AssertionError: api1 <down> & ?', failure.text)
        self.assertIn('pythonlogging:\nlog line', failure.text)
        skipped = cases[(CLS.replace('Endpoints', 'Other'),
                         'setUpClass')].find('skipped')
        self.assertEqual(REASON, skipped.get('message'))
        self.assertIsNotNone(cases[(CLS, 'test_c')].find('error'))
        group = cases[('suite', 'required group heat did not run')]
        self.assertIn('none of its tests was selected',
                      group.find('failure').get('message'))
        self.assertEqual('1.000', cases[(CLS, 'test_a[id-1]')].get('time'))

    def test_html_puts_problems_failures_and_skips_first(self):
        path = synthetic_subunit.write(
            self.folder, 'unit.subunit',
            (CLS + '.test_a', 'success'),
            (CLS + '.test_b', 'fail', {'traceback': 'x < y'}),
            (CLS + '.test_s', 'skip', {'reason': REASON}))
        self.report('--require', 'heat', path)
        page = self.read('unit.html')
        self.assertTrue(page.startswith('<!DOCTYPE html>'))
        self.assertNotIn('<script', page)
        self.assertNotIn('http', page)
        self.assertIn('1 passed</b>, <b class="fail">2 failed</b>', page)
        order = [page.index(s) for s in (
            'required group heat did not run', 'x &lt; y', REASON,
            'All results')]
        self.assertEqual(sorted(order), order)

    def test_missing_stream_is_one_failure(self):
        self.report(os.path.join(self.folder, 'functional.subunit'))
        suite = ElementTree.fromstring(
            self.read('functional.junit.xml')).find('testsuite')
        self.assertEqual(('1', '1'), (suite.get('tests'),
                                      suite.get('failures')))
        self.assertEqual('no test result',
                         suite.find('testcase').get('name'))

    def test_checks_outside_the_stream_are_tests(self):
        path = synthetic_subunit.write(
            self.folder, 'suite.subunit', (CLS + '.test_a', 'success'))
        self.report('--check', 'doctor=fail:exit 1: api1 <down>',
                    '--check', 'role-usage=pass',
                    '--check', 'lint=skip:not installed', path)
        suite = ElementTree.fromstring(
            self.read('suite.junit.xml')).find('testsuite')
        self.assertEqual(('4', '1', '1'), (suite.get('tests'),
                                           suite.get('failures'),
                                           suite.get('skipped')))
        cases = {(c.get('classname'), c.get('name')): c
                 for c in suite.findall('testcase')}
        failure = cases[('checks', 'doctor')].find('failure')
        self.assertEqual('exit 1: api1 <down>', failure.get('message'))
        self.assertEqual('message:\nexit 1: api1 <down>', failure.text)
        self.assertEqual([], list(cases[('checks', 'role-usage')]))
        self.assertEqual('not installed', cases[('checks', 'lint')].find(
            'skipped').get('message'))
        page = self.read('suite.html')
        self.assertIn('checks.doctor', page)
        self.assertIn('api1 &lt;down&gt;', page)

    def test_checks_keep_a_missing_stream_red(self):
        self.report('--check', 'doctor=pass',
                    os.path.join(self.folder, 'suite.subunit'))
        suite = ElementTree.fromstring(
            self.read('suite.junit.xml')).find('testsuite')
        self.assertEqual(('2', '1'), (suite.get('tests'),
                                      suite.get('failures')))
        self.assertEqual(['doctor', 'no test result'],
                         [c.get('name') for c in suite.findall('testcase')])

    def test_bad_check_is_bad_usage(self):
        proc = subprocess.run([sys.executable, REPORT, '--check', 'doctor=ok',
                               os.path.join(self.folder, 'x.subunit')],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(2, proc.returncode)
        self.assertIn('bad --check', proc.stderr)

    def test_long_details_keep_their_end(self):
        test = subunit_results.Test(
            'a.b.c', 'fail', '',
            {'traceback': 'x' * (reports.MAX_DETAIL_CHARS * 2) + 'END'}, 0)
        text = reports.failure_text(test)
        self.assertTrue(text.endswith('END'))
        self.assertLess(len(text), reports.MAX_DETAIL_CHARS + 100)
