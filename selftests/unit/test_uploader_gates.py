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

"""The starting gates of the race scenarios, on loopback.

The registry gate is checked against a small HTTPS server standing in for
the registry (the functional tests run it in front of the real one).
"""

import http.server
import os
import ssl
import threading
import time

import fixtures
import requests
import testtools

from glance_multiapi_tests.tests.uploader import gate_tls
from glance_multiapi_tests.tests.uploader import gates

MANIFEST = b'{"schemaVersion": 2, "layers": []}'
BLOB = bytes(range(256)) * 1024


class _Registry(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, fmt, *args):
        pass

    def do_HEAD(self):
        self._reply(with_body=False)

    def do_GET(self):
        self._reply(with_body=True)

    def _reply(self, with_body):
        self.server.seen.append((self.command, self.path,
                                 self.headers.get('Authorization')))
        if self.path.endswith('/manifests/1.0'):
            status, body = 200, MANIFEST
        elif self.path.endswith('/blobs/sha256:ab'):
            status, body = 200, BLOB
        else:
            status, body = 404, b'{"errors": [{"code": "BLOB_UNKNOWN"}]}'
        self.send_response(status)
        self.send_header('Docker-Content-Digest', 'sha256:ab')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        if with_body:
            self.wfile.write(body)


class GateTest(testtools.TestCase):

    def _arrive(self, gate, times):
        done = []
        threads = [threading.Thread(
            target=lambda: (gate.arrive(), done.append(time.monotonic())))
            for _ in range(times)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        return done

    def test_count_arrivals_released_together(self):
        gate = gates.Gate(3, 30, 'gate')
        started = time.monotonic()
        done = self._arrive(gate, 3)
        self.assertEqual(3, len(done))
        self.assertLess(max(done) - started, 10)
        self.assertIn('3 of 3 racers asked within', gate.describe())
        self.assertIn('released together', gate.describe())

    def test_a_lone_arrival_waits_hold_then_the_gate_stays_open(self):
        gate = gates.Gate(3, 0.3, 'gate')
        started = time.monotonic()
        self._arrive(gate, 1)
        self.assertGreaterEqual(time.monotonic() - started, 0.3)
        self.assertEqual('gate: 1 of 3 racers asked within saving_hold '
                         '(0.3 s), then the gate opened', gate.describe())
        started = time.monotonic()
        self._arrive(gate, 1)
        self.assertLess(time.monotonic() - started, 0.3)


class RegistryGateTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        folder = self.useFixture(fixtures.TempDir()).path
        upstream_dir = os.path.join(folder, 'upstream')
        os.mkdir(upstream_dir)
        ca_pem, cert, key = gate_tls.serving_files(upstream_dir)
        self.upstream_ca = os.path.join(folder, 'upstream-ca.pem')
        gate_tls.bundle(self.upstream_ca, None, ca_pem)
        server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Registry)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
        server.seen = []
        self.registry = server
        thread = threading.Thread(target=server.serve_forever,
                                  kwargs={'poll_interval': 0.1},
                                  daemon=True)
        thread.start()
        self.addCleanup(thread.join, 10)
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        self.host = '127.0.0.1:%d' % server.server_address[1]
        self.gate = self.useFixture(gates.RegistryGate(
            self.host, 2, 30, verify=self.upstream_ca, workdir=folder))
        # NOTE: the uploader's trust: what it had, and the gate's CA.
        self.verify = gate_tls.bundle(os.path.join(folder, 'bundle.pem'),
                                      self.upstream_ca, self.gate.ca_pem)

    def _get(self, path, method='GET'):
        return requests.request(
            method, 'https://%s%s' % (self.gate.address, path),
            verify=self.verify, timeout=30,
            headers={'Authorization': 'Bearer t'})

    def test_manifest_requests_held_until_count_then_forwarded(self):
        path = '/v2/glance-multiapi-tests/x/manifests/1.0'
        answers = []
        first = threading.Thread(
            target=lambda: answers.append(self._get(path)))
        first.start()
        first.join(0.5)
        # NOTE: held: one of two racers asked.
        self.assertTrue(first.is_alive())
        self.assertEqual([], self.registry.seen)
        head = self._get(path, 'HEAD')
        first.join(30)
        self.assertEqual(200, head.status_code)
        self.assertEqual(str(len(MANIFEST)), head.headers['Content-Length'])
        self.assertEqual(MANIFEST, answers[0].content)
        self.assertEqual('sha256:ab',
                         answers[0].headers['Docker-Content-Digest'])
        self.assertIn('2 of 2 racers asked within', self.gate.describe())
        self.assertIn(self.host, self.gate.describe())
        # NOTE: open from then on; blobs were never held.
        blob = self._get('/v2/glance-multiapi-tests/x/blobs/sha256:ab')
        self.assertEqual(BLOB, blob.content)
        missing = self._get('/v2/glance-multiapi-tests/x/blobs/sha256:cd')
        self.assertEqual(404, missing.status_code)
        self.assertIn(b'BLOB_UNKNOWN', missing.content)
        self.assertEqual({'Bearer t'},
                         {auth for _m, _p, auth in self.registry.seen})

    def test_blob_requests_are_not_held(self):
        blob = self._get('/v2/glance-multiapi-tests/x/blobs/sha256:ab')
        self.assertEqual(BLOB, blob.content)
        self.assertIn('no racer asked', self.gate.describe())

    def test_reference_points_at_the_gate(self):
        self.assertEqual(
            'oci://%s/glance-multiapi-tests/x:1.0' % self.gate.address,
            self.gate.reference('oci://%s/glance-multiapi-tests/x:1.0'
                                % self.host))


class BundleTest(testtools.TestCase):

    def test_keeps_what_was_trusted_and_adds_the_gate_ca(self):
        folder = self.useFixture(fixtures.TempDir()).path
        cas = os.path.join(folder, 'cas')
        os.mkdir(cas)
        pems = [gate_tls.serving_files(folder)[0] for _ in range(2)]
        for index, pem in enumerate(pems):
            with open(os.path.join(cas, 'ca%d.pem' % index), 'wb') as f:
                f.write(pem)
        with open(os.path.join(cas, 'README'), 'w') as f:
            f.write('not a certificate\n')
        extra = gate_tls.serving_files(folder)[0]
        for trusted, kept in ((os.path.join(cas, 'ca0.pem'), pems[:1]),
                              (cas, pems), (None, [])):
            path = gate_tls.bundle(os.path.join(folder, 'b.pem'), trusted,
                                   extra)
            with open(path, 'rb') as f:
                self.assertEqual(b''.join(kept) + extra, f.read())
            self.assertEqual(0o600, os.stat(path).st_mode & 0o777)
