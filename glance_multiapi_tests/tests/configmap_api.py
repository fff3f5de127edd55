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

"""Where an uploader in configmap mode writes its UUID map, and reading it.

ConfigMapNamespace gives one scenario its own namespace on a Kubernetes
API: the one of ``[image_uploader] kubeconfig`` (a cluster, or the
embedded cloud's), else LoopbackConfigMapApi, a loopback API of the
suite that serves namespaced ConfigMaps (and just enough discovery for
the kubernetes client and kubectl) from a temp dir.
"""

import http.server
import json
import os
import secrets
import threading
import uuid
from urllib import parse

import fixtures
import yaml

from glance_multiapi_tests.common import configmaps

_NO_PATH = {'kind': 'Status', 'apiVersion': 'v1', 'metadata': {},
            'status': 'Failure', 'message': 'the server could not find '
            'the requested resource', 'reason': 'NotFound', 'code': 404}


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def _answer(self):
        length = int(self.headers.get('Content-Length') or 0)
        body = self.rfile.read(length) if length > 0 else b''
        code, answer = self._dispatch(body)
        data = json.dumps(answer).encode()
        self.send_response(code)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

    def _dispatch(self, body):
        server = self.server
        given = (self.headers.get('Authorization') or '').partition(' ')
        if given[0].lower() != 'bearer' or given[2].strip() != server.token:
            return 401, dict(_NO_PATH, reason='Unauthorized', code=401,
                             message='Unauthorized')
        path = parse.urlsplit(self.path).path.strip('/').split('/')
        if path == ['api']:
            return 200, {'kind': 'APIVersions', 'versions': ['v1']}
        if path == ['api', 'v1']:
            return 200, {'kind': 'APIResourceList', 'groupVersion': 'v1',
                         'resources': [{
                             'name': 'configmaps', 'namespaced': True,
                             'kind': 'ConfigMap', 'shortNames': ['cm'],
                             'verbs': ['create', 'delete', 'get', 'list',
                                       'patch', 'update']}]}
        if path == ['api', 'v1', 'configmaps'] and self.command == 'GET':
            return 200, self._list(None)
        if path[:3] != ['api', 'v1', 'namespaces'] or len(path) not in (
                5, 6) or path[4] != 'configmaps':
            return 404, _NO_PATH
        namespace, name = path[3], (path[5] if len(path) == 6 else None)
        try:
            return self._serve(namespace, name, body)
        except configmaps.StoreError as exc:
            return exc.code, exc.status(name)
        except ValueError as exc:
            return 400, dict(_NO_PATH, reason='BadRequest', code=400,
                             message='error decoding body: %s' % exc)

    def _serve(self, namespace, name, body):
        store = self.server.store
        method = self.command
        if method == 'GET':
            if name:
                return 200, store.get(namespace, name)
            return 200, self._list(namespace)
        if method == 'POST' and not name:
            return 201, store.create(namespace, json.loads(body or b'null'))
        if method == 'PUT' and name:
            return 200, store.replace(namespace, name,
                                      json.loads(body or b'null'))
        if method == 'PATCH' and name:
            return 200, store.patch(namespace, name,
                                    json.loads(body or b'null'))
        if method == 'DELETE' and name:
            return 200, store.delete(namespace, name)
        return 405, dict(_NO_PATH, reason='MethodNotAllowed', code=405,
                         message='the server does not allow this method')

    def _list(self, namespace):
        store = self.server.store
        return {'apiVersion': 'v1', 'kind': 'ConfigMapList',
                'metadata': {'resourceVersion': store.resource_version()},
                'items': store.list(namespace)}

    def log_message(self, fmt, *args):
        pass


class LoopbackConfigMapApi(fixtures.Fixture):
    """A loopback API serving namespaced ConfigMaps; .kubeconfig names it."""

    def __init__(self, workdir):
        super().__init__()
        self.workdir = workdir

    def _setUp(self):
        server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Handler)
        server.daemon_threads = True
        server.token = secrets.token_urlsafe(24)
        server.store = configmaps.Store(os.path.join(self.workdir,
                                                     'configmaps'))
        thread = threading.Thread(target=server.serve_forever,
                                  kwargs={'poll_interval': 0.2},
                                  daemon=True)
        thread.start()
        self.addCleanup(thread.join, 10)
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        host, port = server.server_address[:2]
        self.kubeconfig = os.path.join(self.workdir, 'kubeconfig')
        context = 'uploader-scenarios'
        document = {
            'apiVersion': 'v1', 'kind': 'Config',
            'clusters': [{'name': context, 'cluster': {
                'server': 'http://%s:%d' % (host, port)}}],
            'users': [{'name': context, 'user': {'token': server.token}}],
            'contexts': [{'name': context, 'context': {
                'cluster': context, 'user': context,
                'namespace': 'default'}}],
            'current-context': context}
        fd = os.open(self.kubeconfig, os.O_WRONLY | os.O_CREAT, 0o600)
        with os.fdopen(fd, 'w') as out:
            yaml.safe_dump(document, out)


class ConfigMapNamespace(fixtures.Fixture):
    """A namespace of this scenario alone; its ConfigMap goes at the end."""

    def __init__(self, opts, workdir):
        super().__init__()
        self.opts = opts
        self.workdir = workdir

    def _setUp(self):
        import kubernetes.client
        import kubernetes.config

        self.kubeconfig = self.opts.kubeconfig
        if not self.kubeconfig:
            self.kubeconfig = self.useFixture(
                LoopbackConfigMapApi(self.workdir)).kubeconfig
        client = kubernetes.config.new_client_from_config(
            config_file=self.kubeconfig)
        self.addCleanup(client.close)
        self.api = kubernetes.client.CoreV1Api(client)
        self._exception = kubernetes.client.exceptions.ApiException
        _contexts, current = kubernetes.config.list_kube_config_contexts(
            config_file=self.kubeconfig)
        self.home = (current.get('context') or {}).get('namespace',
                                                       'default')
        self.namespace = 'upl-' + uuid.uuid4().hex[:12]
        self._create_namespace(kubernetes.client)
        self.addCleanup(self._delete, self.opts.configmap_name)

    def _create_namespace(self, k8s):
        """On a cluster the namespace must exist; make it, drop it after.

        NOTE: the embedded cloud's API and the loopback one refuse to
        create namespaces (405) and accept ConfigMaps in any.
        """
        try:
            self.api.create_namespace(k8s.V1Namespace(
                metadata=k8s.V1ObjectMeta(name=self.namespace)))
        except self._exception as exc:
            if exc.status in (404, 405):
                return
            raise
        self.addCleanup(self._ignore_missing, self.api.delete_namespace,
                        self.namespace)

    def _ignore_missing(self, call, *args):
        try:
            call(*args)
        except self._exception as exc:
            if exc.status != 404:
                raise

    def _delete(self, name):
        self._ignore_missing(self.api.delete_namespaced_config_map, name,
                             self.namespace)

    def read(self, namespace=None):
        """(data of the ConfigMap or None, where it was looked for)."""
        namespace = namespace or self.namespace
        where = 'ConfigMap %s/%s' % (namespace, self.opts.configmap_name)
        try:
            found = self.api.read_namespaced_config_map(
                self.opts.configmap_name, namespace)
        except self._exception as exc:
            if exc.status == 404:
                return None, where
            raise
        return dict(found.data or {}), where
