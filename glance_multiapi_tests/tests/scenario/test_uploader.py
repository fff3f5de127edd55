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

"""The uploader puts each image once, as a community image, and cleans up.

These run the configured uploader (by default the bundled
glance-image-uploader) as a real process against the real cloud, every
image from the ``[image_uploader] source`` (http or oci).
"""

from tempest import config
from tempest.lib.common.utils import data_utils
from tempest.lib import decorators
from tempest.lib import exceptions as lib_exc

from glance_multiapi_tests.tests.uploader import base
from glance_multiapi_tests.tests.uploader import components
from glance_multiapi_tests.tests.uploader import oci

CONF = config.CONF


class UploaderBasicsTest(base.UploaderScenarioTest):
    """Straight uploads, community visibility and reruns."""

    @decorators.idempotent_id('0ff1b248-b03e-488a-b175-fe3fa6b58cba')
    def test_upload_image(self):
        """One source image becomes one active, tagged, named image."""
        key, entry, _ = self.new_image('upl-straight')
        result = self.run_uploader({key: entry}).run()
        self.assertExit(result, 0)
        image = self.assertOneActive(key, entry, result)
        self.assertEqual(self.glance_name(key, entry), image['name'])
        self.assertIn(self.expected_tag(entry), image['tags'])
        if self.opts.property_prefix:
            for name, value in entry.items():
                self.assertEqual(str(value), image.get(
                    self.opts.property_prefix + name),
                    'property %s%s' % (self.opts.property_prefix, name))
        self.assertIn(self.downloads(key, entry), (1, None))

    @decorators.idempotent_id('bbc4b9b5-250b-438f-a2dd-bec014d85af7')
    def test_uploaded_image_is_community(self):
        """alt sees it only with visibility=community and cannot change it."""
        key, entry, _ = self.new_image('upl-community')
        result = self.run_uploader({key: entry}).run()
        self.assertExit(result, 0)
        image = self.assertOneActive(key, entry, result)
        self.assertEqual('community', image['visibility'],
                         'image %s is %s, not community'
                         % (image['id'], image['visibility']))
        name = self.glance_name(key, entry)
        default_list = self.alt_images.list_images(
            params={'name': name})['images']
        self.assertEqual([], [i['id'] for i in default_list],
                         'alt sees the image without asking for community '
                         'images: it is not community')
        community = self.alt_images.list_images(
            params={'name': name, 'visibility': 'community'})['images']
        self.assertEqual([image['id']], [i['id'] for i in community],
                         'alt does not find the image among community '
                         'images')
        self.assertRaises(lib_exc.Forbidden, self.alt_images.update_image,
                          image['id'], [{'replace': '/name',
                                         'value': 'taken-over'}])
        self.assertRaises(lib_exc.Forbidden, self.alt_images.delete_image,
                          image['id'])

    @decorators.idempotent_id('2bbcac15-2536-4fba-bb30-3612cd221245')
    def test_rerun_reuses_image(self):
        """A second run downloads nothing and reports the same UUID.

        The image's bytes are gone before the second run (the http file,
        or the OCI artifact's layer blobs; its manifest stays, a rerun may
        read it), so an uploader that downloads again fails whatever the
        source kind.
        """
        key, entry, _ = self.new_image('upl-rerun')
        first = self.run_uploader({key: entry}).run()
        self.assertExit(first, 0)
        image = self.assertOneActive(key, entry, first)
        self.remove_source(key, entry)
        second = self.run_uploader({key: entry}).run()
        self.assertReused(second, key, entry, 'the second run')
        again = self.assertOneActive(key, entry, second)
        self.assertEqual(image['id'], again['id'])
        self.assertIn(self.downloads(key, entry), (1, None),
                      'the second run downloaded the image again')


