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

"""Decisions of the uploader's race protocol, on an in-memory Glance.

The real races run against the embedded cloud (test_uploader_races and
the chaos functional test); here each decision is pinned down alone.
"""

import hashlib
import io

import fixtures
import testtools

from glance_multiapi_kernel import polling
from glance_image_uploader import exitcodes
from glance_image_uploader import glance as glance_api
from glance_image_uploader import inputs
from glance_image_uploader import progress
from glance_image_uploader import streams
from glance_image_uploader import workflow

DATA = b'image bytes' * 1000
MD5 = hashlib.md5(DATA).hexdigest()
US = 'project-us'
THEM = 'project-them'


class FakeGlance(object):
    """Images in a dict; wait_while follows a script of next statuses."""

    def __init__(self):
        self.images = {}
        self.project_id = US
        self.script = {}
        self.deleted = []
        self.uploads = []
        self.clock = 100
        self.on_find = None
        self.checksum = None

    def add(self, status, owner=US, claim=False, tags=(), created=None,
            **extra):
        self.clock += 1
        image = {'id': 'img-%03d' % len(self.images), 'name': 'n',
                 'status': status, 'owner': owner, 'tags': list(tags),
                 'created_at': '2026-01-01T00:00:%02dZ' % (
                     created if created is not None else self.clock)}
        if claim:
            image[glance_api.CLAIM] = 'sylva-md5-' + MD5
        image.update(extra)
        self.images[image['id']] = image
        return image

    def find(self, name, tag):
        if self.on_find:
            self.on_find()
        return [dict(image) for image in self.images.values()
                if tag in image['tags'] or
                image.get(glance_api.CLAIM) == tag]

    def get(self, image_id):
        image = self.images.get(image_id)
        return dict(image) if image else None

    def wait_while(self, image_id, statuses, *, timeout, interval):
        image = self.images.get(image_id)
        if image is None:
            return 'deleted'
        steps = self.script.get(image_id) or []
        while image['status'] in statuses:
            if not steps:
                raise polling.PollTimeout('still %s' % image['status'])
            change = steps.pop(0)
            if change == 'deleted':
                del self.images[image_id]
                return 'deleted'
            image.update(change)
        return image['status']

    def delete(self, image_id):
        self.deleted.append(image_id)
        self.images.pop(image_id, None)

    def owns(self, image):
        return image.get('owner') == self.project_id

    def refresh_properties(self, image, properties):
        return 0

    def create_claim(self, spec):
        return dict(self.add('queued', claim=True))

    def upload(self, image_id, stream):
        data = b''.join(stream)
        self.uploads.append(image_id)
        self.images[image_id].update(
            status='active',
            checksum=self.checksum or hashlib.md5(data).hexdigest())

    def finalize(self, image, tag):
        stored = self.images[image['id']]
        stored['tags'] = sorted(set(stored['tags']) | {tag})
        stored.pop(glance_api.CLAIM, None)
        return dict(stored)


