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

"""The Kubernetes API access: discovery, patching and its one-line errors."""

import copy
import json
import socket
import sys
import types
from unittest import mock

import fixtures
import testtools

from glance_multiapi_tests.common import kube
from glance_multiapi_tests.multiapi import discovery
from glance_multiapi_tests.multiapi import patching
from glance_multiapi_tests.selftests.unit import kube_stub

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


def _glance(name='glance', **changes):
    obj = copy.deepcopy(GLANCE)
    obj['metadata']['name'] = name
    obj.update(changes)
    return obj


def _opts(kubeconfig, **values):
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

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.EnvironmentVariable(kube.IN_CLUSTER_ENV))
        self.stub = kube_stub.KubeStub(self)
        self.config = self.stub.kubeconfig(self)

    def opts(self, **values):
        return _opts(self.config, **values)

    def assertOneLine(self, exc, *needles):
        text = str(exc)
        self.assertNotIn('\n', text)
        for needle in needles:
            self.assertIn(needle, text)
        return text


class DiscoveryThroughApiTest(KubeTestCase):

    def test_only_glance_is_read_and_named(self):
        self.stub.put(kube.GLANCE, _glance())
        dep = discovery.fetch(self.opts())
        self.assertEqual('api0', dep.keystone_endpoint)
        self.assertEqual('http://127.0.0.1:9294',
                         dep.apis['api1'].url('internal'))
        self.assertEqual('Glance openstack/glance via the Kubernetes API '
                         'at %s' % self.stub.server, dep.source)
        self.assertEqual([('GET', kube_stub.path(kube.GLANCE))],
                         [(r['method'], r['path'].split('?')[0])
                          for r in self.stub.requests])

    def test_glance_name_gets_that_one(self):
        self.stub.put(kube.GLANCE, _glance('other'))
        self.stub.put(kube.GLANCE, _glance('mine'))
        dep = discovery.discover(self.opts(glance_name='mine'))
        self.assertIn('Glance openstack/mine', dep.source)
        self.assertEqual(kube_stub.path(kube.GLANCE, 'mine'),
                         self.stub.requests[-1]['path'])

    def test_two_glances_without_name_names_both_and_option(self):
        self.stub.put(kube.GLANCE, _glance('glance'))
        self.stub.put(kube.GLANCE, _glance('glance-b'))
        exc = self.assertRaises(discovery.DiscoveryError, discovery.fetch,
                                self.opts())
        self.assertOneLine(exc, '2 found: glance, glance-b',
                           'set [glance_multiapi] glance_name',
                           'list glances.glance.openstack.org in namespace '
                           '"openstack"')

    def test_no_glance_says_none_found(self):
        exc = self.assertRaises(discovery.DiscoveryError, discovery.fetch,
                                self.opts())
        self.assertOneLine(exc, 'none found')

    def test_missing_api_endpoint_is_the_command_error(self):
        broken = _glance(status={})
        self.stub.put(kube.GLANCE, broken)
        exc = self.assertRaises(discovery.DiscoveryError, discovery.fetch,
                                self.opts())
        self.assertOneLine(
            exc, 'Glance openstack/glance via the Kubernetes API at',
            'status.apiEndpoint.api0-public: missing')
        same = self.assertRaises(
            discovery.DiscoveryError, discovery.parse_cr,
            json.dumps(broken), 'X')
        self.assertTrue(str(exc).endswith(str(same)[len('X'):]))

    def test_not_strict_keeps_api_without_endpoints(self):
        glance = _glance()
        glance['spec']['glanceAPIs']['apigrow'] = {'type': 'split'}
        self.stub.put(kube.GLANCE, glance)
        dep = discovery.fetch(self.opts(), strict=False)
        self.assertEqual({}, dep.apis['apigrow'].endpoints)

    def test_wrong_token_is_401_naming_the_credentials(self):
        self.stub.put(kube.GLANCE, _glance())
        config = self.stub.kubeconfig(self, token='wrong')
        exc = self.assertRaises(discovery.DiscoveryError, discovery.fetch,
                                _opts(config, glance_name='glance'))
        self.assertOneLine(
            exc, 'Kubernetes API %s: get glances.glance.openstack.org '
            '"glance" in namespace "openstack": 401 Unauthorized: the API '
            'server refused the credentials of kubeconfig %s' % (
                self.stub.server, config))

    def test_forbidden_names_verb_resource_and_group(self):
        self.stub.answers[('GET', kube_stub.path(kube.GLANCE))] = (
            403, kube_stub.status(
                403, 'Forbidden', 'glances.glance.openstack.org is '
                'forbidden: User "system:serviceaccount:openstack:x" '
                'cannot list resource "glances"'))
        exc = self.assertRaises(discovery.DiscoveryError, discovery.fetch,
                                self.opts())
        self.assertOneLine(
            exc, '403 Forbidden: the kubeconfig\'s user lacks "list" on '
            '"glances" in API group "glance.openstack.org": '
            'glances.glance.openstack.org is forbidden: User')

    def test_missing_object_is_404_naming_it(self):
        self.stub.put(kube.GLANCE, _glance())
        exc = self.assertRaises(discovery.DiscoveryError, discovery.fetch,
                                self.opts(glance_name='nope'))
        self.assertOneLine(
            exc, 'get glances.glance.openstack.org "nope" in namespace '
            '"openstack": 404 Not Found: the object is missing: no Glance '
            '"nope" in namespace "openstack"')

    def test_unserved_resource_is_404_naming_the_crd(self):
        exc = self.assertRaises(
            kube.KubeError, self._list, kube.CONTROLPLANE)
        self.assertOneLine(exc, 'does not serve openstackcontrolplanes.'
                           'core.openstack.org/v1beta1 (is its CRD '
                           'installed?)')

    def _list(self, resource):
        with kube.connect(kube.Settings(kubeconfig=self.config)) as c:
            return c.list(resource)

    def test_unreachable_server_names_url_and_errno(self):
        sock = socket.socket()
        sock.bind(('127.0.0.1', 0))
        port = sock.getsockname()[1]
        sock.close()
        config = self.stub.kubeconfig(
            self, server='http://127.0.0.1:%d' % port)
        exc = self.assertRaises(discovery.DiscoveryError, discovery.fetch,
                                _opts(config))
        self.assertOneLine(
            exc, 'Kubernetes API http://127.0.0.1:%d: list ' % port,
            'API server unreachable: [Errno 111] Connection refused')

    def test_no_answer_names_the_timeout(self):
        self.stub.answers[('GET', kube_stub.path(kube.GLANCE))] = 'hang'
        exc = self.assertRaises(discovery.DiscoveryError, discovery.fetch,
                                self.opts(kubernetes_timeout=0.3))
        self.assertOneLine(exc, 'no answer within 0.3 s')
        # NOTE: one request, not urllib3's default of one plus 3 retries.
        self.assertEqual(1, len([r for r in self.stub.requests
                                 if r.get('method', 'GET') == 'GET']))

    def test_other_status_quotes_the_server(self):
        self.stub.answers[('GET', kube_stub.path(kube.GLANCE))] = (
            500, 'boom\nmore')
        exc = self.assertRaises(discovery.DiscoveryError, discovery.fetch,
                                self.opts())
        self.assertOneLine(exc, '500 Internal Server Error: boom more')

    def test_deployment_is_read_as_json(self):
        self.stub.objects[
            '/apis/apps/v1/namespaces/openstack/deployments/heat-api'] = {
                'kind': 'Deployment', 'metadata': {'name': 'heat-api'},
                'spec': {'template': {'spec': {'containers': [
                    {'name': 'heat-api', 'image': 'r/i@sha256:' + 'a' * 64}
                ]}}}}
        with kube.connect(kube.Settings(kubeconfig=self.config)) as c:
            obj = c.get(kube.DEPLOYMENT, 'heat-api')
        self.assertEqual('heat-api', obj['metadata']['name'])
        self.assertIn('deployments.apps "x"', str(self.assertRaises(
            kube.KubeError, kube.connect(kube.Settings(
                kubeconfig=self.config)).get, kube.DEPLOYMENT, 'x')))


class AccessConfigTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.EnvironmentVariable(kube.IN_CLUSTER_ENV))
        self.useFixture(fixtures.EnvironmentVariable('KUBERNETES_SERVICE_'
                                                     'PORT'))
        self.home = self.useFixture(fixtures.TempDir()).path
        self.useFixture(fixtures.EnvironmentVariable('HOME', self.home))
        self.useFixture(fixtures.EnvironmentVariable('KUBECONFIG'))

    def test_no_kubeconfig_and_no_pod(self):
        exc = self.assertRaises(kube.KubeError, kube.connect,
                                kube.Settings())
        self.assertIn('no kubeconfig: [glance_multiapi] kubeconfig is '
                      'unset, KUBERNETES_SERVICE_HOST is unset (not in a '
                      'pod) and ~/.kube/config ($KUBECONFIG unset) does '
                      'not exist', str(exc))

    def test_kubeconfig_env_is_named(self):
        self.useFixture(fixtures.EnvironmentVariable('KUBECONFIG',
                                                     '/nonexistent/kc'))
        exc = self.assertRaises(kube.KubeError, kube.connect,
                                kube.Settings())
        self.assertIn('/nonexistent/kc does not exist', str(exc))

    def test_missing_kubeconfig_option_is_named(self):
        exc = self.assertRaises(kube.KubeError, kube.connect,
                                kube.Settings(kubeconfig='/nonexistent/x'))
        self.assertIn('[glance_multiapi] kubeconfig /nonexistent/x does '
                      'not exist', str(exc))

    def test_unknown_context_is_one_line(self):
        stub = kube_stub.KubeStub(self)
        config = stub.kubeconfig(self)
        exc = self.assertRaises(kube.KubeError, kube.connect, kube.Settings(
            kubeconfig=config, context='nope'))
        self.assertIn('kubeconfig %s cannot be used' % config, str(exc))
        self.assertIn('nope', str(exc))
        self.assertNotIn('\n', str(exc))

    def test_pod_without_token_says_privileged(self):
        self.useFixture(fixtures.EnvironmentVariable('KUBECONFIG'))
        self.useFixture(fixtures.EnvironmentVariable(kube.IN_CLUSTER_ENV,
                                                     '127.0.0.1'))
        self.useFixture(fixtures.EnvironmentVariable(
            'KUBERNETES_SERVICE_PORT', '6443'))
        exc = self.assertRaises(kube.KubeError, kube.connect,
                                kube.Settings())
        self.assertIn('in-cluster config', str(exc))
        self.assertIn('only into privileged pods', str(exc))

    def test_kubeconfig_wins_over_pod(self):
        self.useFixture(fixtures.EnvironmentVariable(kube.IN_CLUSTER_ENV,
                                                     '127.0.0.1'))
        stub = kube_stub.KubeStub(self)
        with kube.connect(kube.Settings(
                kubeconfig=stub.kubeconfig(self))) as client:
            self.assertEqual(stub.server, client.server)

    def test_kubeconfig_env_wins_over_pod(self):
        self.useFixture(fixtures.EnvironmentVariable(kube.IN_CLUSTER_ENV,
                                                     '127.0.0.1'))
        stub = kube_stub.KubeStub(self)
        self.useFixture(fixtures.EnvironmentVariable(
            'KUBECONFIG', stub.kubeconfig(self)))
        with kube.connect(kube.Settings()) as client:
            self.assertEqual(stub.server, client.server)
            self.assertFalse(client._in_cluster)

    def test_missing_package_is_named(self):
        with mock.patch.dict(sys.modules, {'kubernetes': None,
                                           'kubernetes.client': None,
                                           'kubernetes.config': None}):
            exc = self.assertRaises(kube.KubeError, kube.connect,
                                    kube.Settings())
        self.assertIn('needs the python package "kubernetes"', str(exc))


