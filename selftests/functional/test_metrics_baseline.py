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

"""glance-multiapi-report --baseline on the figures of real runs.

A healthy switchover on the shared embedded cloud gives the baseline
(its metrics.json, as the main job writes it); the same switchover under
``slow-reconcile`` (every patch acted upon late, as by a slow operator)
converges at least five times slower. The report, run as a CI runs it,
flags those figures with both values and exits 3 under
--fail-on-regression; the healthy run against itself flags nothing.
"""

import json
import os
import subprocess
import tempfile

import fixtures

from glance_multiapi_tests.results import metrics
from selftests.functional import base
from selftests.functional import test_multiapi_faults

SWITCHOVER = test_multiapi_faults.SWITCHOVER
FIGURE = 'switchover_convergence_seconds'
REPORT_EXIT_REGRESSED = 3
# NOTE: a patch through the Kubernetes API returns once reconciled: the
# delay stays well under the plugin's kubernetes_timeout (30 s).
MAX_DELAY = 20


class MetricsBaselineTest(base.CloudTestCase):
    """A slowed switchover against a healthy run's metrics.json."""

    def results_dir(self):
        return tempfile.mkdtemp(prefix='gmt-baseline-', dir=self.useFixture(
            fixtures.TempDir()).path)

    def switchover(self, *faults, delay=0):
        """Run the switchover under faults; its results folder."""
        out = self.results_dir()
        options = dict(test_multiapi_faults.MultiApiFaultsTest.overrides(
            self)['glance_multiapi'], results_dir=out)
        # NOTE: a late patch is no failure of the switchover itself.
        options['convergence_timeout'] += int(delay) + 1
        with self.fault(*faults):
            results = self.run_tempest(SWITCHOVER.replace('.', r'\.'),
                                       overrides={'glance_multiapi': options})
        self.assertOutcome(results, SWITCHOVER, 'success')
        return out

    def figures(self, results_dir):
        with open(os.path.join(results_dir, 'metrics.json')) as f:
            return {metrics.labels_text(item['labels']): item['value']
                    for item in json.load(f)['figures']
                    if item['figure'] == FIGURE}

    def report(self, *argv):
        return subprocess.run(
            [os.path.join(base.BIN, 'glance-multiapi-report')] + list(argv),
            capture_output=True, text=True, timeout=120)

    def test_slowed_switchover_is_flagged_against_healthy_run(self):
        healthy = self.switchover()
        before = self.figures(healthy)
        self.assertEqual(4, len(before), before)
        baseline = os.path.join(healthy, 'metrics.json')
        # NOTE: every figure at least five times its healthy value, and
        # past the figure's noise (1 s) whatever the healthy value was.
        delay = max(5 * max(before.values()), 1.5)
        if delay > MAX_DELAY:
            self.fail('the healthy switchover took %.2f s: too slow on this '
                      'machine to be made five times slower within the '
                      'plugin\'s kubernetes_timeout' % max(before.values()))
        slowed = self.switchover('slow-reconcile=%.2f' % delay, delay=delay)
        after = self.figures(slowed)
        self.assertEqual(sorted(before), sorted(after))
        for labels, value in after.items():
            self.assertGreaterEqual(value, 5 * before[labels], labels)

        # Against itself nothing regresses.
        same = self.report(healthy, '--baseline', baseline,
                           '--fail-on-regression')
        self.assertEqual(0, same.returncode, same.stdout + same.stderr)
        self.assertNotIn('REGRESSED', same.stdout)
        self.assertIn('compared %d figure(s) with baseline %s: 0 regressed'
                      % (len(before), baseline), same.stdout)

        # Alone it reports; under --fail-on-regression it fails.
        told = self.report(slowed, '--baseline', baseline)
        self.assertEqual(0, told.returncode, told.stderr)
        failed = self.report(slowed, '--baseline', baseline,
                             '--fail-on-regression')
        self.assertEqual(REPORT_EXIT_REGRESSED, failed.returncode,
                         failed.stdout + failed.stderr)
        lines = [line for line in failed.stdout.splitlines()
                 if line.startswith('REGRESSED: ')]
        self.assertEqual(len(after), len(lines), failed.stdout)
        for labels, value in after.items():
            said = [line for line in lines if line.startswith(
                'REGRESSED: glance_multiapi_%s%s: ' % (FIGURE, labels))]
            self.assertEqual(1, len(said), (labels, lines))
            self.assertIn(': %.2f s -> %.2f s (x' % (before[labels], value),
                          said[0])
            self.assertIn('times worse; tolerance x2)', said[0])

        # The map shows the comparison.
        with open(os.path.join(slowed, 'deployment-map.json')) as f:
            compared = json.load(f)['comparison']
        self.assertEqual(baseline, compared['baseline'])
        self.assertEqual({'regressed'}, {r['status'] for r in
                                         compared['rows']})
        with open(os.path.join(slowed, 'deployment-map.html')) as f:
            self.assertIn('%d figure(s) REGRESSED against the baseline' %
                          len(after), f.read())
