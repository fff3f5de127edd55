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

"""The embedded cloud's Kubernetes-style API server (loopback HTTP).

It serves the objects of kubeobjects.py, built from the state dir on
every request, to kubectl and the ``kubernetes`` Python client: the
discovery documents, get and list (JSON, or a Table for kubectl), and
merge patches of the OpenStackControlPlane and the Glance CR. A patch of
the control plane runs the CLI's ``patch`` verb, so it is reconciled
before the answer. Requests carry a bearer token: the kubeconfig's, or
one of a token Secret of the RBAC manifests of ``up --kube-role``, which
then authorise each request by the token's service account. Every
resource request is appended to kubeapi-audit.log.

This module authenticates, authorises, audits and routes; what a request
asks and the shape of an answer are in kubeapi_request.py, the stored
ConfigMaps and Pods in kubeapi_stored.py, the merge patches in
kubeapi_patch.py.

Run as ``python -m glance_multiapi_tests.localcloud.runtime.kubeapi_server
--state-dir DIR --port PORT``.
"""

import argparse
import hmac
import http.server
import json
import os
import ssl
import sys
import threading
import time
import traceback
from urllib import parse

from glance_multiapi_tests.common import configmaps
from glance_multiapi_tests.localcloud import cloud
from glance_multiapi_tests.localcloud import errors
from glance_multiapi_tests.localcloud import faults as faults_mod
from glance_multiapi_tests.localcloud import kubeobjects
from glance_multiapi_tests.localcloud import kubepods
from glance_multiapi_tests.localcloud import kuberbac
from glance_multiapi_tests.localcloud.runtime import kubeapi_heatpods
from glance_multiapi_tests.localcloud.runtime import kubeapi_patch
from glance_multiapi_tests.localcloud.runtime import kubeapi_request
from glance_multiapi_tests.localcloud.runtime import kubeapi_stored
from glance_multiapi_tests.localcloud import state as state_mod

# NOTE: what a request asks and how it is answered (kubeapi_request.py),
# under the names they had here (the unit tests use MERGE_PATCH so).
MERGE_PATCH = kubeapi_request.MERGE_PATCH
Request = kubeapi_request.Request
Response = kubeapi_request.Response

# NOTE: state-dir folder of the ConfigMaps clients write (one JSON file
# per object under <namespace>/), e.g. the uploader's UUID map.
CONFIGMAPS_DIR = 'kube-configmaps'
# NOTE: what kubectl's version check and discovery cache want to read.
VERSION = {'major': '1', 'minor': '31', 'gitVersion': 'v1.31.0',
           'gitCommit': 'glance-multiapi-cloud', 'gitTreeState': 'clean',
           'buildDate': '2026-01-01T00:00:00Z', 'goVersion': 'go1.22',
           'compiler': 'gc', 'platform': 'linux/amd64'}
HANDSHAKE_TIMEOUT = 10


