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

"""The Hypothesis profiles keep CI bounded, reproducible and clean."""

import os

from hypothesis import settings
import testtools

from selftests import fuzzing


class TestProfiles(testtools.TestCase):

    def test_ci_runs_at_least_200_derandomised_examples(self):
        ci = settings.get_profile('ci')
        self.assertGreaterEqual(ci.max_examples, 200)
        self.assertTrue(ci.derandomize)

    def test_thorough_runs_5000_examples(self):
        self.assertGreaterEqual(
            settings.get_profile('thorough').max_examples, 5000)

    def test_matrix_runs_a_few_derandomised_examples(self):
        # NOTE: enough to run each parser's property under another
        # interpreter; the 200 are the unit stage's.
        matrix = settings.get_profile('matrix')
        self.assertGreaterEqual(matrix.max_examples, 20)
        self.assertLess(matrix.max_examples,
                        settings.get_profile('ci').max_examples)
        self.assertTrue(matrix.derandomize)

    def test_no_profile_keeps_an_example_database(self):
        # NOTE: a database would be a .hypothesis folder left in the tree.
        for name in fuzzing.PROFILE_EXAMPLES:
            self.assertIsNone(settings.get_profile(name).database, name)

    def test_the_profile_in_force_is_the_asked_one(self):
        wanted = os.environ.get(fuzzing.PROFILE_ENV) or 'ci'
        self.assertEqual(settings.get_profile(wanted).max_examples,
                         settings().max_examples)
