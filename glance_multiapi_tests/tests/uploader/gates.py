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

"""Starting gates of the racing-uploader scenarios, one per source kind.

A gate holds the first request every racer makes of its source until
``count`` of them arrived (or ``hold`` seconds passed since the first),
then lets all go at once and stays open, so racers that fetch their
source before deciding anything meet in Glance at the same instant.
StartingGate is the http source itself; RegistryGate is a loopback HTTPS
proxy in front of the real OCI registry that holds the manifest requests
and forwards everything, untouched, to the registry.
"""

import http.server
import re
import ssl
import threading
import time

import fixtures
import requests
import urllib3

from glance_multiapi_tests.tests.uploader import gate_tls

# NOTE: a pull starts with the manifest (oras-py GETs it by tag, oras-go
# and docker resolve the tag with a HEAD or GET of it); the blob comes
# only after the uploader read the manifest and, maybe, asked Glance
# first. So the manifest is the request every racer makes before it can
# have decided anything, whatever it does next.
MANIFEST = re.compile(r'^/v2/.+/manifests/[^/?]+(\?.*)?$')
# NOTE: RFC 9110 7.6.1; Host and the length are the proxy's own.
HOP_BY_HOP = frozenset((
    'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization',
    'te', 'trailer', 'transfer-encoding', 'upgrade', 'host',
    'content-length'))


class Gate(object):
    """Holds arrivals until count arrived or hold s after the first.

    Once open it stays open: later arrivals pass at once.
    """

    def __init__(self, count, hold, what):
        self.count = count
        self.hold = hold
        self.what = what
        self.arrived = 0
        self.first = None
        self.opened = None
        self.together = False
        self._cond = threading.Condition()

    def arrive(self):
        """Count one arrival and wait for the gate to open."""
        with self._cond:
            self.arrived += 1
            if self.first is None:
                self.first = time.monotonic()
            if self.opened is None and self.arrived >= self.count:
                self._open(together=True)
            while self.opened is None:
                left = self.first + self.hold - time.monotonic()
                if left <= 0:
                    self._open(together=False)
                    break
                self._cond.wait(left)

    def _open(self, together):
        self.opened = time.monotonic()
        self.together = together
        self._cond.notify_all()

    def describe(self):
        """One line: how many arrived, and how the gate opened."""
        with self._cond:
            if self.first is None:
                return '%s: no racer asked' % self.what
            if self.opened is None:
                return '%s: %d of %d racers asked, still held' % (
                    self.what, self.arrived, self.count)
            if self.together:
                return ('%s: %d of %d racers asked within %.1f s and were '
                        'released together' % (
                            self.what, self.count, self.count,
                            self.opened - self.first))
            return ('%s: %d of %d racers asked within saving_hold (%s s), '
                    'then the gate opened' % (self.what, self.arrived,
                                              self.count, self.hold))


def _serve(fixture, server):
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever,
                              kwargs={'poll_interval': 0.2}, daemon=True)
    thread.start()
    fixture.addCleanup(thread.join, 10)
    fixture.addCleanup(server.server_close)
    fixture.addCleanup(server.shutdown)


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, fmt, *args):
        pass

    # NOTE: an idle keep-alive connection ends after this; a held
    # request waits on the gate, not on its socket.
    timeout = 300

    def handle(self):
        # NOTE: an uploader that lost the race may drop the connection
        # (or, through the registry gate, the registry its answer).
        try:
            super().handle()
        except (OSError, requests.RequestException,
                urllib3.exceptions.HTTPError):
            pass


