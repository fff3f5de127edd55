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

"""A Kubernetes-shaped stub API on 127.0.0.1 for the unit tests.

It serves the objects a test puts in ``objects`` by their API path,
answers a wrong bearer token with 401 and unknown paths with 404, both as
Kubernetes Status documents, and records every request. A test sets
``answers[(method, path)] = (status, body)`` to force an answer. The
real embedded API is exercised by the functional tests.
"""

import json
import os
import threading

import fixtures

from glance_multiapi_tests.localcloud import spec
from glance_multiapi_tests.selftests.unit import stub_http

TOKEN = 'stub-token'
NAMESPACE = 'openstack'


def path(resource, name=None, namespace=NAMESPACE):
    """The API path of a resource (kube.Resource) or one object of it."""
    base = '/apis/%s/%s/namespaces/%s/%s' % (
        resource.group, resource.version, namespace, resource.plural)
    return base + ('/%s' % name if name else '')


def status(code, reason, message, name=None):
    """A Kubernetes Status document."""
    doc = {'kind': 'Status', 'apiVersion': 'v1', 'status': 'Failure',
           'reason': reason, 'message': message, 'code': code}
    if name:
        doc['details'] = {'name': name}
    return json.dumps(doc)


class KubeStub:
    """The stub server; objects, answers and requests are per test."""

    def __init__(self, test):
        self.objects = {}
        self.answers = {}
        self.requests = []
        self.release = threading.Event()
        test.addCleanup(self.release.set)
        stub = self

        class Handler(stub_http.JsonHandler):
            def do_GET(self):
                stub.handle(self, 'GET')

            def do_PATCH(self):
                stub.handle(self, 'PATCH')

        self.port = stub_http.serve(test, Handler)
        self.server = 'http://127.0.0.1:%d' % self.port

    def put(self, resource, obj):
        """Serve obj (a dict with metadata.name) at its path and list."""
        self.objects[path(resource, obj['metadata']['name'])] = obj

    def handle(self, handler, method):
        length = int(handler.headers.get('Content-Length') or 0)
        body = handler.rfile.read(length) if length else b''
        self.requests.append({
            'method': method, 'path': handler.path,
            'content_type': handler.headers.get('Content-Type'),
            'body': json.loads(body) if body else None})
        route = handler.path.split('?', 1)[0]
        if handler.headers.get('Authorization') != 'Bearer ' + TOKEN:
            return handler.send_json(401, status(401, 'Unauthorized',
                                                 'Unauthorized'))
        forced = self.answers.get((method, route))
        if forced == 'hang':
            # NOTE: the client has given up by then; answer nothing.
            self.release.wait(10)
            handler.close_connection = True
            return None
        if forced:
            return handler.send_json(*forced)
        if route in self.objects:
            obj = self.objects[route]
            if method == 'PATCH':
                obj = spec.merge_patch(obj, json.loads(body))
                self.objects[route] = obj
            return handler.send_json(200, json.dumps(obj))
        items = [obj for key, obj in sorted(self.objects.items())
                 if key.rsplit('/', 1)[0] == route]
        if method == 'GET' and (items or route.endswith(
                ('/glances', '/openstackversions'))):
            return handler.send_json(200, json.dumps(
                {'kind': 'List', 'items': items}))
        name = route.rsplit('/', 1)[-1]
        return handler.send_json(404, status(
            404, 'NotFound', '%s "%s" not found' % (route.split('/')[-2],
                                                    name), name=name))

    def kubeconfig(self, test, token=TOKEN, server=None):
        """Write a kubeconfig for this stub into a temp dir; its path."""
        folder = test.useFixture(fixtures.TempDir()).path
        config = {
            'apiVersion': 'v1', 'kind': 'Config',
            'clusters': [{'name': 'stub', 'cluster': {
                'server': server or self.server}}],
            'users': [{'name': 'tester', 'user': {'token': token}}],
            'contexts': [{'name': 'stub', 'context': {
                'cluster': 'stub', 'user': 'tester',
                'namespace': NAMESPACE}}],
            'current-context': 'stub',
        }
        filename = os.path.join(folder, 'kubeconfig')
        with open(filename, 'w') as f:
            json.dump(config, f)
        return filename
