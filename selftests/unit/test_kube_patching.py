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

"""Patching the Glance spec through the Kubernetes API: which object is
patched, what is sent, and the one-line errors."""

import copy

import testtools

from glance_multiapi_kernel import kube
from glance_multiapi_tests import deployment_access
from glance_multiapi_tests.multiapi import patching
from selftests.unit import kube_cases
from selftests.unit import kube_stub

# NOTE: the shared Glance CR and options, by their short names.
GLANCE = kube_cases.GLANCE
CONTROLPLANE = kube_cases.CONTROLPLANE
_glance = kube_cases.glance_object
_opts = kube_cases.access_opts


class PatchThroughApiTest(kube_cases.KubeTestCase):

    def setUp(self):
        super().setUp()
        self.stub.put(kube.GLANCE, _glance())
        self.stub.put(kube.CONTROLPLANE, copy.deepcopy(CONTROLPLANE))

    def patches(self):
        return [r for r in self.stub.requests if r['method'] == 'PATCH']

    def test_patches_owner_controlplane_template(self):
        done = self.access().patch_spec(
            {'keystoneEndpoint': 'api1', 'glanceAPIs': {'api0': None}})
        (sent,) = self.patches()
        self.assertEqual(kube_stub.path(kube.CONTROLPLANE, 'openstack'),
                         sent['path'].split('?')[0])
        self.assertEqual('application/merge-patch+json',
                         sent['content_type'])
        self.assertEqual({'spec': {'glance': {'template': {
            'keystoneEndpoint': 'api1', 'glanceAPIs': {'api0': None}}}}},
            sent['body'])
        self.assertIn('OpenStackControlPlane openstack/openstack via the '
                      'Kubernetes API', done)
        template = self.stub.objects[kube_stub.path(
            kube.CONTROLPLANE, 'openstack')]['spec']['glance']['template']
        self.assertEqual(['api1'], sorted(template['glanceAPIs']))

    def test_controlplane_name_skips_reading_glance(self):
        self.stub.put(kube.CONTROLPLANE, dict(
            copy.deepcopy(CONTROLPLANE), metadata={'name': 'cp2'}))
        self.access(controlplane_name='cp2').patch_spec(
            {'keystoneEndpoint': 'api1'})
        self.assertEqual(
            [('PATCH', kube_stub.path(kube.CONTROLPLANE, 'cp2'))],
            [(r['method'], r['path'].split('?')[0])
             for r in self.stub.requests])

    def test_patch_object_glance_patches_spec(self):
        self.access(patch_object='glance').patch_spec(
            {'keystoneEndpoint': 'api1'})
        (sent,) = self.patches()
        self.assertEqual(kube_stub.path(kube.GLANCE, 'glance'),
                         sent['path'].split('?')[0])
        self.assertEqual({'spec': {'keystoneEndpoint': 'api1'}},
                         sent['body'])

    def test_forbidden_patch_is_one_line(self):
        route = kube_stub.path(kube.CONTROLPLANE, 'openstack')
        self.stub.answers[('PATCH', route)] = (403, kube_stub.status(
            403, 'Forbidden', 'forbidden by the Role'))
        exc = self.assertRaises(patching.PatchError,
                                self.access().patch_spec,
                                {'keystoneEndpoint': 'api1'})
        self.assertOneLine(
            exc, 'Kubernetes API %s: patch openstackcontrolplanes.core.'
            'openstack.org "openstack" in namespace "openstack": 403 '
            'Forbidden: the kubeconfig\'s user lacks "patch" on '
            '"openstackcontrolplanes" in API group "core.openstack.org": '
            'forbidden by the Role' % self.stub.server)

    def test_refused_patch_quotes_the_reason(self):
        route = kube_stub.path(kube.CONTROLPLANE, 'openstack')
        self.stub.answers[('PATCH', route)] = (422, kube_stub.status(
            422, 'Invalid', 'keystoneEndpoint edge0 is an edge API'))
        exc = self.assertRaises(patching.PatchError,
                                self.access().patch_spec,
                                {'keystoneEndpoint': 'edge0'})
        self.assertOneLine(exc, '422 Unprocessable Entity: the API server '
                           'refused the change: keystoneEndpoint edge0 is '
                           'an edge API')


class PatchTargetTest(testtools.TestCase):

    def test_owner_reference_names_the_controlplane(self):
        self.assertEqual(
            (kube.CONTROLPLANE, 'openstack', 'spec.glance.template'),
            patching.patch_target(_opts(None), _glance()))

    def test_option_wins_over_owner(self):
        self.assertEqual(
            'cp', patching.patch_target(_opts(None, controlplane_name='cp'),
                                        _glance())[1])

    def test_no_owner_says_which_options_help(self):
        orphan = _glance()
        orphan['metadata']['ownerReferences'] = [
            dict(GLANCE['metadata']['ownerReferences'][0],
                 controller=False)]
        exc = self.assertRaises(patching.PatchError, patching.patch_target,
                                _opts(None), orphan)
        self.assertIn('Glance openstack/glance has no controller '
                      'ownerReference of kind OpenStackControlPlane', str(exc))
        self.assertIn('controlplane_name', str(exc))
        self.assertIn('patch_object = glance', str(exc))

    def test_glance_object(self):
        self.assertEqual(
            (kube.GLANCE, 'glance', 'spec'),
            patching.patch_target(_opts(None, patch_object='glance'),
                                  _glance()))

    def test_can_patch(self):
        def problem(**values):
            return deployment_access.choose(
                _opts(None, **values)).patch_problem()

        self.assertIsNone(problem())
        self.assertIn('patch_command is unset',
                      problem(kubernetes_api=False))
        self.assertIn('lacks the {patch}', problem(
            kubernetes_api=False, patch_command='oc patch'))
        self.assertIsNone(problem(kubernetes_api=False,
                                  patch_command='x {patch}'))

    def test_has_source_counts_kubernetes_api(self):
        self.assertTrue(deployment_access.choose(_opts(None)).has_source())
        self.assertFalse(deployment_access.choose(
            _opts(None, kubernetes_api=False)).has_source())
