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

"""What the reuse scenarios say when a run that had to reuse did not."""

import testtools

from glance_multiapi_tests.tests.uploader import base

URI = 'oci://127.0.0.1:5000/glance-multiapi-tests/img:1.0'
BLOB = 'https://127.0.0.1:5000/v2/glance-multiapi-tests/img/blobs/sha256:ab'


def _problem(**kwargs):
    args = dict(who='the second run', code=1, describe='u exited 1',
                uri=URI)
    args.update(kwargs)
    return base.reuse_problem(**args)


class ReuseProblemTest(testtools.TestCase):

    def test_reuse_is_no_problem(self):
        self.assertIsNone(_problem(code=0, manifest='HTTP 200'))
        self.assertIsNone(_problem(code=0, fetches=0,
                                   uri='http://127.0.0.1:1/img.raw'))

    def test_http_get_after_removal_is_a_download(self):
        text = _problem(code=3, fetches=1, uri='http://127.0.0.1:1/i.raw')
        self.assertEqual('the second run downloaded the image again: 1 GET '
                         'of http://127.0.0.1:1/i.raw after its source was '
                         'removed (answered 404): u exited 1', text)

    def test_http_failure_without_a_get_is_not_a_download(self):
        text = _problem(fetches=0, uri='http://127.0.0.1:1/i.raw')
        self.assertIn('failed (exit 1) without requesting', text)
        self.assertNotIn('download', text)

    def test_missing_manifest_is_reported_as_such(self):
        text = _problem(manifest='HTTP 404 MANIFEST_UNKNOWN',
                        blobs=[(BLOB, 'HTTP 404 BLOB_UNKNOWN')])
        self.assertIn('the manifest of %s cannot be read (HTTP 404 '
                      'MANIFEST_UNKNOWN): a missing manifest, not a '
                      'download' % URI, text)

    def test_failure_with_only_the_blobs_gone_names_the_blob_request(self):
        text = _problem(code=3, manifest='HTTP 200',
                        blobs=[(BLOB, 'HTTP 404 BLOB_UNKNOWN')])
        self.assertIn("the second run needed the image's bytes again: it "
                      "failed (exit 3) while only they were unavailable "
                      "(GET %s answers HTTP 404 BLOB_UNKNOWN) and the "
                      "manifest of %s stays readable (HTTP 200)"
                      % (BLOB, URI), text)
