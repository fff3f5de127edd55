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
"""Real components the uploader scenarios drive.

Nothing here fakes a Glance state: a saving image is a real upload held
open by a throttled body, a queued image is a real image without data,
and a source is a real loopback HTTP server (counting its requests). The
other sources, real OCI artifacts in a real registry, are in
oci.py; the uploader, a real process, is in process.py.
"""

import hashlib
import http.server
import threading

import fixtures
import requests
from tempest import config

from glance_multiapi_kernel import imagedata
from glance_multiapi_tests.common import trust
from glance_multiapi_tests.multiapi import probes
from glance_multiapi_tests.tests import disturbance as disturbance_mod
from glance_multiapi_tests.tests import waiters

CONF = config.CONF


def image_bytes(size):
    """Generated image data: a random head (unique md5) and zeros."""
    return imagedata.raw(size, random_bytes=64 * 1024)


def md5_of(data):
    return hashlib.md5(data, usedforsecurity=False).hexdigest()


class _SourceHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def do_GET(self):
        with self.server.lock:
            self.server.requests.setdefault(self.path, []).append(
                self.path in self.server.files)
        data = self.server.files.get(self.path)
        if data is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header('Content-Type', 'application/octet-stream')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        cut = self.server.cuts.get(self.path)
        if cut is not None:
            # NOTE: a source that breaks mid-download: half the promised
            # body, then the connection closes.
            self.wfile.write(data[:cut])
            self.close_connection = True
            return
        self.wfile.write(data)
        with self.server.lock:
            self.server.counts[self.path] = (
                self.server.counts.get(self.path, 0) + 1)

    def log_message(self, fmt, *args):
        pass


class ImageSource(fixtures.Fixture):
    """A loopback HTTP server serving generated images, counting GETs.

    downloads() counts the GETs served in full; requests() every GET,
    including those answered 404 after remove().
    """

    def _setUp(self):
        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                      _SourceHandler)
        self.server.daemon_threads = True
        self.server.files = {}
        self.server.cuts = {}
        self.server.counts = {}
        self.server.requests = {}
        self.server.lock = threading.Lock()
        thread = threading.Thread(target=self.server.serve_forever,
                                  kwargs={'poll_interval': 0.2},
                                  daemon=True)
        thread.start()
        self.addCleanup(thread.join, 10)
        self.addCleanup(self.server.server_close)
        self.addCleanup(self.server.shutdown)

    def add(self, path, data, cut_at=None):
        """Serve data at path; return its URL.

        cut_at: close the connection after that many bytes.
        """
        self.server.files[path] = data
        if cut_at is not None:
            self.server.cuts[path] = cut_at
        host, port = self.server.server_address[:2]
        return 'http://%s:%d%s' % (host, port, path)

    def remove(self, path):
        """Stop serving path (later GETs get 404)."""
        self.server.files.pop(path, None)

    def downloads(self, path):
        """How many complete GETs of path were served."""
        with self.server.lock:
            return self.server.counts.get(path, 0)

    def requests(self, path):
        """How many GETs of path arrived, served or not."""
        with self.server.lock:
            return len(self.server.requests.get(path, []))


class _AbortUpload(Exception):
    """Raised inside the throttled body to cut the upload short."""


class _HeldBody(object):
    """Upload body that sends a little, then blocks until released."""

    def __init__(self, data, release, abort, hold_limit):
        self._data = data
        self._offset = 0
        self._release = release
        self._abort = abort
        self._hold_limit = hold_limit
        self.started = threading.Event()

    def __len__(self):
        return len(self._data) - self._offset

    def read(self, size=-1):
        if self._offset >= 64 * 1024:
            # NOTE: bounded: an unreleased upload aborts by itself.
            self._release.wait(self._hold_limit)
            if self._abort.is_set() or not self._release.is_set():
                raise _AbortUpload()
        chunk = self._data[self._offset:self._offset + 64 * 1024]
        self._offset += len(chunk)
        self.started.set()
        return chunk


class SavingImage(fixtures.Fixture):
    """A real image held in `saving` by a throttled real upload.

    release('complete') lets the upload finish (the image goes active);
    release('abort') drops the connection (glance puts it back to
    queued). Unreleased, it aborts after hold_limit seconds.
    """

    def __init__(self, client, body, data, *, hold_limit, timeout,
                 image=None):
        super().__init__()
        self.client = client
        self.body = body
        self.existing = image
        self.data = data
        self.hold_limit = hold_limit
        self.timeout = timeout
        self.outcome = None

    def _setUp(self):
        if self.existing is None:
            self.image = self.client.create_image(**self.body)
        else:
            self.image = self.existing
        # NOTE: the held upload (and the uploader beside it) load Glance;
        # a 5xx or timeout meanwhile is "not yet", not a crash.
        self.disturbance = disturbance_mod.Disturbance(
            'held upload of image %s' % self.image['id'])
        self.addCleanup(_delete_quietly, self.client, self.image['id'])
        self._release = threading.Event()
        self._abort = threading.Event()
        held = _HeldBody(self.data, self._release, self._abort,
                         self.hold_limit)
        url = '%s/images/%s/file' % (self.client.base_url.rstrip('/'),
                                     self.image['id'])
        headers = {'X-Auth-Token': self.client.token,
                   'Content-Type': 'application/octet-stream'}
        self._thread = threading.Thread(
            target=self._put, args=(url, held, headers), daemon=True)
        self._thread.start()
        self.addCleanup(self._thread.join, self.timeout)
        self.addCleanup(self.release, 'abort')

        def saving():
            status = self._status_once()[1]
            return status in ('saving', 'deleted'), 'status %s' % status

        waiters.wait_for(
            saving, what='image %s saving under a held upload'
            % self.image['id'], timeout=self.timeout,
            disturbance=self.disturbance)

    def _put(self, url, held, headers):
        # NOTE: the same TLS trust as the tempest clients ([identity], else
        # the system CAs: common/trust.py says why not requests' own).
        verify = trust.requests_verify(
            CONF.identity.ca_certificates_file,
            CONF.identity.disable_ssl_certificate_validation)
        try:
            response = requests.put(url, data=held, headers=headers,
                                    timeout=(10, self.hold_limit + 60),
                                    verify=verify)
            self.outcome = 'HTTP %d' % response.status_code
        except (_AbortUpload, requests.exceptions.RequestException) as exc:
            problem = probes.tls_problem(exc)
            self.outcome = ('TLS: %s' % problem if problem else
                            'aborted (%s)' % exc.__class__.__name__)

    def _status_once(self):
        try:
            return True, self.client.show_image(self.image['id'])['status']
        except Exception as exc:
            if getattr(exc, 'resp', None) is not None and \
                    exc.resp.status == 404:
                return True, 'deleted'
            raise

    def status(self):
        """The image's status, 'deleted' once it is gone.

        Glance's 5xx answers and timeouts are retried (timeout at most).
        """
        return waiters.wait_for(
            self._status_once, what='Glance to show image %s'
            % self.image['id'], timeout=self.timeout,
            disturbance=self.disturbance)

    def release(self, how):
        if self._release.is_set():
            return
        if how == 'abort':
            self._abort.set()
        self._release.set()
        self._thread.join(self.timeout)


def _delete_quietly(client, image_id):
    try:
        client.delete_image(image_id)
    except Exception as exc:
        status = getattr(getattr(exc, 'resp', None), 'status', None)
        if status != 404:
            raise
