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

"""tests.recording: what a test records about itself, through one small
API and its start; how it ended is left to the test result (and so to
the run's subunit stream), which gets everything as before."""

import os
import unittest
from unittest import mock

import fixtures
import testtools

from glance_multiapi_tests.results.runmap import records
from glance_multiapi_tests.tests import recording


def _classes():
    """(_Probe, _Skipped): made here so that test discovery skips them."""

    class _Probe(recording.RecordedTest, testtools.TestCase):
        """Tests that end every way a test can."""

        result_checks = ('catalog',)

        @classmethod
        def result_elements(cls):
            return ['catalog', 'keystone_endpoint', 'store:api0',
                    'store:api1']

        def test_pass(self):
            pass

        @recording.checks('keystone_endpoint')
        def test_fail(self):
            self.fail('first line\nsecond line')

        def test_skip(self):
            self.skipTest('no heat here')

        def test_error(self):
            raise KeyError('k')

        def test_checking(self):
            with self.checking('store:api0'):
                pass
            with self.checking('store:api1'):
                self.fail('api1 wrong')

        def test_over_bound(self):
            self.assertWithinBounds(self.record_figure(
                'switchover_convergence_seconds', 0.9, from_api='api0',
                to_api='api1', interface='public'))

        def test_restore_is_not_bounded(self):
            self.assertWithinBounds(self.record_figure(
                'switchover_convergence_seconds', 0.9, check_bound=False,
                from_api='api1', to_api='api0', interface='public'))

    class _SkippingBase(testtools.TestCase):

        @classmethod
        def setUpClass(cls):
            raise cls.skipException('[consolidated_heat] enabled is False')

    class _Skipped(recording.RecordedTest, _SkippingBase):

        def test_never_runs(self):
            pass

    return _Probe, _Skipped


# NOTE: in a dict, not module attributes, so that discovery skips them.
CLASSES = dict(zip(('probe', 'skipped'), _classes()))


class RecordingTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.dir = self.useFixture(fixtures.TempDir()).path
        self.useFixture(fixtures.MockPatchObject(
            recording, 'results_dir', return_value=self.dir))
        self.useFixture(fixtures.MockPatch('atexit.register'))
        self.useFixture(fixtures.MockPatchObject(recording, '_state', {
            'recorder': None, 'warned': False}))
        conf = mock.Mock()
        conf.glance_multiapi.max_switchover_seconds = 0.5
        self.useFixture(fixtures.MockPatchObject(recording, 'CONF', conf))

    def run_suite(self, *classes):
        suite = unittest.TestSuite()
        for cls in classes:
            suite.addTests(unittest.defaultTestLoader.loadTestsFromTestCase(
                cls))
        result = testtools.TestResult()
        suite.run(result)
        found, problems = records.read(self.dir)
        self.assertEqual([], problems)
        return result, found

    def starts(self, found):
        return {r['test'].rsplit('.', 1)[-1]: r for r in found
                if r['kind'] == 'test-start'}

    def test_each_start_is_recorded_and_every_outcome_still_reported(self):
        result, found = self.run_suite(CLASSES['probe'])
        starts = self.starts(found)
        self.assertEqual(7, len(starts))
        self.assertEqual(['catalog', 'keystone_endpoint'],
                         starts['test_fail']['checks'])
        # NOTE: resolved against what the class knows.
        self.assertEqual(['catalog', 'keystone_endpoint'],
                         starts['test_fail']['elements'])
        self.assertEqual(['catalog'], starts['test_pass']['elements'])
        self.assertTrue(starts['test_pass']['class'].endswith('._Probe'))
        # NOTE: how each test ended is the stream's, not recorded again.
        self.assertEqual({'worker', 'inventory', 'test-start', 'checking',
                          'verdict', 'figure'}, {r['kind'] for r in found})
        self.assertEqual(7, result.testsRun)
        self.assertEqual(4, len(result.failures) + len(result.errors))
        self.assertEqual(1, len(result.skip_reasons))
        # NOTE: nothing is built while the run goes on.
        self.assertEqual(['glance-multiapi-records'], os.listdir(self.dir))

    def test_the_class_lifecycle_is_left_to_tempest(self):
        for name in ('setUpClass', 'tearDownClass', 'run'):
            self.assertNotIn(name, vars(recording.RecordedTest))

    def test_checking_marks_each_element(self):
        _result, found = self.run_suite(CLASSES['probe'])
        verdicts = {r['element']: (r['status'], r['message'])
                    for r in found if r['kind'] == 'verdict' and
                    r['test'].endswith('test_checking')}
        self.assertEqual({'store:api0': ('passed', ''),
                          'store:api1': ('failed', 'api1 wrong')}, verdicts)

    def test_figure_over_its_bound_fails_naming_everything(self):
        result, found = self.run_suite(CLASSES['probe'])
        message = ('figure glance_multiapi_switchover_convergence_seconds{'
                   'from_api="api0",interface="public",to_api="api1"} is '
                   '0.90 s, over its bound 0.5 s ([glance_multiapi] '
                   'max_switchover_seconds)')
        failed = {test.id().rsplit('.', 1)[-1]: text
                  for test, text in result.failures}
        self.assertIn('AssertionError: %s' % message,
                      failed['test_over_bound'])
        self.assertNotIn('test_restore_is_not_bounded', failed)
        figures = [r for r in found if r['kind'] == 'figure']
        self.assertEqual([(True, 0.5), (False, None)], [
            (f['exceeded'], f['bound']['value']) for f in figures])
        self.assertIn({'element': 'catalog:public', 'status': 'failed',
                       'message': message}, [
            {k: r[k] for k in ('element', 'status', 'message')}
            for r in found if r['kind'] == 'verdict'])

    def test_a_class_skipped_in_its_set_up_records_nothing(self):
        # NOTE: its skip is one result of the stream (setUpClass (...)).
        result = testtools.TestResult()
        unittest.TestSuite(unittest.defaultTestLoader.loadTestsFromTestCase(
            CLASSES['skipped'])).run(result)
        self.assertEqual(1, len(result.skip_reasons))
        self.assertFalse(os.path.exists(records.folder_of(self.dir)))

    def test_recorder_failure_never_fails_a_test(self):
        blocker = os.path.join(self.dir, 'blocker')
        open(blocker, 'w').close()
        recording.results_dir.return_value = blocker
        logs = self.useFixture(fixtures.FakeLogger())
        suite = unittest.TestSuite([CLASSES['probe']('test_pass')])
        result = testtools.TestResult()
        suite.run(result)
        self.assertTrue(result.wasSuccessful())
        self.assertIn('cannot write worker records', logs.output)

    def test_http_error_text_keeps_its_details(self):
        exc = recording.lib_exc.BadRequest({'error': 'AttributeError'})
        self.assertEqual("BadRequest: Bad request Details: {'error': "
                         "'AttributeError'}", recording.exception_text(exc))
        self.assertEqual("KeyError: 'k'", recording.exception_text(
            KeyError('k')))
