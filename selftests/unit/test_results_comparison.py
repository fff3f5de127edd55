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

"""A run's figures against a baseline's: the pairing, the tolerances,
the noise floor, and glance-multiapi-report --baseline over recorded
runs (the real Recorder's records)."""

import contextlib
import io
import json
import os

import fixtures
import testtools

from glance_multiapi_tests.results import cli
from glance_multiapi_tests.results.runmap import comparison
from glance_multiapi_tests.results.runmap import metrics
from selftests.unit import recorded_runs as runs

SWITCH = 'switchover_convergence_seconds'
UPLOAD = 'upload_bytes_per_second'
PUBLIC = {'from_api': 'api0', 'to_api': 'api1', 'interface': 'public'}


def figure(key, value, **labels):
    return {'figure': key, 'value': value, 'labels': labels}


class CompareTest(testtools.TestCase):

    def test_five_times_slower_regresses_with_both_values(self):
        rows = comparison.compare([figure(SWITCH, 7.0, **PUBLIC)],
                                  [figure(SWITCH, 1.4, **PUBLIC)])
        self.assertEqual(['regressed'], [r['status'] for r in rows])
        self.assertAlmostEqual(5.0, rows[0]['ratio'])
        self.assertEqual(
            'glance_multiapi_switchover_convergence_seconds{from_api="api0",'
            'interface="public",to_api="api1"}: 1.40 s -> 7.00 s (x5.00, '
            '5.00 times worse; tolerance x2)', rows[0]['message'])

    def test_the_same_figures_never_regress(self):
        same = [figure(SWITCH, 1.4, **PUBLIC),
                figure(UPLOAD, 80 * metrics.MIB, api='api0')]
        rows = comparison.compare(same, same)
        self.assertEqual(['within', 'within'], [r['status'] for r in rows])
        self.assertEqual([], comparison.regressed(rows))

    def test_a_rate_regresses_when_it_falls(self):
        rows = comparison.compare(
            [figure(UPLOAD, 20 * metrics.MIB, api='api0'),
             figure(UPLOAD, 400 * metrics.MIB, api='api1')],
            [figure(UPLOAD, 80 * metrics.MIB, api='api0'),
             figure(UPLOAD, 80 * metrics.MIB, api='api1')])
        self.assertEqual(['regressed', 'within'],
                         [r['status'] for r in rows])
        self.assertIn('80.0 MiB/s -> 20.0 MiB/s (x0.25, 4.00 times worse; '
                      'tolerance x3)', rows[0]['message'])
        self.assertIn('better', rows[1]['message'])

    def test_a_change_under_the_noise_is_no_regression(self):
        rows = comparison.compare([figure(SWITCH, 0.5, **PUBLIC)],
                                  [figure(SWITCH, 0.1, **PUBLIC)])
        self.assertEqual('within', rows[0]['status'])
        self.assertIn('change under the noise of 1.00 s',
                      rows[0]['message'])

    def test_tolerance_option_overrides_the_default(self):
        current = [figure(SWITCH, 3.0, **PUBLIC)]
        base = [figure(SWITCH, 1.9, **PUBLIC)]
        self.assertEqual('within', comparison.compare(current, base)[0][
            'status'])
        tolerances = comparison.parse_tolerances(
            ['glance_multiapi_%s=1.2' % SWITCH])
        self.assertEqual('regressed', comparison.compare(
            current, base, tolerances)[0]['status'])

    def test_new_and_gone_figures_are_told_not_flagged(self):
        rows = comparison.compare(
            [figure(SWITCH, 1.0, **PUBLIC)],
            [figure('grow_answer_seconds', 4.0, api='apigrow')])
        self.assertEqual(['new', 'gone'], [r['status'] for r in rows])
        self.assertEqual([], comparison.regressed(rows))
        self.assertIn('0 regressed, 0 within tolerance, 1 new, 1 only in '
                      'the baseline', comparison.lines(rows, 'b.json')[-1])

    def test_bad_tolerances_are_refused(self):
        for bad in ('switchover', 'nosuch=2', '%s=0.5' % SWITCH,
                    '%s=nan' % SWITCH, '%s=x' % SWITCH):
            self.assertRaises(ValueError, comparison.parse_tolerances,
                              [bad])

    def test_every_figure_has_a_tolerance_and_a_noise(self):
        for key, item in metrics.FIGURES.items():
            self.assertGreaterEqual(item.tolerance, 1, key)
            self.assertGreaterEqual(item.noise, 0, key)

    def test_baseline_that_is_no_metrics_json_is_refused(self):
        for text in ('[]', '{"figures": 1}', '{"figures": [1]}',
                     '{"figures": [{"figure": "x", "labels": {}, '
                     '"value": true}]}', 'not json'):
            self.assertRaises(comparison.BaselineError, comparison.parse,
                              text, 'b.json')


