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

"""The Pods of the embedded Kubernetes API: stored, deleted gracefully.

No process plays them. A Pod here is the object a tempest run in a
test-operator pod reads to learn that its pod is being deleted
(common/own_pod.py), so deleting one does what the API server does for a
pod bound to a node: the object stays, with ``metadata.deletionTimestamp``
set to now plus its grace period (the request's ``gracePeriodSeconds``,
else the pod's ``spec.terminationGracePeriodSeconds``, else 30) and
``deletionGracePeriodSeconds``; a grace of 0 removes it at once (a force
deletion). Whoever plays the kubelet kills the processes and removes the
object with a grace-0 delete. Store keeps them in one file of the state
dir; serve_pods() answers a request for them (the other stored objects,
ConfigMaps, are the stand-in's own: ../configmaps.py).
"""

import fcntl
import json
import os
import time
import uuid

from glance_multiapi_cloud.kubeapi import objectmeta
from glance_multiapi_cloud.kubeapi import request as kube_request
from glance_multiapi_cloud.kubeapi import status

FILE = 'kube-pods.json'
DEFAULT_GRACE = 30


class StoreError(Exception):
    """A refusal: HTTP code and the API server's Status body."""

    def __init__(self, code, body):
        super().__init__(body.get('message'))
        self.code = code
        self.body = body


def _not_found(name):
    return StoreError(404, status.not_found('', 'pods', name))


class Store(object):
    """Pods by namespace and name, in one JSON file of the state dir."""

    def __init__(self, root):
        self.path = os.path.join(root, FILE)

    def _locked(self, change):
        """change(pods) under an exclusive lock; its result, then saved."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        with os.fdopen(fd, 'r+') as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            text = f.read()
            pods = json.loads(text) if text.strip() else {}
            result = change(pods)
            f.seek(0)
            f.truncate()
            json.dump(pods, f, sort_keys=True)
        return result

    def list(self, namespace):
        return self._locked(lambda pods: [
            pod for key, pod in sorted(pods.items())
            if key.split('/')[0] == namespace])

    def get(self, namespace, name):
        def find(pods):
            pod = pods.get('%s/%s' % (namespace, name))
            if pod is None:
                raise _not_found(name)
            return pod
        return self._locked(find)

    def create(self, namespace, document):
        if not isinstance(document, dict) or document.get('kind') not in (
                None, 'Pod'):
            raise StoreError(400, status.bad_request(
                'the body is not a Pod'))
        meta = document.get('metadata') or {}
        name = meta.get('name')
        if not name:
            raise StoreError(422, status.bad_request(
                'Pod is invalid: metadata.name: Required value'))

        def add(pods):
            key = '%s/%s' % (namespace, name)
            if key in pods:
                raise StoreError(409, status.status(
                    409, 'AlreadyExists', 'pods "%s" already exists' % name,
                    {'name': name, 'kind': 'pods'}))
            pod = {'apiVersion': 'v1', 'kind': 'Pod',
                   'metadata': dict(meta, name=name, namespace=namespace,
                                    uid=str(uuid.uuid4()),
                                    creationTimestamp=objectmeta.timestamp()),
                   'spec': document.get('spec') or {},
                   'status': {'phase': 'Running'}}
            # NOTE: clients read a List's resourceVersion from its items'
            # (and a watch starts from it); a pod's changes only on create
            # and delete.
            pods[key] = objectmeta.versioned(pod)
            return pod
        return self._locked(add)

    def delete(self, namespace, name, grace=None):
        """Mark the pod deleted (grace > 0) or remove it; the pod."""
        def mark(pods):
            key = '%s/%s' % (namespace, name)
            pod = pods.get(key)
            if pod is None:
                raise _not_found(name)
            seconds = grace
            if seconds is None:
                seconds = (pod.get('spec') or {}).get(
                    'terminationGracePeriodSeconds', DEFAULT_GRACE)
            if not seconds:
                del pods[key]
                return pod
            meta = pod['metadata']
            # NOTE: a second delete keeps the first deadline, as the API
            # server does unless the new grace is shorter.
            if not meta.get('deletionTimestamp') or seconds < meta.get(
                    'deletionGracePeriodSeconds', seconds + 1):
                meta['deletionTimestamp'] = objectmeta.timestamp(
                    time.time() + int(seconds))
                meta['deletionGracePeriodSeconds'] = int(seconds)
                objectmeta.versioned(pod)
            return pod
        return self._locked(mark)


# -- answering requests on the store ----------------------------------------
def grace_of(request, body):
    """gracePeriodSeconds of a delete (query or DeleteOptions), or None."""
    grace = request.query.get('gracePeriodSeconds', [None])[0]
    options = kube_request.json_body(body) if body else None
    if grace is None and isinstance(options, dict):
        grace = options.get('gracePeriodSeconds')
    try:
        return None if grace is None else int(grace)
    except (TypeError, ValueError):
        raise kube_request.Response(400, status.bad_request(
            'gracePeriodSeconds %r is not a number' % grace))


def serve_pods(store, request, headers, body):
    """Answer a request for stored Pods; a delete marks them."""
    ns, name = request.namespace, request.name
    try:
        if request.verb == 'list':
            return 200, kube_request.listing(
                request.resource, store.list(ns), headers, request)
        if request.verb == 'get':
            return 200, kube_request.listing(
                request.resource, [store.get(ns, name)], headers, request,
                single=True)
        if request.verb == 'create':
            return 201, store.create(ns, kube_request.json_body(body))
        return 200, store.delete(ns, name, grace_of(request, body))
    except StoreError as exc:
        raise kube_request.Response(exc.code, exc.body)
