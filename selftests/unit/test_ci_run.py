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

""".ci/run's last lines, its two runners stubbed in a copy of the tree.

CI keeps only the tail of what .ci/run prints, so what failed must be
named there, above the result line.
"""

import os
import shutil
import stat
import subprocess
import sys

import fixtures
import testtools

from selftests.unit import synthetic_subunit

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), '..',
                                     '..'))


class CiRunTailTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.root = self.useFixture(fixtures.TempDir()).path
        for folder in ('.ci', 'tools', os.path.join('.venv', 'bin'),
                       'results'):
            os.makedirs(os.path.join(self.root, folder))
        shutil.copy(os.path.join(REPO, '.ci', 'run'),
                    os.path.join(self.root, '.ci', 'run'))
        shutil.copy(os.path.join(REPO, 'tools', 'subunit_summary.py'),
                    os.path.join(self.root, 'tools', 'subunit_summary.py'))
        self.script('.venv/bin/python', 'exec "%s" "$@"\n' % sys.executable)

    def script(self, path, body):
        path = os.path.join(self.root, path)
        with open(path, 'w') as f:
            f.write('#!/bin/bash\n' + body)
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)

    def ci_run(self):
        env = dict(os.environ, PYTHONPATH=REPO)
        proc = subprocess.run([os.path.join(self.root, '.ci', 'run')],
                              capture_output=True, text=True, timeout=120,
                              env=env, cwd=self.root)
        return proc.returncode, proc.stdout.rstrip().splitlines()

    def test_failures_named_last(self):
        synthetic_subunit.write(
            os.path.join(self.root, 'results'), 'unit.subunit',
            ('pkg.T.test_a', 'success'), ('pkg.T.test_b', 'fail', {
                'traceback': 'Traceback (most recent call last):\n'
                             'AssertionError: why it failed'}))
        self.script('tools/run-tests.sh', 'echo "FAILED: lint"\n'
                    'echo "1 passed, 2 failed, 0 skipped"\nexit 1\n')
        self.script('tools/run-suite.sh',
                    'echo "3 passed, 0 failed, 0 skipped"\n')
        rc, lines = self.ci_run()
        self.assertEqual(1, rc, lines)
        tail = lines[lines.index('== what failed'):]
        self.assertIn('FAILED: lint', tail)
        self.assertIn('unit: FAILED: pkg.T.test_b', tail)
        # NOTE: and why, right under it.
        self.assertEqual('unit:   | AssertionError: why it failed',
                         tail[tail.index('unit: FAILED: pkg.T.test_b') + 2])
        self.assertNotIn('pkg.T.test_a', '\n'.join(tail))
        # NOTE: and one failure more: results/ lacks most of its files.
        self.assertEqual('4 passed, 3 failed, 0 skipped', tail[-1])

    def test_green_run_lists_nothing(self):
        results = os.path.join(self.root, 'results')
        for name in ('unit', 'functional', 'python-matrix', 'coexistence',
                     'test-operator', 'test-operator-disruptive', 'suite',
                     'suite-oci'):
            for suffix in ('subunit', 'junit.xml', 'html'):
                with open(os.path.join(results, name + '.' + suffix),
                          'w') as f:
                    f.write('x')
        for name in ('deployment-map.html', 'deployment-map.json',
                     'metrics.json', 'metrics.prom'):
            with open(os.path.join(results, name), 'w') as f:
                f.write('x')
        self.script('tools/run-tests.sh',
                    'echo "1 passed, 0 failed, 0 skipped"\n')
        self.script('tools/run-suite.sh',
                    'echo "3 passed, 0 failed, 0 skipped"\n')
        rc, lines = self.ci_run()
        self.assertEqual(0, rc, lines)
        self.assertNotIn('== what failed', lines)
        self.assertEqual('5 passed, 0 failed, 0 skipped', lines[-1])
