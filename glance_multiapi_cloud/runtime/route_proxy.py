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

"""One OpenShift Route of the embedded cloud: a small reverse proxy.

It listens on the route's own port (https with the route's certificate
when the cloud runs TLS: edge termination, or re-encryption when the
backend is https too, as the openstack-operator sets its Routes up) and
forwards every request to one Service port, streaming both bodies so a
throttled upload shows ``saving`` and an aborted one aborts upstream.
Like the OpenShift router (HAProxy), it answers 503 "Application is not
available" when the backend cannot be reached, and 502 when the backend
broke off its answer.

    python -m glance_multiapi_cloud.runtime.route_proxy \
        --listen 127.0.0.1:PORT --backend http://127.0.0.1:PORT \
        [--cert FILE --key FILE] [--backend-ca FILE]
"""

import argparse
import http.client
import http.server
import socket
import ssl
import sys
import urllib.parse

# NOTE: generous on purpose; the embedded uwsgi's socket timeout, so a
# held (throttled) upload is never cut here first.
TIMEOUT = 600
CHUNK = 64 * 1024
HOP_BY_HOP = frozenset(('connection', 'keep-alive', 'proxy-connection',
                        'proxy-authenticate', 'proxy-authorization', 'te',
                        'trailer', 'trailers', 'transfer-encoding',
                        'upgrade', 'expect'))

# NOTE: the OpenShift router's 503 page is titled "Application is not
# available"; the title is what a reader of a failed probe recognises.
UNAVAILABLE = (b'<html><head><title>Application is not available</title>'
               b'</head><body><h1>Application is not available</h1>\n'
               b'<p>No ready backend serves this route (embedded cloud).'
               b'</p></body></html>\n')
BAD_GATEWAY = (b'<html><body><h1>502 Bad Gateway</h1>\nThe server returned '
               b'an invalid or incomplete response.\n</body></html>\n')


class ClientGone(Exception):
    """The client broke off its request body."""


