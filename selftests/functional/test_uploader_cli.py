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

"""glance-image-uploader against the real embedded cloud.

Bad input of every kind gives one line, its documented exit code, no file
(in TMPDIR or the working directory) and no image; a signal mid-run cleans
up the same way.
"""

import copy
import functools
import hashlib
import http.server
import json
import os
import signal
import ssl
import subprocess
import threading
import time
import uuid

import certifi
import yaml

from glance_multiapi_kernel import imagedata
from glance_multiapi_kernel import polling
from glance_multiapi_cloud import certs
from glance_multiapi_cloud import state as state_mod
from selftests.functional import uploader_runs
from selftests import trickle
from glance_image_uploader import glance
from glance_image_uploader import inputs

UPLOADER = uploader_runs.UPLOADER


def _default_signals():
    # NOTE: a run started in the background by a non-interactive shell
    # (a CI runner, "cmd &") inherits SIGINT ignored, and Python then
    # installs no KeyboardInterrupt handler: the uploader would not see
    # the signal this test sends.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class TestUploaderCli(uploader_runs.UploaderRunTestCase):

    def setUp(self):
        super().setUp()
        self.clouds = self._clouds_yaml()

    def _clouds_yaml(self):
        with open(os.path.join(self.state_dir, 'clouds.yaml')) as src:
            clouds = yaml.safe_load(src)
        demo = clouds['clouds']['demo']
        badpw = copy.deepcopy(demo)
        badpw['auth']['password'] = 'not-the-password'
        glance_down = copy.deepcopy(demo)
        glance_down['image_endpoint_override'] = 'http://127.0.0.1:9/'
        clouds['clouds'].update({'badpw': badpw, 'glancedown': glance_down})
        path = os.path.join(self.tmp, 'clouds.yaml')
        with open(path, 'w') as out:
            yaml.safe_dump(clouds, out)
        return path

    def _info(self, text):
        path = os.path.join(self.tmp, 'info-%s.yaml' % uuid.uuid4().hex)
        with open(path, 'w') as out:
            out.write(text)
        return path

    def _entry(self, uri, md5, key=None):
        key = key or 'uploader-cli-%s' % uuid.uuid4().hex[:12]
        return key, self._info(yaml.safe_dump({'os_images': {key: {
            'uri': uri, 'md5': md5, 'image-format': 'raw'}}}))

    def _run(self, info, cloud='demo', *extra, env=None, quiet=True):
        environ = dict(os.environ, TMPDIR=self.temp_dir)
        for name in ('SSL_CERT_FILE', 'REQUESTS_CA_BUNDLE',
                     'INSECURE_CLIENT'):
            environ.pop(name, None)
        environ.update(env or {})
        return subprocess.run(
            [UPLOADER] + (['--quiet'] if quiet else []) + [
                '--images-info', info, '--os-cloud', cloud,
                '--os-client-config-file', self.clouds, '--temp-dir',
                self.temp_dir] + list(extra),
            capture_output=True, text=True, timeout=300, cwd=self.cwd,
            env=environ)

    def _serve_https(self, size):
        """An https file server with a certificate of the cloud's CA."""
        state = state_mod.State(self.state_dir)
        cert, key = certs.issue(state, 'uploader-cli-source')
        data = imagedata.raw(size, random_bytes=1 << 20)
        directory = os.path.join(self.tmp, 'https')
        os.mkdir(directory)
        with open(os.path.join(directory, 'image.raw'), 'wb') as out:
            out.write(data)
        handler = functools.partial(_QuietHandler, directory=directory)
        server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        url = 'https://127.0.0.1:%d/image.raw' % server.server_address[1]
        return url, hashlib.md5(data, usedforsecurity=False).hexdigest(), (
            certs.ca_path(state))

    def _images_named(self, name):
        # NOTE: the uploader's own connection (with its retry of dropped
        # keep-alive connections); admin lists every project's images.
        if not hasattr(self, '_admin'):
            settings = inputs.Settings(
                info_path='', cloud='admin', client_config_file=self.clouds,
                in_progress_timeout=1, in_progress_interval=1,
                wait_queued=0, insecure=False, plain_http=False)
            self._admin = glance.connect(settings)[0]
        # NOTE: community images appear only when asked for by visibility.
        found = set()
        for extra in ({}, {'visibility': 'community'}):
            found.update(image.id for image in self._admin.image.images(
                name=name, **extra))
        return sorted(found)

    def _delete_named(self, name):
        for image_id in self._images_named(name):
            self._admin.image.delete_image(image_id, ignore_missing=True)

    def assertCleanFailure(self, proc, code, fragment, key=None):
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(code, proc.returncode, proc.stderr)
        self.assertEqual(1, len(lines), proc.stderr)
        self.assertIn(fragment, lines[0])
        self.assertNotIn('Traceback', proc.stderr)
        self.assertEqual('', proc.stdout)
        self.assertEqual([], os.listdir(self.temp_dir))
        self.assertEqual([], os.listdir(self.cwd))
        if key:
            self.assertEqual([], self._images_named(key))

    def test_bad_input_table(self):
        uri, md5 = self.serve(2 << 20, 'uploader-cli')
        self.assertCleanFailure(
            self._run(os.path.join(self.tmp, 'missing.yaml')), 2,
            'does not exist')
        self.assertCleanFailure(
            self._run(self._info('os_images: {a: [')), 22, 'not valid YAML')
        self.assertCleanFailure(
            self._run(self._info('os_images: {a: {uri: "%s"}}' % uri)), 22,
            'lacks md5, image-format')
        key, info = self._entry(uri, 'not-an-md5')
        self.assertCleanFailure(self._run(info), 22, 'not 32 hexadecimal')
        key, info = self._entry(uri, '0' * 31 + '1')
        self.assertCleanFailure(self._run(info), 4, 'expected 0000', key)
        key, info = self._entry(uri + '.missing', md5)
        self.assertCleanFailure(self._run(info), 3, 'HTTP 404', key)
        key, info = self._entry('oci://127.0.0.1:9/nothing/here:1', md5)
        self.assertCleanFailure(self._run(info, 'demo', '--plain-http'), 3,
                                'Connection refused', key)
        key, info = self._entry(uri, md5)
        self.assertCleanFailure(self._run(info, 'glancedown'), 5,
                                'image endpoint', key)
        self.assertCleanFailure(self._run(info, 'badpw'), 6,
                                'refused the credentials', key)
        self.assertCleanFailure(self._run(info, 'nosuchcloud'), 22,
                                'no cloud named nosuchcloud', key)

    def test_source_credentials_never_reach_the_image(self):
        uri, md5 = self.serve(1 << 20, 'uploader-cli')
        secrets = ('Pl4nted-S3cret', 'Pl4nted-Sig', 'Pl4nted-Key')
        planted = uri.replace('//', '//reader:%s@' % secrets[0], 1) + (
            '?X-Amz-Signature=%s&file=x' % secrets[1])
        key = 'uploader-cli-%s' % uuid.uuid4().hex[:12]
        info = self._info(yaml.safe_dump({'os_images': {key: {
            'uri': planted, 'md5': md5, 'image-format': 'raw',
            'password': secrets[2]}}}))
        self.addCleanup(self._delete_named, key)
        proc = self._run(info, quiet=False)
        self.assertEqual(0, proc.returncode, proc.stderr)
        image_id, = self._images_named(key)
        image = self._admin.image.get_image(image_id)
        stored = json.dumps(image.to_dict(), default=str)
        for secret in secrets:
            self.assertNotIn(secret, proc.stdout + proc.stderr)
            self.assertNotIn(secret, stored)
        self.assertEqual(uri + '?...', image.properties['sylva/uri'])
        self.assertNotIn('sylva/password', image.properties)
        self.assertEqual([], os.listdir(self.temp_dir))
        self.assertEqual([], os.listdir(self.cwd))

    def test_trickling_source_ends_at_source_timeout(self):
        # NOTE: requests' read timeout (120 s) applies to each read; a
        # source sending a byte every 0.2 s is cut by SOURCE_TIMEOUT only.
        server = trickle.serve(self, 'trickle')
        key, info = self._entry(server.url + '/image.raw', '0' * 32)
        started = time.monotonic()
        proc = self._run(info, 'demo', '--source-timeout', '2')
        self.assertLess(time.monotonic() - started, 60, proc.stderr)
        self.assertCleanFailure(proc, 3, 'no complete answer within 2 s '
                                '(received ', key)
        self.assertIn(server.url + '/image.raw', proc.stderr)

    def test_trickling_kubernetes_api_ends_at_request_timeout(self):
        server = trickle.serve(self, 'trickle')
        kubeconfig = os.path.join(self.tmp, 'kubeconfig')
        with open(kubeconfig, 'w') as out:
            yaml.safe_dump({
                'clusters': [{'name': 'c', 'cluster': {
                    'server': server.url}}],
                'users': [{'name': 'u', 'user': {'token': 't'}}],
                'contexts': [{'name': 'c', 'context': {
                    'cluster': 'c', 'user': 'u'}}],
                'current-context': 'c'}, out)
        uri, md5 = self.serve(1 << 20, 'uploader-cli-cm')
        key, info = self._entry(uri, md5)
        self.addCleanup(self._delete_named, key)
        started = time.monotonic()
        proc = self._run(info, 'demo', '--request-timeout', '2', env={
            'UUID_OUTPUT': 'configmap', 'TARGET_NAMESPACE': 'ns',
            'KUBECONFIG': kubeconfig})
        self.assertLess(time.monotonic() - started, 120, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(8, proc.returncode, proc.stderr)
        self.assertEqual(1, len(lines), proc.stderr)
        self.assertIn('cannot write ConfigMap ns/openstack-images-uuids',
                      lines[0])
        self.assertIn('Kubernetes API %s' % server.url, lines[0])
        self.assertIn('no complete answer within 2 s', lines[0])
        self.assertEqual([], os.listdir(self.temp_dir))

    def test_https_source_trusts_the_ca_it_is_given(self):
        uri, md5, ca = self._serve_https(1 << 20)
        system = certifi.where()
        for env in ({}, {'REQUESTS_CA_BUNDLE': system}):
            key, info = self._entry(uri, md5)
            self.assertCleanFailure(self._run(info, env=env), 3,
                                    'TLS with', key)
        # NOTE: a deployment adds its CA in one variable while the other
        # may name the system bundle; both are trusted.
        for env in ({'SSL_CERT_FILE': ca}, {'REQUESTS_CA_BUNDLE': ca},
                    {'SSL_CERT_FILE': ca, 'REQUESTS_CA_BUNDLE': system},
                    {'INSECURE_CLIENT': 'true',
                     'REQUESTS_CA_BUNDLE': system}):
            key, info = self._entry(uri, md5)
            self.addCleanup(self._delete_named, key)
            proc = self._run(info, env=env)
            self.assertEqual(0, proc.returncode, '%s: %s'
                             % (env, proc.stderr))
            self.assertEqual(1, len(self._images_named(key)), env)

    def _foreign_queued(self, key, md5):
        """A queued image of that name and tag in another project."""
        settings = inputs.Settings(
            info_path='', cloud='alt_demo', client_config_file=self.clouds,
            in_progress_timeout=1, in_progress_interval=1, wait_queued=0,
            insecure=False, plain_http=False)
        alt = glance.connect(settings)[0]
        image = alt.image.create_image(
            name=key, disk_format='raw', container_format='bare',
            visibility='community', tags=[inputs.TAG_PREFIX + md5])
        self.addCleanup(alt.image.delete_image, image.id,
                        ignore_missing=True)
        return alt, image.id

    def test_foreign_queued_policy(self):
        uri, md5 = self.serve(2 << 20, 'uploader-cli')
        key, info = self._entry(uri, md5)
        alt, foreign = self._foreign_queued(key, md5)
        env = {'WAIT_QUEUED_IMAGE': '1'}
        proc = self._run(info, env=env)
        self.assertCleanFailure(proc, 1, foreign)
        self.assertEqual([foreign], self._images_named(key))
        self.addCleanup(self._delete_named, key)
        proc = self._run(info, env=dict(env, FOREIGN_QUEUED_POLICY='ignore'))
        self.assertEqual(0, proc.returncode, proc.stderr)
        ours = yaml.safe_load(proc.stdout)['os_images'][key][
            'openstack_glance_uuid']
        self.assertEqual(sorted([foreign, ours]), self._images_named(key))
        self.assertEqual('queued', alt.image.get_image(foreign).status)
        self.assertEqual('active', self._admin.image.get_image(ours).status)

    def _signal_during(self, stage, signum, code):
        """Signal the uploader once stderr shows stage; check cleanup."""
        uri, md5 = self.serve(512 << 20, 'uploader-cli')
        key, info = self._entry(uri, md5)
        proc = subprocess.Popen(
            [UPLOADER, '--images-info', info, '--os-cloud', 'demo',
             '--os-client-config-file', self.clouds, '--temp-dir',
             self.temp_dir, '--progress-interval', '0.05'],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            preexec_fn=_default_signals, cwd=self.cwd,
            env=dict(os.environ, TMPDIR=self.temp_dir))
        self.addCleanup(lambda: proc.poll() is None and proc.kill())
        lines, reader = self.stderr_lines(proc)
        polling.poll(lambda: any(stage in line for line in lines),
                     what='uploader stderr to show %r' % stage,
                     timeout=120, interval=0.02, max_interval=0.05)
        started = time.monotonic()
        proc.send_signal(signum)
        proc.wait(timeout=120)
        reader.join(10)
        err = ''.join(lines)
        self.assertEqual(code, proc.returncode, err)
        self.assertLess(time.monotonic() - started, 60)
        self.assertEqual([], os.listdir(self.temp_dir))
        self.assertEqual([], os.listdir(self.cwd))
        self.assertEqual([], self._images_named(key))
        self.assertNotIn('Traceback', err)
        return err

    def test_sigterm_while_claiming_cleans_up(self):
        self._signal_during('claiming the upload', signal.SIGTERM, 143)

    def test_sigint_during_upload_deletes_image(self):
        err = self._signal_during(': upload:', signal.SIGINT, 130)
        self.assertIn('created image', err)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):

    def log_message(self, fmt, *args):
        pass
