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

"""The kernel's Kubernetes client and the uploader's ConfigMap, over HTTP.

The server is the project's Kubernetes API stand-in serving ConfigMaps
(tests/configmap_api.LoopbackConfigMapApi), the one the uploader
scenarios use when no cluster is configured; the client is the kernel's
(glance_multiapi_kernel/kube.py) on the real kubernetes package's
configuration loader and connection pool.
"""

import socket
import types

import fixtures
import testtools
import yaml

from glance_multiapi_kernel import kube
from glance_multiapi_tests.options import image_uploader
from glance_multiapi_tests.tests.uploader import configmap_api
from glance_image_uploader import exitcodes
from glance_image_uploader import output

NAME = 'openstack-images-uuids'
KEY = 'values.yaml'


def _closed_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class KubeRestTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.folder = folder = self.useFixture(fixtures.TempDir()).path
        self.kubeconfig = self.useFixture(
            configmap_api.LoopbackConfigMapApi(
                image_uploader.CONFIGMAP_API_COMMAND, folder)).kubeconfig
        self.useFixture(fixtures.EnvironmentVariable(
            'KUBERNETES_SERVICE_HOST'))
        self.useFixture(fixtures.EnvironmentVariable(
            'KUBECONFIG', self.kubeconfig))
        self.client = kube.connect(kube.Settings(kubeconfig=self.kubeconfig))
        self.addCleanup(self.client.close)

    def _images(self, namespace):
        found = self.client.get(kube.CONFIGMAP, NAME, namespace=namespace)
        return yaml.safe_load(found['data'][KEY])['os_images']

    def test_uploader_creates_then_merges_its_configmap(self):
        output.write_configmap(NAME, 'upl-a', KEY, output.render({'a': 'u1'}))
        output.write_configmap(NAME, 'upl-a', KEY, output.render(
            {'b': 'u2', 'a': 'u3'}))
        self.assertEqual({'a': {'openstack_glance_uuid': 'u3'},
                          'b': {'openstack_glance_uuid': 'u2'}},
                         self._images('upl-a'))

    def test_stale_resource_version_is_a_409(self):
        output.write_configmap(NAME, 'upl-b', KEY, output.render({'a': 'u'}))
        first = self.client.get(kube.CONFIGMAP, NAME, namespace='upl-b')
        self.client.replace(kube.CONFIGMAP, first, namespace='upl-b')
        exc = self.assertRaises(kube.KubeError, self.client.replace,
                                kube.CONFIGMAP, first, namespace='upl-b')
        self.assertEqual(409, exc.status)
        self.assertIn('Kubernetes API %s: update configmaps "%s" in '
                      'namespace "upl-b": 409 Conflict' % (
                          self.client.server, NAME), str(exc))

    def test_the_token_is_found_under_either_clients_key(self):
        """'BearerToken' (kubernetes 37 here) or 'authorization' (35)."""
        for other in ('authorization', 'BearerToken'):
            client = kube.connect(kube.Settings(kubeconfig=self.kubeconfig,
                                                namespace='upl-c'))
            self.addCleanup(client.close)
            config = client._config
            # NOTE: the loader's refresh hook would put its key back.
            config.refresh_api_key_hook = None
            used = 'BearerToken' if 'BearerToken' in config.api_key else (
                'authorization')
            if used == other:
                continue
            token = config.api_key.pop(used)
            exc = self.assertRaises(kube.KubeError, client.list,
                                    kube.CONFIGMAP)
            self.assertEqual(401, exc.status)
            config.api_key[other] = token
            self.assertEqual([], client.list(kube.CONFIGMAP))

    def test_wrong_token_is_one_line_and_exit_8(self):
        with open(self.kubeconfig) as f:
            document = yaml.safe_load(f)
        document['users'][0]['user']['token'] = 'not-the-token'
        with open(self.kubeconfig, 'w') as f:
            yaml.safe_dump(document, f)
        exc = self.assertRaises(exitcodes.UploaderError,
                                output.write_configmap, NAME, 'upl-d', KEY,
                                output.render({'a': 'u'}))
        self.assertEqual(exitcodes.OUTPUT_ERROR, exc.code)
        self.assertIn('cannot write ConfigMap upl-d/%s: Kubernetes API '
                      'http' % NAME, exc.message)
        self.assertIn(': create configmaps "%s" in namespace "upl-d": 401 '
                      'Unauthorized: the API server refused the credentials '
                      'of kubeconfig %s' % (NAME, self.kubeconfig),
                      exc.message)
        self.assertNotIn('\n', exc.message)

    def test_no_api_server_is_status_0_in_one_line(self):
        """No answer: no status, and the line says why none came."""
        with open(self.kubeconfig) as f:
            document = yaml.safe_load(f)
        host = 'http://127.0.0.1:%d' % _closed_port()
        document['clusters'][0]['cluster']['server'] = host
        with open(self.kubeconfig, 'w') as f:
            yaml.safe_dump(document, f)
        client = kube.connect(kube.Settings(kubeconfig=self.kubeconfig,
                                            namespace='x', timeout=2))
        self.addCleanup(client.close)
        exc = self.assertRaises(kube.KubeError, client.list, kube.CONFIGMAP)
        self.assertEqual(0, exc.status)
        self.assertIn('Kubernetes API %s: list configmaps in namespace "x": '
                      'API server unreachable: [Errno 111] Connection '
                      'refused' % host, str(exc))
        self.assertNotIn('\n', str(exc))

    def test_scenario_namespace_reads_what_the_uploader_wrote(self):
        """The uploader scenarios' namespace, through the access layer."""
        opts = types.SimpleNamespace(kubeconfig=self.kubeconfig,
                                     configmap_api_command=None,
                                     configmap_name=NAME)
        space = configmap_api.ConfigMapNamespace(opts, self.folder)
        space.setUp()
        try:
            where = 'ConfigMap %s/%s' % (space.namespace, NAME)
            self.assertEqual((None, where), space.read())
            self.assertEqual('default', space.home)
            output.write_configmap(NAME, space.namespace, KEY,
                                   output.render({'a': 'u1'}))
            data, found_where = space.read()
            self.assertEqual(where, found_where)
            self.assertEqual({'a': {'openstack_glance_uuid': 'u1'}},
                             yaml.safe_load(data[KEY])['os_images'])
            self.assertEqual((None, 'ConfigMap default/%s' % NAME),
                             space.read('default'))
        finally:
            space.cleanUp()
        # NOTE: its cleanup deletes what the scenario's uploader wrote.
        exc = self.assertRaises(kube.KubeError, self.client.get,
                                kube.CONFIGMAP, NAME,
                                namespace=space.namespace)
        self.assertEqual(404, exc.status)
        self.assertTrue(exc.missing)
