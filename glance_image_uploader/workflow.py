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

"""The uploader's algorithm for one image: Sylva's steps, race-safe.

1. An active image with our name, md5 tag and community visibility is
   reused without downloading (its properties refreshed if it is ours).
2. Images of that name in progress (tagged by another uploader, or
   claimed by one of ours) are awaited, oldest first: saving -> wait (use
   it when published; delete ours if it falls back to queued); queued ->
   give it the grace, then delete ours, or apply FOREIGN_QUEUED_POLICY to
   another project's (refuse: code 1; ignore: leave it, upload our own).
3. Otherwise we claim: a community record with our name and the
   sylva-upload-claim property, no tag. After CLAIM_SETTLE seconds the
   oldest claim (created_at, then id) wins; the others delete theirs and
   await the winner (step 2).
4. The winner streams the source into its record (no temp file; losers
   never contact the source) while hashing, checks the md5 against the
   expected one and against Glance's checksum, and only then tags it
   (sylva-md5-<md5>) and drops the claim.
   A mismatch or any failure deletes the record: a bad image is never
   visible under the tag.
"""

import time

from glance_multiapi_kernel import interrupts
from glance_multiapi_kernel import polling
from glance_image_uploader import exitcodes
from glance_image_uploader import glance as glance_api
from glance_image_uploader import sources

# NOTE: Glance's created_at has whole seconds. A record created after our
# deciding list has a later created_at only if that list runs at least one
# second after ours was created; the second second covers the commit of a
# record whose created_at was taken just before ours.
CLAIM_SETTLE = 2.0
# NOTE: a claim stays queued for CLAIM_SETTLE plus the source's connect
# time; it must not be judged stale by a short WAIT_QUEUED_IMAGE.
CLAIM_STALE_MIN = 10.0
MAX_ROUNDS = 20


def older(image, than):
    return glance_api.age_key(image) < glance_api.age_key(than)


def contenders(images, tag, *, skip=()):
    """The images that may still become the published one, oldest first.

    Published images are not contenders (they are reused); killed or
    deleted ones and those already judged (skip) are ignored.
    """
    found = []
    for image in sorted(images, key=glance_api.age_key):
        if image['id'] in skip or image['status'] in glance_api.GONE:
            continue
        if glance_api.is_published(image, tag):
            continue
        if image['status'] in ('queued', 'active') + glance_api.IN_PROGRESS:
            found.append(image)
    return found


def published(images, tag):
    for image in sorted(images, key=glance_api.age_key):
        if glance_api.is_published(image, tag):
            return image
    return None


class Lost(Exception):
    """An older claim or image appeared: ours was withdrawn."""


