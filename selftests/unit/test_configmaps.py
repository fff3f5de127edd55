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

"""The ConfigMap store behind the embedded and the loopback Kubernetes APIs."""

import fixtures
import testtools

from glance_multiapi_cloud.kubeapi import configmaps


def _body(name, data=None, **meta):
    return {'apiVersion': 'v1', 'kind': 'ConfigMap',
            'metadata': dict(meta, name=name), 'data': data or {}}


class TestStore(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.store = configmaps.Store(self.useFixture(
            fixtures.TempDir()).path)

    def assertRefused(self, code, reason, call, *args):
        error = self.assertRaises(configmaps.StoreError, call, *args)
        self.assertEqual((code, reason), (error.code, error.reason))
        self.assertEqual(code, error.status('x')['code'])
        return error

    def test_create_get_list_delete(self):
        made = self.store.create('ns-a', _body('cm', {'k': 'v'}))
        self.assertEqual('ns-a', made['metadata']['namespace'])
        self.assertEqual({'k': 'v'}, self.store.get('ns-a', 'cm')['data'])
        self.store.create('ns-b', _body('cm'))
        self.assertEqual(['ns-a'], [o['metadata']['namespace']
                                    for o in self.store.list('ns-a')])
        self.assertEqual(2, len(self.store.list()))
        self.store.delete('ns-a', 'cm')
        self.assertRefused(404, 'NotFound', self.store.get, 'ns-a', 'cm')
        self.assertEqual(['ns-b'], [o['metadata']['namespace']
                                    for o in self.store.list()])

    def test_create_twice_is_409(self):
        self.store.create('ns', _body('cm'))
        self.assertRefused(409, 'AlreadyExists', self.store.create, 'ns',
                           _body('cm'))

    def test_replace_with_stale_version_is_409(self):
        made = self.store.create('ns', _body('cm', {'k': '1'}))
        version = made['metadata']['resourceVersion']
        newer = self.store.replace('ns', 'cm', _body(
            'cm', {'k': '2'}, resourceVersion=version))
        self.assertNotEqual(version, newer['metadata']['resourceVersion'])
        self.assertEqual(made['metadata']['uid'], newer['metadata']['uid'])
        self.assertRefused(409, 'Conflict', self.store.replace, 'ns', 'cm',
                           _body('cm', {'k': '3'}, resourceVersion=version))
        # NOTE: without a resourceVersion an update is unconditional.
        self.store.replace('ns', 'cm', _body('cm', {'k': '4'}))
        self.assertEqual('4', self.store.get('ns', 'cm')['data']['k'])

    def test_merge_patch(self):
        self.store.create('ns', _body('cm', {'a': '1', 'b': '2'}))
        patched = self.store.patch('ns', 'cm', {'data': {'a': None,
                                                         'c': '3'}})
        self.assertEqual({'b': '2', 'c': '3'}, patched['data'])

    def test_invalid_names_and_data(self):
        self.assertRefused(422, 'Invalid', self.store.create, 'ns',
                           _body('Upper'))
        self.assertRefused(422, 'Invalid', self.store.create, 'ns',
                           _body('cm', {'k': 1}))
        self.assertRefused(400, 'BadRequest', self.store.create, 'No_NS',
                           _body('cm'))
        self.assertRefused(400, 'BadRequest', self.store.create, 'ns',
                           _body('cm', namespace='other'))
        self.assertRefused(404, 'NotFound', self.store.replace, 'ns', 'cm',
                           _body('cm'))
