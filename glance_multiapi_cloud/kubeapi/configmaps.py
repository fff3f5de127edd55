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

"""Namespaced ConfigMaps kept in a directory, with Kubernetes semantics.

The stand-in's stored objects (the embedded cloud keeps them in its
state dir, the uploader scenarios' API in a temp dir): get, list,
create, replace (update), merge patch and delete, each refusing what the
API server refuses (409 on an existing name or a stale resourceVersion,
404 on a missing one, 422 on an invalid name or data). One JSON file per
object, written atomically; one lock per store serialises writers.
``answer`` serves one request for them.
"""

import json
import os
import re
import tempfile
import threading
import uuid

from glance_multiapi_kernel import jsonmerge
from glance_multiapi_cloud.kubeapi import objectmeta
from glance_multiapi_cloud.kubeapi import request as request_mod
from glance_multiapi_cloud.kubeapi import resources
from glance_multiapi_cloud.kubeapi import status as status_mod

# NOTE: RFC 1123 names as the API server validates them
# (k8s.io/apimachinery/pkg/util/validation).
_LABEL = re.compile(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')
_SUBDOMAIN = re.compile(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?'
                        r'(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')
_DATA_KEY = re.compile(r'^[-._a-zA-Z0-9]+$')
# NOTE: a ConfigMap may hold at most 1 MiB (MaxSecretSize, core/v1).
MAX_BYTES = 1024 * 1024
COUNTER = '.resource-version'
RESOURCE = resources.Resource(
    '', 'v1', 'configmaps', 'ConfigMap', 'configmap', ('cm',), True,
    ('create', 'delete', 'get', 'list', 'patch', 'update'))
# NOTE: on a ConfigMap (string data, no lists) a strategic merge patch is
# a merge patch; the kubernetes client sends either for a dict body.
PATCH_TYPES = (request_mod.MERGE_PATCH,
               'application/strategic-merge-patch+json')


class StoreError(Exception):
    """A refusal: HTTP code, Status reason and one-line message."""

    def __init__(self, code, reason, message):
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message

    def status(self, name=None):
        """The v1 Status body the API server answers with."""
        return status_mod.status(
            self.code, self.reason, self.message,
            {'name': name, 'kind': 'configmaps'} if name else None)


def _not_found(name):
    return StoreError(404, 'NotFound',
                      'configmaps "%s" not found' % name)


def _invalid(name, why):
    return StoreError(422, 'Invalid',
                      'ConfigMap "%s" is invalid: %s' % (name, why))


def check_namespace(namespace):
    if not namespace or len(namespace) > 63 or not _LABEL.match(namespace):
        raise StoreError(400, 'BadRequest',
                         'invalid namespace %r: must be a DNS-1123 label'
                         % namespace)


class Store(object):
    """The ConfigMaps of every namespace under root/<namespace>/."""

    def __init__(self, root):
        self.root = root
        self._lock = threading.Lock()

    # -- reading ------------------------------------------------------------
    def get(self, namespace, name):
        check_namespace(namespace)
        obj = self._read(namespace, name)
        if obj is None:
            raise _not_found(name)
        return obj

    def list(self, namespace=None):
        """Objects of namespace (all namespaces when None), sorted."""
        if namespace is not None:
            check_namespace(namespace)
            spaces = [namespace]
        else:
            try:
                spaces = sorted(d for d in os.listdir(self.root)
                                if not d.startswith('.'))
            except FileNotFoundError:
                spaces = []
        found = []
        for space in spaces:
            try:
                names = sorted(os.listdir(os.path.join(self.root, space)))
            except (FileNotFoundError, NotADirectoryError):
                continue
            for file_name in names:
                if file_name.endswith('.json'):
                    obj = self._read(space, file_name[:-len('.json')])
                    if obj is not None:
                        found.append(obj)
        return found

    def resource_version(self):
        """The store's current resourceVersion (for a List)."""
        try:
            with open(os.path.join(self.root, COUNTER)) as f:
                return f.read().strip() or '0'
        except FileNotFoundError:
            return '0'

    # -- writing ------------------------------------------------------------
    def create(self, namespace, body):
        check_namespace(namespace)
        name = self._check_body(namespace, body)
        with self._lock:
            if self._read(namespace, name) is not None:
                raise StoreError(409, 'AlreadyExists',
                                 'configmaps "%s" already exists' % name)
            meta = dict(body.get('metadata') or {}, name=name,
                        namespace=namespace, uid=str(uuid.uuid4()),
                        creationTimestamp=objectmeta.timestamp())
            return self._write(namespace, body, meta)

    def replace(self, namespace, name, body):
        check_namespace(namespace)
        given = self._check_body(namespace, body)
        if given != name:
            raise StoreError(400, 'BadRequest',
                             'the name of the object (%s) does not match '
                             'the name on the URL (%s)' % (given, name))
        with self._lock:
            current = self._read(namespace, name)
            if current is None:
                raise _not_found(name)
            self._check_version(current, body)
            meta = dict(body.get('metadata') or {})
            for key in ('uid', 'creationTimestamp'):
                meta[key] = current['metadata'][key]
            meta.update(name=name, namespace=namespace)
            return self._write(namespace, body, meta)

    def patch(self, namespace, name, patch):
        if not isinstance(patch, dict):
            raise StoreError(400, 'BadRequest',
                             'a merge patch must be a JSON object')
        with self._lock:
            current = self._read(namespace, name)
            if current is None:
                raise _not_found(name)
            body = jsonmerge.merge_patch(current, patch)
            self._check_version(current, patch)
            self._check_body(namespace, body)
            meta = dict(body['metadata'])
            for key in ('name', 'namespace', 'uid', 'creationTimestamp'):
                meta[key] = current['metadata'][key]
            return self._write(namespace, body, meta)

    def delete(self, namespace, name):
        check_namespace(namespace)
        with self._lock:
            current = self._read(namespace, name)
            if current is None:
                raise _not_found(name)
            os.unlink(self._path(namespace, name))
            try:
                os.rmdir(os.path.join(self.root, namespace))
            except OSError:
                pass
        return {'kind': 'Status', 'apiVersion': 'v1', 'metadata': {},
                'status': 'Success',
                'details': {'name': name, 'kind': 'configmaps',
                            'uid': current['metadata']['uid']}}

    # -- helpers ------------------------------------------------------------
    def _path(self, namespace, name):
        return os.path.join(self.root, namespace, name + '.json')

    def _read(self, namespace, name):
        if not _SUBDOMAIN.match(name or ''):
            return None
        try:
            with open(self._path(namespace, name)) as f:
                return json.load(f)
        except FileNotFoundError:
            return None

    def _check_body(self, namespace, body):
        if not isinstance(body, dict):
            raise StoreError(400, 'BadRequest', 'the body must be a JSON '
                             'object')
        if body.get('kind', 'ConfigMap') != 'ConfigMap':
            raise StoreError(400, 'BadRequest', 'kind %r is not ConfigMap'
                             % body.get('kind'))
        meta = body.get('metadata') or {}
        name = meta.get('name')
        if not isinstance(name, str) or len(name) > 253 or \
                not _SUBDOMAIN.match(name):
            raise _invalid(name, 'metadata.name: must be a lowercase '
                                 'RFC 1123 subdomain')
        if meta.get('namespace') not in (None, namespace):
            raise StoreError(400, 'BadRequest',
                             'the namespace of the object (%s) does not '
                             'match the namespace on the request (%s)'
                             % (meta['namespace'], namespace))
        data = body.get('data') or {}
        if not isinstance(data, dict):
            raise _invalid(name, 'data: must be a map of strings')
        for key, value in data.items():
            if not _DATA_KEY.match(key) or not isinstance(value, str):
                raise _invalid(name, 'data[%s]: keys are [-._a-zA-Z0-9]+, '
                                     'values strings' % key)
        if len(json.dumps(data)) > MAX_BYTES:
            raise _invalid(name, 'data: must have at most %d bytes'
                           % MAX_BYTES)
        return name

    def _check_version(self, current, body):
        wanted = (body.get('metadata') or {}).get('resourceVersion')
        have = current['metadata']['resourceVersion']
        if wanted not in (None, '') and str(wanted) != have:
            raise StoreError(
                409, 'Conflict',
                'Operation cannot be fulfilled on configmaps "%s": the '
                'object has been modified; please apply your changes to '
                'the latest version and try again'
                % current['metadata']['name'])

    def _next_version(self):
        version = str(int(self.resource_version()) + 1)
        self._atomic(os.path.join(self.root, COUNTER), version)
        return version

    def _write(self, namespace, body, meta):
        meta['resourceVersion'] = self._next_version()
        obj = {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': meta,
               'data': dict(body.get('data') or {})}
        if body.get('binaryData'):
            obj['binaryData'] = dict(body['binaryData'])
        os.makedirs(os.path.join(self.root, namespace), mode=0o700,
                    exist_ok=True)
        self._atomic(self._path(namespace, meta['name']),
                     json.dumps(obj, sort_keys=True))
        return obj

    def _atomic(self, path, text):
        directory = os.path.dirname(path)
        os.makedirs(directory, mode=0o700, exist_ok=True)
        handle, temp = tempfile.mkstemp(prefix='.tmp-', dir=directory)
        try:
            with os.fdopen(handle, 'w') as out:
                out.write(text)
            os.replace(temp, path)
        except BaseException:
            if os.path.exists(temp):
                os.unlink(temp)
            raise


def answer(store, request, headers, body):
    """(code, answer) of a request for ConfigMaps: any namespace, all verbs.

    NOTE: unlike a real cluster, a namespace exists as soon as a
    ConfigMap is written into it, so a client may use its own.
    """
    ns, name = request.namespace, request.name
    try:
        if request.verb == 'list':
            return 200, request_mod.listing(
                request.resource, store.list(ns), headers, request,
                version=store.resource_version())
        if request.verb == 'get':
            return 200, request_mod.listing(
                request.resource, [store.get(ns, name)], headers, request,
                single=True)
        if request.verb == 'delete':
            return 200, store.delete(ns, name)
        if request.verb == 'patch':
            kind = request_mod.content_type(headers)
            if kind not in PATCH_TYPES:
                raise request_mod.Response(
                    415, status_mod.unsupported_media_type(kind))
        document = request_mod.json_body(body)
        if request.verb == 'create':
            return 201, store.create(ns, document)
        if request.verb == 'update':
            return 200, store.replace(ns, name, document)
        return 200, store.patch(ns, name, document)
    except StoreError as exc:
        raise request_mod.Response(exc.code, exc.status(name))
