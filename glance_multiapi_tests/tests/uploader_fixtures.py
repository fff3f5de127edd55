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
open by a throttled body, a queued image is a real image without data, a
source is a real loopback HTTP server (counting its requests) or a real
OCI artifact in a real registry, and the uploader is a real process.
"""

import dataclasses
import gzip
import hashlib
import http.server
import io
import os
import shlex
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import uuid

import fixtures
import requests
from tempest import config
import yaml

from glance_multiapi_tests.common import imagedata
from glance_multiapi_tests.common import trust
from glance_multiapi_tests.multiapi import probes
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
    """A loopback HTTP server serving generated images, counting GETs."""

    def _setUp(self):
        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                      _SourceHandler)
        self.server.daemon_threads = True
        self.server.files = {}
        self.server.cuts = {}
        self.server.counts = {}
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


def push_oci_artifact(registry, repository, tag, member_name, data, *,
                      verify=True, cut=False):
    """Push an artifact holding <member_name>.gz in a tar.gz; return uri.

    verify: True (system CAs), a CA bundle path, or False. cut: push
    only the first half of the tar.gz, which breaks mid-unpacking.
    """
    import oras.provider

    with tempfile.TemporaryDirectory(prefix='uploader-oci-') as work:
        blob = os.path.join(work, member_name + '.tar.gz')
        with tarfile.open(blob, 'w:gz', compresslevel=1) as archive:
            inner = gzip.compress(data, compresslevel=1)
            info = tarfile.TarInfo(member_name + '.gz')
            info.size = len(inner)
            archive.addfile(info, io.BytesIO(inner))
        if cut:
            with open(blob, 'r+b') as f:
                f.truncate(os.path.getsize(blob) // 2)
        client = oras.provider.Registry(hostname=registry, insecure=False,
                                        tls_verify=verify)
        client.push(target='%s/%s:%s' % (registry, repository, tag),
                    files=[blob], disable_path_validation=True, quiet=True)
    return 'oci://%s/%s:%s' % (registry, repository, tag)


def delete_oci_artifact(uri, *, verify=True):
    """Delete the manifest of an oci:// uri (later pulls get 404)."""
    host, _, rest = uri[len('oci://'):].partition('/')
    repository, _, tag = rest.rpartition(':')
    base = 'https://%s/v2/%s/manifests/' % (host, repository)
    accept = ('application/vnd.oci.image.manifest.v1+json, '
              'application/vnd.docker.distribution.manifest.v2+json')
    head = requests.head(base + tag, headers={'Accept': accept},
                         verify=verify, timeout=30)
    head.raise_for_status()
    digest = head.headers['Docker-Content-Digest']
    requests.delete(base + digest, verify=verify,
                    timeout=30).raise_for_status()


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
        waiters.wait_for(lambda: self.status() in ('saving', 'deleted'),
                         what='image %s saving under a held upload'
                         % self.image['id'], timeout=self.timeout)

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

    def status(self):
        try:
            return self.client.show_image(self.image['id'])['status']
        except Exception as exc:
            if getattr(exc, 'resp', None) is not None and \
                    exc.resp.status == 404:
                return 'deleted'
            raise

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


def last_line(*texts):
    """The last non-empty line of the first text that has one."""
    for text in texts:
        lines = [ln for ln in (text or '').splitlines() if ln.strip()]
        if lines:
            return lines[-1].strip()
    return '-'


@dataclasses.dataclass
class RunResult:
    """What one uploader run did."""

    command: str
    code: int
    stdout: str
    stderr: str
    duration: float
    # NOTE: the UUID map as the uploader reported it (uuid_output) and
    # where it was read; None when nothing was there.
    uuid_text: str = None
    uuid_where: str = 'stdout'

    def describe(self):
        tail = ' | '.join(self.stderr.strip().splitlines()[-3:])
        return ('%s exited %s after %.1f s; stderr tail: %s'
                % (self.command, self.code, self.duration, tail or '-'))

    def output(self):
        """Everything the uploader printed."""
        return self.stdout + '\n' + self.stderr

    def uuids(self):
        """The os_images UUID map the uploader reported ({name: uuid})."""
        if self.uuid_text is None:
            raise AssertionError('the uploader wrote no UUID map to %s: %s'
                                 % (self.uuid_where, self.describe()))
        try:
            document = yaml.safe_load(self.uuid_text) or {}
            return {name: entry['openstack_glance_uuid']
                    for name, entry in document['os_images'].items()}
        except (yaml.YAMLError, KeyError, TypeError, AttributeError):
            raise AssertionError('%s is not an os_images UUID map: %r'
                                 % (self.uuid_where, self.uuid_text[:300]))


