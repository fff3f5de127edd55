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

"""Property tests: objects read from a cluster are input too.

An operator of another version (or a proxy) may answer a Glance CR, an
OpenStackVersion, a Deployment or a Pod with fields missing or of the
wrong type, or a body that is no JSON object at all. The helpers the
plugin's tests call then raise their module's own error (DiscoveryError,
PatchError, MalformedInput, InputUnavailable, KubeError) naming the
object and the field, which the tests turn into a failure or a skip;
never a KeyError or TypeError from inside a helper.
"""


from hypothesis import given
from hypothesis import strategies as st

from glance_multiapi_kernel import kube
from glance_multiapi_tests import deployment_access
from glance_multiapi_tests.common import own_pod
from glance_multiapi_tests.common import rollout
from glance_multiapi_kernel import image_errors as check_errors
from glance_multiapi_tests.imagecheck import loader
from glance_multiapi_tests.imagecheck import sources
from glance_multiapi_kernel import conditions
from glance_multiapi_tests.multiapi import discovery
from glance_multiapi_tests.multiapi import patching
from glance_multiapi_tests.multiapi import readiness
from selftests import fuzzing
from selftests.unit import kube_cases
from selftests.unit import kube_stub
from selftests.unit import test_fuzz_inputs

GLANCE = kube_cases.GLANCE
VERSION = test_fuzz_inputs.VERSION
DEPLOYMENT = {
    'apiVersion': 'apps/v1', 'kind': 'Deployment',
    'metadata': {'name': 'heat-engine', 'namespace': 'openstack'},
    'spec': {'template': {'spec': {'containers': [
        {'name': 'heat-engine', 'image': test_fuzz_inputs.IMAGE},
        {'name': 'sidecar', 'image': 'quay.io/x/sidecar:1'}]}}}}
POD = {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {
    'name': 'glance-multiapi', 'namespace': 'openstack',
    'deletionTimestamp': '2026-01-01T00:00:00Z',
    'deletionGracePeriodSeconds': 60}}
HEAT_POD = {
    'apiVersion': 'v1', 'kind': 'Pod',
    'metadata': {'name': 'heat-engine-5d8f-x1', 'namespace': 'openstack'},
    'spec': {'containers': [{'name': 'heat-engine',
                             'image': test_fuzz_inputs.IMAGE}]},
    'status': {'containerStatuses': [{
        'name': 'heat-engine', 'imageID': 'quay.io/x/openstack-heat-engine'
        '@sha256:' + 'a' * 64, 'state': {'running': {}}}]}}
WHERE = 'Deployment openstack/heat-engine via the Kubernetes API'
CONDITIONED = dict(GLANCE, status=dict(
    GLANCE['status'], conditions=conditions.glance_conditions([], 'api1')))
GLANCEAPI = {'apiVersion': 'glance.openstack.org/v1beta1',
             'kind': 'GlanceAPI',
             'metadata': {'name': 'glance-api0-external'},
             'status': {'readyCount': 0,
                        'conditions': conditions.glanceapi_conditions(0, 1)}}


def _objects(example):
    return st.one_of(fuzzing.mutated(example), fuzzing.json_values())