class PatchThroughApiTest(KubeTestCase):

    def setUp(self):
        super().setUp()
        self.stub.put(kube.GLANCE, _glance())
        self.stub.put(kube.CONTROLPLANE, copy.deepcopy(CONTROLPLANE))

    def patches(self):
        return [r for r in self.stub.requests if r['method'] == 'PATCH']

    def test_patches_owner_controlplane_template(self):
        done = patching.apply_spec_patch(
            self.opts(), {'keystoneEndpoint': 'api1',
                          'glanceAPIs': {'api0': None}})
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
        patching.apply_spec_patch(self.opts(controlplane_name='cp2'),
                                  {'keystoneEndpoint': 'api1'})
        self.assertEqual(
            [('PATCH', kube_stub.path(kube.CONTROLPLANE, 'cp2'))],
            [(r['method'], r['path'].split('?')[0])
             for r in self.stub.requests])

    def test_patch_object_glance_patches_spec(self):
        patching.apply_spec_patch(self.opts(patch_object='glance'),
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
                                patching.apply_spec_patch, self.opts(),
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
                                patching.apply_spec_patch, self.opts(),
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
        self.assertIsNone(patching.can_patch(_opts(None)))
        self.assertIn('patch_command is unset', patching.can_patch(
            _opts(None, kubernetes_api=False)))
        self.assertIn('lacks the {patch}', patching.can_patch(
            _opts(None, kubernetes_api=False, patch_command='oc patch')))
        self.assertIsNone(patching.can_patch(
            _opts(None, kubernetes_api=False, patch_command='x {patch}')))

    def test_has_source_counts_kubernetes_api(self):
        self.assertTrue(discovery.has_source(_opts(None)))
        self.assertFalse(discovery.has_source(
            _opts(None, kubernetes_api=False)))
