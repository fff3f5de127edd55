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

"""Deliberately broken variants of glance-image-uploader.

Test-only: ``python -m glance_multiapi_tests.selftests.functional.
broken_uploader MODE [uploader args]`` runs the bundled uploader with one
behaviour broken, so that the functional tests can show that the matching
Tempest scenario fails. Nothing in the product imports this module.
"""

import sys
import tempfile

from glance_multiapi_tests.uploader import cli
from glance_multiapi_tests.uploader import exitcodes
from glance_multiapi_tests.uploader import glance
from glance_multiapi_tests.uploader import sources
from glance_multiapi_tests.uploader import workflow


def _private():
    original = glance.Glance.create_claim

    def create(self, spec):
        image = original(self, spec)
        self._call('PATCH', '/images/%s' % image['id'], 'make it private',
                   json=[{'op': 'replace', 'path': '/visibility',
                          'value': 'private'}],
                   headers={'Content-Type': glance.PATCH_TYPE})
        return image
    glance.Glance.create_claim = create


def _ignore_saving():
    original = workflow.contenders

    def contenders(images, tag, skip=()):
        return [image for image in original(images, tag, skip=skip)
                if image['status'] not in glance.IN_PROGRESS]
    workflow.contenders = contenders


def _no_race_protocol():
    # NOTE: every run uploads its own copy unless one is already published.
    workflow.contenders = lambda images, tag, skip=(): []
    workflow.Uploader._settle = lambda self, spec, claim: None


def _keep_failed():
    def drop_failed(self, spec, image):
        self._ignored.add(image['id'])
    workflow.Uploader._drop_failed = drop_failed


def _keep_stale_queued():
    original = workflow.Uploader._stale

    def stale(self, spec, image):
        if not self.glance.owns(image):
            return original(self, spec, image)
        self._ignored.add(image['id'])
    workflow.Uploader._stale = stale


def _delete_foreign():
    def foreign(self, spec, image):
        self.glance.delete(image['id'])
        return exitcodes.UploaderError(exitcodes.FOREIGN_QUEUED,
                                       'deleted the foreign image')
    workflow.Uploader._foreign = foreign


def _exit0_foreign():
    def foreign(self, spec, image):
        return exitcodes.UploaderError(exitcodes.SUCCESS, 'ignored it')
    workflow.Uploader._foreign = foreign


def _leave_temp():
    original = workflow.Uploader.push

    def push(self, spec):
        handle, _ = tempfile.mkstemp(prefix='glance-image-uploader-')
        with open(handle, 'wb') as left:
            left.write(b'left behind')
        return original(self, spec)
    workflow.Uploader.push = push


def _redownload():
    original = workflow.Uploader.push

    def push(self, spec):
        for _ in sources.stream(spec, insecure=self.settings.insecure,
                                ca_files=self.settings.ca_files,
                                plain_http=self.settings.plain_http,
                                log=self.log):
            pass
        return original(self, spec)
    workflow.Uploader.push = push


def _no_md5_check():
    sources.check_md5 = lambda spec, md5: None
    # NOTE: and hide glance's checksum so the post-upload check passes.
    original_get = glance.Glance.get

    def get(self, image_id):
        image = original_get(self, image_id)
        if image:
            image.pop('checksum', None)
        return image
    glance.Glance.get = get


MODES = {
    'private': _private,
    'ignore-saving': _ignore_saving,
    'keep-failed-saving': _keep_failed,
    'keep-stale-queued': _keep_stale_queued,
    'delete-foreign': _delete_foreign,
    'exit0-foreign': _exit0_foreign,
    'leave-temp': _leave_temp,
    'redownload': _redownload,
    'no-md5-check': _no_md5_check,
    'no-race-protocol': _no_race_protocol,
}


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in MODES:
        sys.stderr.write('usage: broken_uploader {%s} [uploader args]\n'
                         % ','.join(sorted(MODES)))
        return 64
    MODES[argv[0]]()
    return cli.main(argv[1:])


if __name__ == '__main__':
    sys.exit(main())
