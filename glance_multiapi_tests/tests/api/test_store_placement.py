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

import itertools
import time

from oslo_log import log as logging
from tempest import config
from tempest.lib import decorators

from glance_multiapi_kernel import redaction
from glance_multiapi_tests.multiapi import locations
from glance_multiapi_tests.tests.multiapi import base

CONF = config.CONF
LOG = redaction.logger(logging.getLogger(__name__))


class StorePlacementTest(base.MultiApiTest):
    """Each API writes to a store and place of its own, reads its stores."""

    result_checks = ('store:*',)

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
        """An upload through each API lands in its store, bytes intact.

        Each upload's rate is a figure (upload_bytes_per_second), held to
        [glance_multiapi] min_upload_mib_per_second when set.
        """
        for api in self._apis():
            with self.checking('store:%s' % api.name):
                self._upload_through(api)

    def _upload_through(self, api):
        expected = self._expected_store(api)
        client = self.api_client(api)
        data = self.image_data()
        with self.fail_on_client_error(client, 'uploading an image'):
            image = self.upload_image(
                client, 'placement-%s' % api.name, data)
        self.assertEqual(
            [expected], base.image_stores(image),
            'image %s uploaded through %s landed in store(s) %r; '
            'expected only %s, the default store of %s' % (
                image['id'], self.endpoint_of(client),
                image.get('stores'), expected, api.name))
        with self.fail_on_client_error(client, 'downloading the image'):
            self.assertRoundTrip(client, image['id'], data)
        seconds = self.upload_seconds[image['id']]
        self.assertWithinBounds(self.record_figure(
            'upload_bytes_per_second', len(data) / max(seconds, 1e-6),
            api=api.name, store=expected,
            interface=base.interface_of(api, client)))

    @decorators.idempotent_id('98bc0c5c-833f-4b43-bb66-2471644669b6')
    def test_info_stores_marks_api_default(self):
        """/v2/info/stores of each API marks its expected store default."""
        for api in self._apis():
            with self.checking('store:%s' % api.name):
                self._default_marked(api)

    def _default_marked(self, api):
        expected = self._expected_store(api)
        client = self.api_client(api)
        with self.fail_on_client_error(client, 'GET /v2/info/stores'):
            stores = client.info_stores().get('stores', [])
        defaults = sorted(s['id'] for s in stores if s.get('default'))
        self.assertEqual(
            [expected], defaults,
            '/v2/info/stores of %s marks %s as default; expected %s '
            '(stores offered: %s)' % (
                self.endpoint_of(client), defaults or 'no store', expected,
                ', '.join(sorted(s['id'] for s in stores)) or 'none'))

    @decorators.idempotent_id('1b06ee65-858f-42a5-9acb-c377832ae183')
    def test_uploads_land_in_distinct_backing_locations(self):
        """Uploads to different stores land in different places."""
        placed, hidden = [], []
        for api in self._apis():
            with self.checking('store:%s' % api.name, record_pass=False):
                found = self._backing_of(api)
            if found[0] == 'hidden':
                hidden.append(found[1:])
                self.record_verdict('store:%s' % api.name, 'skipped',
                                    locations.hidden_reason([found[1:]]))
            else:
                placed.append(found[1:])
        for one, other in itertools.combinations(placed, 2):
            if one[1] == other[1]:
                continue
            shared = one[3] & other[3]
            if shared:
                problem = ('image %s (through %s, store %s) and image %s '
                           '(through %s, store %s) are both in %s: two '
                           'store names backed by one place' % (
                               one[2], one[0], one[1], other[2], other[0],
                               other[1], ', '.join(sorted(shared))))
                for name in (one[0], other[0]):
                    self.record_verdict('store:%s' % name, 'failed',
                                        problem)
                self.fail(problem)
        if hidden:
            raise self.skipException(locations.hidden_reason(hidden))
        if len({item[1] for item in placed}) < 2:
            raise self.skipException(
                'every API writes to store %s: no two stores to tell apart'
                % placed[0][1])
        for name, store, _image, backing in placed:
            self.record_verdict('store:%s' % name, 'passed', '%s is backed '
                                'by %s, no other store\'s place' % (
                                    store, ', '.join(sorted(backing))))

    def _backing_of(self, api):
        """Where an upload through api is.

        ('placed', api, store, image id, backing places), or ('hidden',
        image id, reader) when the API shows no location.
        """
        store = self._expected_store(api)
        client = self.api_client(api)
        with self.fail_on_client_error(client, 'uploading an image'):
            image = self.upload_image(client, 'backing-%s' % api.name,
                                      self.image_data())
        reader = self.locations_client(api, client)
        with self.fail_on_client_error(reader,
                                       'reading image %s' % image['id']):
            seen = reader.show_image(image['id'])
        found = locations.revealed(seen)
        if not found:
            return 'hidden', image['id'], self.endpoint_of(reader)
        backing = set()
        for location in found:
            try:
                backing.add(locations.backing(location.url))
            except locations.LocationError as exc:
                self.fail('image %s uploaded through %s: %s' % (
                    image['id'], self.endpoint_of(client), exc))
        return 'placed', api.name, store, image['id'], backing

    @decorators.idempotent_id('3e12fb17-b4b3-48d5-99f5-90d56a5ac269')
    def test_image_readable_exactly_where_api_has_store(self):
        """Reads work through APIs with the store, fail cleanly elsewhere.

        Each API's store element is judged by the reads through it.
        """
        apis = self._apis()
        if len(apis) < 2:
            raise self.skipException('only one API (%s): nothing to read '
                                     'across' % apis[0].name)
        clients, offered = {}, {}
        for api in apis:
            with self.checking('store:%s' % api.name, record_pass=False):
                clients[api.name] = self.api_client(api)
                offered[api.name] = set(self.offered_stores(
                    clients[api.name]))
        # NOTE: what an API has is its customServiceConfig's
        # enabled_backends when the Glance CR was read, else what it says.
        has = {api.name: set(api.stores) or offered[api.name]
               for api in apis}
        made = {}
        for maker in apis:
            store = self._expected_store(maker)
            if store in made:
                continue
            data = self.image_data()
            with self.checking('store:%s' % maker.name, record_pass=False):
                with self.fail_on_client_error(clients[maker.name],
                                               'uploading an image'):
                    image = self.upload_image(clients[maker.name],
                                              'across-%s' % maker.name, data)
            made[store] = (maker.name, image, data)
        for store, (maker, image, data) in sorted(made.items()):
            stores = set(base.image_stores(image)) or {store}
            for reader in apis:
                client = clients[reader.name]
                with self.checking('store:%s' % reader.name,
                                   record_pass=False):
                    if has[reader.name] & stores:
                        self._assert_readable(client, image, data, maker)
                    else:
                        self._assert_read_refused(client, image, stores,
                                                  maker, has[reader.name])
        wrong = {api.name: '%s offers %s, its customServiceConfig enables '
                 '%s' % (self.endpoint_of(clients[api.name]),
                         ', '.join(sorted(offered[api.name])) or 'none',
                         ', '.join(sorted(api.stores)))
                 for api in apis if api.stores and
                 offered[api.name] != set(api.stores)}
        for api in apis:
            self.record_verdict(
                'store:%s' % api.name, 'failed' if api.name in wrong else
                'passed', wrong.get(api.name, 'reads its stores\' images, '
                                    'refuses the others cleanly'))
        self.assertEqual([], sorted(wrong.values()), '/v2/info/stores '
                         'disagrees with the Glance CR: %s' % '; '.join(
                             sorted(wrong.values())))

    def _assert_readable(self, client, image, data, maker):
        doing = 'reading image %s (made through %s, store %s)' % (
            image['id'], maker, image.get('stores'))
        with self.fail_on_client_error(client, doing):
            seen = client.show_image(image['id'])
            self.assertEqual(
                'active', seen['status'],
                'image %s made through %s is %s through %s' % (
                    image['id'], maker, seen['status'],
                    self.endpoint_of(client)))
            self.assertRoundTrip(client, image['id'], data)

    def _assert_read_refused(self, client, image, stores, maker, offered):
        what = ('image %s (store %s, made through %s) read through %s, '
                'which has only %s' % (
                    image['id'], ', '.join(sorted(stores)), maker,
                    self.endpoint_of(client),
                    ', '.join(sorted(offered)) or 'none'))
        # NOTE: the metadata is in the one shared database: every API
        # shows it; only the bytes are out of reach.
        with self.fail_on_client_error(client, 'showing ' + what):
            seen = client.show_image(image['id'])
        self.assertEqual('active', seen['status'], '%s: status %s' % (
            what, seen['status']))
        start = time.monotonic()
        try:
            body = client.show_image_file(image['id']).data
        except Exception as exc:
            how = base.read_refusal(exc)
            self.assertIsNotNone(how, '%s: the download neither answered '
                                 '4xx/5xx nor was closed after %.1f s: %s: '
                                 '%s' % (what, time.monotonic() - start,
                                         type(exc).__name__, exc))
            LOG.info('%s: download refused (%s) in %.1f s', what, how,
                     time.monotonic() - start)
            return
        self.fail('%s: the download answered %d bytes (sha256 %s); an API '
                  'without the store must not serve it' % (
                      what, len(body), base.sha256(body)))
