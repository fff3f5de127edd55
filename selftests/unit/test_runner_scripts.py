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
import re
import shutil
import stat
import subprocess
import sys
from xml.etree import ElementTree

import fixtures
import testtools
import yaml

from glance_multiapi_tests.results.gate import subunit_stream
from selftests.unit import synthetic_subunit

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), '..',
                                     '..'))
PYTHON = sys.executable
PASSES = (('pkg.T.test_a', 'success'), ('pkg.T.test_b', 'success'))

# Each stub stands for a stage; STUB_* variables decide what it does.
STUBS = {
    'tools/setup-env.sh': 'exit 0\n',
    'tools/run-lint.sh': 'echo "lint: stub: ok"\n',
    'tools/run-python-matrix.sh': 'echo "2 passed, 0 failed, 0 skipped"\n',
    'tools/run-coexistence.sh': 'echo "1 passed, 0 failed, 0 skipped"\n',
    # NOTE: the disruptive stage fails unless test-operator ended first.
    'tools/run-test-operator.sh': (
        'if [ "${TEST_OPERATOR_NAME:-}" = test-operator-disruptive ]; then\n'
        '    [ -e "$RESULTS/.stub-test-operator-ended" ] || {\n'
        '        echo "0 passed, 1 failed, 0 skipped"; exit 1; }\n'
        'else\n'
        '    touch "$RESULTS/.stub-test-operator-ended"\n'
        'fi\n'
        'echo "0 passed, 0 failed, 1 skipped"\n'),
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
        for name in ('run-tests.sh', 'stage-timer.sh', 'subunit_summary.py',
                     'suite_times.py', 'subunit_report.py',
                     'checkout_path.py'):
            shutil.copy(os.path.join(REPO, 'tools', name),
                        os.path.join(self.root, 'tools', name))
        # NOTE: subunit_report.py reads selftests/ from its checkout.
        os.symlink(os.path.join(REPO, 'selftests'),
                   os.path.join(self.root, 'selftests'))
        for path, body in STUBS.items():
            path = os.path.join(self.root, path)
            with open(path, 'w') as f:
                f.write('#!/bin/bash\n' + body)
            os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        self.unit = synthetic_subunit.write(self.root, 'unit.in', *PASSES)

    def run_tests(self, unit_rc=0, functional=None, functional_rc=0,
                  **more_env):
        env = dict(os.environ, VENV='venv', RESULTS='results',
                   STUB_UNIT=self.unit, STUB_UNIT_RC=str(unit_rc),
                   STUB_FUNCTIONAL=functional or '',
                   STUB_FUNCTIONAL_RC=str(functional_rc), **more_env)
        proc = subprocess.run(
            [os.path.join(self.root, 'tools', 'run-tests.sh')],
            capture_output=True, text=True, timeout=120, env=env,
            cwd=self.root)
        return proc.returncode, proc.stdout.rstrip().splitlines()[-1], \
            proc.stdout

    def functional(self, *tests):
        return synthetic_subunit.write(self.root, 'functional.in', *tests)

    def junit(self, name):
        """{test id: 'pass' or 'fail'} of results/NAME.junit.xml."""
        path = os.path.join(self.root, 'results', name + '.junit.xml')
        self.assertTrue(os.path.exists(path[:-len('.junit.xml')] + '.html'))
        return {'%s.%s' % (c.get('classname'), c.get('name')):
                'fail' if c.find('failure') is not None else 'pass'
                for c in ElementTree.parse(path).iter('testcase')}

    def test_all_green(self):
        rc, line, out = self.run_tests(functional=self.functional(*PASSES))
        self.assertEqual(0, rc, out)
        # 2 unit + 2 matrix + 1 coexistence + 2 functional + lint; both
        # test-operator stages skipped.
        self.assertEqual('8 passed, 0 failed, 2 skipped', line)
        green = {'pkg.T.test_a': 'pass', 'pkg.T.test_b': 'pass'}
        self.assertEqual(green, self.junit('unit'))
        self.assertEqual(green, self.junit('functional'))
        # NOTE: the two workers, and the foreground once the functional
        # tests had ended, ran every stage once off the queue (and the
        # disruptive stub fails unless test-operator ended first).
        ran = []
        for tag in ('worker-0', 'worker-1', 'after-functional'):
            with open(os.path.join(self.root, 'results',
                                   'stages-%s.txt' % tag)) as f:
                ran += f.read().split()
        self.assertEqual(sorted(['lint', 'unit', 'python-matrix',
                                 'coexistence', 'test-operator',
                                 'test-operator-disruptive']), sorted(ran))
        self.assertFalse(os.path.exists(os.path.join(
            self.root, 'results', '.stage-queue')))

    def test_stage_table_and_serial_mode_give_the_same_counts(self):
        for env in ({}, {'SERIAL': '1'}):
            rc, line, out = self.run_tests(
                functional=self.functional(*PASSES), **env)
            self.assertEqual(0, rc, out)
            self.assertEqual('8 passed, 0 failed, 2 skipped', line)
            table = out[out.index('== project test stages (seconds)'):
                        out.index('== where the time went')]
            profile = out[out.index('== where the time went'):
                          out.index('== the ten slowest tests')]
            self.assertIn('critical path: ', profile)
            self.assertEqual(
                ['set-up', 'lint', 'unit', 'python-matrix', 'coexistence',
                 'test-operator', 'test-operator-disruptive', 'functional',
                 'reports', 'wall', 'cores'],
                [row.split()[0] for row in table.splitlines()[1:]])
            slowest = out[out.index('== the ten slowest tests'):]
            # NOTE: the two passes of the stubs (pkg.T.test_a, test_b),
            # in the unit and functional streams.
            self.assertEqual(4, len(slowest.splitlines()[1:-1]), slowest)
            self.assertEqual(
                'SERIAL' not in env,
                'in the background (logs in' in out, out)

    def test_functional_cloud_did_not_start(self):
        rc, line, out = self.run_tests(functional_rc=1)
        self.assertNotEqual(0, rc, out)
        self.assertEqual('6 passed, 1 failed, 2 skipped', line)
        self.assertIn('FAILED: functional (exit 1)', out)
        self.assertEqual({'functional.no_test_result': 'fail'},
                         self.junit('functional'))

    def test_functional_crashed_part_way(self):
        rc, line, out = self.run_tests(
            functional=self.functional(*PASSES), functional_rc=1)
        self.assertNotEqual(0, rc, out)
        self.assertEqual('8 passed, 1 failed, 2 skipped', line)

    def test_failure_in_stream_counted_once(self):
        rc, line, out = self.run_tests(
            functional=self.functional(PASSES[0], ('pkg.T.test_c', 'fail')),
            functional_rc=1)
        self.assertNotEqual(0, rc, out)
        self.assertEqual('7 passed, 1 failed, 2 skipped', line)
        self.assertNotIn('FAILED: functional (exit 1)', out)

    def test_unit_run_failed_without_a_failed_test(self):
        rc, line, out = self.run_tests(
            unit_rc=2, functional=self.functional(*PASSES))
        self.assertNotEqual(0, rc, out)
        self.assertEqual('8 passed, 1 failed, 2 skipped', line)
        self.assertIn('FAILED: unit (exit 2)', out)


class ProwRunTest(testtools.TestCase):
    """tools/prow-run.sh: where its JUnit goes, one file per stream."""

    def setUp(self):
        super().setUp()
        self.root = self.useFixture(fixtures.TempDir()).path
        os.mkdir(os.path.join(self.root, 'tools'))
        os.makedirs(os.path.join(self.root, 'venv', 'bin'))
        for name in ('prow-run.sh', 'subunit_report.py', 'checkout_path.py'):
            shutil.copy(os.path.join(REPO, 'tools', name),
                        os.path.join(self.root, 'tools', name))
        os.symlink(os.path.join(REPO, 'selftests'),
                   os.path.join(self.root, 'selftests'))
        self.stub('venv/bin/python', STUBS['venv/bin/python'])
        # NOTE: the stand-in job reports the streams it was given, as
        # run-suite.sh reports suite and suite-oci.
        self.stub('tools/run-suite.sh',
                  'mkdir -p "$RESULTS"\n'
                  'for s in $STUB_STREAMS; do cp "$s" "$RESULTS/"; '
                  'venv/bin/python tools/subunit_report.py '
                  '"$RESULTS/$(basename "$s")"; done\n'
                  'exit "$STUB_RC"\n')
        self.streams = os.path.join(self.root, 'streams')
        os.mkdir(self.streams)

    def stub(self, path, body):
        path = os.path.join(self.root, path)
        with open(path, 'w') as f:
            f.write('#!/bin/bash\n' + body)
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)

    def prow_run(self, streams=(), rc=0, **env):
        env = dict(os.environ, VENV='venv', STUB_RC=str(rc),
                   STUB_STREAMS=' '.join(streams), **env)
        for name in ('ARTIFACT_DIR', 'ARTIFACTS'):
            if not env.get(name):
                env.pop(name, None)
        proc = subprocess.run(
            [os.path.join(self.root, 'tools', 'prow-run.sh')],
            capture_output=True, text=True, timeout=120, cwd=self.root,
            env=env)
        self.assertEqual(rc, proc.returncode, proc.stdout + proc.stderr)
        return proc.stdout

    def junit(self, folder, name):
        """{test id: 'pass' or 'fail'} of folder/junit_NAME.xml."""
        path = os.path.join(self.root, folder, 'junit_%s.xml' % name)
        return {'%s.%s' % (c.get('classname'), c.get('name')):
                'fail' if c.find('failure') is not None else 'pass'
                for c in ElementTree.parse(path).iter('testcase')}

    def test_one_junit_per_stream_in_artifact_dir(self):
        suite = synthetic_subunit.write(self.streams, 'suite.subunit',
                                        *PASSES)
        oci = synthetic_subunit.write(self.streams, 'suite-oci.subunit',
                                      PASSES[0], ('pkg.T.test_o', 'fail'))
        out = self.prow_run((suite, oci), rc=1, ARTIFACT_DIR='prow',
                            ARTIFACTS='other')
        self.assertEqual({'pkg.T.test_a': 'pass', 'pkg.T.test_b': 'pass'},
                         self.junit('prow', 'suite'))
        self.assertEqual('fail', self.junit('prow', 'suite-oci')[
            'pkg.T.test_o'])
        self.assertEqual(
            ['junit_suite-oci.xml', 'junit_suite.xml', 'results',
             'run-suite.log'], sorted(os.listdir(
                 os.path.join(self.root, 'prow'))))
        self.assertFalse(os.path.exists(os.path.join(self.root, 'other')))
        self.assertIn('junit_suite-oci.xml junit_suite.xml', out)

    def test_artifacts_then_the_default_folder(self):
        suite = synthetic_subunit.write(self.streams, 'suite.subunit',
                                        *PASSES)
        self.prow_run((suite,), ARTIFACTS='arts')
        self.assertIn('pkg.T.test_a', self.junit('arts', 'suite'))
        self.prow_run((suite,))
        self.assertIn('pkg.T.test_a', self.junit('artifacts', 'suite'))

    def test_setup_failure_after_a_green_run(self):
        results = os.path.join(self.root, 'artifacts', 'results')
        os.makedirs(results)
        green = ('<testsuites><testsuite name="suite" tests="1" '
                 'failures="0"><testcase classname="a" name="b"/>'
                 '</testsuite></testsuites>\n')
        for path in (os.path.join(results, 'suite.junit.xml'),
                     os.path.join(results, 'suite-oci.junit.xml'),
                     os.path.join(self.root, 'artifacts', 'junit_suite.xml'),
                     os.path.join(self.root, 'artifacts',
                                  'junit_suite-oci.xml')):
            with open(path, 'w') as f:
                f.write(green)
        synthetic_subunit.write(results, 'suite.subunit', *PASSES)
        self.prow_run(rc=3)
        self.assertEqual({'suite.no_test_result': 'fail'},
                         self.junit('artifacts', 'suite'))
        # NOTE: the OCI pass did not run this time: nothing stands for it.
        self.assertFalse(os.path.exists(os.path.join(
            self.root, 'artifacts', 'junit_suite-oci.xml')))

    def test_no_report_tool_still_one_failure(self):
        self.stub('venv/bin/python', 'exit 127\n')
        self.prow_run(rc=3)
        self.assertEqual({'prow-run.run-suite.sh': 'fail'},
                         self.junit('artifacts', 'suite'))

    def test_no_old_map_stands_for_this_run(self):
        results = os.path.join(self.root, 'artifacts', 'results')
        os.makedirs(results)
        names = ('deployment-map.html', 'deployment-map.json',
                 'metrics.json', 'metrics.prom')
        for name in names:
            with open(os.path.join(results, name), 'w') as f:
                f.write('an earlier run\n')
        out = self.prow_run(rc=3)
        self.assertEqual([], [n for n in names if os.path.exists(
            os.path.join(results, n))])
        self.assertNotIn('deployment map', out)


