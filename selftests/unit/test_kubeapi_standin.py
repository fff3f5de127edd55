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

"""The one Kubernetes API stand-in (glance_multiapi_cloud.kubeapi).

Its Status bodies, its requests and, over loopback HTTP, the ConfigMap
API the uploader scenarios run on it, read by the kubernetes client.
"""

import ast
import os
import pathlib

import fixtures
import requests
import testtools

from glance_multiapi_cloud import kubeapi
from glance_multiapi_cloud.kubeapi import configmaps
from glance_multiapi_cloud.kubeapi import request as kube_request
from glance_multiapi_cloud.kubeapi import resources
from glance_multiapi_cloud.kubeapi import server
from glance_multiapi_cloud.kubeapi import status
from glance_multiapi_tests.options import image_uploader
from glance_multiapi_tests.tests.uploader import configmap_api

SERVED = resources.Resources([configmaps.RESOURCE])


class StatusTest(testtools.TestCase):

    def test_forbidden_message_is_the_api_servers(self):
        body = status.forbidden(
            'system:serviceaccount:openstack:glance-multiapi-tests',
            'patch', 'glance.openstack.org', 'glances', 'glance',
            'openstack')
        self.assertEqual(
            'glances.glance.openstack.org "glance" is forbidden: User '
            '"system:serviceaccount:openstack:glance-multiapi-tests" cannot '
            'patch resource "glances" in API group "glance.openstack.org" '
            'in the namespace "openstack"', body['message'])
        self.assertEqual((403, 'Forbidden', 'Failure', 'Status', 'v1'), (
            body['code'], body['reason'], body['status'], body['kind'],
            body['apiVersion']))
        self.assertEqual({'name': 'glance', 'group': 'glance.openstack.org',
                          'kind': 'glances'}, body['details'])
        core = status.forbidden('u', 'list', '', 'configmaps', None, None)
        self.assertEqual('configmaps is forbidden: User "u" cannot list '
                         'resource "configmaps" in API group "" at the '
                         'cluster scope', core['message'])

    def test_not_found_and_invalid(self):
        self.assertEqual('deployments.apps "x" not found',
                         status.not_found('apps', 'deployments',
                                          'x')['message'])
        body = status.invalid('core.openstack.org',
                              'OpenStackControlPlane', 'openstack',
                              'bad', 'spec.glance.template')
        self.assertEqual((422, 'Invalid'), (body['code'], body['reason']))
        self.assertEqual('OpenStackControlPlane.core.openstack.org '
                         '"openstack" is invalid: spec.glance.template: bad',
                         body['message'])


class RequestTest(testtools.TestCase):

    def test_verb_namespace_and_name(self):
        request = kube_request.Request(
            'DELETE', '/api/v1/namespaces/ns/configmaps/m', {}, SERVED)
        self.assertEqual(('delete', 'ns', 'm', 'configmaps'), (
            request.verb, request.namespace, request.name,
            request.resource.plural))
        self.assertEqual('list', kube_request.Request(
            'GET', '/api/v1/configmaps', {}, SERVED).verb)

    def test_unserved_and_cluster_paths_are_404(self):
        for path in ('/api/v1/namespaces/ns/secrets/s',
                     '/api/v1/configmaps/m',
                     '/api/v1/namespaces/ns/configmaps/m/extra'):
            exc = self.assertRaises(kube_request.Response,
                                    kube_request.Request, 'GET', path, {},
                                    SERVED)
            self.assertEqual(404, exc.code, path)

    def test_discovery_of_the_served_resources(self):
        self.assertEqual(['configmaps'], [
            r['name'] for r in SERVED.discovery('/api/v1', 'h:1')[
                'resources']])
        self.assertEqual([], SERVED.discovery('/apis', 'h:1')['groups'])
        self.assertIsNone(SERVED.discovery('/apis/apps/v1', 'h:1'))


class _Boom(server.Api):

    def authenticate(self, context, headers):
        return 'anyone'

    def serve(self, context, request, headers, body):
        raise RuntimeError('broken store')


