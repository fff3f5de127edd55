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

"""Which cluster access kube.connect picks (kubeconfig, $KUBECONFIG, the
pod's service account) and its one-line errors."""

import json
import sys
from unittest import mock

import fixtures
import testtools

from glance_multiapi_kernel import kube
from selftests.unit import kube_stub


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


class NamespaceTest(testtools.TestCase):
    """Where the objects are looked for when no option names it."""

    def setUp(self):
        super().setUp()
        self.folder = self.useFixture(fixtures.TempDir()).path
        self.useFixture(fixtures.EnvironmentVariable('KUBECONFIG'))
        self.useFixture(fixtures.EnvironmentVariable(kube.IN_CLUSTER_ENV))
        self.useFixture(fixtures.EnvironmentVariable(
            'HOME', self.folder))
        self.ns_file = self.folder + '/namespace'
        self.useFixture(fixtures.MonkeyPatch(
            'glance_multiapi_kernel.kube.NAMESPACE_FILE',
            self.ns_file))

    def in_pod(self, namespace):
        self.useFixture(fixtures.EnvironmentVariable(kube.IN_CLUSTER_ENV,
                                                     '127.0.0.1'))
        with open(self.ns_file, 'w') as f:
            f.write(namespace + '\n')

    def test_the_option_wins(self):
        self.in_pod('from-pod')
        self.assertEqual('opt', kube.namespace_for(kube.Settings(
            namespace='opt')))

    def test_a_pod_takes_its_own(self):
        self.in_pod('osp-ctlplane')
        self.assertEqual('osp-ctlplane', kube.namespace_for(
            kube.Settings()))

    def test_a_pod_without_the_file_falls_back(self):
        self.useFixture(fixtures.EnvironmentVariable(kube.IN_CLUSTER_ENV,
                                                     '127.0.0.1'))
        self.assertEqual(kube.DEFAULT_NAMESPACE, kube.namespace_for(
            kube.Settings()))

    def test_a_kubeconfig_takes_its_contexts(self):
        self.in_pod('ignored')
        path = self.folder + '/kubeconfig'
        with open(path, 'w') as f:
            json.dump({'apiVersion': 'v1', 'kind': 'Config',
                       'clusters': [{'name': 'c', 'cluster': {
                           'server': 'https://127.0.0.1:1'}}],
                       'users': [{'name': 'u', 'user': {'token': 't'}}],
                       'contexts': [{'name': 'x', 'context': {
                           'cluster': 'c', 'user': 'u',
                           'namespace': 'osp-ctlplane'}}],
                       'current-context': 'x'}, f)
        self.assertEqual('osp-ctlplane', kube.namespace_for(
            kube.Settings(kubeconfig=path)))
        self.assertEqual(kube.DEFAULT_NAMESPACE, kube.namespace_for(
            kube.Settings(kubeconfig=path, context='nope')))

    def test_nothing_known_is_openstack(self):
        self.assertEqual('openstack', kube.namespace_for(kube.Settings()))
