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

from tempest import config
from tempest.lib import decorators

from glance_multiapi_tests.tests import multiapi_base

CONF = config.CONF


class StorePlacementTest(multiapi_base.MultiApiTest):
    """Each API writes to its own default store, reached by its own URL."""

    def _apis(self):
        return sorted(self.deployment.apis.values(), key=lambda a: a.name)

    def _expected_store(self, api):
        if not api.default_store:
            self.fail('no default store is known for %s: its '
                      'customServiceConfig sets no [glance_store] '
                      'default_backend and [glance_multiapi] default_stores '
                      'names none' % api.name)
        return api.default_store

    @decorators.idempotent_id('5fb97a8e-9249-44f4-a429-aa2bdb85ca92')
    def test_upload_lands_in_api_default_store(self):
        """An upload through each API lands in its store, bytes intact."""
        for api in self._apis():
            expected = self._expected_store(api)
            client = self.api_client(api)
            data = self.image_data()
            with self.talking_to(client, 'uploading an image'):
                image = self.upload_image(
                    client, 'placement-%s' % api.name, data)
            self.assertEqual(
                [expected], multiapi_base.image_stores(image),
                'image %s uploaded through %s landed in store(s) %r; '
                'expected only %s, the default store of %s' % (
                    image['id'], self.where(client),
                    image.get('stores'), expected, api.name))
            with self.talking_to(client, 'downloading the image'):
                self.assert_round_trip(client, image['id'], data)

    @decorators.idempotent_id('98bc0c5c-833f-4b43-bb66-2471644669b6')
    def test_info_stores_marks_api_default(self):
        """/v2/info/stores of each API marks its expected store default."""
        for api in self._apis():
            expected = self._expected_store(api)
            client = self.api_client(api)
            with self.talking_to(client, 'GET /v2/info/stores'):
                stores = client.info_stores().get('stores', [])
            defaults = sorted(s['id'] for s in stores if s.get('default'))
            self.assertEqual(
                [expected], defaults,
                '/v2/info/stores of %s marks %s as default; expected %s '
                '(stores offered: %s)' % (
                    self.where(client), defaults or 'no store', expected,
                    ', '.join(sorted(s['id'] for s in stores)) or 'none'))

    @decorators.idempotent_id('e366a7cc-4730-4039-9a84-fef30d081625')
    def test_image_readable_through_every_api(self):
        """An image made through one API reads through every other."""
        apis = self._apis()
        if len(apis) < 2:
            raise self.skipException('only one API (%s): nothing to read '
                                     'across' % apis[0].name)
        maker = apis[0]
        maker_client = self.api_client(maker)
        data = self.image_data()
        with self.talking_to(maker_client, 'uploading an image'):
            image = self.upload_image(maker_client,
                                      'shared-%s' % maker.name, data)
        for api in apis[1:]:
            client = self.api_client(api)
            with self.talking_to(client, 'reading image %s' % image['id']):
                seen = client.show_image(image['id'])
            self.assertEqual(
                'active', seen['status'],
                'image %s made through %s is %s through %s' % (
                    image['id'], self.where(maker_client), seen['status'],
                    self.where(client)))
            with self.talking_to(client, 'downloading the image'):
                self.assert_round_trip(client, image['id'], data)
