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

"""Other projects' images and our own image caught between queued and saving.

Every state is real: a foreign image is one the alt project created (and,
when active, uploaded); our queued image starts saving under a real
throttled upload while the uploader gives it its WAIT_QUEUED_IMAGE grace.
``[image_uploader] foreign_queued_policy`` says which of the two foreign
queued behaviours the uploader under test promises.
"""

import io
import time

from tempest import config
from tempest.lib import decorators
from tempest.lib import exceptions as lib_exc

from glance_multiapi_kernel import polling
from glance_multiapi_tests.tests import disturbance as disturbance_mod
from glance_multiapi_tests.tests.uploader import base
from glance_multiapi_tests.tests.uploader import components
from glance_multiapi_tests.tests import waiters

CONF = config.CONF
# NOTE: what must not change on a foreign image the uploader leaves alone.
UNTOUCHED = ('status', 'name', 'owner', 'visibility', 'tags', 'updated_at',
             'checksum', 'size')


class UploaderForeignImagesTest(base.UploaderScenarioTest):
    """Another project's queued or active image of the same name and tag."""

    def _foreign_queued(self, key, entry):
        foreign = self.queued_image(self.alt_images, key, entry)
        return foreign, self._snapshot(foreign['id'])

    def _snapshot(self, image_id):
        image = self.alt_images.show_image(image_id)
        return {k: (sorted(v) if k == 'tags' else v)
                for k, v in image.items() if k in UNTOUCHED}

    def assertUntouched(self, before, image_id):
        self.assertEqual(before, self._snapshot(image_id),
                         'the foreign image %s was changed' % image_id)

    @decorators.idempotent_id('4d5481ca-6bb6-48fd-996b-a182d804e24d')
    def test_foreign_queued_image_refused(self):
        """refuse: the exit code, its id named, nothing uploaded, untouched.

        The output must name the foreign image: an uploader that crashes
        with the same exit code does not pass.
        """
        if self.opts.foreign_queued_policy != 'refuse':
            raise self.skipException('foreign_queued_policy is not refuse')
        key, entry, _ = self.new_image('upl-foreign-refuse')
        foreign, before = self._foreign_queued(key, entry)
        result = self.run_uploader({key: entry}).run()
        self.assertExit(result, self.opts.foreign_queued_exit_code)
        self.assertIn(foreign['id'], result.output(),
                      'the uploader did not name the foreign image %s: %s'
                      % (foreign['id'], result.describe()))
        self.assertUntouched(before, foreign['id'])
        mine = [i['id'] for i in self.images_named(self.images, key, entry)
                if i['id'] != foreign['id']]
        self.assertEqual([], mine, 'images were uploaded despite the '
                         'foreign queued image')

    @decorators.idempotent_id('008945ed-e911-4a28-ad10-33f49c8337b8')
    def test_foreign_queued_image_ignored(self):
        """ignore: exit 0, exactly one active image of ours, untouched."""
        if self.opts.foreign_queued_policy != 'ignore':
            raise self.skipException('foreign_queued_policy is not ignore')
        key, entry, _ = self.new_image('upl-foreign-ignore')
        foreign, before = self._foreign_queued(key, entry)
        result = self.run_uploader({key: entry}).run()
        self.assertExit(result, 0)
        image = self.assertOneActive(key, entry, result,
                                     exclude=(foreign['id'],))
        self.assertEqual(self.os_primary.credentials.project_id,
                         image['owner'], 'the active image %s is not ours'
                         % image['id'])
        self.assertUntouched(before, foreign['id'])

    @decorators.idempotent_id('56b6642d-9805-4a40-9bc4-b05fdd107f07')
    def test_foreign_active_community_image_reused(self):
        """Another project's active community image is used, not doubled.

        Its bytes are gone before the run (the manifest of an OCI source
        stays): an uploader that downloads it again fails.
        """
        key, entry, data = self.new_image('upl-foreign-active')
        body = self.image_body(key, entry)
        foreign = self.alt_images.create_image(**body)
        self.addCleanup(components._delete_quietly, self.alt_images,
                        foreign['id'])
        self.alt_images.store_image_file(foreign['id'], io.BytesIO(data))
        waiters.wait_for(
            lambda: self.alt_images.show_image(
                foreign['id'])['status'] == 'active',
            what='foreign image %s active' % foreign['id'],
            timeout=CONF.image.build_timeout)
        before = self._snapshot(foreign['id'])
        self.remove_source(key, entry)
        result = self.run_uploader({key: entry}).run()
        self.assertReused(result, key, entry, 'the uploader',
                          failed='the uploader did not reuse the foreign '
                          'active image %s' % foreign['id'])
        image = self.assertOneActive(key, entry, result)
        self.assertEqual(foreign['id'], image['id'],
                         'the uploader reported its own image, not the '
                         'foreign active one')
        self.assertUntouched(before, foreign['id'])


