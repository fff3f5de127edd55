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

"""Per-API stores and placement by where the bytes are, on real glance.

On the default (DCN) cloud: an API refuses the bytes of an image whose
store it lacks (what real glance 33 does, asserted at the HTTP level),
and the placement checks pass healthy and fail, or say why they cannot
judge, under the store faults.
"""

import uuid

import requests

from glance_multiapi_kernel import imagedata
from selftests.functional import base

_T = 'glance_multiapi_tests.tests.api.test_store_placement.' \
    'StorePlacementTest.'
BACKING = _T + 'test_uploads_land_in_distinct_backing_locations'
READ_ACROSS = _T + 'test_image_readable_exactly_where_api_has_store'
UPLOAD_STORE = _T + 'test_upload_lands_in_api_default_store'
PLACEMENT = r'glance_multiapi_tests\.tests\.api\.test_store_placement\.'


class StoreLocationsTest(base.CloudTestCase):
    """Each API serves its own stores; the checks see where bytes are."""

    def _internal(self, api):
        return self.doc()['status']['apiEndpoint'][api + '-internal']

    def _upload(self, url, headers):
        verify = self.verify(url)
        resp = requests.post(url + '/v2/images', headers=headers, json={
            'name': 'fn-stores-%s' % uuid.uuid4().hex,
            'disk_format': 'raw', 'container_format': 'bare'}, timeout=60,
            verify=verify)
        self.assertEqual(201, resp.status_code, resp.text)
        image_id = resp.json()['id']
        self.addCleanup(requests.delete, url + '/v2/images/' + image_id,
                        headers=headers, timeout=60, verify=verify)
        put = requests.put(url + '/v2/images/%s/file' % image_id,
                           data=imagedata.raw(64 * 1024), timeout=120,
                           verify=verify,
                           headers=dict(headers, **{
                               'Content-Type': 'application/octet-stream'}))
        self.assertEqual(204, put.status_code, put.text)
        return image_id

    def test_api_without_the_store_refuses_the_bytes(self):
        """Real glance: metadata 200, download refused, never served."""
        headers = {'X-Auth-Token': self.token_and_catalog()[0]}
        maker, reader = self._internal('api1'), self._internal('api0')
        image_id = self._upload(maker, headers)
        shown = requests.get(reader + '/v2/images/' + image_id,
                             headers=headers, timeout=30,
                             verify=self.verify(reader))
        self.assertEqual(200, shown.status_code, shown.text)
        image = shown.json()
        self.assertEqual(('active', 'ceph1'),
                         (image['status'], image['stores']))
        # NOTE: requests retries nothing by default, so what glance does is
        # seen as it is: under uwsgi it closes the connection unanswered.
        try:
            resp = requests.get(reader + '/v2/images/%s/file' % image_id,
                                headers=headers, timeout=30,
                                verify=self.verify(reader))
        except requests.ConnectionError as exc:
            self.assertIn('Remote end closed connection without response',
                          str(exc))
            return
        self.assertGreaterEqual(resp.status_code, 400, 'api0, which lacks '
                                'ceph1, answered %d with %d bytes' % (
                                    resp.status_code, len(resp.content)))

    def test_healthy_placement_passes(self):
        with self.fault():
            results = self.run_tempest(PLACEMENT)
        self.assertEqual(4, len(results), results)
        for test_id, (status, details) in sorted(results.items()):
            self.assertEqual('success', status, '%s: %s' % (
                test_id, details[-3000:]))

    def test_shared_store_fails_backing_locations(self):
        with self.fault('shared-store=ceph0:ceph1'):
            results = self.run_tempest(PLACEMENT)
        self.assertOutcome(results, BACKING, 'fail', '(through api0, store '
                           'ceph0) and image ', '(through api1, store ceph1) '
                           'are both in file://', '/stores/ceph0: two store '
                           'names backed by one place')
        # NOTE: glance matches the location URL to api1's ceph1 (same
        # place), so api1 serves an image of a store it lacks.
        self.assertOutcome(results, READ_ACROSS, 'fail', 'store ceph0, made '
                           'through api0) read through api1 (',
                           'an API without the store must not serve it')
        # NOTE: the names are trusted by the store-id check, which passes.
        self.assertOutcome(results, UPLOAD_STORE, 'success')

    def test_every_store_fails_cross_reads(self):
        with self.fault('every-store'):
            results = self.run_tempest(PLACEMENT)
        self.assertOutcome(results, READ_ACROSS, 'fail', 'store ceph0, made '
                           'through api0) read through api1 (',
                           'which has only ceph1: the download answered ',
                           'an API without the store must not serve it')

    def test_hidden_locations_skip_naming_the_options(self):
        with self.fault('hide-locations'):
            results = self.run_tempest(PLACEMENT)
        self.assertOutcome(results, BACKING, 'skip', 'read through api0 (',
                           'read through edge0 (', 'neither direct_url nor '
                           'locations', 'enable '
                           'show_image_direct_url and/or '
                           'show_multiple_locations', 'glanceapi_controller'
                           '.go')
        self.assertOutcome(results, READ_ACROSS, 'success')
