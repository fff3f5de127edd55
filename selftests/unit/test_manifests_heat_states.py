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

"""The heat cases of the test-operator stage and their verdicts."""

import fixtures
import testtools

from glance_multiapi_cloud import faults
from glance_multiapi_cloud.kubeapi.embedded import heat as kubeheat
from selftests.manifests import heat_states
from selftests.unit import manifest_tools
from selftests.unit import synthetic_subunit

PREFIX = 'glance_multiapi_tests.tests.api.test_consolidated_images.'
IDS = {
    heat_states.MAPPING: PREFIX + heat_states.MAPPING +
    '.test_image_mapping_assigns_fields_once_to_known_images',
    heat_states.REFERENCES: PREFIX + heat_states.REFERENCES +
    '.test_deployed_image_references_agree',
    heat_states.RUNNING: PREFIX + heat_states.RUNNING +
    '.test_running_images_match_version',
}


def stream(folder, **outcomes):
    """A stream of the three tests: {class: (status, traceback)}."""
    tests = []
    for cls, test_id in IDS.items():
        status, text = outcomes.get(cls, ('success', ''))
        tests.append((test_id, status, {'traceback': text} if text else {}))
    return synthetic_subunit.write(folder, 'rerun.subunit', *tests)


class CasesTest(testtools.TestCase):

    def test_every_state_and_fault_is_the_clouds(self):
        states = {case.state for case in heat_states.CASES}
        self.assertEqual(set(kubeheat.STATES), states)
        for case in heat_states.CASES:
            faults.Faults([faults.parse(f) for f in case.faults], {
                'keystoneEndpoint': 'api0', 'glanceAPIs': {
                    'api0': {'type': 'split'}}})
            self.assertTrue(set(case.fails) <= set(heat_states.TESTS))

    def test_unknown_case_names_the_known(self):
        exc = self.assertRaises(KeyError, heat_states.case, 'nope')
        self.assertIn('known: tcib, s2i', exc.args[0])


class JudgeTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.folder = self.useFixture(fixtures.TempDir()).path

    def verdict(self, name, **outcomes):
        return manifest_tools.run(
            self, 'tcib_pod', 'heat-verdict', '--case', name,
            stream(self.folder, **outcomes))

    def test_healthy_state_passes_only_when_all_pass(self):
        code, out, _err = self.verdict('product')
        self.assertEqual(0, code, out)
        self.assertIn('state product: ConsolidatedImageMappingTest passed',
                      out)
        code, out, _err = self.verdict('product', **{
            heat_states.RUNNING: ('fail', 'AssertionError: running-digests')})
        self.assertEqual(1, code)
        self.assertIn('ConsolidatedRunningImagesTest: wanted success, got '
                      'fail (AssertionError: running-digests)', out)

    def test_broken_state_must_fail_with_its_words(self):
        words = 'rollout: Deployment heat-engine (x) is still rolling out'
        code, out, _err = self.verdict('rollout', **{
            heat_states.RUNNING: ('fail', words)})
        self.assertEqual(0, code, out)
        self.assertIn('--fault heat-rollout-stuck=heat-engine', out)
        self.assertIn('ConsolidatedRunningImagesTest failed as it must', out)
        code, out, _err = self.verdict('rollout', **{
            heat_states.RUNNING: ('fail', 'running-drift: heat-engine')})
        self.assertEqual(1, code)
        self.assertIn("failed without 'rollout: Deployment heat-engine'",
                      out)
        code, out, _err = self.verdict('rollout')
        self.assertEqual(1, code)
        self.assertIn('wanted fail, got success', out)

    def test_a_test_that_did_not_run_fails_the_case(self):
        code, out, _err = manifest_tools.run(
            self, 'tcib_pod', 'heat-verdict', '--case', 'tcib',
            self.folder + '/missing.subunit')
        self.assertEqual(1, code)
        self.assertIn('ConsolidatedImageMappingTest did not run', out)

    def test_cases_are_listed_one_a_line(self):
        code, out, _err = manifest_tools.run(self, 'tcib_pod', 'heat-cases')
        self.assertEqual(0, code)
        self.assertIn('tag_resolved_apart s2i-latest '
                      'pod-digest-drift=heat-cfnapi\n', out)
        self.assertEqual(len(heat_states.CASES), out.count('\n'))
