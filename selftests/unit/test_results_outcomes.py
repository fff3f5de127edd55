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
                'traceback': 'Traceback...\nAssertionError: boom\n'}),
            (runs.full(runs.ENDPOINTS), 'success'),
            ('setUpClass (%s)' % HEAT, 'skip', {'reason': 'no heat'}),
            ('other.plugin.Test.test_x', 'fail'))
        found = outcomes.read(path)
        self.assertEqual({runs.UPLOAD: ('failed', 'AssertionError: boom'),
                          runs.ENDPOINTS: ('passed', '')}, found.tests)
        self.assertEqual({HEAT: ('skipped', 'no heat')}, found.classes)

    def test_the_stream_decides_and_the_tests_words_stay(self):
        runs.api_down(self.dir)
        facts, _ = publish.rebuild(self.dir)
        recorded = _verdicts(facts)[runs.UPLOAD]
        self.assertEqual('failed', recorded[0])
        found = outcomes.read(self.stream(
            's', (runs.full(runs.UPLOAD), 'fail', {
                'traceback': 'Traceback...\nAssertionError: x\n'}),
            (runs.full(runs.ONE_SERVICE), 'skip', {'reason': 'said so'})))
        facts, _ = publish.rebuild(self.dir, outcomes={None: found})
        verdicts = _verdicts(facts)
        # NOTE: both say failed: the map keeps the test's own message.
        self.assertEqual(recorded, verdicts[runs.UPLOAD])
        self.assertEqual(('skipped', 'said so'), verdicts[runs.ONE_SERVICE])

    def test_a_killed_worker_is_unfinished_in_the_stream_too(self):
        runs.killed(self.dir)
        found = outcomes.read(self.stream(
            's', (runs.full(runs.ONE_SERVICE), 'inprogress')))
        facts, _ = publish.rebuild(self.dir, outcomes={'tempest': found})
        self.assertEqual('unfinished',
                         _verdicts(facts)[runs.ONE_SERVICE][0])

    def test_a_stream_of_no_recorded_run_is_a_problem_on_the_map(self):
        runs.healthy(self.dir)
        found = outcomes.read(self.stream('s'))
        facts, _ = publish.rebuild(self.dir, outcomes={'other': found})
        self.assertIn('subunit outcomes of other: the records hold no such '
                      'run (runs: tempest)', facts['problems'])


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