class UploaderRun(fixtures.Fixture):
    """One run of the uploader under test, as a real process.

    It runs in cwd (an empty directory it must leave empty), with TMPDIR
    temp_dir, and reports its UUID map as opts.uuid_output says; a
    ConfigMapNamespace (configmaps) is where configmap mode reads it.
    """

    def __init__(self, opts, *, workdir, images, clouds_yaml, cloud,
                 temp_dir, cwd, configmaps=None, env=None):
        super().__init__()
        self.opts = opts
        self.workdir = workdir
        self.images = images
        self.clouds_yaml = clouds_yaml
        self.cloud = cloud
        self.temp_dir = temp_dir
        self.cwd = cwd
        self.configmaps = configmaps
        self.extra = env or {}
        self.process = None

    def _setUp(self):
        tag = uuid.uuid4().hex[:8]
        self.info = os.path.join(self.workdir, 'os-images-info-%s.yaml' % tag)
        with open(self.info, 'w') as out:
            yaml.safe_dump({'os_images': self.images}, out)
        self.output_file = os.path.join(self.workdir, 'uuids-%s.yaml' % tag)
        values = {'python': sys.executable, 'info': self.info,
                  'clouds': self.clouds_yaml, 'cloud': self.cloud,
                  'temp_dir': self.temp_dir, 'output': self.output_file}
        self.argv = shlex.split(self.opts.command.format(
            **{key: shlex.quote(value) for key, value in values.items()}))
        self.env = dict(os.environ)
        for name in ('OS_AUTH_URL', 'OS_USERNAME', 'OS_PASSWORD',
                     'OS_PROJECT_NAME', 'OS_TOKEN', 'KUBECONFIG',
                     'TARGET_NAMESPACE', 'INSECURE_CLIENT', 'SSL_CERT_FILE',
                     'REQUESTS_CA_BUNDLE', 'UUID_OUTPUT'):
            self.env.pop(name, None)
        self.env.update({
            'OS_IMAGES_INFO_PATH': self.info, 'OS_CLOUD': self.cloud,
            'OS_CLIENT_CONFIG_FILE': self.clouds_yaml,
            'TMPDIR': self.temp_dir,
            'WAIT_QUEUED_IMAGE': str(self.opts.wait_queued_image),
            'IMAGE_IN_PROGRESS_TIMEOUT': str(self.opts.in_progress_timeout),
            'IMAGE_IN_PROGRESS_INTERVAL':
                str(self.opts.in_progress_interval),
            'FOREIGN_QUEUED_POLICY': self.opts.foreign_queued_policy})
        if self.opts.insecure_client:
            self.env['INSECURE_CLIENT'] = 'true'
        else:
            # NOTE: unset registry_ca_file means the system CAs; the
            # uploader's requests would otherwise trust certifi's only.
            ca_file = self.opts.registry_ca_file or trust.system_ca()
            if ca_file and os.path.isfile(ca_file):
                self.env['SSL_CERT_FILE'] = ca_file
                self.env['REQUESTS_CA_BUNDLE'] = ca_file
        if self.configmaps is not None:
            # NOTE: UUID_OUTPUT tells the bundled uploader; others ignore it.
            self.env['UUID_OUTPUT'] = 'configmap'
            self.env['KUBECONFIG'] = self.configmaps.kubeconfig
            self.env['TARGET_NAMESPACE'] = self.configmaps.namespace
        self.env.update(self.opts.extra_env or {})
        self.env.update(self.extra)
        self.addCleanup(self._kill)

    def start(self):
        self._stdout = tempfile.TemporaryFile(dir=self.workdir)
        self._stderr = tempfile.TemporaryFile(dir=self.workdir)
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            self.argv, env=self.env, stdout=self._stdout,
            stderr=self._stderr, stdin=subprocess.DEVNULL, cwd=self.cwd,
            start_new_session=True)
        return self

    def finished(self):
        return self.process.poll() is not None

    def _read(self, stream):
        stream.seek(0)
        return stream.read().decode('utf-8', 'replace')

    def wait(self):
        """Wait up to run_timeout; return a RunResult.

        A run still going then is killed and reported as hung, with the
        last line it printed (what it was doing when it stopped moving).
        """
        try:
            self.process.wait(timeout=self.opts.run_timeout)
        except subprocess.TimeoutExpired:
            self._kill()
            raise AssertionError(
                'uploader hung: %s still running after %d s (run_timeout), '
                'killed; last output line: %s'
                % (' '.join(self.argv[:3]), self.opts.run_timeout,
                   last_line(self._read(self._stderr),
                             self._read(self._stdout))))
        duration = time.monotonic() - self.started
        result = RunResult(command=os.path.basename(self.argv[0]) + ' ' +
                           ' '.join(self.argv[1:3]),
                           code=self.process.returncode,
                           stdout=self._read(self._stdout),
                           stderr=self._read(self._stderr),
                           duration=duration)
        self._collect_uuids(result)
        return result

    def _collect_uuids(self, result):
        mode = self.opts.uuid_output
        if mode == 'stdout':
            result.uuid_text = result.stdout
        elif mode == 'file':
            result.uuid_where = 'file %s ({output})' % self.output_file
            if os.path.exists(self.output_file):
                with open(self.output_file) as f:
                    result.uuid_text = f.read()
        elif mode == 'configmap':
            data, where = self.configmaps.read()
            result.uuid_where = '%s, key %s' % (where,
                                                self.opts.configmap_key)
            if data is not None:
                result.uuid_text = data.get(self.opts.configmap_key)

    def run(self):
        return self.start().wait()

    def _kill(self):
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)
