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

"""Exit codes of glance-image-uploader and the error that carries them.

0, 1, 2 and 22 are the codes Sylva's push-images-to-glance.py callers rely
on; the others are ours and keep distinct failures apart for CI readers.
"""

from glance_multiapi_kernel import errors

SUCCESS = 0
FOREIGN_QUEUED = 1
INPUT_MISSING = 2
SOURCE_ERROR = 3
CHECKSUM_MISMATCH = 4
GLANCE_ERROR = 5
AUTH_ERROR = 6
IN_PROGRESS_TIMEOUT = 7
OUTPUT_ERROR = 8
BAD_CONFIG = 22
INTERNAL_ERROR = 70
INTERRUPTED = 130
TERMINATED = 143

MEANINGS = (
    (SUCCESS, 'every image is active in Glance; the UUID map was written'),
    (FOREIGN_QUEUED, 'an image of the same name and md5 tag owned by another '
                     'project stayed queued (FOREIGN_QUEUED_POLICY=refuse); '
                     'nothing was deleted or uploaded'),
    (INPUT_MISSING, 'the images info file does not exist or cannot be '
                    'read (not a regular file: a folder, a FIFO, a device, '
                    'a symlink loop; no permission)'),
    (SOURCE_ERROR, 'an image could not be downloaded (HTTP error, registry '
                   'unreachable, artifact without an image, or not '
                   'downloaded in full within SOURCE_TIMEOUT)'),
    (CHECKSUM_MISMATCH, 'the image does not match its md5 (ours or '
                        'Glance\'s checksum); its record was deleted before '
                        'it was ever tagged'),
    (GLANCE_ERROR, 'Glance (or the cloud config) refused or could not be '
                   'reached, or keystone or Glance did not answer in full '
                   'within REQUEST_TIMEOUT (the upload: SOURCE_TIMEOUT '
                   'plus REQUEST_TIMEOUT)'),
    (AUTH_ERROR, 'the credentials were refused by keystone'),
    (IN_PROGRESS_TIMEOUT, 'an image another uploader was saving did not '
                          'become active within the in-progress timeout'),
    (OUTPUT_ERROR, 'the UUID map could not be written (file or ConfigMap; '
                   'a Kubernetes API that does not answer in full within '
                   'REQUEST_TIMEOUT)'),
    (BAD_CONFIG, 'bad configuration: malformed YAML (larger than 2 MiB, '
                 'not UTF-8, nested too deep, a key given twice, aliases '
                 'adding more than 10,000 nodes, wrong types), missing or '
                 'invalid keys (an md5 YAML reads as a number, an image '
                 'name that is empty, null, true or false or holds "/" or '
                 'a line break, a uri without a host or with a port out of '
                 'range), invalid environment variable or flag (a number '
                 'of seconds that is negative, not finite or none, an '
                 'unknown option, a TARGET_NAMESPACE that is no DNS-1123 '
                 'label, an --output that is no regular file: a FIFO, a '
                 'device), a clouds.yaml, CA file or kubeconfig that '
                 'cannot be used (named with its key), or a relative path '
                 'given from a working folder that no longer exists'),
    (INTERNAL_ERROR, 'an unexpected error (a bug); its one line names it'),
    (INTERRUPTED, 'interrupted by SIGINT; our unfinished image was '
                  'removed'),
    (TERMINATED, 'terminated by SIGTERM; our unfinished image was '
                 'removed'),
)


class UploaderError(errors.CliError):
    """A failure that ends the run with one line and a documented code."""

    def __init__(self, code, message):
        super().__init__(message, exit_code=code)

    @property
    def code(self):
        return self.exit_code


def help_table():
    """Return the exit code table as text for --help and the README."""
    return errors.exit_code_table(MEANINGS)
