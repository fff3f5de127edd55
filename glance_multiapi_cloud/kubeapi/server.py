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

"""The Api every Kubernetes API stand-in is, and the server it runs in.

``Api.handle`` answers one HTTP request as an API server does: a health
path, then the request parsed (request.Request), the bearer token
authenticated (``authenticate``: any authenticated user may read the
discovery documents, as with system:discovery), the request authorised
(``authorize``), a verb the resource does not serve refused with 405,
and the rest answered by ``serve``. A refusal is a Response carrying its
Status; an unexpected exception is a 500 Status with the error, never a
dropped connection (which a client would read as an unreachable API
server). Subclasses bring their objects and rules.

``make_server`` puts an Api behind a threading HTTP server on loopback,
serving https when given a certificate (the TLS handshake runs in the
connection's own thread, so a client that connects and says nothing
cannot stall the others); ``Running`` serves one in a thread of the
calling process (the uploader scenarios' API, the unit tests' stub).
"""

import hmac
import http.server
import json
import ssl
import sys
import threading
import traceback
from urllib import parse

from glance_multiapi_cloud.kubeapi import request as request_mod
from glance_multiapi_cloud.kubeapi import status

# NOTE: what kubectl's version check and discovery cache want to read.
VERSION = {'major': '1', 'minor': '31', 'gitVersion': 'v1.31.0',
           'gitCommit': 'glance-multiapi-tests', 'gitTreeState': 'clean',
           'buildDate': '2026-01-01T00:00:00Z', 'goVersion': 'go1.22',
           'compiler': 'gc', 'platform': 'linux/amd64'}
HEALTH_PATHS = ('/healthz', '/livez', '/readyz')
HANDSHAKE_TIMEOUT = 10


class NoAnswer(Exception):
    """Raised by handle() to close the connection without an answer."""


def bearer_token(headers):
    """The bearer token of a request's Authorization header, or ''."""
    scheme, _sep, value = (headers.get('Authorization') or '').partition(
        ' ')
    return value.strip() if scheme.lower() == 'bearer' else ''


def token_matches(headers, token):
    """Whether the request carries exactly that bearer token."""
    given = bearer_token(headers)
    return bool(given) and hmac.compare_digest(given, token)


class Api(object):
    """Answers the requests of one stand-in; subclasses bring objects.

    served: the resources.Resources it serves; server_address:
    'host:port' as /api reports it (set by make_server when None).
    expected_errors: exception types answered 500 with their message and
    no traceback (the subclass's own failures).
    """

    expected_errors = ()

    def __init__(self, served, server_address=None):
        self.served = served
        self.server_address = server_address

    def handle(self, method, target, headers, body):
        """(code, body dict or text) for one HTTP request."""
        url = parse.urlsplit(target)
        if url.path in HEALTH_PATHS:
            return 200, 'ok'
        query = parse.parse_qs(url.query)
        request = None
        try:
            context = self.begin()
            try:
                request = request_mod.Request(method, url.path, query,
                                              self.served)
            finally:
                # NOTE: as on a real API server, an unknown path is a
                # 404 only for those who may ask.
                account = self.authenticate(context, headers)
            if request.discovery:
                return 200, self.discovery(url.path)
            self.authorize(context, request, account)
            if request.verb not in request.resource.verbs:
                raise request_mod.Response(
                    405, status.method_not_allowed(request.verb))
            code, answer = self.serve(context, request, headers, body)
        except request_mod.Response as exc:
            code, answer = exc.code, exc.body
        except NoAnswer:
            raise
        except self.expected_errors as exc:
            code, answer = 500, status.internal_error(str(exc))
        except Exception as exc:  # noqa: B902 - answer, never drop
            traceback.print_exc(file=sys.stdout)
            code, answer = 500, status.internal_error(
                '%s: %s' % (type(exc).__name__, exc))
        if request is not None and request.resource is not None:
            self.answered(context, request, code)
        return code, answer

    # -- what a subclass may change -------------------------------------------
    def begin(self):
        """What one request's other hooks are given (e.g. a state)."""
        return None

    def authenticate(self, context, headers):
        """The account of the request's token; a 401 Response if none."""
        raise request_mod.Response(401, status.unauthorized())

    def authorize(self, context, request, account):
        """Raise a 403 Response unless account may make request."""

    def discovery(self, path):
        """The discovery document at path; a 404 Response if none."""
        if path.rstrip('/') == '/version':
            return VERSION
        found = self.served.discovery(path, self.server_address)
        if found is None:
            raise request_mod.Response(404, status.no_such_path())
        return found

    def serve(self, context, request, headers, body):
        """(code, answer) of an authorised resource request."""
        raise request_mod.Response(404, status.no_such_path())

    def answered(self, context, request, code):
        """Called with the code of every resource request (an audit)."""


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    server_version = 'glance-multiapi-kubeapi'
    # NOTE: an idle keep-alive connection holds only its own thread.
    timeout = 120

    def setup(self):
        if isinstance(self.request, ssl.SSLSocket):
            self.request.settimeout(HANDSHAKE_TIMEOUT)
            self.request.do_handshake()
        super().setup()

    def _answer(self):
        try:
            length = int(self.headers.get('Content-Length') or 0)
        except ValueError:
            length = None
        if length is None or length < 0:
            code, answer = 400, status.bad_request(
                'invalid Content-Length %r' % self.headers.get(
                    'Content-Length'))
            self.close_connection = True
        else:
            body = self.rfile.read(length) if length else b''
            try:
                code, answer = self.server.api.handle(
                    self.command, self.path, self.headers, body)
            except NoAnswer:
                self.close_connection = True
                return
        if isinstance(answer, str):
            data, ctype = answer.encode(), 'text/plain; charset=utf-8'
        else:
            data, ctype = json.dumps(answer).encode(), 'application/json'
        self.send_response(code)
        self.send_header('Content-Type', ctype)
        self.send_header('Content-Length', str(len(data)))
        self.send_header('Cache-Control', 'no-cache, private')
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_PATCH = do_PUT = do_POST = do_DELETE = _answer

    def log_message(self, fmt, *args):
        if self.server.log_requests:
            sys.stdout.write('%s %s\n' % (self.log_date_time_string(),
                                          fmt % args))
            sys.stdout.flush()


def _log_error(request, client_address):
    exc = sys.exc_info()[1]
    sys.stdout.write('connection from %s:%d failed: %s: %s\n' % (
        client_address[0], client_address[1], type(exc).__name__, exc))
    sys.stdout.flush()


def make_server(api, port=0, *, cert=None, key=None, log_requests=False):
    """A threading HTTP(S) server of api on 127.0.0.1:port (0: any).

    cert and key: serve https with them. log_requests: one line per
    request and per failed connection on stdout (a service's log).
    """
    server = http.server.ThreadingHTTPServer(('127.0.0.1', port), Handler)
    if cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        server.socket = context.wrap_socket(server.socket, server_side=True,
                                            do_handshake_on_connect=False)
    server.daemon_threads = True
    server.log_requests = log_requests
    if log_requests:
        server.handle_error = _log_error
    else:
        server.handle_error = lambda request, client_address: None
    if api.server_address is None:
        api.server_address = '127.0.0.1:%d' % server.server_address[1]
    server.api = api
    return server


class Running(object):
    """An Api served in a thread of this process until stop()."""

    def __init__(self, api):
        self.server = make_server(api)
        self.url = 'http://%s' % api.server_address
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs={'poll_interval': 0.2},
            daemon=True)
        self._thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(10)
