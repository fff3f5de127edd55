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

"""A real loopback HTTP server that answers slowly, never, or wrongly.

What the deadline of every network exchange is tested against (issue
55): a server that sends one byte every ``interval`` seconds (of the
body, or of the headers), one that reads the request and never answers,
and ones that break HTTP (a status line that is none, a header over 64
KiB, 150 headers, a chunked body cut short). Every connection is served
by a daemon thread bounded in bytes (MAX_TRICKLE) and in time
(MAX_SECONDS, or until the server stops); it listens on 127.0.0.1 only.
"""

import socket
import socketserver
import threading
import time

# NOTE: whatever a client's deadline, a trickle ends after this many bytes
# or seconds, so a test whose client never gives up still ends.
MAX_TRICKLE = 600
MAX_SECONDS = 120
HEAD_LIMIT = 64 * 1024
UNAUTHORIZED = (b'{"error": {"code": 401, "title": "Unauthorized", '
                b'"message": "The request you have made requires '
                b'authentication."}}')


def _answer(status, body=b'', headers=(), content_type='application/json'):
    head = ['HTTP/1.1 %s' % status, 'Content-Type: %s' % content_type,
            'Content-Length: %d' % len(body), 'Connection: close']
    head += list(headers)
    return ('\r\n'.join(head) + '\r\n\r\n').encode() + body


# NOTE: each mode: (bytes sent at once, bytes then trickled one by one).
MODES = {
    # the status line and headers, then a body one byte at a time
    'trickle': (b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n'
                b'Content-Length: 100000\r\n\r\n', b'{' + b' ' * 100000),
    # the status line, then a header one byte at a time
    'slow-headers': (b'HTTP/1.1 200 OK\r\n', b'X-Slow: ' + b'a' * 100000),
    # a redirect whose headers come one byte at a time
    'slow-redirect': (b'HTTP/1.1 302 Found\r\n',
                      b'Location: /elsewhere\r\nX-Slow: ' + b'a' * 100000),
    # reads the request, answers nothing
    'silent': (b'', b''),
    'bad-status-line': (b'HELLO THERE\r\n\r\n', b''),
    'long-header': (b'HTTP/1.1 200 OK\r\nX-Long: ' + b'a' * (70 * 1024) +
                    b'\r\nContent-Length: 2\r\n\r\n{}', b''),
    'many-headers': (b'HTTP/1.1 200 OK\r\n' + b''.join(
        b'X-H%d: v\r\n' % n for n in range(150)) +
        b'Content-Length: 2\r\n\r\n{}', b''),
    'cut-chunk': (b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n'
                  b'Transfer-Encoding: chunked\r\n\r\n10\r\n{"figures', b''),
    # a small JSON answer at once, the connection kept open
    'ok': (b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n'
           b'Content-Length: 2\r\n\r\n{}', b''),
    # 'ok' to the first request of a connection, 'trickle' to the next
    'ok-then-trickle': (b'', b''),
    # the steps of a script (ScriptedServer), then close or hang
    'script': (b'', b''),
    # keystone, or any service, refusing every request, discovery too
    'unauthorized': (_answer('401 Unauthorized', UNAUTHORIZED,
                             ('WWW-Authenticate: Keystone uri="x"',)), b''),
}


class _Handler(socketserver.BaseRequestHandler):

    def handle(self):
        mode = self.server.mode
        if mode == 'ok-then-trickle':
            if self._serve('ok'):
                self._serve('trickle')
            return
        self._serve(mode)

    def _serve(self, mode):
        """Answer one request the mode's way; True to serve another."""
        server = self.server
        sock = self.request
        sock.settimeout(0.5)
        started = time.monotonic()
        head = b''
        while b'\r\n\r\n' not in head and len(head) < HEAD_LIMIT:
            if server.stopping.is_set() or (
                    time.monotonic() - started > MAX_SECONDS):
                return False
            try:
                chunk = sock.recv(4096)
            except socket.timeout:
                continue
            except OSError:
                return False
            if not chunk:
                return False
            head += chunk
        server.requests.append(head.split(b'\r\n', 1)[0].decode(
            'latin-1'))
        at_once, trickled = MODES[mode]
        try:
            if mode == 'script':
                return self._play(sock, started)
            if at_once:
                sock.sendall(at_once)
            if mode == 'ok':
                return True
            if mode == 'silent':
                server.stopping.wait(MAX_SECONDS)
                return False
            for index in range(min(len(trickled), MAX_TRICKLE)):
                if server.stopping.wait(server.interval) or (
                        time.monotonic() - started > MAX_SECONDS):
                    return False
                sock.sendall(trickled[index:index + 1])
        except OSError:
            pass
        return False

    def _play(self, sock, started):
        """Send each (bytes, delay) of the script; then close or hang."""
        server = self.server
        for data, delay in server.script[:MAX_TRICKLE]:
            if server.stopping.wait(delay) or (
                    time.monotonic() - started > MAX_SECONDS):
                return False
            sock.sendall(data)
        if server.hang:
            server.stopping.wait(MAX_SECONDS)
        return False


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


class TrickleServer(object):
    """The server, in threads of this process, until stop()."""

    def __init__(self, mode, interval=0.2, script=(), hang=False):
        if mode not in MODES:
            raise ValueError('no mode %r; modes: %s' % (
                mode, ', '.join(sorted(MODES))))
        self._server = _Server(('127.0.0.1', 0), _Handler)
        self._server.mode = mode
        self._server.interval = interval
        self._server.stopping = threading.Event()
        self._server.requests = []
        self._server.script = list(script)
        self._server.hang = hang
        self.port = self._server.server_address[1]
        self.url = 'http://127.0.0.1:%d' % self.port
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={'poll_interval': 0.1},
            daemon=True)
        self._thread.start()

    @property
    def requests(self):
        """The request lines received, in order."""
        return list(self._server.requests)

    def stop(self):
        self._server.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)


def serve(test, mode, interval=0.2, script=(), hang=False):
    """A TrickleServer stopped at the end of test.

    mode 'script': each connection gets script's (bytes, delay seconds)
    in turn, then is closed, or left open when hang.
    """
    server = TrickleServer(mode, interval, script, hang)
    test.addCleanup(server.stop)
    return server