class RouteHandler(http.server.BaseHTTPRequestHandler):
    """Forward one request per connection to the backend."""

    protocol_version = 'HTTP/1.1'
    timeout = TIMEOUT

    def setup(self):
        # NOTE: the handshake happens here, in the connection's thread,
        # so a client that never completes it blocks nobody else.
        context = self.server.tls_context
        if context is not None:
            self.request.settimeout(self.timeout)
            self.request = context.wrap_socket(self.request,
                                               server_side=True)
        super().setup()

    def version_string(self):
        # NOTE: the router adds no Server header of its own.
        return ''

    def _error(self, status, reason, body, why):
        self.log_message('%s %s -> %d (%s)', self.command, self.path,
                         status, why)
        try:
            self.send_response_only(status, reason)
            self.send_header('Pragma', 'no-cache')
            self.send_header('Cache-Control',
                             'private, max-age=0, no-cache, no-store')
            self.send_header('Connection', 'close')
            self.send_header('Content-Type', 'text/html')
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            if self.command != 'HEAD':
                self.wfile.write(body)
        except OSError:
            pass

    def _connect(self):
        backend = self.server.backend
        if backend.scheme == 'https':
            return http.client.HTTPSConnection(
                backend.hostname, backend.port, timeout=self.timeout,
                context=self.server.backend_context)
        return http.client.HTTPConnection(backend.hostname, backend.port,
                                          timeout=self.timeout)

    def _send_headers(self, conn, chunked):
        conn.putrequest(self.command, self.path, skip_host=True,
                        skip_accept_encoding=True)
        for name, value in self.headers.items():
            if name.lower() not in HOP_BY_HOP:
                conn.putheader(name, value)
        proto = 'https' if self.server.tls_context else 'http'
        client = self.client_address[0]
        host = self.headers.get('Host', '')
        # NOTE: the headers the OpenShift router adds by default.
        conn.putheader('X-Forwarded-For', client)
        conn.putheader('X-Forwarded-Host', host)
        conn.putheader('X-Forwarded-Port', str(self.server.server_port))
        conn.putheader('X-Forwarded-Proto', proto)
        conn.putheader('Forwarded', 'for=%s;host=%s;proto=%s' % (
            client, host, proto))
        if chunked:
            conn.putheader('Transfer-Encoding', 'chunked')
        conn.endheaders()

    def _read_client(self, size):
        try:
            data = self.rfile.read(size)
        except OSError as exc:
            raise ClientGone(str(exc))
        if len(data) < size:
            raise ClientGone('the client sent %d of %d bytes' % (
                len(data), size))
        return data

    def _relay_length(self, conn, length):
        left = length
        while left:
            data = self.rfile.read1(min(CHUNK, left))
            if not data:
                raise ClientGone('the client stopped %d bytes short' % left)
            conn.send(data)
            left -= len(data)

    def _relay_chunked(self, conn):
        while True:
            line = self.rfile.readline(1024)
            if not line:
                raise ClientGone('the client stopped in a chunked body')
            try:
                size = int(line.split(b';', 1)[0].strip(), 16)
            except ValueError:
                raise ClientGone('bad chunk size line %r' % line[:40])
            if size == 0:
                # NOTE: trailers (none expected) up to the blank line.
                while line not in (b'\r\n', b'\n', b''):
                    line = self.rfile.readline(1024)
                conn.send(b'0\r\n\r\n')
                return
            left = size
            while left:
                data = self.rfile.read1(min(CHUNK, left))
                if not data:
                    raise ClientGone('the client stopped in a chunk')
                conn.send(b'%x\r\n%s\r\n' % (len(data), data))
                left -= len(data)
            self._read_client(2)

    def _forward(self):
        self.close_connection = True
        chunked = 'chunked' in self.headers.get('Transfer-Encoding',
                                                '').lower()
        length = int(self.headers.get('Content-Length') or 0)
        conn = self._connect()
        try:
            self._send_headers(conn, chunked)
        except (OSError, http.client.HTTPException) as exc:
            conn.close()
            return self._error(503, 'Service Unavailable', UNAVAILABLE,
                               'backend %s: %s' % (
                                   self.server.backend.geturl(), exc))
        try:
            if chunked:
                self._relay_chunked(conn)
            elif length:
                self._relay_length(conn, length)
        except ClientGone as exc:
            # NOTE: closing without the last chunk tells the backend the
            # upload was cut, as a client's own abort would.
            self.log_message('%s %s: client gone: %s', self.command,
                             self.path, exc)
            conn.close()
            return None
        except OSError as exc:
            # NOTE: the backend may answer early (401, 413) and stop
            # reading; its answer is still worth relaying.
            self.log_message('%s %s: backend stopped reading: %s',
                             self.command, self.path, exc)
        try:
            resp = conn.getresponse()
        except (OSError, http.client.HTTPException) as exc:
            conn.close()
            return self._error(502, 'Bad Gateway', BAD_GATEWAY,
                               'backend answer: %s' % exc)
        try:
            self._relay_response(resp)
        finally:
            conn.close()

    def _relay_response(self, resp):
        self.log_request(resp.status)
        self.send_response_only(resp.status, resp.reason)
        for name, value in resp.getheaders():
            if name.lower() not in HOP_BY_HOP:
                self.send_header(name, value)
        self.send_header('Connection', 'close')
        self.end_headers()
        if self.command == 'HEAD':
            return
        try:
            while True:
                data = resp.read1(CHUNK)
                if not data:
                    break
                self.wfile.write(data)
        except (OSError, http.client.HTTPException) as exc:
            self.log_message('%s %s: answer cut: %s', self.command,
                             self.path, exc)

    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = _forward
    do_DELETE = do_OPTIONS = _forward

    def log_request(self, code='-', size='-'):
        # NOTE: logged by _forward/_error with the backend's answer.
        if isinstance(code, int):
            super().log_request(code, size)


class RouteServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, listen, backend, tls_context, backend_context):
        self.backend = backend
        self.tls_context = tls_context
        self.backend_context = backend_context
        super().__init__(listen, RouteHandler)


def _hostport(text):
    host, _sep, port = text.rpartition(':')
    return host, int(port)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--listen', required=True, type=_hostport,
                        help='HOST:PORT')
    parser.add_argument('--backend', required=True,
                        help='http(s)://HOST:PORT of the Service')
    parser.add_argument('--cert', help='certificate to serve https with')
    parser.add_argument('--key', help='its key')
    parser.add_argument('--backend-ca',
                        help='CA to verify an https backend with')
    args = parser.parse_args(argv)
    tls_context = None
    if args.cert:
        tls_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls_context.load_cert_chain(args.cert, args.key)
    backend_context = None
    backend = urllib.parse.urlsplit(args.backend)
    if backend.scheme == 'https':
        backend_context = ssl.create_default_context(
            cafile=args.backend_ca or None)
    try:
        server = RouteServer(args.listen, backend, tls_context,
                             backend_context)
    except OSError as exc:
        sys.stderr.write('route: cannot listen on %s:%d: %s\n' % (
            args.listen[0], args.listen[1], exc.strerror))
        return 98
    sys.stderr.write('route: %s://%s:%d -> %s\n' % (
        'https' if tls_context else 'http', args.listen[0], args.listen[1],
        args.backend))
    sys.stderr.flush()
    server.serve_forever()
    return 0


if __name__ == '__main__':
    socket.setdefaulttimeout(TIMEOUT)
    sys.exit(main())