class UploaderOwnQueuedTest(base.UploaderScenarioTest):
    """Our queued image that starts saving during the grace."""

    @decorators.attr(type='slow')
    @decorators.idempotent_id('b0943ecf-d382-4b5b-82ce-a2c4a0a60300')
    def test_own_queued_image_saving_in_grace_awaited(self):
        """Queued, then saving within WAIT_QUEUED_IMAGE: awaited and used.

        The normal gap between a concurrent uploader's create and its
        upload: the image must not be deleted, nor taken for a foreign
        one, and the uploader must still wait saving_hold seconds later.
        """
        # NOTE: the grace, counted from our image's creation, holds the
        # uploader's start, saving_hold for it to act on what it found,
        # and saving_hold more to start the held upload inside it: four
        # holds, so that a start as long as two (a loaded node) still
        # leaves the uploader its time to look before our image saves.
        hold = self.opts.saving_hold
        grace = max(self.opts.wait_queued_image, 4 * hold)
        key, entry, data = self.new_image('upl-own-queued-saving')
        queued = self.queued_image(self.images, key, entry)
        deadline = time.monotonic() + grace - hold
        run = self.run_uploader({key: entry},
                                env={'WAIT_QUEUED_IMAGE': str(grace)}).start()
        self._wait_until_busy(run, key, entry, queued, hold, deadline)
        if run.finished():
            self.fail('the uploader ended within the WAIT_QUEUED_IMAGE '
                      'grace (%d s) of our queued image %s, now %s: %s'
                      % (grace, queued['id'], self._status(queued['id']),
                         run.wait().describe()))
        saving = self.useFixture(components.SavingImage(
            self.images, None, data,
            hold_limit=self.opts.saving_hold + self.opts.run_timeout,
            timeout=CONF.image.build_timeout, image=queued))
        if saving.status() != 'saving':
            self.fail('our queued image %s was deleted during the '
                      'WAIT_QUEUED_IMAGE grace (%d s): %s'
                      % (queued['id'], grace, saving.status()))
        try:
            waiters.wait_for(run.finished, what='uploader to exit',
                             timeout=self.opts.saving_hold, interval=0.5)
        except polling.PollTimeout:
            pass
        else:
            self.fail('uploader did not wait for our image %s, which '
                      'started saving during the grace (now %s): %s'
                      % (queued['id'], saving.status(),
                         run.wait().describe()))
        saving.release('complete')
        result = run.wait()
        self.assertExit(result, 0)
        image = self.assertOneActive(key, entry, result)
        self.assertEqual(queued['id'], image['id'],
                         'the uploader did not use our image that started '
                         'saving during the grace')

    def _status(self, image_id):
        try:
            return self.images.show_image(image_id)['status']
        except lib_exc.NotFound:
            return 'deleted'

    def _wait_until_busy(self, run, key, entry, queued, timeout, deadline):
        """Until the uploader has downloaded or made its own record.

        Either means it has looked at (or is about to settle) the queued
        image; after timeout s it is still inside the grace, so go on.
        The timeout counts from the uploader's first connection (one that
        is still starting, on a loaded node, has looked at nothing), and
        ends at deadline (time.monotonic()) whatever happened.
        """
        def left():
            return max(0.0, deadline - time.monotonic())

        try:
            waiters.wait_for(lambda: run.finished() or run.reached_network(),
                             what='uploader to open its first connection',
                             timeout=left(), interval=0.1)
        except polling.PollTimeout:
            pass
        timeout = min(timeout, left())

        def busy():
            if run.finished() or self.downloads(key, entry):
                return True
            return any(i['id'] != queued['id']
                       for i in self.images_named(self.images, key, entry))
        # NOTE: the uploader works on Glance meanwhile; a 5xx or timeout
        # of the listing is "not yet".
        try:
            waiters.wait_for(busy, what='uploader to download or create',
                             timeout=timeout, interval=0.2,
                             disturbance=disturbance_mod.Disturbance(
                                 'uploader run beside our queued image'))
        except polling.PollTimeout:
            pass
