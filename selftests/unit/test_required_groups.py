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

"""Required groups: a job fails when a group it needs did not run."""

import os
import subprocess
import sys

import fixtures
import testtools

from glance_multiapi_tests.results.gate import required_groups
from glance_multiapi_tests.results.gate import subunit_stream
from selftests.unit import synthetic_subunit

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), '..',
                                     '..'))
SUMMARY = os.path.join(REPO, 'tools', 'subunit_summary.py')
T = 'glance_multiapi_tests.tests.'
ENDPOINTS = T + 'api.test_endpoints.ImageEndpointsTest'
NO_DISCOVERY = ('[glance_multiapi] sets none of kubernetes_api, '
                'discovery_command, api_names, so the Glance APIs are '
                'unknown')
NO_PATCH = '[glance_multiapi] patch_command is unset'


class ParseTest(testtools.TestCase):

    def test_parse_keeps_order_and_drops_blanks_and_repeats(self):
        self.assertEqual(['heat', 'multiapi'],
                         required_groups.parse(' heat,,multiapi,heat '))

    def test_parse_empty_is_no_group(self):
        self.assertEqual([], required_groups.parse(''))

    def test_parse_names_an_unknown_group_and_the_known_ones(self):
        exc = self.assertRaises(ValueError, required_groups.parse,
                                'multiapi,multi_api')
        self.assertIn("'multi_api'", str(exc))
        self.assertIn('grow_shrink', str(exc))

    def test_groups_cover_the_test_modules(self):
        cases = {
            'multiapi': ['api.test_endpoints.A.test_x',
                         'api.test_catalog.A.test_x',
                         'api.test_store_placement.A.test_x[id-1]'],
            'switchover': ['scenario.test_switchover.A.test_x'],
            'grow_shrink': ['scenario.test_grow_shrink.A.test_x'],
            'uploader': ['scenario.test_uploader.A.test_x',
                         'scenario.test_uploader_races.A.test_x'],
            'consolidated_images': ['api.test_consolidated_images.A.t'],
            'heat': ['api.test_heat_services.A.test_x'],
            'heat_engine_restart': [
                'scenario.test_heat_engine_restart.A.test_x'],
        }
        for group, ids in cases.items():
            for test_id in ids:
                for other in required_groups.GROUPS:
                    self.assertEqual(
                        other == group,
                        required_groups.in_group(other, T + test_id),
                        '%s in %s' % (test_id, other))

    def test_every_test_module_is_in_exactly_one_group(self):
        # NOTE: read from the package, so that a new test module that no
        # group names cannot be left out of what a gate can require.
        tests_dir = os.path.join(REPO, 'glance_multiapi_tests', 'tests')
        modules = ['%s.%s' % (kind, name[:-3])
                   for kind in ('api', 'scenario')
                   for name in sorted(os.listdir(os.path.join(tests_dir,
                                                              kind)))
                   if name.startswith('test_') and name.endswith('.py')]
        self.assertIn('scenario.test_uploader_policies', modules)
        for module in modules:
            groups = [g for g in required_groups.GROUPS
                      if required_groups.in_group(g, T + module + '.A.t')]
            self.assertEqual(1, len(groups),
                             '%s is in %s' % (module, groups))

    def test_class_level_skip_counts_for_its_group(self):
        self.assertTrue(required_groups.in_group(
            'multiapi', 'setUpClass (%s)' % ENDPOINTS))

    def test_other_packages_do_not_count(self):
        self.assertFalse(required_groups.in_group(
            'multiapi', 'tempest.api.test_endpoints.A.test_x'))


def test(test_id, outcome, reason=''):
    return subunit_stream.Test(test_id, outcome, reason, 1.0)


class ProblemsTest(testtools.TestCase):

    def test_group_with_one_passing_test_ran(self):
        tests = [test(ENDPOINTS + '.test_a', 'pass'),
                 test(ENDPOINTS + '.test_b', 'skip', 'why')]
        self.assertEqual([], required_groups.problems(tests, ['multiapi']))

    def test_group_with_a_failing_test_ran(self):
        tests = [test(ENDPOINTS + '.test_a', 'fail')]
        self.assertEqual([], required_groups.problems(tests, ['multiapi']))

    def test_all_skipped_names_group_and_each_reason_once(self):
        tests = [test('setUpClass (%s)' % ENDPOINTS, 'skip', NO_DISCOVERY),
                 test(T + 'api.test_catalog.C.test_c', 'skip', NO_DISCOVERY),
                 test(T + 'scenario.test_switchover.S.test_s', 'skip',
                      NO_PATCH)]
        self.assertEqual(
            ['required group multiapi did not run: ' + NO_DISCOVERY,
             'required group switchover did not run: ' + NO_PATCH],
            required_groups.problems(tests, ['multiapi', 'switchover']))

    def test_group_with_no_test_names_its_modules(self):
        lines = required_groups.problems(
            [test(ENDPOINTS + '.test_a', 'pass')], ['heat'])
        self.assertEqual(1, len(lines))
        self.assertTrue(lines[0].startswith(
            'required group heat did not run: none of its tests was '
            'selected ('), lines[0])
        self.assertIn('api.test_heat_services.', lines[0])

    def test_skip_without_reason_is_said(self):
        lines = required_groups.problems(
            [test(ENDPOINTS + '.test_a', 'skip')], ['multiapi'])
        self.assertEqual(
            ['required group multiapi did not run: no reason given'], lines)


