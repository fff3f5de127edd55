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

"""The uploader's algorithm for one image (Sylva's seed steps 1-5).

1. An active image with our name, md5 tag and community visibility is
   reused without downloading (its properties refreshed if it is ours).
2. Otherwise the image is downloaded, which can take long.
3. Images of the same name and tag that appeared meanwhile are settled:
   saving -> wait for it (use it when active; delete it if it falls back
   to queued); queued -> give it WAIT_QUEUED_IMAGE, then delete ours or
   stop with code 1 on another project's.
4. Upload: visibility community, tag sylva-md5-<md5>, sylva/<key>
   properties; an image we created but could not finish is deleted.
5. The temp dir is the caller's (cli), removed on every exit path.
"""

from glance_multiapi_tests.common import polling
from glance_multiapi_tests.uploader import exitcodes
from glance_multiapi_tests.uploader import glance as glance_api
from glance_multiapi_tests.uploader import sources


class Uploader(object):
    """Pushes images through one Glance connection."""

    def __init__(self, glance, settings, log, workdir):
        self.glance = glance
        self.settings = settings
        self.log = log
        self.workdir = workdir

    def push(self, spec):
        """Make spec's image active in Glance; return its UUID."""
        found = self._active(spec)
        if found:
            return self._reuse(spec, found, 'already active')
        path, size = sources.fetch(spec, self.workdir,
                                   insecure=self.settings.insecure,
                                   plain_http=self.settings.plain_http,
                                   log=self.log)
        found = self._settle(spec)
        if found:
            return self._reuse(spec, found, 'made active by another upload')
        return self._upload(spec, path, size)

    def _active(self, spec):
        for image in self.glance.find(spec.glance_name, spec.tag):
            if image['status'] == 'active':
                return image
        return None

    def _reuse(self, spec, image, why):
        if self.glance.owns(image):
            changed = self.glance.refresh_properties(image, spec.properties)
            if changed:
                self.log.info('%s: refreshed %d properties of %s'
                              % (spec.key, changed, image['id']))
        self.log.info('%s: image %s %s (%s)' % (spec.key, image['id'], why,
                                                spec.glance_name))
        return image['id']

    def _settle(self, spec):
        """Resolve same-name images in progress; return an active one."""
        for image in self.glance.find(spec.glance_name, spec.tag):
            status = image['status']
            if status == 'active':
                return image
            if status in glance_api.IN_PROGRESS:
                status = self._wait_in_progress(spec, image)
                if status == 'active':
                    return self.glance.get(image['id'])
                if status == 'queued':
                    self._drop_failed(spec, image)
            elif status == 'queued':
                status = self._wait_queued(spec, image)
                if status == 'active':
                    return self.glance.get(image['id'])
        return None

    def _wait_in_progress(self, spec, image):
        self.log.info('%s: image %s is %s by another upload; waiting up to '
                      '%d s' % (spec.key, image['id'], image['status'],
                                self.settings.in_progress_timeout))
        try:
            return self.glance.wait_while(
                image['id'], glance_api.IN_PROGRESS,
                timeout=self.settings.in_progress_timeout,
                interval=self.settings.in_progress_interval)
        except polling.PollTimeout:
            raise exitcodes.UploaderError(
                exitcodes.IN_PROGRESS_TIMEOUT,
                '%s: image %s is still being uploaded by someone else after '
                '%d s' % (spec.key, image['id'],
                          self.settings.in_progress_timeout))

    def _drop_failed(self, spec, image):
        """The other upload failed and left a queued image: remove it."""
        if not self.glance.owns(image):
            raise self._foreign(spec, image)
        self.log.info('%s: upload of image %s failed (queued again); '
                      'deleting it' % (spec.key, image['id']))
        self.glance.delete(image['id'])

    def _wait_queued(self, spec, image):
        wait = self.settings.wait_queued
        self.log.info('%s: image %s is queued; waiting %d s for it to move'
                      % (spec.key, image['id'], wait))
        try:
            status = self.glance.wait_while(
                image['id'], ('queued',), timeout=wait,
                interval=min(self.settings.in_progress_interval,
                             max(wait / 4.0, 0.1)))
        except polling.PollTimeout:
            if not self.glance.owns(image):
                raise self._foreign(spec, image)
            self.log.info('%s: our image %s is a stale queued upload; '
                          'deleting it' % (spec.key, image['id']))
            self.glance.delete(image['id'])
            return 'deleted'
        if status in glance_api.IN_PROGRESS:
            status = self._wait_in_progress(spec, image)
            if status == 'queued':
                self._drop_failed(spec, image)
        return status

    def _foreign(self, spec, image):
        return exitcodes.UploaderError(
            exitcodes.FOREIGN_QUEUED,
            '%s: image %s (%s) of project %s is queued and not ours; '
            'deleting nothing, uploading nothing'
            % (spec.key, image['id'], spec.glance_name, image.get('owner')))

    def _upload(self, spec, path, size):
        image = self.glance.create(spec)
        self.log.info('%s: created image %s (%s), uploading %d bytes'
                      % (spec.key, image['id'], spec.glance_name, size))
        finished = False
        try:
            meter = self.log.progress('%s: upload' % spec.key, size)
            self.glance.upload(image['id'], path, meter)
            meter.finish()
            uploaded = self.glance.get(image['id']) or {}
            if uploaded.get('status') != 'active':
                raise exitcodes.UploaderError(
                    exitcodes.GLANCE_ERROR,
                    '%s: image %s is %s after its upload, not active'
                    % (spec.key, image['id'], uploaded.get('status')))
            if uploaded.get('checksum') not in (None, spec.md5):
                raise exitcodes.UploaderError(
                    exitcodes.CHECKSUM_MISMATCH,
                    '%s: glance computed md5 %s for image %s, expected %s'
                    % (spec.key, uploaded.get('checksum'), image['id'],
                       spec.md5))
            finished = True
        finally:
            if not finished:
                self._discard(image['id'])
        self.log.info('%s: image %s active' % (spec.key, image['id']))
        return image['id']

    def _discard(self, image_id):
        # NOTE: runs while another error (or a signal) is propagating; a
        # failure here must not hide it.
        try:
            self.glance.delete(image_id)
        except Exception as exc:
            self.log.error('could not delete unfinished image %s: %s'
                           % (image_id, exc))
