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

import testtools

from glance_multiapi_tests.multiapi import locations

ID = '0b5a3d1e-4a4e-4b43-9d7c-3f1f1c0e2a11'
FSID = '4b5c8c0a-ff60-454b-a1b4-9747aa737d19'


class TestBacking(testtools.TestCase):

    def test_file_is_the_directory(self):
        self.assertEqual(
            'file:///srv/glance/stores/ceph0',
            locations.backing('file:///srv/glance/stores/ceph0/' + ID))

    def test_rbd_is_fsid_and_pool(self):
        self.assertEqual(
            'rbd://%s/images' % FSID,
            locations.backing('rbd://%s/images/%s/snap' % (FSID, ID)))

    def test_rbd_same_cluster_other_image_same_place(self):
        a = locations.backing('rbd://%s/images/%s/snap' % (FSID, ID))
        b = locations.backing('rbd://%s/images/other/snap' % FSID)
        self.assertEqual(a, b)

    def test_rbd_other_pool_other_place(self):
        self.assertNotEqual(
            locations.backing('rbd://%s/images/%s/snap' % (FSID, ID)),
            locations.backing('rbd://%s/images2/%s/snap' % (FSID, ID)))

    def test_rbd_quoted(self):
        self.assertEqual(
            'rbd://%s/my pool' % FSID,
            locations.backing('rbd://%s/my%%20pool/%s/snap' % (FSID, ID)))

    def test_legacy_rbd_refused(self):
        exc = self.assertRaises(locations.LocationError, locations.backing,
                                'rbd://' + ID)
        self.assertIn('which cluster and pool', str(exc))

    def test_swift_drops_credentials_and_object(self):
        got = locations.backing(
            'swift+https://user:secret@swift.example/v1/AUTH_x/glance/' + ID)
        self.assertEqual('swift+https://swift.example/v1/AUTH_x/glance', got)
        self.assertNotIn('secret', got)

    def test_s3(self):
        self.assertEqual('s3://s3.example/bucket', locations.backing(
            's3://key:secret@s3.example/bucket/' + ID))

    def test_cinder_with_store(self):
        self.assertEqual('cinder://az1', locations.backing(
            'cinder://az1/' + ID))

    def test_cinder_volume_only_refused(self):
        self.assertRaises(locations.LocationError, locations.backing,
                          'cinder://' + ID)

    def test_not_a_url(self):
        for bad in ('', None, '/srv/x', 'file://', 'file:///' + ID):
            self.assertRaises(locations.LocationError, locations.backing,
                              bad)


class TestRevealed(testtools.TestCase):

    def test_locations_with_store(self):
        image = {'locations': [{'url': 'file:///a/ceph0/x',
                                'metadata': {'store': 'ceph0'}}],
                 'direct_url': 'file:///a/ceph0/x'}
        self.assertEqual([locations.Location('file:///a/ceph0/x', 'ceph0')],
                         locations.revealed(image))
        self.assertFalse(locations.hides_locations(image))

    def test_direct_url_only(self):
        image = {'direct_url': 'rbd://f/p/i/snap'}
        self.assertEqual([locations.Location('rbd://f/p/i/snap', None)],
                         locations.revealed(image))

    def test_hidden(self):
        image = {'id': ID, 'stores': 'ceph0'}
        self.assertEqual([], locations.revealed(image))
        self.assertTrue(locations.hides_locations(image))

    def test_empty_list_is_not_hidden(self):
        # NOTE: glance shows "locations": [] when allowed but there is none.
        self.assertFalse(locations.hides_locations({'locations': []}))

    def test_hidden_reason_names_options(self):
        text = locations.hidden_reason([(ID, 'api1 (http://x)')])
        for needle in ('image %s read through api1 (http://x) shows' % ID,
                       'enable show_image_direct_url and/or '
                       'show_multiple_locations', 'glanceapi_controller.go'):
            self.assertIn(needle, text)
        text = locations.hidden_reason([(ID, 'api1'), ('other', 'edge0')])
        self.assertIn('through api1, image other read through edge0 show '
                      'neither', text)