class _GetGateHandler(_Handler):

    def do_GET(self):
        self.server.gate.arrive()
        data = self.server.data
        self.send_response(200)
        self.send_header('Content-Type', 'application/octet-stream')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class StartingGate(fixtures.Fixture):
    """An http source that answers nobody until count GETs arrived.

    Uploaders that download before they look at Glance (Sylva's) are then
    released together and meet in Glance at the same instant, which is
    the race; one that downloads only after winning waits hold s at most.
    """

    def __init__(self, data, count, hold):
        super().__init__()
        self.data = data
        self.gate = Gate(count, hold, 'starting gate (GETs of the image '
                         'held)')

    def _setUp(self):
        server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                 _GetGateHandler)
        server.gate = self.gate
        server.data = self.data
        _serve(self, server)
        self.url = 'http://127.0.0.1:%d/image.raw' % server.server_address[1]

    def describe(self):
        return self.gate.describe()


class _ProxyHandler(_Handler):

    def handle(self):
        # NOTE: the TLS handshake in the connection's own thread (the
        # listening socket does not shake hands in accept), so a racer
        # slow to greet does not stop the others'.
        try:
            self.connection.do_handshake()
        except OSError:
            return
        super().handle()

    def _forward(self):
        server = self.server
        if self.command in ('GET', 'HEAD') and MANIFEST.match(self.path):
            server.gate.arrive()
        length = int(self.headers.get('Content-Length') or 0)
        body = self.rfile.read(length) if length else None
        headers = {k: v for k, v in self.headers.items()
                   if k.lower() not in HOP_BY_HOP}
        # NOTE: the registry's bytes as it sends them, never re-encoded.
        headers.setdefault('Accept-Encoding', 'identity')
        try:
            answer = requests.request(
                self.command, server.upstream + self.path, headers=headers,
                data=body, stream=True, allow_redirects=False,
                verify=server.verify, timeout=(15, 120))
        except requests.RequestException as exc:
            self.send_error(502, 'registry gate: %s unreachable (%s)'
                            % (server.upstream, exc.__class__.__name__))
            return
        with answer:
            self._answer(answer)

    def _answer(self, answer):
        self.send_response(answer.status_code, answer.reason)
        for key, value in answer.raw.headers.items():
            if key.lower() not in HOP_BY_HOP:
                self.send_header(key, value)
        length = answer.headers.get('Content-Length')
        if self.command == 'HEAD' or answer.status_code in (204, 304):
            if length is not None:
                self.send_header('Content-Length', length)
            self.end_headers()
            return
        if length is None:
            # NOTE: an unknown length ends with the connection.
            self.send_header('Connection', 'close')
            self.close_connection = True
        else:
            self.send_header('Content-Length', length)
        self.end_headers()
        for chunk in answer.raw.stream(64 * 1024, decode_content=False):
            self.wfile.write(chunk)

    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = _forward


class RegistryGate(fixtures.Fixture):
    """A loopback HTTPS proxy of registry holding its manifest requests.

    Until count manifest requests (GET or HEAD) arrived, or hold s after
    the first, every one waits; then all are forwarded together, and from
    then on every request goes to the registry at once. Nothing is
    changed on the way: the registry answers (its redirects, errors and
    auth challenges included). reference(uri) is uri's artifact through
    the gate; the gate verifies the registry as the suite does (verify).
    """

    def __init__(self, registry, count, hold, *, verify, workdir):
        super().__init__()
        self.registry = registry
        self.verify = verify
        self.workdir = workdir
        self.gate = Gate(count, hold, 'registry gate')

    def _setUp(self):
        self.ca_pem, cert, key = gate_tls.serving_files(self.workdir)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                 _ProxyHandler)
        server.socket = context.wrap_socket(
            server.socket, server_side=True, do_handshake_on_connect=False)
        server.gate = self.gate
        server.upstream = 'https://%s' % self.registry
        server.verify = self.verify
        _serve(self, server)
        self.address = '127.0.0.1:%d' % server.server_address[1]
        self.gate.what = ('registry gate %s (manifest requests held, then '
                          'forwarded to %s)' % (self.address, self.registry))

    def reference(self, uri):
        """oci://REGISTRY/REPO:TAG -> oci://GATE/REPO:TAG."""
        _host, _, rest = uri[len('oci://'):].partition('/')
        return 'oci://%s/%s' % (self.address, rest)

    def describe(self):
        return self.gate.describe()
