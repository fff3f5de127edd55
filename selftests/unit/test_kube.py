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

"""Discovery through the Kubernetes API and its one-line errors."""

import socket

from glance_multiapi_kernel import kube
from glance_multiapi_tests.multiapi import discovery
from selftests.unit import kube_cases
from selftests.unit import kube_stub

# NOTE: the shared Glance CR and options, by their short names.
_glance = kube_cases.glance_object
_opts = kube_cases.access_opts


class DiscoveryThroughApiTest(kube_cases.KubeTestCase):

    def test_only_glance_is_read_and_named(self):
        self.stub.put(kube.GLANCE, _glance())
        dep = self.access().fetch()
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
        dep = self.access(glance_name='mine').discover()
        self.assertIn('Glance openstack/mine', dep.source)
        self.assertEqual(kube_stub.path(kube.GLANCE, 'mine'),
                         self.stub.requests[-1]['path'])

    def test_two_glances_without_name_names_both_and_option(self):
        self.stub.put(kube.GLANCE, _glance('glance'))
        self.stub.put(kube.GLANCE, _glance('glance-b'))
        exc = self.assertRaises(discovery.DiscoveryError, self.access().fetch)
        self.assertOneLine(exc, '2 found: glance, glance-b',
                           'set [glance_multiapi] glance_name',
                           'list glances.glance.openstack.org in namespace '
                           '"openstack"')

    def test_no_glance_says_none_found(self):
        exc = self.assertRaises(discovery.DiscoveryError, self.access().fetch)
        self.assertOneLine(exc, 'none found')

    def test_missing_api_endpoint_is_the_command_error(self):
        broken = _glance(status={})
        self.stub.put(kube.GLANCE, broken)
        exc = self.assertRaises(discovery.DiscoveryError, self.access().fetch)
        self.assertOneLine(
            exc, 'Glance openstack/glance via the Kubernetes API at',
            'status.apiEndpoint.api0-public: missing')
        same = self.assertRaises(
            discovery.DiscoveryError, discovery.parse_cr, broken, 'X')
        self.assertTrue(str(exc).endswith(str(same)[len('X'):]))

    def test_not_strict_keeps_api_without_endpoints(self):
        glance = _glance()
        glance['spec']['glanceAPIs']['apigrow'] = {'type': 'split'}
        self.stub.put(kube.GLANCE, glance)
        dep = self.access().fetch(strict=False)
        self.assertEqual({}, dep.apis['apigrow'].endpoints)

    def test_wrong_token_is_401_naming_the_credentials(self):
        self.stub.put(kube.GLANCE, _glance())
        config = self.stub.kubeconfig(self, token='wrong')
        exc = self.assertRaises(
            discovery.DiscoveryError,
            self.access(_opts(config, glance_name='glance')).fetch)
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
        exc = self.assertRaises(discovery.DiscoveryError, self.access().fetch)
        self.assertOneLine(
            exc, '403 Forbidden: the kubeconfig\'s user lacks "list" on '
            '"glances" in API group "glance.openstack.org": '
            'glances.glance.openstack.org is forbidden: User')

    def test_missing_object_is_404_naming_it(self):
        self.stub.put(kube.GLANCE, _glance())
        exc = self.assertRaises(discovery.DiscoveryError,
                                self.access(glance_name='nope').fetch)
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
        exc = self.assertRaises(discovery.DiscoveryError,
                                self.access(_opts(config)).fetch)
        self.assertOneLine(
            exc, 'Kubernetes API http://127.0.0.1:%d: list ' % port,
            'API server unreachable: [Errno 111] Connection refused')

    def test_no_answer_names_the_timeout(self):
        self.stub.answers[('GET', kube_stub.path(kube.GLANCE))] = 'hang'
        exc = self.assertRaises(discovery.DiscoveryError,
                                self.access(kubernetes_timeout=0.3).fetch)
        self.assertOneLine(exc, 'no answer within 0.3 s')
        # NOTE: one request, not urllib3's default of one plus 3 retries.
        self.assertEqual(1, len([r for r in self.stub.requests
                                 if r.get('method', 'GET') == 'GET']))

    def test_other_status_quotes_the_server(self):
        self.stub.answers[('GET', kube_stub.path(kube.GLANCE))] = (
            500, 'boom\nmore')
        exc = self.assertRaises(discovery.DiscoveryError, self.access().fetch)
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

    def test_a_request_from_a_signal_handler_gets_its_own_pool(self):
        """As the restoration's undo on SIGTERM, inside another request."""
        self.stub.put(kube.GLANCE, _glance())
        with kube.connect(kube.Settings(kubeconfig=self.config)) as c:
            shared = c._pool.request
            through_shared, inner = [], []

            def interrupted(*args, **kwargs):
                through_shared.append(args[1])
                if len(through_shared) == 1:
                    # NOTE: the handler runs while this request holds the
                    # shared pool; it must not come back through it.
                    inner.append(c.get(kube.GLANCE, 'glance'))
                return shared(*args, **kwargs)

            c._pool.request = interrupted
            self.assertEqual('glance', kube.name_of(c.get(kube.GLANCE,
                                                          'glance')))
        self.assertEqual(['glance'], [kube.name_of(o) for o in inner])
        self.assertEqual(1, len(through_shared))