class Uploader(object):
    """Pushes images through one Glance connection."""

    def __init__(self, glance, settings, log, clock=time.monotonic):
        self.glance = glance
        self.settings = settings
        self.log = log
        self.clock = clock
        self._ignored = set()

    def push(self, spec):
        """Make spec's image active in Glance; return its UUID."""
        self._ignored = set()
        for _ in range(MAX_ROUNDS):
            images = self.glance.find(spec.glance_name, spec.tag)
            found = published(images, spec.tag)
            if found:
                return self._reuse(spec, found, 'already active')
            waiting = contenders(images, spec.tag, skip=self._ignored)
            if waiting:
                found = self._await(spec, waiting[0])
            else:
                found = self._claim_and_upload(spec)
            if found:
                return found
        raise exitcodes.UploaderError(
            exitcodes.GLANCE_ERROR,
            '%s: no image of %s settled after %d rounds of the race '
            'protocol' % (spec.key, spec.glance_name, MAX_ROUNDS))

    def _reuse(self, spec, image, why):
        if self.glance.owns(image):
            changed = self.glance.refresh_properties(image, spec.properties)
            if changed:
                self.log.info('%s: refreshed %d properties of %s'
                              % (spec.key, changed, image['id']))
        self.log.info('%s: image %s %s (%s)' % (spec.key, image['id'], why,
                                                spec.glance_name))
        return image['id']

    def _stale_after(self, image):
        if glance_api.CLAIM in image:
            return max(self.settings.wait_queued, CLAIM_STALE_MIN)
        return self.settings.wait_queued

    def _await(self, spec, image):
        """Wait for another upload; return the published id or None."""
        status = image['status']
        if status == 'queued':
            status = self._wait_queued(spec, image)
            if status is None:
                return None
        if status in glance_api.IN_PROGRESS:
            status = self._wait_in_progress(spec, image)
        if status == 'queued':
            self._drop_failed(spec, image)
            return None
        if status == 'active':
            return self._await_publication(spec, image)
        return None

    def _wait_queued(self, spec, image):
        wait = self._stale_after(image)
        self.log.info('%s: image %s is queued; waiting %d s for it to move'
                      % (spec.key, image['id'], wait))
        try:
            return self.glance.wait_while(
                image['id'], ('queued',), timeout=wait,
                interval=min(self.settings.in_progress_interval,
                             max(wait / 4.0, 0.1)))
        except polling.PollTimeout:
            self._stale(spec, image)
            return None

    def _stale(self, spec, image):
        """image stayed queued past the grace: delete ours, judge others."""
        if self.glance.owns(image):
            self.log.info('%s: our image %s is a stale queued upload; '
                          'deleting it' % (spec.key, image['id']))
            self.glance.delete(image['id'])
            return
        if self.settings.foreign_queued_policy == 'ignore':
            self.log.info('%s: image %s of project %s stays queued; '
                          'leaving it alone and uploading our own'
                          % (spec.key, image['id'], image.get('owner')))
            self._ignored.add(image['id'])
            return
        raise self._foreign(spec, image)

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

    def _await_publication(self, spec, image):
        """An active claim is being verified by its uploader: wait."""
        wait = self._stale_after(image)
        seen = {}

        def check():
            current = self.glance.get(image['id'])
            seen['image'] = current
            return (current is None or
                    glance_api.is_published(current, spec.tag)), current
        try:
            current = polling.poll(
                check,
                what='image %s to be tagged %s' % (image['id'], spec.tag),
                timeout=wait, interval=min(self.settings.in_progress_interval,
                                           1.0))
        except polling.PollTimeout:
            return self._abandoned(spec, seen.get('image') or image)
        if current is None:
            return None
        return self._reuse(spec, current, 'made active by another upload')

    def _abandoned(self, spec, image):
        """An uploaded claim nobody finalized (its uploader died)."""
        if not self.glance.owns(image):
            self._ignored.add(image['id'])
            return None
        if image.get('checksum') == spec.md5:
            self.log.info('%s: image %s was uploaded and never tagged; its '
                          'checksum matches, publishing it'
                          % (spec.key, image['id']))
            return self._reuse(spec, self.glance.finalize(image, spec.tag),
                               'published')
        self.log.info('%s: image %s was uploaded with checksum %s, not %s; '
                      'deleting it' % (spec.key, image['id'],
                                       image.get('checksum'), spec.md5))
        self.glance.delete(image['id'])
        return None

    def _drop_failed(self, spec, image):
        """The other upload failed and left a queued image."""
        if not self.glance.owns(image):
            if self.settings.foreign_queued_policy == 'ignore':
                self._ignored.add(image['id'])
                return
            raise self._foreign(spec, image)
        self.log.info('%s: upload of image %s failed (queued again); '
                      'deleting it' % (spec.key, image['id']))
        self.glance.delete(image['id'])

    def _foreign(self, spec, image):
        return exitcodes.UploaderError(
            exitcodes.FOREIGN_QUEUED,
            '%s: image %s (%s) of project %s is queued and not ours; '
            'deleting nothing, uploading nothing'
            % (spec.key, image['id'], spec.glance_name, image.get('owner')))

    def _claim_and_upload(self, spec):
        claim = None
        finished = False
        try:
            # NOTE: a signal while Glance creates our image is held until
            # claim names it, so the finally below deletes it.
            with interrupts.deferred():
                claim = self.glance.create_claim(spec)
            self.log.info('%s: created image %s (%s), claiming the upload'
                          % (spec.key, claim['id'], spec.glance_name))
            self._settle(spec, claim)
            image = self._upload(spec, claim)
            finished = True
        except Lost as lost:
            self.log.info('%s: %s; withdrawing image %s'
                          % (spec.key, lost, claim['id']))
            return None
        finally:
            if not finished and claim is not None:
                self._discard(claim['id'])
        self.log.info('%s: image %s active' % (spec.key, image['id']))
        return image['id']

    def _settle(self, spec, claim):
        """Keep our claim only if no older contender shows up.

        :raises Lost: an older claim or a published image exists.
        """
        deadline = self.clock() + CLAIM_SETTLE
        for _ in range(int(CLAIM_SETTLE / 0.25) + 4):
            last = self.clock() >= deadline
            images = self.glance.find(spec.glance_name, spec.tag)
            if published(images, spec.tag):
                raise Lost('an image of the same name and tag is active')
            for image in contenders(images, spec.tag, skip=self._ignored):
                if image['id'] != claim['id'] and older(image, claim):
                    raise Lost('image %s is older' % image['id'])
            if last:
                return
            time.sleep(min(0.25, max(deadline - self.clock(), 0)))
        raise exitcodes.UploaderError(
            exitcodes.INTERNAL_ERROR, 'claim of %s never settled'
            % claim['id'])

    def _upload(self, spec, claim):
        stream = sources.stream(spec, insecure=self.settings.insecure,
                                ca_files=self.settings.ca_files,
                                plain_http=self.settings.plain_http,
                                log=self.log,
                                timeout=self.settings.source_timeout)
        meter = self.log.progress('%s: upload' % spec.key)

        def on_chunk(count):
            meter.total = stream.expected_size or None
            meter.update(count)
        stream.on_chunk = on_chunk
        self.glance.upload(claim['id'], stream)
        meter.finish()
        sources.check_md5(spec, stream.md5)
        image = self.glance.get(claim['id']) or {}
        if image.get('status') != 'active':
            raise exitcodes.UploaderError(
                exitcodes.GLANCE_ERROR,
                '%s: image %s is %s after its upload, not active'
                % (spec.key, claim['id'], image.get('status')))
        if image.get('checksum') not in (None, spec.md5):
            raise exitcodes.UploaderError(
                exitcodes.CHECKSUM_MISMATCH,
                '%s: glance computed md5 %s for image %s, expected %s'
                % (spec.key, image.get('checksum'), claim['id'], spec.md5))
        return self.glance.finalize(image, spec.tag)

    def _discard(self, image_id):
        # NOTE: runs while another error (or a signal) is propagating; a
        # failure here must not hide it.
        try:
            self.glance.delete(image_id)
        except Exception as exc:
            self.log.error('could not delete unfinished image %s: %s'
                           % (image_id, exc))