class ReportBaselineTest(testtools.TestCase):
    """glance-multiapi-report --baseline over a recorded healthy run."""

    def setUp(self):
        super().setUp()
        self.dir = self.useFixture(fixtures.TempDir()).path
        runs.healthy(self.dir)
        runs.rebuild(self.dir)
        self.metrics = os.path.join(self.dir, 'metrics.json')

    def baseline(self, slower=None):
        """A baseline of this run's metrics.json, written beside it.

        slower: the public switchover is five times quicker there, so
        this run is five times slower.
        """
        with open(self.metrics) as f:
            document = json.load(f)
        for item in document['figures']:
            if slower and item['labels'].get('interface') == 'public' and \
                    item['figure'] == SWITCH:
                item['value'] /= 5
        path = os.path.join(self.dir, 'baseline.json')
        with open(path, 'w') as f:
            json.dump(document, f)
        return path

    def report(self, *argv):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = cli.main(list(argv))
        return code, out.getvalue()

    def test_rebuild_against_itself_flags_nothing(self):
        code, out = self.report(self.dir, '--baseline', self.baseline(),
                                '--fail-on-regression')
        self.assertEqual(0, code, out)
        self.assertNotIn('REGRESSED', out)
        self.assertIn('0 regressed, 5 within tolerance', out)
        with open(os.path.join(self.dir, 'deployment-map.html')) as f:
            self.assertIn('no figure regressed against the baseline',
                          f.read())

    def test_five_times_slower_fails_only_when_asked(self):
        baseline = self.baseline(slower=True)
        code, out = self.report(self.dir, '--baseline', baseline)
        self.assertEqual(0, code, out)
        code, out = self.report(self.dir, '--baseline', baseline,
                                '--fail-on-regression')
        self.assertEqual(cli.EXIT_REGRESSED, code, out)
        self.assertIn(
            'REGRESSED: glance_multiapi_switchover_convergence_seconds{'
            'from_api="api0",interface="public",to_api="api1"}: 0.28 s -> '
            '1.40 s (x5.00, 5.00 times worse; tolerance x2)', out)
        with open(os.path.join(self.dir, 'deployment-map.json')) as f:
            facts = json.load(f)
        self.assertEqual(baseline, facts['comparison']['baseline'])
        self.assertEqual(['regressed'], [
            r['status'] for r in facts['comparison']['rows']
            if r['status'] != 'within'])
        with open(os.path.join(self.dir, 'deployment-map.html')) as f:
            page = f.read()
        self.assertIn('1 figure(s) REGRESSED against the baseline', page)
        self.assertIn('REGRESSED x5.0', page)
        with open(self.metrics) as f:
            self.assertNotIn('compared', f.read())

    def test_two_metrics_files_compare_without_writing(self):
        baseline = self.baseline(slower=True)
        before = os.path.getmtime(os.path.join(self.dir,
                                               'deployment-map.html'))
        code, out = self.report(self.metrics, '--baseline', baseline,
                                '--fail-on-regression')
        self.assertEqual(cli.EXIT_REGRESSED, code)
        self.assertEqual(2, len(out.splitlines()), out)
        self.assertEqual(before, os.path.getmtime(
            os.path.join(self.dir, 'deployment-map.html')))
        code, _out = self.report(self.metrics, '--baseline', self.metrics,
                                 '--fail-on-regression', '-q')
        self.assertEqual(0, code)