class ServerTest(testtools.TestCase):

    def _serve(self, api):
        running = server.Running(api)
        self.addCleanup(running.stop)
        return running.url

    def test_an_unexpected_error_is_a_500_status(self):
        url = self._serve(_Boom(SERVED))
        self.useFixture(fixtures.MonkeyPatch('sys.stdout', open(
            os.devnull, 'w')))
        resp = requests.get(url + '/api/v1/namespaces/n/configmaps/x',
                            timeout=5)
        self.assertEqual(500, resp.status_code)
        self.assertEqual('Internal error occurred: RuntimeError: broken '
                         'store', resp.json()['message'])
        self.assertEqual('ok', requests.get(url + '/healthz',
                                            timeout=5).text)

    def test_configmap_api_for_the_kubernetes_client(self):
        import kubernetes.client
        import kubernetes.config

        folder = self.useFixture(fixtures.TempDir()).path
        config = self.useFixture(configmap_api.LoopbackConfigMapApi(
            image_uploader.CONFIGMAP_API_COMMAND, folder)).kubeconfig
        client = kubernetes.config.new_client_from_config(
            config_file=config)
        self.addCleanup(client.close)
        api = kubernetes.client.CoreV1Api(client)
        api.create_namespaced_config_map('upl-a', {
            'metadata': {'name': 'openstack-images-uuids'},
            'data': {'values.yaml': 'os_images: {}\n'}})
        api.patch_namespaced_config_map(
            'openstack-images-uuids', 'upl-a',
            {'data': {'values.yaml': 'os_images: {a: 1}\n'}})
        found = api.read_namespaced_config_map('openstack-images-uuids',
                                               'upl-a')
        self.assertEqual({'values.yaml': 'os_images: {a: 1}\n'}, found.data)
        self.assertEqual(['openstack-images-uuids'], [
            m.metadata.name for m in
            api.list_config_map_for_all_namespaces().items])
        exc = self.assertRaises(kubernetes.client.exceptions.ApiException,
                                api.create_namespace, {
                                    'metadata': {'name': 'upl-a'}})
        self.assertEqual(404, exc.status)
        unauthorized = requests.get(
            client.configuration.host + '/api/v1/configmaps', timeout=5)
        self.assertEqual(401, unauthorized.status_code)


class PureTest(testtools.TestCase):
    """It runs in a pod without the cloud's deps.

    The uploader scenarios' loopback ConfigMap API: the standard library,
    PyYAML, itself and the plugin's pure helpers.
    """

    def test_imports_only_the_standard_library_and_the_kernel(self):
        folder = pathlib.Path(kubeapi.__file__).parent
        wrong = []
        for source in sorted(folder.glob('*.py')):
            for node in ast.walk(ast.parse(source.read_text())):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom):
                    names = [node.module]
                for name in names:
                    if name.startswith('glance_multiapi_cloud.kubeapi.'
                                       'embedded'):
                        wrong.append('%s: %s' % (source.name, name))
                        continue
                    if name.startswith(('glance_multiapi_cloud.kubeapi',
                                        'glance_multiapi_kernel')):
                        continue
                    if name.split('.')[0] not in _STDLIB:
                        wrong.append('%s: %s' % (source.name, name))
        self.assertEqual([], wrong)


class OneFolderTest(testtools.TestCase):
    """The stand-in lives under one folder, and depends on no starter."""

    def test_no_kubernetes_api_module_outside_its_folder(self):
        folder = pathlib.Path(kubeapi.__file__).parent
        outside = sorted(
            str(path.relative_to(folder.parent))
            for path in folder.parent.rglob('kube*.py')
            if folder not in path.parents)
        # NOTE: the component that starts it is a component like any other.
        self.assertEqual(['components/kubeapi.py'], outside)

    def test_never_imports_what_starts_it(self):
        folder = pathlib.Path(kubeapi.__file__).parent
        starters = ('glance_multiapi_cloud.cloud', 'glance_multiapi_cloud.cli',
                    'glance_multiapi_cloud.components.kubeapi')
        wrong = []
        for source in sorted(folder.rglob('*.py')):
            for node in ast.walk(ast.parse(source.read_text())):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom):
                    names = ['%s.%s' % (node.module, a.name)
                             for a in node.names]
                wrong += ['%s: %s' % (source.relative_to(folder), name)
                          for name in names if name in starters]
        self.assertEqual([], wrong)


_STDLIB = {'collections', 'datetime', 'hashlib', 'hmac', 'http', 'json',
           'os', 're', 'ssl', 'sys', 'tempfile', 'threading', 'traceback',
           'urllib', 'uuid', 'argparse', 'secrets', 'signal', 'time',
           'yaml'}
