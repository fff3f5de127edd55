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

"""The unit tests' Kubernetes API: the project's stand-in, stubbed.

It is the one Kubernetes API stand-in (glance_multiapi_cloud.kubeapi, the
embedded cloud's too) serving the objects a test puts in ``objects`` by
their API path: a resource is served once an object of it is there (Glances and
OpenStackVersions always, so an empty list of them is an empty List),
other paths are the API server's 404. A wrong bearer token gets 401;
every answer is the stand-in's, Status documents included. Every request
is recorded; a test sets ``answers[(method, path)] = (status, body)`` to
force an answer, or ``'hang'`` for none at all. The real embedded API is
exercised by the functional tests.
"""

import json
import os
import threading

import fixtures

from glance_multiapi_kernel import jsonmerge
from glance_multiapi_kernel import kube
from glance_multiapi_cloud.kubeapi import request as kube_request
from glance_multiapi_cloud.kubeapi import resources
from glance_multiapi_cloud.kubeapi import server
from glance_multiapi_cloud.kubeapi import status as status_mod

TOKEN = 'stub-token'
NAMESPACE = 'openstack'
# NOTE: served even with no object, as when their CRDs are installed.
ALWAYS = (kube.GLANCE, kube.VERSION)
VERBS = ('create', 'delete', 'get', 'list', 'patch', 'update')


def path(resource, name=None, namespace=NAMESPACE):
    """The API path of a resource (kube.Resource) or one object of it."""
    base = '/apis/%s/%s/namespaces/%s/%s' % (
        resource.group, resource.version, namespace, resource.plural)
    return base + ('/%s' % name if name else '')


def status(code, reason, message, name=None):
    """A Kubernetes Status document, as JSON text."""
    return json.dumps(status_mod.status(
        code, reason, message, {'name': name} if name else None))


def _resource_of(object_path, obj):
    """The stand-in's Resource of an object stored at object_path."""
    parts = object_path.strip('/').split('/')
    if parts[0] == 'api':
        group, version, rest = '', parts[1], parts[2:]
    else:
        group, version, rest = parts[1], parts[2], parts[3:]
    plural = rest[2] if rest[0] == 'namespaces' else rest[0]
    kind = obj.get('kind') or plural
    return resources.Resource(group, version, plural, kind, kind.lower(),
                              (), True, VERBS)


class _Served(resources.Resources):
    """What the stub serves now: ALWAYS and the resources of its objects."""

    def __init__(self, objects):
        self.objects = objects

    @property
    def resources(self):
        found = [resources.Resource(r.group, r.version, r.plural, r.kind,
                                    r.kind.lower(), (), True, VERBS)
                 for r in ALWAYS]
        for key, obj in sorted(self.objects.items()):
            res = _resource_of(key, obj)
            if not any(r[:3] == res[:3] for r in found):
                found.append(res)
        return tuple(found)


class _StubApi(server.Api):

    def __init__(self, stub):
        super().__init__(_Served(stub.objects))
        self.stub = stub

    def handle(self, method, target, headers, body):
        stub = self.stub
        stub.requests.append({
            'method': method, 'path': target,
            'content_type': headers.get('Content-Type'),
            'body': json.loads(body) if body else None})
        route = target.split('?', 1)[0]
        forced = stub.answers.get((method, route))
        if forced and server.token_matches(headers, TOKEN):
            if forced == 'hang':
                # NOTE: the client has given up by then; answer nothing.
                stub.release.wait(10)
                raise server.NoAnswer()
            code, text = forced
            try:
                return code, json.loads(text)
            except ValueError:
                return code, text
        return super().handle(method, target, headers, body)

    def authenticate(self, context, headers):
        if not server.token_matches(headers, TOKEN):
            raise kube_request.Response(401, status_mod.unauthorized())
        return 'tester'

    def serve(self, context, request, headers, body):
        objects = self.stub.objects
        route = path(request.resource, request.name, request.namespace) \
            if request.resource.group else '/api/v1/namespaces/%s/%s%s' % (
                request.namespace, request.resource.plural,
                '/%s' % request.name if request.name else '')
        if request.name is None:
            items = [obj for key, obj in sorted(objects.items())
                     if key.rsplit('/', 1)[0] == route]
            return 200, kube_request.listing(request.resource, items,
                                             headers, request)
        if route not in objects:
            raise kube_request.Response(404, status_mod.not_found(
                request.resource.group, request.resource.plural,
                request.name))
        if request.verb == 'patch':
            objects[route] = jsonmerge.merge_patch(
                objects[route], kube_request.json_body(body))
        return 200, objects[route]


class KubeStub:
    """The stub API; objects, answers and requests are per test."""

    def __init__(self, test):
        self.objects = {}
        self.answers = {}
        self.requests = []
        self.release = threading.Event()
        test.addCleanup(self.release.set)
        running = server.Running(_StubApi(self))
        test.addCleanup(running.stop)
        self.server = running.url
        self.port = int(self.server.rsplit(':', 1)[1])

    def put(self, resource, obj):
        """Serve obj (a dict with metadata.name) at its path and list."""
        self.objects[path(resource, obj['metadata']['name'])] = obj

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