class SummaryCommandTest(testtools.TestCase):
    """tools/subunit_summary.py --require on synthetic streams."""

    def setUp(self):
        super().setUp()
        self.folder = self.useFixture(fixtures.TempDir()).path

    def summary(self, *args):
        proc = subprocess.run([sys.executable, SUMMARY] + list(args),
                              capture_output=True, text=True, timeout=60,
                              cwd=REPO)
        return proc.returncode, proc.stdout, proc.stderr

    def test_required_group_all_skipped_fails_the_run(self):
        path = synthetic_subunit.write(
            self.folder, 'suite.subunit',
            ('setUpClass (%s)' % ENDPOINTS, 'skip',
             {'reason': NO_DISCOVERY}),
            (T + 'api.test_consolidated_images.A.test_a', 'success'))
        rc, out, err = self.summary('--require', 'multiapi', path)
        self.assertEqual(1, rc, out + err)
        self.assertEqual(
            ['FAILED: required group multiapi did not run: ' + NO_DISCOVERY,
             '1 passed, 1 failed, 1 skipped'], out.splitlines())

    def test_required_groups_that_ran_pass(self):
        path = synthetic_subunit.write(
            self.folder, 'suite.subunit',
            (ENDPOINTS + '.test_a', 'success'),
            (T + 'scenario.test_switchover.S.test_s', 'skip',
             {'reason': NO_PATCH}))
        rc, out, _err = self.summary('--require=multiapi', path)
        self.assertEqual((0, '1 passed, 0 failed, 1 skipped\n'), (rc, out))

    def test_without_require_a_skipped_group_passes(self):
        path = synthetic_subunit.write(
            self.folder, 's.subunit',
            (ENDPOINTS + '.test_a', 'success'),
            (T + 'scenario.test_switchover.S.test_s', 'skip',
             {'reason': NO_PATCH}))
        self.assertEqual(0, self.summary(path)[0])

    def test_failures_listed_and_unfinished_test_counts_as_failed(self):
        path = synthetic_subunit.write(
            self.folder, 's.subunit',
            (ENDPOINTS + '.test_a', 'success'),
            (ENDPOINTS + '.test_b', 'fail', {'traceback': 'boom'}),
            (ENDPOINTS + '.test_c', 'inprogress'))
        rc, out, _err = self.summary('--list-failures', path)
        self.assertEqual(1, rc)
        self.assertEqual(['FAILED: %s.test_b' % ENDPOINTS,
                          'FAILED: %s.test_c' % ENDPOINTS,
                          '1 passed, 2 failed, 0 skipped'],
                         out.splitlines())

    def test_unknown_group_is_a_usage_error_in_one_line(self):
        path = synthetic_subunit.write(self.folder, 's.subunit',
                                       (ENDPOINTS + '.test_a', 'success'))
        rc, out, err = self.summary('--require', 'multiapi,hat', path)
        self.assertEqual((2, ''), (rc, out))
        self.assertEqual(1, len(err.splitlines()), err)
        self.assertIn("unknown required group 'hat'", err)

    def test_missing_file_counts_as_nothing_ran(self):
        rc, out, _err = self.summary(os.path.join(self.folder, 'nope'))
        self.assertEqual((1, '0 passed, 0 failed, 0 skipped\n'), (rc, out))

    def test_failure_details_give_the_end_of_each_traceback(self):
        # NOTE: what .ci/run prints under "== what failed", where only
        # the console's tail is kept: the message beside the name.
        secret = 'hunter2-planted-%d' % os.getpid()
        traceback = '\n'.join(
            ['Traceback (most recent call last):'] +
            ['  File "x.py", line %d, in f' % n for n in range(20)] +
            ['', 'PollTimeout: waited; last seen: [' + 'x' * 400 + ']',
             'password=%s' % secret, 'AssertionError: 1 != 2', ''])
        path = synthetic_subunit.write(
            self.folder, 'unit.subunit',
            (T + 'a.A.test_fails', 'fail', {'traceback': traceback,
                                            'stdout': 'noise'}),
            (T + 'a.A.test_errs', 'fail', {'pythonlogging': 'only log'}),
            (T + 'a.A.test_ok', 'success', {'traceback': 'not shown'}))
        rc, out, err = self.summary('--list-failures', '--failure-details',
                                    '3', path)
        self.assertEqual(1, rc, out + err)
        lines = out.splitlines()
        self.assertEqual('FAILED: %sa.A.test_fails' % T, lines[0])
        self.assertTrue(lines[1].startswith('  | PollTimeout: waited'))
        self.assertEqual(4 + 300, len(lines[1]))
        self.assertNotIn(secret, out)
        self.assertIn('password=', lines[2])
        self.assertEqual('  | AssertionError: 1 != 2', lines[3])
        self.assertEqual(['FAILED: %sa.A.test_errs' % T,
                          '  | only log',
                          '1 passed, 2 failed, 0 skipped'], lines[4:])
        self.assertNotIn('noise', out)
        self.assertNotIn('not shown', out)
        # Without it, the names alone, as before.
        rc, out, err = self.summary('--list-failures', path)
        self.assertEqual(3, len(out.splitlines()), out)
        for bad in (['--failure-details', '0', '--list-failures'],
                    ['--failure-details', '51', '--list-failures'],
                    ['--failure-details=x', '--list-failures'],
                    ['--failure-details', '3']):
            rc, out, err = self.summary(*(bad + [path]))
            self.assertEqual((2, ''), (rc, out), bad)
            self.assertEqual(1, len(err.splitlines()), err)


