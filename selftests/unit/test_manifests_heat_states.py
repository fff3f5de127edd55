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

import os

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


class CaseConfTest(testtools.TestCase):
    """The tempest.conf a case reruns with: the pod's, or a copy."""

    POD_CONF = ('[DEFAULT]\nlog_file = tempest.log\n\n[identity]\n'
                'uri_v3 = https://keystone.example:5000/v3\n\n'
                '[consolidated_images]\nkubernetes_api = True\n'
                'rollout_timeout = 120\n')

    def test_every_option_is_the_plugins(self):
        from glance_multiapi_tests.options import consolidated_images
        known = {('consolidated_images', opt.name) for opt in
                 consolidated_images.ConsolidatedImagesGroup}
        for case in heat_states.CASES:
            self.assertTrue(set(case.options) <= known, case)

    def test_healthy_cases_run_the_pods_own_file(self):
        for case in heat_states.CASES:
            if case.name in heat_states.HEALTHY:
                self.assertIsNone(heat_states.case_conf(case, self.POD_CONF))

    def test_stuck_rollout_waits_less_and_keeps_the_rest(self):
        text = heat_states.case_conf(heat_states.case('rollout'),
                                     self.POD_CONF)
        self.assertIn('rollout_timeout = %d\n'
                      % heat_states.STUCK_ROLLOUT_WAIT, text)
        self.assertNotIn('rollout_timeout = 120', text)
        for kept in ('log_file = tempest.log', 'kubernetes_api = True',
                     'uri_v3 = https://keystone.example:5000/v3'):
            self.assertIn(kept, text)

    def test_heat_conf_writes_only_a_case_with_options(self):
        folder = self.useFixture(fixtures.TempDir()).path
        with open(folder + '/tempest.conf', 'w') as f:
            f.write(self.POD_CONF)
        for name, said in (('tcib', ''), ('rollout', 'options\n')):
            out_file = '%s/%s.conf' % (folder, name)
            code, out, _err = manifest_tools.run(
                self, 'tcib_pod', 'heat-conf', '--case', name,
                '--conf', folder + '/tempest.conf', '--out', out_file)
            self.assertEqual((0, said), (code, out))
        self.assertFalse(os.path.exists(folder + '/tcib.conf'))
        with open(folder + '/rollout.conf') as f:
            self.assertIn('rollout_timeout = %d'
                          % heat_states.STUCK_ROLLOUT_WAIT, f.read())

    def test_heat_conf_of_a_missing_file_is_one_line(self):
        code, out, err = manifest_tools.run(
            self, 'tcib_pod', 'heat-conf', '--case', 'rollout',
            '--conf', '/nonexistent/tempest.conf', '--out', '/dev/null')
        self.assertEqual((1, ''), (code, out))
        self.assertEqual(1, len(err.strip().splitlines()), err)
