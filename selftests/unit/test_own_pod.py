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

"""Which pod a run watches, and the embedded API's graceful pod delete."""

import types

import fixtures
import testtools

from glance_multiapi_cloud.kubeapi import request as kube_request
from glance_multiapi_tests.common import own_pod
from glance_multiapi_cloud.kubeapi.embedded import objects as kubeobjects
from glance_multiapi_cloud.kubeapi.embedded import pods as kubepods

IN_POD = {'KUBERNETES_SERVICE_HOST': '10.0.0.1', 'HOSTNAME': 'glance-x'}


def _opts(**values):
    base = dict(pod_name=None, kubeconfig=None)
    base.update(values)
    return types.SimpleNamespace(**base)


class PodNameTest(testtools.TestCase):

    def test_in_a_pod_the_hostname(self):
        self.assertEqual('glance-x', own_pod.pod_name(_opts(), IN_POD))

    def test_in_a_pod_without_hostname_the_kernels(self):
        # NOTE: ci-framework's CR glance-multiapi-tempest makes that pod.
        self.useFixture(fixtures.MockPatch(
            'socket.gethostname', return_value='glance-multiapi-tempest'))
        self.assertEqual('glance-multiapi-tempest', own_pod.pod_name(
            _opts(), {'KUBERNETES_SERVICE_HOST': '10.0.0.1'}))

    def test_the_option_wins(self):
        self.assertEqual('mine', own_pod.pod_name(_opts(pod_name='mine'),
                                                  IN_POD))

    def test_outside_a_pod_none(self):
        self.assertIsNone(own_pod.pod_name(_opts(), {'HOSTNAME': 'laptop'}))

    def test_a_kubeconfig_means_another_cluster(self):
        self.assertIsNone(own_pod.pod_name(_opts(kubeconfig='/k'), IN_POD))
        self.assertIsNone(own_pod.pod_name(
            _opts(), dict(IN_POD, KUBECONFIG='/k')))

    def test_deletion_reason(self):
        self.assertIsNone(own_pod.deletion({'metadata': {'name': 'p'}}))
        self.assertEqual(
            'pod p is being deleted (deletionTimestamp 2026-12-02T05:00:00Z'
            ', grace 30 s)', own_pod.deletion({'metadata': {
                'name': 'p', 'deletionTimestamp': '2026-12-02T05:00:00Z',
                'deletionGracePeriodSeconds': 30}}))


class PodStoreTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.store = kubepods.Store(self.useFixture(fixtures.TempDir()).path)
        self.store.create('openstack', {'metadata': {'name': 'p'},
                                        'spec': {}})

    def test_delete_marks_the_pod_for_its_grace(self):
        pod = self.store.delete('openstack', 'p')
        self.assertEqual(30, pod['metadata']['deletionGracePeriodSeconds'])
        self.assertIn('deletionTimestamp',
                      self.store.get('openstack', 'p')['metadata'])

    def test_spec_grace_and_a_shorter_second_delete(self):
        self.store.create('openstack', {'metadata': {'name': 'q'}, 'spec': {
            'terminationGracePeriodSeconds': 60}})
        self.assertEqual(60, self.store.delete('openstack', 'q')[
            'metadata']['deletionGracePeriodSeconds'])
        self.assertEqual(5, self.store.delete('openstack', 'q', 5)[
            'metadata']['deletionGracePeriodSeconds'])
        self.assertEqual(5, self.store.delete('openstack', 'q', 20)[
            'metadata']['deletionGracePeriodSeconds'])

    def test_grace_zero_removes(self):
        self.store.delete('openstack', 'p', 0)
        exc = self.assertRaises(kubepods.StoreError, self.store.get,
                                'openstack', 'p')
        self.assertEqual(404, exc.code)
        self.assertEqual('pods "p" not found', exc.body['message'])

    def test_create_twice_conflicts(self):
        exc = self.assertRaises(kubepods.StoreError, self.store.create,
                                'openstack', {'metadata': {'name': 'p'}})
        self.assertEqual(409, exc.code)

    def test_namespaces_apart(self):
        self.assertEqual([], self.store.list('other'))
        self.assertEqual(['p'], [p['metadata']['name']
                                 for p in self.store.list('openstack')])

    def list_json(self):
        request = kube_request.Request(
            'GET', '/api/v1/namespaces/openstack/pods', {},
            kubeobjects.SERVED)
        return kubepods.serve_pods(self.store, request, {}, b'')

    def test_list_as_json_carries_resource_versions(self):
        code, listing = self.list_json()
        self.assertEqual(200, code)
        self.assertEqual('PodList', listing['kind'])
        version = listing['items'][0]['metadata']['resourceVersion']
        self.assertTrue(version.isdigit(), version)
        self.assertTrue(listing['metadata']['resourceVersion'].isdigit())

    def test_deletion_mark_changes_the_resource_version(self):
        before = self.store.get('openstack', 'p')['metadata'][
            'resourceVersion']
        self.store.delete('openstack', 'p')
        after = self.store.get('openstack', 'p')['metadata']
        self.assertNotEqual(before, after['resourceVersion'])
        self.assertEqual(after['resourceVersion'],
                         self.list_json()[1]['items'][0]['metadata'][
                             'resourceVersion'])
