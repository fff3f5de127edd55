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

"""How the functional tests' tempest runs select their tests.

tempest_workspace.selection() turns a regex into ``--load-list`` of the
ids stestr itself lists (the plugin's real tests, listed by stestr's
subunit runner here too), so that the run skips its own listing.
"""

import io
import os
import subprocess

import fixtures
import testtools

from glance_multiapi_tests.results.gate import subunit_stream
from selftests.functional import tempest_workspace

ENDPOINTS = (r'glance_multiapi_tests\.tests\.api\.test_endpoints\.'
             r'ImageEndpointsTest\.test_image_endpoints_answer')
CATALOG = r'glance_multiapi_tests\.tests\.api\.test_catalog\.'


class _Workspace(testtools.TestCase):
    """A workspace filled from a tempest folder that configures nothing."""

    def setUp(self):
        super().setUp()
        source = self.useFixture(fixtures.TempDir()).path
        os.makedirs(os.path.join(source, 'etc'))
        with open(os.path.join(source, '.stestr.conf'), 'w') as f:
            f.write('[DEFAULT]\ntest_path=./tempest/test_discover\n'
                    'top_dir=./\ngroup_regex=([^\\.]*\\.)*\n')
        with open(os.path.join(source, 'etc', 'tempest.conf'), 'w') as f:
            f.write('[DEFAULT]\n')
        self.workspace = self.useFixture(fixtures.TempDir()).path
        tempest_workspace.fill(self.workspace, source)


class SelectionTest(_Workspace):

    def selected(self, regex):
        args = tempest_workspace.selection(self.workspace, regex)
        if args[0] != '--load-list':
            return args
        with open(args[1]) as f:
            return f.read().splitlines()

    def test_one_test_by_its_escaped_id(self):
        ids = self.selected(ENDPOINTS)
        self.assertEqual(1, len(ids), ids)
        # NOTE: the id as stestr lists it, tempest's attributes included,
        # or the run's --load-list would match nothing.
        self.assertTrue(ids[0].startswith(ENDPOINTS.replace('\\', '') +
                                          '[id-'), ids)

    def test_parts_split_on_white_space_each_select(self):
        both = self.selected(ENDPOINTS + ' ' + CATALOG)
        catalog = self.selected(CATALOG)
        self.assertGreater(len(catalog), 1, catalog)
        self.assertEqual(sorted(self.selected(ENDPOINTS) + catalog),
                         sorted(both))

    def test_a_regex_matching_nothing_stays_a_regex(self):
        # NOTE: then tempest itself says that it ran no test.
        self.assertEqual(['--regex', r'no\.such\.test'],
                         self.selected(r'no\.such\.test'))

    def test_a_broken_regex_is_left_to_tempest(self):
        # NOTE: stestr says "Invalid regex" and exits 5, as before.
        self.assertEqual(['--regex', 'test_(a'], self.selected('test_(a'))

    def test_a_failed_listing_falls_back_to_the_regex(self):
        with open(os.path.join(self.workspace, '.stestr.conf'), 'w') as f:
            f.write('[DEFAULT]\ntest_path=%s\ntop_dir=%s\n' % (
                os.path.join(self.workspace, 'absent'), self.workspace))
        self.assertIsNone(tempest_workspace.plugin_test_ids(self.workspace))
        self.assertEqual(['--regex', ENDPOINTS], self.selected(ENDPOINTS))


class RunCommandTest(_Workspace):
    """What runs a selection: the worker tempest would start, or tempest."""

    def conf_path(self):
        return os.path.join(self.workspace, 'etc', 'tempest.conf')

    def test_one_worker_of_a_load_list_runs_the_tests_themselves(self):
        selected = tempest_workspace.selection(self.workspace, ENDPOINTS)
        argv, added = tempest_workspace.run_command(
            self.workspace, self.conf_path(), selected)
        self.assertNotIn('tempest', os.path.basename(argv[0]))
        self.assertEqual({'TEMPEST_CONFIG_DIR': os.path.dirname(
            self.conf_path()), 'TEMPEST_CONFIG': 'tempest.conf'}, added)
        # NOTE: run for real: the class is found by its listed test's id
        # and reads the workspace's tempest.conf, which sets no Glance
        # API, so it skips, saying why; the stream is all there is to
        # read (a listed test a skipped class never ran only "exists").
        proc = subprocess.run(argv, cwd=self.workspace, capture_output=True,
                              timeout=300,
                              env=tempest_workspace.env(**added))
        results = {k: v for k, v in subunit_stream.parse_subunit(
            io.BytesIO(proc.stdout)).items() if v[0] != 'exists'}
        self.assertEqual(1, len(results), (results, proc.stderr[-2000:]))
        (test_id, (status, details)), = results.items()
        self.assertIn('ImageEndpointsTest', test_id)
        self.assertEqual('skip', status, details)
        self.assertIn('[glance_multiapi] sets none of', details)

    def test_several_workers_or_a_regex_stay_tempest_run(self):
        for selected, workers in (
                (tempest_workspace.selection(self.workspace, ENDPOINTS), 2),
                (['--regex', r'no\.such\.test'], 1)):
            argv, added = tempest_workspace.run_command(
                self.workspace, self.conf_path(), selected, workers)
            self.assertEqual({}, added)
            self.assertEqual(tempest_workspace.run_argv(
                self.conf_path(), selected, workers), argv)
            self.assertEqual('tempest', os.path.basename(argv[0]))
