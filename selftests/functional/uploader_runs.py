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

"""Functional tests that run the bundled uploader as a process."""

import hashlib
import json
import os
import threading
import uuid

import fixtures

from glance_multiapi_kernel import imagedata
from selftests.functional import base

UPLOADER = os.path.join(base.BIN, 'glance-image-uploader')


class UploaderRunTestCase(base.CloudTestCase):
    """The shared cloud's file server, and empty folders for each run.

    temp_dir is the uploader's TMPDIR and cwd its working directory; both
    must stay empty (it streams, nothing goes to disk).
    """

    cloud_env = base.ENV_UPLOADER_CLOUD

    def setUp(self):
        super().setUp()
        status = json.loads(self.cli('status', '-o', 'json',
                                     check=True).stdout)
        self.fileserver = status['services']['fileserver']['url']
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.temp_dir = os.path.join(self.tmp, 'uploader-tmp')
        os.mkdir(self.temp_dir)
        self.cwd = os.path.join(self.tmp, 'uploader-cwd')
        os.mkdir(self.cwd)

    def serve(self, size, prefix, random_bytes=1 << 20):
        """(URL, md5) of a new raw image of size on the file server."""
        name = '%s-%s.raw' % (prefix, uuid.uuid4().hex)
        path = os.path.join(self.state_dir, 'files', name)
        data = imagedata.raw(size, random_bytes=random_bytes)
        with open(path, 'wb') as out:
            out.write(data)
        self.addCleanup(os.unlink, path)
        return '%s/%s' % (self.fileserver, name), hashlib.md5(
            data, usedforsecurity=False).hexdigest()

    def stderr_lines(self, proc):
        """(list, thread): the thread fills the list with proc's stderr.

        Join the thread once proc ended to have every line.
        """
        lines = []
        reader = threading.Thread(
            target=lambda: lines.extend(iter(proc.stderr.readline, '')),
            daemon=True)
        reader.start()
        return lines, reader