class ReportVerdictTest(testtools.TestCase):
    """glance-multiapi-report --require, as installed (no checkout)."""

    def setUp(self):
        super().setUp()
        self.folder = self.useFixture(fixtures.TempDir()).path

    def report(self, *args):
        # NOTE: the console script of the venv, run outside the checkout
        # with no PYTHONPATH: what a cluster admin has after pip install.
        script = os.path.join(os.path.dirname(sys.executable),
                              'glance-multiapi-report')
        env = dict(os.environ)
        env.pop('PYTHONPATH', None)
        proc = subprocess.run([script] + list(args), capture_output=True,
                              text=True, timeout=60, cwd=self.folder,
                              env=env)
        return proc.returncode, proc.stdout, proc.stderr

    def test_required_group_that_did_not_run_fails(self):
        path = synthetic_subunit.write(
            self.folder, 'tempest_results.subunit',
            ('setUpClass (%s)' % ENDPOINTS, 'skip',
             {'reason': NO_DISCOVERY}),
            (T + 'scenario.test_uploader_policies.A.test_a', 'success'))
        rc, out, err = self.report('--require', 'multiapi,uploader', path)
        self.assertEqual((1, ''), (rc, err))
        self.assertEqual(
            ['FAILED: required group multiapi did not run: ' + NO_DISCOVERY,
             '1 passed, 1 failed, 1 skipped'], out.splitlines())

    def test_green_run_with_its_groups_passes(self):
        path = synthetic_subunit.write(
            self.folder, 'tempest_results.subunit',
            (ENDPOINTS + '.test_a', 'success'),
            (T + 'scenario.test_uploader.A.test_b', 'success'))
        self.assertEqual(
            (0, '2 passed, 0 failed, 0 skipped\n', ''),
            self.report('--require=multiapi,uploader', path))

    def test_failed_test_is_named(self):
        path = synthetic_subunit.write(
            self.folder, 's.subunit',
            (ENDPOINTS + '.test_a', 'fail', {'traceback': 'boom'}))
        rc, out, _err = self.report(path)
        self.assertEqual(1, rc)
        self.assertEqual(['FAILED: %s.test_a' % ENDPOINTS,
                          '0 passed, 1 failed, 0 skipped'], out.splitlines())

    def test_stream_without_results_is_red(self):
        path = os.path.join(self.folder, 'empty.subunit')
        open(path, 'wb').close()
        rc, out, _err = self.report(path)
        self.assertEqual(1, rc)
        self.assertIn('FAILED: no test result in %s' % path, out)

    def test_unknown_group_and_missing_stream_are_one_line(self):
        path = synthetic_subunit.write(self.folder, 's.subunit',
                                       (ENDPOINTS + '.test_a', 'success'))
        rc, out, err = self.report('--require', 'multiapi,hat', path)
        self.assertEqual((2, ''), (rc, out))
        self.assertEqual(1, len(err.splitlines()), err)
        self.assertIn("unknown required group 'hat'", err)
        rc, out, err = self.report('--require', 'multiapi',
                                   os.path.join(self.folder, 'nope'))
        self.assertEqual((2, ''), (rc, out))
        self.assertIn('is not a file', err)