class Api(object):
    """Answers requests from the state dir of one cloud."""

    def __init__(self, state_dir, server_address):
        self.root = os.path.abspath(state_dir)
        self.server_address = server_address
        self.audit_lock = threading.Lock()
        self.configmaps = configmaps.Store(os.path.join(self.root,
                                                        CONFIGMAPS_DIR))
        self.pods = kubepods.Store(self.root)

    def state(self):
        return state_mod.State(self.root).load()

    # -- entry --------------------------------------------------------------
    def handle(self, method, target, headers, body):
        """(code, body dict or text) for one HTTP request."""
        url = parse.urlsplit(target)
        if url.path in ('/healthz', '/livez', '/readyz'):
            return 200, 'ok'
        query = parse.parse_qs(url.query)
        request = None
        try:
            state = self.state()
            try:
                request = Request(method, url.path, query)
            finally:
                # NOTE: as on a real API server, an unknown path is a
                # 404 only for those who may ask.
                account = self._authenticate(state, headers)
            if request.discovery:
                return 200, self._discovery(request, url.path)
            request.user = kuberbac.user(
                kubeobjects.namespace_of(state.data), account)
            self._authorize(state, request, account)
            code, answer = self._serve(state, request, headers, body)
        except Response as exc:
            code, answer = exc.code, exc.body
        except errors.CloudError as exc:
            code, answer = 500, kuberbac.internal_error(str(exc))
        except Exception as exc:  # noqa: B902 - answer, never drop
            # NOTE: a real API server answers a 500 Status; dropping the
            # connection would read as "API server unreachable".
            traceback.print_exc(file=sys.stdout)
            code, answer = 500, kuberbac.internal_error(
                '%s: %s' % (type(exc).__name__, exc))
        if request is not None and request.resource is not None:
            self._audit(request.audit(code))
        return code, answer

    def _authenticate(self, state, headers):
        """The service account the bearer token is of, else 401."""
        kube = state.data.get('kube', {})
        tokens = kube.get('tokens') or {}
        given = headers.get('Authorization') or ''
        scheme, _sep, value = given.partition(' ')
        if scheme.lower() == 'bearer':
            for token, account in tokens.items():
                if hmac.compare_digest(value.strip(), token):
                    return account
        raise Response(401, kuberbac.unauthorized())

    def _discovery(self, request, path):
        # NOTE: like system:discovery, any authenticated user may read
        # these, whatever its Role; they are not audited.
        path = path.rstrip('/') or '/'
        if path == '/version':
            return VERSION
        if path == '/api':
            return kubeobjects.api_versions(self.server_address)
        if path == '/apis':
            return kubeobjects.api_group_list()
        parts = path.strip('/').split('/')
        groups = kubeobjects.groups()
        if parts[0] == 'apis' and len(parts) == 2 and parts[1] in groups:
            return dict(kubeobjects.api_group(parts[1], groups[parts[1]]),
                        kind='APIGroup', apiVersion='v1')
        if getattr(request, 'group', None) is not None:
            found = kubeobjects.resource_list(request.group, request.version)
            if found:
                return found
        raise Response(404, kuberbac.no_such_path())

    def _authorize(self, state, request, account):
        res = request.resource
        faults = faults_mod.Faults.of_state(state)
        allowed = faults.kube_allows(request.verb, res.plural)
        rules = state.data.get('kube', {}).get('rules')
        if allowed and rules is not None:
            # NOTE: a Role grants nothing outside its namespace, nor at
            # the cluster scope.
            allowed = (request.namespace == kubeobjects.namespace_of(
                state.data) and kuberbac.allows(
                    rules.get(account) or [], request.verb, res.group,
                    res.plural, request.name))
        if not allowed:
            raise Response(403, kuberbac.forbidden(
                request.user, request.verb, res.group, res.plural,
                request.name, request.namespace))

    def _audit(self, record):
        line = json.dumps(record, sort_keys=True) + '\n'
        with self.audit_lock:
            fd = os.open(os.path.join(self.root, kuberbac.AUDIT_LOG),
                         os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            with os.fdopen(fd, 'a') as f:
                f.write(line)

    # -- resources ----------------------------------------------------------
    def _world(self, state):
        faults = faults_mod.Faults.of_state(state)
        return kubeobjects.world(state.data, cloud.document(state),
                                 kubeapi_heatpods.facts(state), time.time(),
                                 faults)

    def _serve(self, state, request, headers, body):
        res = request.resource
        if request.verb not in res.verbs:
            raise Response(405, kuberbac.method_not_allowed(request.verb))
        if res.plural == 'configmaps':
            return kubeapi_stored.serve_configmaps(self.configmaps, request,
                                                   headers, body)
        if res.plural == 'pods':
            return self._serve_pods(state, request, headers, body)
        items = self._world(state)[res.plural]
        if request.namespace not in (None, kubeobjects.namespace_of(
                state.data)):
            items = []
        if request.verb == 'list':
            return 200, kubeapi_request.listing(res, items, headers,
                                                request)
        found = [i for i in items if i['metadata']['name'] == request.name]
        if not found:
            raise Response(404, kuberbac.not_found(res.group, res.plural,
                                                   request.name))
        if request.verb == 'get':
            return 200, kubeapi_request.listing(res, found, headers,
                                                request, single=True)
        return kubeapi_patch.serve_patch(self.root, state, request,
                                         found[0], headers, body)

    def _serve_pods(self, state, request, headers, body):
        """heat's pods (played by processes), then the stored ones."""
        namespace = kubeobjects.namespace_of(state.data)
        heat_pods = []
        if request.namespace in (None, namespace):
            heat_pods = self._world(state)['pods']
        if request.verb == 'list':
            stored = kubeapi_stored.stored_pods(self.pods, request)
            return 200, kubeapi_request.listing(
                request.resource, heat_pods + stored, headers, request)
        mine = [p for p in heat_pods
                if p['metadata']['name'] == request.name]
        if mine and request.verb == 'get':
            return 200, kubeapi_request.listing(
                request.resource, mine, headers, request, single=True)
        if mine and request.verb == 'delete':
            grace = kubeapi_stored.grace_of(request, body)
            kubeapi_heatpods.delete(state, request.name, grace)
            found = [p for p in self._world(state)['pods']
                     if p['metadata']['name'] == request.name]
            return 200, found[0] if found else mine[0]
        return kubeapi_stored.serve_pods(self.pods, request, headers, body)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    server_version = 'glance-multiapi-cloud-kubeapi'
    # NOTE: an idle keep-alive connection holds only its own thread.
    timeout = 120

    def setup(self):
        # NOTE: the TLS handshake runs here, in the connection's thread,
        # so a client that connects and says nothing cannot stall accept.
        self.request.settimeout(HANDSHAKE_TIMEOUT)
        self.request.do_handshake()
        super().setup()

    def _answer(self):
        try:
            length = int(self.headers.get('Content-Length') or 0)
        except ValueError:
            length = None
        if length is None or length < 0:
            code, answer = 400, kuberbac.bad_request(
                'invalid Content-Length %r' % self.headers.get(
                    'Content-Length'))
            self.close_connection = True
        else:
            body = self.rfile.read(length) if length else b''
            code, answer = self.server.api.handle(self.command, self.path,
                                                  self.headers, body)
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
        sys.stdout.write('%s %s\n' % (self.log_date_time_string(),
                                      fmt % args))
        sys.stdout.flush()


def _log_error(request, client_address):
    exc = sys.exc_info()[1]
    sys.stdout.write('connection from %s:%d failed: %s: %s\n' % (
        client_address[0], client_address[1], type(exc).__name__, exc))
    sys.stdout.flush()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--state-dir', required=True)
    parser.add_argument('--port', type=int, required=True)
    parser.add_argument('--cert', required=True)
    parser.add_argument('--key', required=True)
    args = parser.parse_args(argv)
    os.umask(0o077)
    server = http.server.ThreadingHTTPServer(('127.0.0.1', args.port),
                                             Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    server.socket = context.wrap_socket(server.socket, server_side=True,
                                        do_handshake_on_connect=False)
    server.handle_error = _log_error
    server.daemon_threads = True
    server.api = Api(args.state_dir, '127.0.0.1:%d' % args.port)
    server.serve_forever()


if __name__ == '__main__':
    main()