class PythonMatrixSkipTest(testtools.TestCase):
    """tools/run-python-matrix.sh without the interpreters it wants."""

    def run_matrix(self, **env):
        self.results = self.useFixture(fixtures.TempDir()).path
        pyenv = self.useFixture(fixtures.TempDir()).path
        env = dict(os.environ, VENV=sys.prefix, RESULTS=self.results,
                   PYENV_ROOT=pyenv, **env)
        env.pop('PYENV_VERSION', None)
        # NOTE: versions no machine has, so the test does not depend on
        # which interpreters this one happens to hold.
        proc = subprocess.run(
            [os.path.join(REPO, 'tools', 'run-python-matrix.sh'), '3.97',
             '3.98'], capture_output=True, text=True, timeout=120, env=env)
        return proc.returncode, proc.stdout.rstrip().splitlines()

    def test_missing_interpreters_are_skipped(self):
        rc, lines = self.run_matrix(REQUIRE_PYTHON_MATRIX='')
        self.assertEqual(0, rc, lines)
        self.assertEqual('0 passed, 0 failed, 2 skipped', lines[-1])
        skipped = [line for line in lines if 'SKIPPED' in line]
        self.assertEqual(2, len(skipped), lines)
        self.assertIn("no Python 3.97 interpreter", skipped[0])
        self.assertIn("'pyenv install 3.97'", skipped[0])
        tests = subunit_stream.read_tests(
            os.path.join(self.results, 'python-matrix.subunit'))
        self.assertEqual(['python-matrix.py397', 'python-matrix.py398'],
                         [t.id for t in tests])
        self.assertEqual({'skip'}, {t.outcome for t in tests})
        self.assertIn('pyenv install 3.98', tests[1].reason)

    def test_required_matrix_fails(self):
        rc, lines = self.run_matrix(REQUIRE_PYTHON_MATRIX='1')
        self.assertEqual(1, rc, lines)
        self.assertEqual('0 passed, 2 failed, 0 skipped', lines[-1])
        self.assertIn('python-matrix: FAILED: no Python 3.97 interpreter',
                      lines[0])
        tests = subunit_stream.read_tests(
            os.path.join(self.results, 'python-matrix.subunit'))
        self.assertEqual({'fail'}, {t.outcome for t in tests})


