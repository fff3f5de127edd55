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

"""The runner scripts' results, their stages stubbed in a copy of tools/."""

import os
import shutil
import stat
import subprocess
import sys

import fixtures
import testtools

from glance_multiapi_tests.selftests.unit import synthetic_subunit

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..',
                                     '..'))
PYTHON = sys.executable
PASSES = (('pkg.T.test_a', 'success'), ('pkg.T.test_b', 'success'))

# Each stub stands for a stage; STUB_* variables decide what it does.
STUBS = {
    'tools/setup-env.sh': 'exit 0\n',
    'tools/run-lint.sh': 'echo "lint: stub: ok"\n',
    'tools/run-python-matrix.sh': 'echo "2 passed, 0 failed, 0 skipped"\n',
    'tools/run-coexistence.sh': 'echo "1 passed, 0 failed, 0 skipped"\n',
    'tools/run-test-operator.sh': 'echo "0 passed, 0 failed, 1 skipped"\n',
    'tools/run-functional.sh': (
        '[ -n "$STUB_FUNCTIONAL" ] && '
        'cp "$STUB_FUNCTIONAL" "$RESULTS/functional.subunit"\n'
        'exit "$STUB_FUNCTIONAL_RC"\n'),
    'venv/bin/stestr': 'cat "$STUB_UNIT"\nexit "$STUB_UNIT_RC"\n',
    'venv/bin/python': 'exec "%s" "$@"\n' % PYTHON,
}


class RunTestsSummaryTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.root = self.useFixture(fixtures.TempDir()).path
        os.mkdir(os.path.join(self.root, 'tools'))
        os.makedirs(os.path.join(self.root, 'venv', 'bin'))
        for name in ('run-tests.sh', 'subunit_summary.py',
                     'subunit_report.py'):
            shutil.copy(os.path.join(REPO, 'tools', name),
                        os.path.join(self.root, 'tools', name))
        for path, body in STUBS.items():
            path = os.path.join(self.root, path)
            with open(path, 'w') as f:
                f.write('#!/bin/bash\n' + body)
            os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        self.unit = synthetic_subunit.write(self.root, 'unit.in', *PASSES)

    def run_tests(self, unit_rc=0, functional=None, functional_rc=0):
        env = dict(os.environ, VENV='venv', RESULTS='results',
                   STUB_UNIT=self.unit, STUB_UNIT_RC=str(unit_rc),
                   STUB_FUNCTIONAL=functional or '',
                   STUB_FUNCTIONAL_RC=str(functional_rc))
        proc = subprocess.run(
            [os.path.join(self.root, 'tools', 'run-tests.sh')],
            capture_output=True, text=True, timeout=120, env=env,
            cwd=self.root)
        return proc.returncode, proc.stdout.rstrip().splitlines()[-1], \
            proc.stdout

    def functional(self, *tests):
        return synthetic_subunit.write(self.root, 'functional.in', *tests)

    def test_all_green(self):
        rc, line, out = self.run_tests(functional=self.functional(*PASSES))
        self.assertEqual(0, rc, out)
        # 2 unit + 2 matrix + 1 coexistence + 2 functional + lint; the
        # test-operator stage skipped.
        self.assertEqual('8 passed, 0 failed, 1 skipped', line)

    def test_functional_cloud_did_not_start(self):
        rc, line, out = self.run_tests(functional_rc=1)
        self.assertNotEqual(0, rc, out)
        self.assertEqual('6 passed, 1 failed, 1 skipped', line)
        self.assertIn('FAILED: functional (exit 1)', out)

    def test_functional_crashed_part_way(self):
        rc, line, out = self.run_tests(
            functional=self.functional(*PASSES), functional_rc=1)
        self.assertNotEqual(0, rc, out)
        self.assertEqual('8 passed, 1 failed, 1 skipped', line)

    def test_failure_in_stream_counted_once(self):
        rc, line, out = self.run_tests(
            functional=self.functional(PASSES[0], ('pkg.T.test_c', 'fail')),
            functional_rc=1)
        self.assertNotEqual(0, rc, out)
        self.assertEqual('7 passed, 1 failed, 1 skipped', line)
        self.assertNotIn('FAILED: functional (exit 1)', out)

    def test_unit_run_failed_without_a_failed_test(self):
        rc, line, out = self.run_tests(
            unit_rc=2, functional=self.functional(*PASSES))
        self.assertNotEqual(0, rc, out)
        self.assertEqual('8 passed, 1 failed, 1 skipped', line)
        self.assertIn('FAILED: unit (exit 2)', out)


class ProwRunTest(testtools.TestCase):
    """tools/prow-run.sh never publishes an earlier run's JUnit."""

    def test_setup_failure_after_a_green_run(self):
        root = self.useFixture(fixtures.TempDir()).path
        os.mkdir(os.path.join(root, 'tools'))
        os.makedirs(os.path.join(root, 'venv', 'bin'))
        for name in ('prow-run.sh', 'subunit_report.py'):
            shutil.copy(os.path.join(REPO, 'tools', name),
                        os.path.join(root, 'tools', name))
        for path, body in (('tools/run-suite.sh', 'exit 3\n'),
                           ('venv/bin/python', STUBS['venv/bin/python'])):
            path = os.path.join(root, path)
            with open(path, 'w') as f:
                f.write('#!/bin/bash\n' + body)
            os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        results = os.path.join(root, 'artifacts', 'results')
        os.makedirs(results)
        green = ('<testsuites><testsuite name="suite" tests="1" '
                 'failures="0"><testcase classname="a" name="b"/>'
                 '</testsuite></testsuites>\n')
        for path in (os.path.join(results, 'suite.junit.xml'),
                     os.path.join(root, 'artifacts', 'junit_suite.xml')):
            with open(path, 'w') as f:
                f.write(green)
        synthetic_subunit.write(results, 'suite.subunit', *PASSES)
        proc = subprocess.run(
            [os.path.join(root, 'tools', 'prow-run.sh')],
            capture_output=True, text=True, timeout=120, cwd=root,
            env=dict(os.environ, VENV='venv', ARTIFACTS='artifacts'))
        self.assertEqual(3, proc.returncode, proc.stdout + proc.stderr)
        with open(os.path.join(root, 'artifacts', 'junit_suite.xml')) as f:
            junit = f.read()
        self.assertIn('failures="1"', junit)
        self.assertIn('no test result', junit)
