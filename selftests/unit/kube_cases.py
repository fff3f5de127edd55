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

"""What the Kubernetes API access tests share: a Glance CR owned by an
OpenStackControlPlane, the [glance_multiapi] options that reach the
stub API (kube_stub.py), and a test case holding the stub and its
kubeconfig."""

import copy
import types

import fixtures
import testtools

from glance_multiapi_kernel import kube
from glance_multiapi_tests import deployment_access
from selftests.unit import kube_stub

GLANCE = {
    'apiVersion': 'glance.openstack.org/v1beta1', 'kind': 'Glance',
    'metadata': {'name': 'glance', 'namespace': 'openstack',
                 'ownerReferences': [{
                     'apiVersion': 'core.openstack.org/v1beta1',
                     'kind': 'OpenStackControlPlane', 'name': 'openstack',
                     'controller': True, 'blockOwnerDeletion': True,
                     'uid': 'u1'}]},
    'spec': {'keystoneEndpoint': 'api0', 'glanceAPIs': {
        'api0': {'type': 'split'}, 'api1': {'type': 'single'}}},
    'status': {'apiEndpoint': {
        'api0-public': 'http://127.0.0.1:9292',
        'api0-internal': 'http://127.0.0.1:9293',
        'api1-public': 'http://127.0.0.1:9294',
        'api1-internal': 'http://127.0.0.1:9294'}},
}
CONTROLPLANE = {
    'apiVersion': 'core.openstack.org/v1beta1',
    'kind': 'OpenStackControlPlane',
    'metadata': {'name': 'openstack', 'namespace': 'openstack'},
    'spec': {'glance': {'enabled': True,
                        'template': copy.deepcopy(GLANCE['spec'])}},
}


def glance_object(name='glance', **changes):
    """A copy of GLANCE named name, with top-level changes."""
    obj = copy.deepcopy(GLANCE)
    obj['metadata']['name'] = name
    obj.update(changes)
    return obj


def access_opts(kubeconfig, **values):
    """[glance_multiapi] options using the Kubernetes API of kubeconfig."""
    base = dict(kubernetes_api=True, kubeconfig=kubeconfig,
                kubernetes_context=None, namespace='openstack',
                glance_name=None, patch_object='openstackcontrolplane',
                controlplane_name=None, kubernetes_timeout=5.0,
                discovery_command=None, patch_command=None,
                patch_spec_path='spec', command_timeout=10, api_names=[],
                api_types={}, public_endpoints={}, internal_endpoints={},
                default_stores={}, keystone_endpoint=None)
    base.update(values)
    return types.SimpleNamespace(**base)


class KubeTestCase(testtools.TestCase):
    """A test against its own stub API, with the options that reach it."""

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.EnvironmentVariable(kube.IN_CLUSTER_ENV))
        self.stub = kube_stub.KubeStub(self)
        self.config = self.stub.kubeconfig(self)

    def opts(self, **values):
        return access_opts(self.config, **values)

    def access(self, opts=None, **values):
        """The deployment access of opts (else self.opts(**values))."""
        found = deployment_access.choose(opts or self.opts(**values))
        self.addCleanup(found.close)
        return found

    def assertOneLine(self, exc, *needles):
        text = str(exc)
        self.assertNotIn('\n', text)
        for needle in needles:
            self.assertIn(needle, text)
        return text
