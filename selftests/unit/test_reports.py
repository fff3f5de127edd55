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

"""tools/subunit_report.py: the standard tools' reports, synthetic results in.

Each case writes a synthetic stream, runs the tool (which runs
subunit2junitxml and subunit2html) and reads what they wrote: the XML
with ElementTree, the page as text.
"""

import os
import subprocess
import sys
from xml.etree import ElementTree

import fixtures
import testtools

from selftests import report_events
from glance_multiapi_tests.results.gate import subunit_stream
from selftests.unit import manifest_tools
from selftests.unit import synthetic_subunit

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), '..',
                                     '..'))
REPORT = os.path.join(REPO, 'tools', 'subunit_report.py')
CLS = 'glance_multiapi_tests.tests.api.test_endpoints.ImageEndpointsTest'
REASON = '[glance_multiapi] sets none of kubernetes_api'


class ReportCommandTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.folder = self.useFixture(fixtures.TempDir()).path

    def report(self, *args, **env):
        proc = subprocess.run([sys.executable, REPORT] + list(args),
                              capture_output=True, text=True, timeout=120,
                              cwd=REPO, env=dict(os.environ, **env))
        return proc

    def reported(self, *args):
        proc = self.report(*args)
        self.assertEqual((0, ''), (proc.returncode, proc.stderr))

    def read(self, name):
        with open(os.path.join(self.folder, name), encoding='utf-8') as f:
            return f.read()

    def cases(self, name):
        """(root element, {(classname, name): testcase}) of a JUnit file."""
        root = ElementTree.parse(os.path.join(self.folder, name)).getroot()
        return root, {(c.get('classname'), c.get('name')): c
                      for c in root.iter('testcase')}

    def test_junit_counts_failures_skips_and_synthetic_results(self):
        path = synthetic_subunit.write(
            self.folder, 'suite.subunit',
            (CLS + '.test_a[id-1]', 'success'),
            (CLS + '.test_b[id-2]', 'fail',
             {'traceback': 'Traceback\nAssertionError: api1 <down> & \x01',
              'pythonlogging': 'log line'}),
            (CLS.replace('Endpoints', 'Other') + '.test_s', 'skip',
             {'reason': REASON}),
            (CLS + '.test_c', 'inprogress'))
        self.reported('--require', 'multiapi,heat', path)
        root, cases = self.cases('suite.junit.xml')
        # a, b, s, c (never finished) and the heat group that did not run
        self.assertEqual(('5', '3'), (root.get('tests'),
                                      root.get('failures')))
        failure = cases[(CLS, 'test_b[id-2]')].find('failure').text
        self.assertIn('AssertionError: api1 <down> &', failure)
        self.assertNotIn('\x01', failure)
        self.assertIn('log line', failure)
        self.assertEqual(REASON, cases[(
            CLS.replace('Endpoints', 'Other'), 'test_s')].find(
                'skipped').text)
        self.assertIn('started and never finished',
                      cases[(CLS, 'test_c')].find('failure').text)
        group = cases[('required_group', 'heat')].find('failure').text
        self.assertIn('required group heat did not run: none of its tests '
                      'was selected', group)
        self.assertNotIn(('required_group', 'multiapi'), cases)
        self.assertEqual('1.000', cases[(CLS, 'test_a[id-1]')].get('time'))

    def test_html_names_failed_tests_and_their_messages(self):
        path = synthetic_subunit.write(
            self.folder, 'unit.subunit',
            (CLS + '.test_a', 'success'),
            (CLS + '.test_b', 'fail', {'traceback': 'x < y'}),
            (CLS + '.test_c', 'inprogress'))
        self.reported('--require', 'heat', path)
        page = self.read('unit.html')
        for text in (CLS + '.test_b', 'x &lt; y', CLS + '.test_c',
                     'started and never finished', 'required_group.heat',
                     'required group heat did not run'):
            self.assertIn(text, page)
        # NOTE: subunit2html's own heading, so the page is the real tool's.
        self.assertIn('Unit Test Report', page)

    def test_stream_itself_is_left_as_it_was(self):
        path = synthetic_subunit.write(
            self.folder, 'suite.subunit', (CLS + '.test_c', 'inprogress'))
        with open(path, 'rb') as f:
            before = f.read()
        self.reported('--check', 'doctor=pass', path)
        with open(path, 'rb') as f:
            self.assertEqual(before, f.read())
        self.assertEqual(
            ['suite.html', 'suite.junit.xml', 'suite.subunit'],
            sorted(os.listdir(self.folder)))

    def test_missing_stream_is_one_failure(self):
        self.reported(os.path.join(self.folder, 'functional.subunit'))
        root, cases = self.cases('functional.junit.xml')
        self.assertEqual(('1', '1'), (root.get('tests'),
                                      root.get('failures')))
        failure = cases[('functional', 'no_test_result')].find('failure')
        self.assertIn('functional.subunit holds none', failure.text)
        self.assertIn('functional.no_test_result',
                      self.read('functional.html'))

    def test_empty_stream_is_one_failure(self):
        open(os.path.join(self.folder, 'coexistence.subunit'), 'w').close()
        self.reported(os.path.join(self.folder, 'coexistence.subunit'))
        _root, cases = self.cases('coexistence.junit.xml')
        self.assertEqual([('coexistence', 'no_test_result')], list(cases))

    def test_stream_cut_inside_a_packet_keeps_the_added_results(self):
        whole = synthetic_subunit.stream((CLS + '.test_a', 'success'),
                                         (CLS + '.test_b', 'success'))
        path = os.path.join(self.folder, 'suite.subunit')
        with open(path, 'wb') as f:
            f.write(whole[:len(whole) - 7])
        self.reported('--check', 'doctor=fail:exit 1', path)
        _root, cases = self.cases('suite.junit.xml')
        self.assertIn(('subunit', 'parser'), cases)
        self.assertIn('exit 1', cases[('checks', 'doctor')].find(
            'failure').text)

    def test_checks_outside_the_stream_are_tests(self):
        path = synthetic_subunit.write(
            self.folder, 'suite.subunit', (CLS + '.test_a', 'success'))
        self.reported('--check', 'doctor=fail:report\nexit 1: api1 <down>',
                      '--check', 'role-usage=pass',
                      '--check', 'lint=skip:not installed', path)
        root, cases = self.cases('suite.junit.xml')
        self.assertEqual(('4', '1'), (root.get('tests'),
                                      root.get('failures')))
        failure = cases[('checks', 'doctor')].find('failure')
        self.assertIn('report\nexit 1: api1 <down>', failure.text)
        self.assertEqual([], list(cases[('checks', 'role-usage')]))
        self.assertEqual('not installed', cases[('checks', 'lint')].find(
            'skipped').text)
        page = self.read('suite.html')
        self.assertIn('checks.doctor', page)
        self.assertIn('api1 &lt;down&gt;', page)

    def test_checks_keep_a_missing_stream_red(self):
        self.reported('--check', 'doctor=pass',
                      os.path.join(self.folder, 'suite.subunit'))
        root, cases = self.cases('suite.junit.xml')
        self.assertEqual(('2', '1'), (root.get('tests'),
                                      root.get('failures')))
        self.assertEqual([('suite', 'no_test_result'), ('checks', 'doctor')],
                         list(cases))

    def test_bad_check_is_bad_usage(self):
        proc = self.report('--check', 'doctor=ok',
                           os.path.join(self.folder, 'x.subunit'))
        self.assertEqual(2, proc.returncode)
        self.assertEqual(1, proc.stderr.count('\n'), proc.stderr)
        self.assertIn('bad --check', proc.stderr)

    def test_unwritable_folder_is_one_line(self):
        path = os.path.join(self.folder, 'no', 'such', 'suite.subunit')
        proc = self.report(path)
        self.assertEqual(1, proc.returncode)
        self.assertEqual(1, proc.stderr.count('\n'), proc.stderr)
        self.assertIn('cannot write the reports of %s' % path, proc.stderr)
        self.assertNotIn('Traceback', proc.stderr)

    def test_missing_tool_is_one_line(self):
        # NOTE: in process, with a Python that has nothing beside it and
        # a PATH without the tools.
        self.useFixture(fixtures.MonkeyPatch(
            'sys.executable', os.path.join(self.folder, 'bin', 'python')))
        self.useFixture(fixtures.EnvironmentVariable('PATH', self.folder))
        path = synthetic_subunit.write(
            self.folder, 'suite.subunit', (CLS + '.test_a', 'success'))
        code, out, err = manifest_tools.run(self, 'subunit_report', path)
        self.assertEqual((1, ''), (code, out))
        self.assertEqual(1, err.count('\n'), err)
        self.assertIn('subunit2junitxml not found', err)
        self.assertIn('pip install python-subunit junitxml;', err)


class SyntheticEventsTest(testtools.TestCase):
    """report_events: what is added, read back with subunit_stream."""

    def _tests_of(self, data):
        folder = self.useFixture(fixtures.TempDir()).path
        path = os.path.join(folder, 's.subunit')
        with open(path, 'wb') as f:
            f.write(data)
        return subunit_stream.read_tests(path)

    def test_unfinished_test_keeps_its_worker(self):
        data = synthetic_subunit.stream((CLS + '.test_c', 'inprogress'))
        events, _data, _last = report_events.synthetic(
            'unit', 'unit.subunit', data, [])
        self.assertEqual([(CLS + '.test_c', 'fail')],
                         [(e.test_id, e.status) for e in events])
        tests = self._tests_of(report_events.enriched(
            'unit', 'unit.subunit', data, []))
        self.assertEqual([(CLS + '.test_c', 'fail')],
                         [(t.id, t.outcome) for t in tests])

    def test_parse_check(self):
        self.assertEqual(('checks.a', 'skip', 'why: x'),
                         report_events.parse_check('a=skip:why: x')[:3])
        for bad in ('=pass', 'a=ok', 'a', 'a=pass:why'):
            self.assertRaises(ValueError, report_events.parse_check, bad)
