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
alt project created, and racing uploaders are real processes started
together on an empty Glance.
"""

from oslo_log import log as logging
from tempest import config
from tempest.lib import decorators

from glance_multiapi_kernel import polling
from glance_multiapi_kernel import redaction
from glance_multiapi_tests.tests.uploader import base
from glance_multiapi_tests.tests.uploader import components
from glance_multiapi_tests.tests.uploader import gates
from glance_multiapi_tests.tests import waiters

CONF = config.CONF
LOG = redaction.logger(logging.getLogger(__name__))


class UploaderSavingTest(base.UploaderScenarioTest):
    """An upload of the same image already saving: awaited, or replaced."""

    def _saving(self, key, entry, data):
        hold_limit = (self.opts.saving_hold + self.opts.run_timeout)
        return self.useFixture(components.SavingImage(
            self.images, self.image_body(key, entry), data,
            hold_limit=hold_limit, timeout=CONF.image.build_timeout))

    def _wait_download_then_hold(self, run, key, saving):
        """The uploader must not finish while the other upload is saving.

        An uploader may download first (Sylva's does) or wait without
        downloading (a streaming one): either way it must still be
        running saving_hold s after its download, or after its start.
        """
        path = '/%s.raw' % key
        try:
            waiters.wait_for(
                lambda: self.source.downloads(path) or run.finished(),
                what='uploader to download %s' % path,
                timeout=self.opts.saving_hold)
        except polling.PollTimeout:
            pass
        try:
            waiters.wait_for(run.finished, what='uploader to exit',
                             timeout=self.opts.saving_hold, interval=0.5)
        except polling.PollTimeout:
            return
        result = run.wait()
        self.fail('uploader did not wait for image %s, which is still %s: '
                  '%s' % (saving.image['id'], saving.status(),
                          result.describe()))

    @decorators.attr(type='slow')
    @decorators.idempotent_id('bd736fff-b333-4812-90f8-2febc848aa01')
    def test_waits_for_saving_image(self):
        """A concurrent saving upload is awaited and reused, not doubled."""
        key, entry, data = self.new_image('upl-saving')
        saving = self._saving(key, entry, data)
        run = self.run_uploader({key: entry}).start()
        self._wait_download_then_hold(run, key, saving)
        saving.release('complete')
        result = run.wait()
        self.assertExit(result, 0)
        self.assertWithinBounds(self.record_figure(
            'uploader_saving_wait_seconds', result.duration,
            source=self.opts.source, outcome='completed'))
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
        run = self.run_uploader({key: entry}).start()
        self._wait_download_then_hold(run, key, saving)
        saving.release('abort')
        result = run.wait()
        self.assertExit(result, 0)
        self.assertWithinBounds(self.record_figure(
            'uploader_saving_wait_seconds', result.duration,
            source=self.opts.source, outcome='aborted'))
        image = self.assertOneActive(key, entry, result)
        self.assertNotEqual(saving.image['id'], image['id'])
        self.assertGone(self.images, saving.image['id'],
                        'the failed upload (queued) was not deleted')


# NOTE: apart from UploaderSavingTest so that tempest's workers (a class
# each) run the two side by side; both mostly wait on held uploads.
class UploaderRacesTest(base.UploaderScenarioTest):
    """Our own stale queued image, and uploaders racing on an empty Glance."""

    def _gate(self, key, entry, data, count):
        """(gate, entry whose source is behind it): see gates.

        The racers' first request of their source waits until all count
        asked: http, the GET of the file; oci, the manifest request,
        through a loopback proxy of the registry.
        """
        if entry['uri'].startswith('oci://'):
            gate = self.useFixture(gates.RegistryGate(
                self.opts.registry, count, self.opts.saving_hold,
                verify=self.registry_verify(), workdir=self.workdir))
            return gate, dict(entry, uri=gate.reference(entry['uri']))
        gate = self.useFixture(gates.StartingGate(
            data, count, self.opts.saving_hold))
        return gate, dict(entry, uri=gate.url)

    def _race(self, count):
        """count uploaders started together on an empty Glance."""
        key, entry, data = self.new_image('upl-race%d' % count)
        gate, entry = self._gate(key, entry, data, count)
        self.assertEqual([], self.images_named(self.images, key, entry))
        extra_ca = getattr(gate, 'ca_pem', None)
        runs = [self.run_uploader({key: entry}, extra_ca=extra_ca)
                for _ in range(count)]
        for run in runs:
            run.start()
        results = [run.wait() for run in runs]
        # NOTE: whether the race was forced is in the log, and in every
        # failure message below.
        LOG.info('%s: %s', self.id(), gate.describe())
        for index, result in enumerate(results):
            self.assertEqual(0, result.code, 'racing uploader %d of %d: %s'
                             % (index + 1, count, result.describe()))
        try:
            image = self.assertOneActive(key, entry, results[0])
        except AssertionError as exc:
            raise AssertionError('%s (%s)' % (exc, gate.describe()))
        if self.opts.uuid_output != 'none':
            reported = [result.uuids().get(key) for result in results]
            self.assertEqual([image['id']] * count, reported,
                             'racing uploaders reported different UUIDs')
        leftovers = [i['id'] for i in self.images.list_images(
            params={'name': self.glance_name(key, entry)})['images']
            if i['id'] != image['id']]
        self.assertEqual([], leftovers, 'racing uploaders left images '
                         'of that name besides %s (%s)'
                         % (image['id'], gate.describe()))

    @decorators.idempotent_id('69f84436-861e-4dbd-9a54-faa46092a673')
    def test_own_stale_queued_image_replaced(self):
        """Our queued leftover is deleted; exactly one active remains."""
        key, entry, _ = self.new_image('upl-own-queued')
        stale = self.queued_image(self.images, key, entry)
        result = self.run_uploader({key: entry}).run()
        self.assertExit(result, 0)
        image = self.assertOneActive(key, entry, result)
        self.assertNotEqual(stale['id'], image['id'])
        self.assertGone(self.images, stale['id'],
                        'our stale queued image was not deleted')

    @decorators.attr(type='slow')
    @decorators.idempotent_id('d62b3897-12fa-42e6-8b88-227e3f5db365')
    def test_two_racing_uploaders_make_one_image(self):
        """Two uploaders started together: one active image, one UUID."""
        self._race(2)

    @decorators.attr(type='slow')
    @decorators.idempotent_id('781e8768-1388-4aaa-b427-0412b9e89103')
    def test_four_racing_uploaders_make_one_image(self):
        """Four uploaders started together: one active image, one UUID."""
        self._race(4)
