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

"""tools/check_results_map.py: the map and the streams agree."""

import os

import fixtures
import testtools

from selftests import results_map
from selftests.unit import recorded_runs as runs
from selftests.unit import synthetic_subunit


class ResultsMapCheckTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.dir = self.useFixture(fixtures.TempDir()).path

    def stream(self, *tests):
        return synthetic_subunit.write(self.dir, 'suite.subunit', *tests)

    def healthy_stream(self, **changes):
        tests = {runs.full(b): 'success' for b in (
            runs.ENDPOINTS, runs.ONE_SERVICE, runs.OWNERSHIP, runs.UPLOAD,
            runs.SWITCHOVER)}
        tests.update(changes)
        skipped = 'setUpClass (%sapi.test_heat_services.HeatServicesTest)' % (
            runs.T)
        return self.stream(*([(k, v) for k, v in tests.items()] +
                             [(skipped, 'skip')]))

    def test_healthy_run_agrees(self):
        runs.healthy(self.dir)
        runs.rebuild(self.dir)
        problems, summary = results_map.check(
            self.dir, [('tempest', self.healthy_stream())])
        self.assertEqual([], problems)
        self.assertIn('5 test result(s) of 1 stream(s) agree with the map; '
                      '5 figure(s); metrics.prom: ', summary)

    def test_different_verdict_is_named(self):
        runs.healthy(self.dir)
        runs.rebuild(self.dir)
        stream = self.healthy_stream(**{runs.full(runs.UPLOAD): 'fail'})
        problems, _ = results_map.check(self.dir, [('tempest', stream)])
        self.assertEqual(['%s: failed in the stream, passed on the map (run '
                          'tempest)' % runs.UPLOAD], problems)

    def test_test_missing_either_side_is_named(self):
        runs.healthy(self.dir)
        runs.rebuild(self.dir)
        lost = runs.T + 'api.test_catalog.CatalogOwnershipTest.test_new'
        stream = self.stream((runs.full(runs.ENDPOINTS), 'success'),
                             (lost, 'success'))
        problems, _ = results_map.check(self.dir, [('tempest', stream)])
        self.assertIn('%s: passed in the stream, not on the map (run '
                      'tempest)' % lost, problems)
        self.assertIn('%s: passed on the map, not in the stream (run '
                      'tempest)' % runs.UPLOAD, problems)

    def test_stopped_run_unknown_label_and_missing_files(self):
        runs.killed(self.dir)
        runs.rebuild(self.dir)
        problems, _ = results_map.check(self.dir, [('oci', self.stream())])
        self.assertEqual(['the map says a run stopped early: tempest',
                          "the map has no run 'oci' (runs: tempest)"],
                         problems)
        os.unlink(os.path.join(self.dir, 'metrics.prom'))
        problems, _ = results_map.check(self.dir, [])
        self.assertEqual(['%s lacks metrics.prom' % self.dir], problems)

    def test_prom_that_does_not_parse(self):
        runs.healthy(self.dir)
        runs.rebuild(self.dir)
        with open(os.path.join(self.dir, 'metrics.prom'), 'a') as f:
            f.write('glance_multiapi_tests{status="x" 1\n')
        problems, _ = results_map.check(self.dir, [])
        self.assertEqual(1, len(problems))
        self.assertIn('metrics.prom does not parse', problems[0])

    def test_map_that_is_not_json(self):
        runs.healthy(self.dir)
        runs.rebuild(self.dir)
        with open(os.path.join(self.dir, 'deployment-map.json'), 'w') as f:
            f.write('{cut')
        problems, _ = results_map.check(self.dir, [])
        self.assertEqual(1, len(problems))
        self.assertIn('deployment-map.json cannot be read', problems[0])


class TwoRunsOneWorkspaceTest(testtools.TestCase):
    """The main job runs its disruptive scenarios, then the rest."""

    def test_each_test_is_judged_by_the_run_that_ran_it(self):
        a, b = runs.SWITCHOVER, runs.UPLOAD
        facts = {'runs': [{'label': 'tempest'}, {'label': 'tempest #2'}],
                 'tests': [
                     {'bare': a, 'run': 'tempest', 'status': 'passed'},
                     {'bare': b, 'run': 'tempest', 'status': 'not selected'},
                     {'bare': a, 'run': 'tempest #2',
                      'status': 'not selected'},
                     {'bare': b, 'run': 'tempest #2', 'status': 'failed'}]}
        tests = [runs.full(a), runs.full(b)]
        stream = synthetic_subunit.write(
            self.useFixture(fixtures.TempDir()).path, 's.subunit',
            (tests[0], 'success'), (tests[1], 'fail'))
        from glance_multiapi_tests.results.gate import subunit_stream
        self.assertEqual([], results_map.disagreements(
            facts, 'tempest', subunit_stream.read_tests(stream)))
