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
(its metrics.json, as the main job's report writes it); the same
switchover under ``slow-reconcile`` (every patch acted upon late, as by
a slow operator) converges at least five times slower. The report, run
as a CI runs it, flags those figures with both values and exits 3 under
--fail-on-regression; the healthy run against itself flags nothing. The
ci-framework post_tests hook (playbooks/podified/post-tests.yaml), run
from its own text by the ansible-core the ci-framework runs it with,
installs this checkout's report and does the same on the slowed run laid
out as test-operator leaves it, with the healthy metrics.json where the
Zuul pre-run step leaves the last green build's: the map, the metrics,
the comparison and a failed job naming each regression; a pod whose
records cannot be read is said in the summary and fails the job too.
"""

import io
import json
import os
import shutil
import subprocess
import tempfile

import fixtures

from glance_multiapi_tests.results.gate import subunit_stream
from glance_multiapi_tests.results.runmap import metrics
from selftests import ci_playbooks
from selftests import ci_venvs
from selftests.functional import base
from selftests.functional import test_multiapi_faults

SWITCHOVER = test_multiapi_faults.SWITCHOVER
FIGURE = 'switchover_convergence_seconds'
REPORT_EXIT_REGRESSED = 3
# NOTE: a patch through the Kubernetes API returns once reconciled: the
# delay stays well under the plugin's kubernetes_timeout (30 s).
MAX_DELAY = 20
# NOTE: the folder test-operator names after the pod (ci-framework's CR
# glance-multiapi-tempest, no workflow).
POD = 'glance-multiapi-tempest'
ANSIBLE_FAILED = 2


class MetricsBaselineTest(base.CloudTestCase):
    """A slowed switchover against a healthy run's metrics.json."""

    # NOTE: a cloud of its own (the shared one's kind), in a worker of its
    # own (tools/run-functional.sh): its two switchovers and the post_tests
    # hook took 296 s, and behind the shared cloud's other fault tests in
    # one worker they set the functional stage's wall time (that worker
    # ended at 1336 s, the three others at 702 to 997 s).
    cloud_env = 'GLANCE_MULTIAPI_FUNCTIONAL_BASELINE_CLOUD'

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
            proc = self.tempest_stream(SWITCHOVER.replace('.', r'\.'),
                                       overrides={'glance_multiapi': options})
        # NOTE: beside the records, as test-operator leaves the stream.
        with open(os.path.join(out, 'tempest_results.subunit'), 'wb') as f:
            f.write(proc.stdout)
        results = subunit_stream.parse_subunit(io.BytesIO(proc.stdout))
        self.assertOutcome(results, SWITCHOVER, 'success')
        # NOTE: the map and metrics.json, as the runners build them.
        built = self.report(out)
        self.assertEqual(0, built.returncode, built.stdout + built.stderr)
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

        self.assertPostTestsHookFlags(slowed, baseline, len(after))

    def assertPostTestsHookFlags(self, slowed, baseline, regressed):
        """The post_tests hook on the slowed run fails naming each one."""
        venv = self.useFixture(ci_venvs.CiVenv('cifmw'))
        work = self.useFixture(fixtures.TempDir()).path
        src = ci_playbooks.checkout(os.path.join(work, 'src'))
        basedir = os.path.join(work, 'ci-framework-data')
        pods = os.path.join(basedir, 'tests', 'test_operator')
        shutil.copytree(slowed, os.path.join(pods, POD))
        found = os.path.join(work, 'home', 'glance-multiapi-baseline')
        os.makedirs(found)
        shutil.copy(baseline, os.path.join(found, 'metrics.json'))
        hook = os.path.join(src, 'playbooks', 'podified', 'post-tests.yaml')
        # NOTE: the venv the hook installs the report into, with the
        # project's requirements already in it (tools/ci-venv.sh report,
        # made again when they change): making it from nothing took a
        # third of this test's time (68.6 s against 45.9 s on a quiet
        # machine, 24 CPU-s). The hook's pip task still installs this
        # checkout, under the same constraints.
        report_venv = self.useFixture(ci_venvs.CiVenv('report'))
        variables = {'cifmw_basedir': basedir,
                     'gmt_venv': report_venv.path,
                     'glance_multiapi_required_groups': ['switchover'],
                     'glance_multiapi_fail_on_regression': True}
        proc = ci_playbooks.play(venv, hook, variables,
                                 home=os.path.join(work, 'home'))
        self.assertEqual(ANSIBLE_FAILED, proc.returncode, proc.stdout)
        out = os.path.join(basedir, 'tests', 'glance-multiapi')
        for name in ('deployment-map.html', 'deployment-map.json',
                     'metrics.json', 'metrics.prom', 'comparison.txt'):
            self.assertTrue(os.path.isfile(os.path.join(out, POD, name)),
                            name)
        self.assertTrue(os.path.isfile(os.path.join(out, 'metrics.json')))
        with open(os.path.join(out, POD, 'comparison.txt')) as f:
            said = [line for line in f if line.startswith('REGRESSED: ')]
        self.assertEqual(regressed, len(said), said)
        with open(os.path.join(out, 'summary.txt')) as f:
            summary = f.read()
        self.assertIn('1 passed, 0 failed, 0 skipped', summary)
        self.assertIn('baseline: %s' % os.path.join(found, 'metrics.json'),
                      summary)
        self.assertIn('REGRESSED: glance_multiapi_%s' % FIGURE, proc.stdout)

        # A pod whose records cannot be read: said, and failing the job.
        records = os.path.join(pods, 'broken', 'glance-multiapi-records')
        os.makedirs(records)
        with open(os.path.join(records, '1-1.jsonl'), 'w') as f:
            f.write('not a record\n')
        variables['glance_multiapi_fail_on_regression'] = False
        proc = ci_playbooks.play(venv, hook, variables,
                                 home=os.path.join(work, 'home'))
        self.assertEqual(ANSIBLE_FAILED, proc.returncode, proc.stdout)
        with open(os.path.join(out, 'summary.txt')) as f:
            summary = f.read()
        self.assertIn('FAILED: the deployment map of broken could not be '
                      'rebuilt (glance-multiapi-report exited 22)', summary)
        self.assertIn('FAILED: the deployment map of broken', proc.stdout)
