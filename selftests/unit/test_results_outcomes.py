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

"""The map's verdicts from the runs' subunit streams when they are given."""

import json
import os

import fixtures
import testtools

from glance_multiapi_tests.results import cli
from glance_multiapi_tests.results.runmap import outcomes
from glance_multiapi_tests.results.runmap import publish
from glance_multiapi_tests.results.runmap import records
from selftests.unit import recorded_runs as runs
from selftests.unit import synthetic_subunit

HEAT = runs.T + 'api.test_heat_services.HeatServicesTest'
TRACEBACK = ('''Traceback (most recent call last):
  File "/venv/glance_multiapi_tests/tests/api/test_store_placement.py", \
line 80, in test_upload_lands_in_api_default_store
    self.fail(message)
  File "/venv/unittest/case.py", line 715, in fail
    raise self.failureException(msg)
AssertionError: %s
''')


def _verdicts(facts):
    return {row['bare']: (row['status'], row['message'])
            for row in facts['tests']}


class OutcomesTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.dir = self.useFixture(fixtures.TempDir()).path
        self.useFixture(fixtures.MonkeyPatch(
            'sys.stdout', self.useFixture(fixtures.StringStream(
                'stdout')).stream))

    def stream(self, name, *tests):
        return synthetic_subunit.write(self.dir, name, *tests)

    def test_stream_is_read_test_by_test(self):
        path = self.stream(
            's', (runs.full(runs.UPLOAD), 'fail', {
                'traceback': TRACEBACK % 'boom\nsecond line'}),
            (runs.full(runs.ENDPOINTS), 'success'),
            ('setUpClass (%s)' % HEAT, 'skip', {'reason': 'no heat'}),
            ('other.plugin.Test.test_x', 'fail'))
        found = outcomes.read(path)
        self.assertEqual({runs.UPLOAD: [('failed', 'boom\nsecond line')],
                          runs.ENDPOINTS: [('passed', '')]}, found.tests)
        self.assertEqual({HEAT: ('skipped', 'no heat')}, found.classes)

    def test_the_stream_decides_in_the_words_the_test_raised(self):
        runs.api_down(self.dir)
        facts, _ = publish.rebuild(self.dir)
        # NOTE: the records alone say how no test ended.
        self.assertEqual('unfinished', _verdicts(facts)[runs.UPLOAD][0])
        facts, _ = runs.rebuild(self.dir)
        self.assertEqual(('failed', 'uploading an image through api1 '
                          '(https://127.0.0.1:20003) failed: '
                          'ConnectionRefusedError: [Errno 111]'),
                         _verdicts(facts)[runs.UPLOAD])
        found = outcomes.read(self.stream(
            's', (runs.full(runs.UPLOAD), 'fail', {
                'traceback': TRACEBACK % 'x'}),
            (runs.full(runs.ONE_SERVICE), 'skip', {'reason': 'said so'})))
        facts, _ = publish.rebuild(self.dir, outcomes={None: found})
        verdicts = _verdicts(facts)
        self.assertEqual(('failed', 'x'), verdicts[runs.UPLOAD])
        self.assertEqual(('skipped', 'said so'), verdicts[runs.ONE_SERVICE])

    def test_a_killed_worker_is_unfinished_in_the_stream_too(self):
        runs.killed(self.dir)
        found = outcomes.read(self.stream(
            's', (runs.full(runs.ONE_SERVICE), 'inprogress')))
        facts, _ = publish.rebuild(self.dir, outcomes={'tempest': found})
        self.assertEqual('unfinished',
                         _verdicts(facts)[runs.ONE_SERVICE][0])

    def test_a_stream_of_no_recorded_run_is_a_run_and_a_problem(self):
        runs.healthy(self.dir)
        found = outcomes.read(self.stream('s', (runs.full(runs.UPLOAD),
                                                'success')))
        facts, _ = publish.rebuild(self.dir, outcomes={'other': found})
        self.assertIn('subunit outcomes of other: the records hold no such '
                      'run (runs: tempest); its tests are shown from the '
                      'stream alone', facts['problems'])
        self.assertEqual(['tempest', 'other'],
                         [r['label'] for r in facts['runs']])
        self.assertIn({'bare': runs.UPLOAD, 'run': 'other',
                       'status': 'passed'},
                      [{k: row[k] for k in ('bare', 'run', 'status')}
                       for row in facts['tests']])

    def test_a_run_whose_classes_all_skipped_is_its_stream(self):
        # NOTE: no test of it started, so it recorded nothing: no problem.
        runs.healthy(self.dir)
        found = outcomes.read(self.stream('s', (
            'setUpClass (%s)' % HEAT, 'skip', {'reason': 'no heat'})))
        facts, _ = publish.rebuild(self.dir, outcomes={'oci': found})
        self.assertEqual([], facts['problems'])
        oci = [r for r in facts['runs'] if r['label'] == 'oci']
        self.assertEqual([(0, True)], [(r['workers'], r['complete'])
                                       for r in oci])
        rows = [row for row in facts['tests'] if row['run'] == 'oci']
        self.assertEqual(4, len(rows))
        self.assertEqual({('skipped', 'no heat')},
                         {(row['status'], row['message']) for row in rows})

    def test_one_stream_of_a_workspace_goes_to_the_run_of_each_test(self):
        # NOTE: the main job's workspace: its disruptive scenarios, then
        # the rest; one stream of both, labelled with the folder's name.
        rec = runs.worker(self.dir, pid=100, run='run-1', scheduled=[
            runs.SWITCHOVER])
        runs.discovered(rec, runs.T + 'scenario.test_switchover.'
                        'KeystoneEndpointSwitchoverTest')
        runs.switchover_test(rec)
        rec.write('worker-end')
        later = runs.worker(self.dir, pid=200, run='run-2',
                            clock=runs.Clock(1700001000.0),
                            scheduled=[runs.ENDPOINTS, runs.HEAT_ENGINES])
        runs.endpoints_test(later)
        later.write('worker-end')
        found = outcomes.read(self.stream(
            's', (runs.full(runs.SWITCHOVER), 'fail', {
                'traceback': TRACEBACK % 'restore failed'}),
            (runs.full(runs.ENDPOINTS), 'success'),
            ('setUpClass (%s)' % HEAT, 'skip', {'reason': 'no heat'})))
        facts, _ = publish.rebuild(self.dir, outcomes={'tempest': found})
        self.assertEqual([], facts['problems'])
        rows = {(row['run'], row['bare']): (row['status'], row['message'])
                for row in facts['tests']}
        self.assertEqual({
            ('tempest', runs.SWITCHOVER): ('failed', 'restore failed'),
            ('tempest #2', runs.ENDPOINTS): ('passed', ''),
            ('tempest #2', runs.HEAT_ENGINES): ('skipped', 'no heat')},
            rows)

    def test_the_only_run_of_several_labels_is_a_problem(self):
        runs.healthy(self.dir)
        rec = runs.worker(self.dir, pid=300, run='run-2', label='oci')
        rec.write('worker-end')
        found = outcomes.read(self.stream('s', (runs.full(runs.UPLOAD),
                                                'success')))
        facts, _ = publish.rebuild(self.dir, outcomes={None: found})
        self.assertEqual(['subunit outcomes of the only run: the records '
                          'hold 2 runs (oci, tempest); name the run of the '
                          'stream (LABEL=STREAM)'], facts['problems'])