class TestProtocol(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.glance = FakeGlance()
        self.spec = inputs.ImageSpec(key='n', uri='http://x/n.raw', md5=MD5,
                                     disk_format='raw', commit_tag='',
                                     info={})
        self.source = DATA
        self.downloads = 0
        self.useFixture(fixtures.MonkeyPatch(
            'glance_image_uploader.sources.stream', self._stream))
        # NOTE: the settle window is a real time window; shrink it.
        self.useFixture(fixtures.MonkeyPatch(
            'glance_image_uploader.workflow.CLAIM_SETTLE', 0.01))
        self.useFixture(fixtures.MonkeyPatch(
            'glance_image_uploader.workflow.CLAIM_STALE_MIN', 0.05))
        self.log = progress.Log(stream=io.StringIO())

    def _stream(self, spec, **kwargs):
        self.downloads += 1
        return streams.HashedStream(iter([self.source]))

    def _push(self, policy='refuse'):
        settings = inputs.Settings(
            info_path='', cloud=None, client_config_file=None,
            in_progress_timeout=5, in_progress_interval=0.01,
            wait_queued=0.05, insecure=False, plain_http=False,
            foreign_queued_policy=policy)
        return workflow.Uploader(self.glance, settings, self.log).push(
            self.spec)

    def _published(self):
        return [image['id'] for image in self.glance.images.values()
                if glance_api.is_published(image, self.spec.tag)]

    def test_empty_glance_uploads_and_publishes_after_verifying(self):
        image_id = self._push()
        self.assertEqual([image_id], self._published())
        self.assertEqual([image_id], self.glance.uploads)
        self.assertNotIn(glance_api.CLAIM, self.glance.images[image_id])

    def test_published_image_reused_without_download(self):
        old = self.glance.add('active', tags=[self.spec.tag])
        self.source = None
        self.assertEqual(old['id'], self._push())
        self.assertEqual([], self.glance.uploads)

    def test_older_claim_seen_while_settling_wins(self):
        rivals = []

        def rival_appears():
            if not rivals:
                rival = self.glance.add('queued', claim=True, created=0)
                rivals.append(rival)
                self.glance.script[rival['id']] = [
                    {'status': 'saving'},
                    {'status': 'active', 'tags': [self.spec.tag]}]
        mine = []
        real_create = self.glance.create_claim

        def create_claim(spec):
            image = real_create(spec)
            mine.append(image['id'])
            self.glance.on_find = rival_appears
            return image
        self.glance.create_claim = create_claim
        image_id = self._push()
        self.assertNotIn(image_id, mine)
        self.assertEqual(mine, self.glance.deleted)
        self.assertEqual([], self.glance.uploads)
        self.assertEqual(0, self.downloads, 'the loser downloaded')
        self.assertEqual([image_id], self._published())

    def test_younger_claim_does_not_stop_ours(self):
        real_create = self.glance.create_claim

        def create_claim(spec):
            image = real_create(spec)
            self.glance.add('queued', claim=True, created=59)
            return image
        self.glance.create_claim = create_claim
        image_id = self._push()
        self.assertEqual([image_id], self.glance.uploads)

    def test_same_second_tie_goes_to_lowest_id(self):
        low = {'id': 'a', 'created_at': 'T1'}
        high = {'id': 'b', 'created_at': 'T1'}
        self.assertTrue(workflow.older(low, high))
        self.assertFalse(workflow.older(high, low))

    def test_own_queued_that_starts_saving_is_awaited_not_deleted(self):
        queued = self.glance.add('queued', tags=[self.spec.tag])
        self.glance.script[queued['id']] = [
            {'status': 'saving'}, {'status': 'active'}]
        self.assertEqual(queued['id'], self._push())
        self.assertEqual([], self.glance.deleted)
        self.assertEqual([], self.glance.uploads)

    def test_own_stale_queued_deleted_then_uploaded(self):
        stale = self.glance.add('queued', tags=[self.spec.tag])
        image_id = self._push()
        self.assertEqual([stale['id']], self.glance.deleted)
        self.assertEqual([image_id], self._published())

    def test_foreign_stale_queued_refused_by_default(self):
        foreign = self.glance.add('queued', owner=THEM,
                                  tags=[self.spec.tag])
        error = self.assertRaises(exitcodes.UploaderError, self._push)
        self.assertEqual(exitcodes.FOREIGN_QUEUED, error.code)
        self.assertIn(foreign['id'], error.message)
        self.assertEqual([], self.glance.deleted)
        self.assertEqual([], self.glance.uploads)

    def test_foreign_stale_queued_ignored_on_request(self):
        foreign = self.glance.add('queued', owner=THEM,
                                  tags=[self.spec.tag])
        image_id = self._push('ignore')
        self.assertEqual([image_id], self._published())
        self.assertEqual('queued', self.glance.images[foreign['id']][
            'status'])
        self.assertEqual([], self.glance.deleted)

    def test_foreign_active_image_reused(self):
        foreign = self.glance.add('active', owner=THEM,
                                  tags=[self.spec.tag])
        self.assertEqual(foreign['id'], self._push())
        self.assertEqual([], self.glance.uploads)

    def test_saving_that_fails_back_to_queued_is_replaced(self):
        saving = self.glance.add('saving', tags=[self.spec.tag])
        self.glance.script[saving['id']] = [{'status': 'queued'}]
        image_id = self._push()
        self.assertIn(saving['id'], self.glance.deleted)
        self.assertEqual([image_id], self._published())

    def test_wrong_md5_deletes_the_record_never_tagged(self):
        self.source = b'not the image'
        error = self.assertRaises(exitcodes.UploaderError, self._push)
        self.assertEqual(exitcodes.CHECKSUM_MISMATCH, error.code)
        self.assertEqual({}, self.glance.images)
        self.assertEqual(self.glance.uploads, self.glance.deleted)

    def test_glance_checksum_mismatch_deletes_the_record(self):
        self.glance.checksum = '0' * 32
        error = self.assertRaises(exitcodes.UploaderError, self._push)
        self.assertEqual(exitcodes.CHECKSUM_MISMATCH, error.code)
        self.assertIn('glance computed md5', error.message)
        self.assertEqual({}, self.glance.images)

    def test_abandoned_verified_claim_of_ours_is_published(self):
        left = self.glance.add('active', claim=True, checksum=MD5)
        self.assertEqual(left['id'], self._push())
        self.assertEqual([left['id']], self._published())
        self.assertEqual([], self.glance.uploads)

    def test_abandoned_claim_with_wrong_checksum_is_deleted(self):
        left = self.glance.add('active', claim=True, checksum='1' * 32)
        image_id = self._push()
        self.assertEqual([left['id']], self.glance.deleted)
        self.assertEqual([image_id], self._published())