class TestObjectFuzzing(kube_cases.KubeTestCase):
    """The pure readers of objects, fed the objects themselves."""

    @given(_objects(GLANCE), st.booleans())
    def test_glance_cr_is_a_deployment_or_discovery_error(self, obj,
                                                          strict):
        source = 'Glance openstack/glance'
        try:
            found = discovery.parse_cr(obj, source, strict)
        except discovery.DiscoveryError as exc:
            fuzzing.check_refusal(self, exc, source)
            return
        self.assertIn(found.keystone_endpoint, found.apis)
        found.describe()

    @given(_objects(CONDITIONED), _objects(GLANCEAPI))
    def test_conditions_are_lines_whatever_the_objects(self, glance, api):
        # NOTE: what the readiness test and every note read; a CR of
        # another version must still give one line per condition.
        report = readiness.Report(glance, 'G', [readiness.ApiCr(
            'api0', 'glance-api0-external', obj=api)], 'K')
        for line in readiness.problems(report):
            self.assertNotIn('\n', line)
        self.assertIsInstance(readiness.note(report, ['api0']), str)

    @given(_objects(GLANCE), st.sampled_from(('glance',
                                              'openstackcontrolplane')))
    def test_patch_target_is_named_or_a_patch_error(self, obj, target):
        opts = self.opts(patch_object=target)
        try:
            resource, name, _path = patching.patch_target(opts, obj)
        except patching.PatchError as exc:
            fuzzing.check_refusal(self, exc, 'Glance')
            return
        self.assertIsInstance(name, str)
        kube.describe(obj)

    @given(_objects(DEPLOYMENT))
    def test_deployment_is_a_source_or_malformed(self, obj):
        try:
            found = sources.parse_running(
                {'heat-engine': obj}, {'heat-engine': 'heatEngineImage'},
                WHERE)
        except check_errors.MalformedInput as exc:
            fuzzing.check_refusal(self, exc, WHERE)
            return
        self.assertEqual(['heatEngineImage'], list(found.references))

    @given(_objects(HEAT_POD), _objects(DEPLOYMENT))
    def test_heat_pod_is_a_digest_or_malformed(self, pod, deployment):
        # NOTE: what the running image check reads of a pod and of its
        # Deployment's rollout, from an operator of any version.
        done, seen = rollout.rolled_out(deployment)
        self.assertIsInstance(done, bool)
        self.assertNotIn('\n', seen)
        try:
            found = sources.parse_pods({'heat-engine': [pod]},
                                       {'heat-engine': 'heatEngineImage'},
                                       WHERE)
        except check_errors.MalformedInput as exc:
            fuzzing.check_refusal(self, exc, WHERE)
            return
        for image in found.by_field['heatEngineImage']:
            self.assertTrue(image.digest or image.waiting)

    @given(_objects(POD))
    def test_pod_deletion_is_a_line_or_none(self, obj):
        reason = own_pod.deletion(obj)
        if reason is not None:
            fuzzing.check_refusal(self, reason, 'being deleted')


class TestAnswerFuzzing(kube_cases.KubeTestCase):
    """Whatever the API answers, through the client the plugin uses."""

    def answer(self, resource, name, text):
        # NOTE: the stub sends text as UTF-8, which a lone surrogate is not.
        text = text.encode('utf-8', 'surrogatepass').decode('utf-8',
                                                            'replace')
        self.stub.answers[('GET', kube_stub.path(resource, name))] = (
            200, text)

    @given(st.one_of(fuzzing.texts(GLANCE),
                     fuzzing.texts({'kind': 'List', 'items': [GLANCE]})),
           st.booleans())
    def test_glance_answer_is_a_deployment_or_discovery_error(self, text,
                                                              listed):
        self.answer(kube.GLANCE, None if listed else 'glance', text)
        way = self.access(glance_name=None if listed else 'glance')
        try:
            way.fetch()
        except discovery.DiscoveryError as exc:
            fuzzing.check_refusal(self, exc, 'glance')

    @given(fuzzing.texts(VERSION), fuzzing.texts(DEPLOYMENT))
    def test_version_and_deployment_answers_are_checked_or_refused(
            self, version, deployment):
        self.answer(kube.VERSION, 'openstack', version)
        self.answer(kube.DEPLOYMENT, 'heat-engine', deployment)
        inputs = loader.Inputs(
            mappings_file=None, openstackversion_name='openstack',
            kubernetes=deployment_access.KubernetesAccess(
                kube.Settings(kubeconfig=self.config, timeout=5.0)),
            running_deployments=(('heat-engine', 'heatEngineImage'),))
        try:
            loader.read_kubernetes(inputs)
        except check_errors.ImageCheckError as exc:
            fuzzing.check_refusal(self, exc, 'openstack')
