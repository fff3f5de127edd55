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

"""The uploader survives other uploads of the same image.

Every state is real: `queued` is an image created without data, `saving`
is a real upload held open by a throttled body, a foreign image is one the
alt project created.
"""

from tempest import config
from tempest.lib import decorators

from glance_multiapi_tests.tests import uploader_base
from glance_multiapi_tests.tests import uploader_fixtures
from glance_multiapi_tests.tests import waiters

CONF = config.CONF


class UploaderRacesTest(uploader_base.UploaderScenarioTest):
    """Stale queued images and concurrent saving uploads.

    Foreign images: test_uploader_policies.
    """

    def _saving(self, key, entry, data):
        hold_limit = (self.opts.saving_hold + self.opts.run_timeout)
        return self.useFixture(uploader_fixtures.SavingImage(
            self.images, self.image_body(key, entry), data,
            hold_limit=hold_limit, timeout=CONF.image.build_timeout))

    def _wait_download_then_hold(self, run, key, saving):
        """The uploader must still wait saving_hold s after downloading."""
        path = '/%s.raw' % key
        waiters.wait_for(
            lambda: self.source.downloads(path) or run.finished(),
            what='uploader to download %s' % path,
            timeout=self.opts.run_timeout)
        try:
            waiters.wait_for(run.finished, what='uploader to exit',
                             timeout=self.opts.saving_hold, interval=0.5)
        except waiters.Timeout:
            return
        result = run.wait()
        self.fail('uploader did not wait for image %s, which is still %s: '
                  '%s' % (saving.image['id'], saving.status(),
                          result.describe()))

    @decorators.idempotent_id('69f84436-861e-4dbd-9a54-faa46092a673')
    def test_own_stale_queued_image_replaced(self):
        """Our queued leftover is deleted; exactly one active remains."""
        key, entry, _ = self.new_image('upl-own-queued')
        stale = self.queued_image(self.images, key, entry)
        result = self.uploader({key: entry}).run()
        self.assertExit(result, 0)
        image = self.assertOneActive(key, entry, result)
        self.assertNotEqual(stale['id'], image['id'])
        self.assertGone(self.images, stale['id'],
                        'our stale queued image was not deleted')

    @decorators.attr(type='slow')
    @decorators.idempotent_id('bd736fff-b333-4812-90f8-2febc848aa01')
    def test_waits_for_saving_image(self):
        """A concurrent saving upload is awaited and reused, not doubled."""
        key, entry, data = self.new_image('upl-saving')
        saving = self._saving(key, entry, data)
        run = self.uploader({key: entry}).start()
        self._wait_download_then_hold(run, key, saving)
        saving.release('complete')
        result = run.wait()
        self.assertExit(result, 0)
        image = self.assertOneActive(key, entry, result)
        self.assertEqual(saving.image['id'], image['id'],
                         'the uploader made its own image instead of using '
                         'the one being saved')

    @decorators.attr(type='slow')
    @decorators.idempotent_id('37747942-2c17-4e8d-ab3d-059c41b81949')
    def test_saving_then_queued_is_replaced(self):
        """A saving upload that fails (queued again) is deleted, replaced."""
        key, entry, data = self.new_image('upl-saving-failed')
        saving = self._saving(key, entry, data)
        run = self.uploader({key: entry}).start()
        self._wait_download_then_hold(run, key, saving)
        saving.release('abort')
        result = run.wait()
        self.assertExit(result, 0)
        image = self.assertOneActive(key, entry, result)
        self.assertNotEqual(saving.image['id'], image['id'])
        self.assertGone(self.images, saving.image['id'],
                        'the failed upload (queued) was not deleted')