class EnsurePythonsTest(testtools.TestCase):
    """tools/ensure-pythons.sh: a job's interpreters, or which are not."""

    def run_tool(self, *versions, **env):
        folder = self.useFixture(fixtures.TempDir()).path
        bin_dir = os.path.join(folder, 'bin')
        os.makedirs(bin_dir)
        # NOTE: this interpreter, under the name its version gives it.
        mine = '%d.%d' % sys.version_info[:2]
        os.symlink(sys.executable, os.path.join(bin_dir, 'python' + mine))
        env = dict(PATH='%s:/usr/bin:/bin' % bin_dir,
                   PYENV_ROOT=os.path.join(folder, 'pyenv'), **env)
        proc = subprocess.run(
            [os.path.join(REPO, 'tools', 'ensure-pythons.sh')] +
            [v.replace('MINE', mine) for v in versions],
            capture_output=True, text=True, timeout=60, env=env)
        return proc.returncode, proc.stdout.splitlines(), mine

    def test_present_interpreter_is_named(self):
        rc, lines, mine = self.run_tool('MINE', INSTALL='0')
        self.assertEqual(0, rc, lines)
        self.assertEqual(1, len(lines), lines)
        self.assertTrue(lines[0].startswith('python %s: /' % mine), lines)
        self.assertTrue(lines[0].endswith('/bin/python%s' % mine), lines)

    def test_missing_interpreter_is_named_and_fails(self):
        rc, lines, mine = self.run_tool('MINE', '3.97', INSTALL='0')
        self.assertEqual(1, rc, lines)
        self.assertTrue(lines[0].startswith('python %s: ' % mine), lines)
        self.assertEqual('MISSING: python 3.97: not on PATH nor in', ' '.join(
            lines[1].split()[:8]))

    def test_bad_version_is_usage(self):
        rc, _lines, _mine = self.run_tool('39')
        self.assertEqual(2, rc)

    def test_functional_job_claims_what_the_matrix_runs(self):
        with open(os.path.join(REPO, 'zuul.d', 'jobs.yaml')) as f:
            jobs = {i['job']['name']: i['job'] for i in yaml.safe_load(f)}
        claimed = jobs['glance-multiapi-tests-functional']['vars'][
            'python_versions']
        with open(os.path.join(REPO, 'tools', 'run-python-matrix.sh')) as f:
            cases = re.search(r'\] && VERSIONS=\(([^)]*)\)',
                              f.read()).group(1)
        # NOTE: a case is VERSION or VERSION-PINS; the job installs the
        # Pythons, each once.
        self.assertEqual(sorted(set(claimed)), sorted(
            {case.split('-')[0] for case in cases.split()}))
        with open(os.path.join(REPO, 'playbooks', 'run-tests.yaml')) as f:
            play = f.read()
        self.assertIn("['tools/ensure-pythons.sh'] + python_versions", play)
        self.assertIn('REQUIRE_PYTHON_MATRIX: "1"', play)