class ExceptionWordsTest(testtools.TestCase):
    """A failure's message is the exception the test raised."""

    def test_assertion_is_its_message(self):
        self.assertEqual('2 of 7 fail:\napi1 public', outcomes.exception_words(
            TRACEBACK % '2 of 7 fail:\napi1 public'))

    def test_other_exceptions_keep_their_short_type(self):
        text = ('Traceback (most recent call last):\n'
                '  File "/x.py", line 1, in f\n    g()\n'
                'glance_multiapi_kernel.polling.PollTimeout: image x: '
                'wanted active\n')
        self.assertEqual('PollTimeout: image x: wanted active',
                         outcomes.exception_words(text))

    def test_tempest_http_errors_read_as_one_line(self):
        text = ('Traceback (most recent call last):\n'
                '  File "/x.py", line 1, in f\n    g()\n'
                'tempest.lib.exceptions.BadRequest: Bad request\n'
                "Details: {'error': 'AttributeError'}\n")
        self.assertEqual("BadRequest: Bad request Details: {'error': "
                         "'AttributeError'}", outcomes.exception_words(text))

    def test_the_last_of_chained_exceptions(self):
        text = ('Traceback (most recent call last):\n'
                '  File "/x.py", line 1, in f\n    g()\n'
                "KeyError: 'k'\n\nDuring handling of the above exception, "
                'another exception occurred:\n\n'
                'Traceback (most recent call last):\n'
                '  File "/x.py", line 3, in f\n    h()\n'
                '    ^^^\nValueError: v\n')
        self.assertEqual('ValueError: v', outcomes.exception_words(text))

    def test_text_without_a_traceback_is_kept(self):
        self.assertEqual('it broke', outcomes.exception_words('it broke\n'))
        self.assertEqual('', outcomes.exception_words(''))


class CliStreamTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.dir = self.useFixture(fixtures.TempDir()).path
        for name in ('stdout', 'stderr'):
            self.useFixture(fixtures.MonkeyPatch(
                'sys.' + name, self.useFixture(fixtures.StringStream(
                    name)).stream))
        runs.healthy(self.dir)

    def status_of(self, bare):
        with open(os.path.join(self.dir, 'deployment-map.json')) as f:
            return _verdicts(json.load(f))[bare][0]

    def test_test_operators_stream_beside_the_records_is_used(self):
        synthetic_subunit.write(self.dir, outcomes.TEST_OPERATOR_STREAM, (
            runs.full(runs.UPLOAD), 'fail'))
        self.assertEqual(0, cli.main([records.folder_of(self.dir)]))
        self.assertEqual('failed', self.status_of(runs.UPLOAD))

    def test_labelled_stream(self):
        path = synthetic_subunit.write(self.dir, 'suite.subunit', (
            runs.full(runs.UPLOAD), 'skip', {'reason': 'r'}))
        self.assertEqual(0, cli.main([self.dir, '--subunit',
                                      'tempest=%s' % path]))
        self.assertEqual('skipped', self.status_of(runs.UPLOAD))

    def test_unreadable_stream_is_exit_22(self):
        self.assertEqual(22, cli.main([self.dir, '--subunit', os.path.join(
            self.dir, 'missing.subunit')]))