# NOTE: a class of its own, so that tempest's workers (which take a class
# each) run it beside UploaderBasicsTest: its uploader runs mostly wait.
class UploaderHygieneTest(base.UploaderScenarioTest):
    """Temp files, the working directory and a wrong md5 leave nothing."""

    def _run_ok_and_broken(self, prefix):
        """A run that works and one whose source breaks half way."""
        key, entry, _ = self.new_image(prefix + '-ok')
        result = self.run_uploader({key: entry}).run()
        self.assertExit(result, 0)
        bad_key, bad_entry, _ = self.new_image(prefix + '-cut', broken=True)
        failed = self.run_uploader({bad_key: bad_entry}).run()
        self.assertNotEqual(0, failed.code, 'a source that broke half way '
                            'was accepted: %s' % failed.describe())
        self.assertEqual([], self.images_named(self.images, bad_key,
                                               bad_entry),
                         'an image from a broken source reached Glance')
        return result, failed

    @decorators.idempotent_id('ca111596-1c3d-4e18-ae01-a92109e0d8b9')
    def test_temp_dir_empty_after_success_and_failure(self):
        """Nothing is left in TMPDIR, whether the run works or not.

        The failure is a source that breaks half way: whatever was
        downloaded or unpacked by then must be gone.
        """
        result, failed = self._run_ok_and_broken('upl-tmp')
        self.assertTempDirEmpty(result)
        self.assertTempDirEmpty(failed)

    @decorators.idempotent_id('69672347-e20d-4004-8244-4d9263677b45')
    def test_working_directory_stays_empty(self):
        """The uploader writes nothing where it runs, success or failure.

        It starts in an empty directory; a Kubernetes job's working
        directory is often read-only or the image's, not scratch space.
        """
        result, failed = self._run_ok_and_broken('upl-cwd')
        self.assertCwdEmpty(result)
        self.assertCwdEmpty(failed)

    @decorators.idempotent_id('4e770ce1-23a1-4648-b42b-4061af76bb35')
    def test_md5_mismatch_uploads_nothing(self):
        """A source that does not match its md5 fails; Glance has nothing.

        No image of that name may be left in any state, nor visible under
        the md5 tag, and the temp dir is empty (the mismatch is known
        only after the full download, when temp files are largest).
        """
        key, entry, data = self.new_image('upl-md5')
        entry['md5'] = components.md5_of(data + b'x')
        self.addCleanup(self.delete_named, self.glance_name(key, entry))
        failed = self.run_uploader({key: entry}).run()
        self.assertNotEqual(0, failed.code, 'a wrong md5 was accepted: %s'
                            % failed.describe())
        self.assertEqual([], self.images_named(self.images, key, entry),
                         'an image with a wrong md5 is in Glance under the '
                         'md5 tag')
        left = self.images.list_images(
            params={'name': self.glance_name(key, entry)})['images']
        self.assertEqual([], ['%s:%s' % (i['id'], i['status'])
                              for i in left],
                         'the uploader left an image of the wrong md5')
        self.assertTempDirEmpty(failed)


class UploaderOciTest(base.UploaderScenarioTest):
    """An oci:// artifact (tar.gz holding a .gz image) from a registry."""

    @classmethod
    def skip_checks(cls):
        """Skip without a registry to push to."""
        super().skip_checks()
        if not CONF.image_uploader.registry:
            raise cls.skipException('[image_uploader] registry is unset')

    @decorators.idempotent_id('ca7540c9-a1fa-4b47-b46d-a7694b4f79fe')
    def test_upload_image_from_oci(self):
        """The artifact is unpacked, checked and uploaded as one image."""
        key = data_utils.rand_name(prefix=CONF.resource_name_prefix,
                                   name='upl-oci')
        data = components.image_bytes(self.opts.image_size)
        uri = oci.push_oci_artifact(
            self.opts.registry, 'glance-multiapi-tests/%s' % key.lower(),
            '1.0', key, data, verify=self.registry_verify())
        entry = {'uri': uri, 'md5': components.md5_of(data),
                 'image-format': 'raw', 'commit-tag': '1.0'}
        self.addCleanup(self.delete_named, self.glance_name(key, entry))
        result = self.run_uploader({key: entry}).run()
        self.assertExit(result, 0)
        image = self.assertOneActive(key, entry, result)
        self.assertEqual(len(data), image['size'])
        self.assertTempDirEmpty(result)
