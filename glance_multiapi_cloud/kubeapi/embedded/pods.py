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
object with a grace-0 delete.
"""

import datetime
import fcntl
import hashlib
import json
import os
import uuid

from glance_multiapi_cloud.kubeapi import status

FILE = 'kube-pods.json'
DEFAULT_GRACE = 30


class StoreError(Exception):
    """A refusal: HTTP code and the API server's Status body."""

    def __init__(self, code, body):
        super().__init__(body.get('message'))
        self.code = code
        self.body = body


def _now():
    return datetime.datetime.now(datetime.timezone.utc)


def _stamp(when):
    return when.strftime('%Y-%m-%dT%H:%M:%SZ')


def _versioned(pod):
    """Pod with metadata.resourceVersion: digits that change with it.

    NOTE: clients read a List's resourceVersion from its items' (and a
    watch starts from it); a pod's changes only on create and delete.
    """
    meta = pod['metadata']
    meta.pop('resourceVersion', None)
    text = json.dumps(pod, sort_keys=True).encode()
    meta['resourceVersion'] = str(int(hashlib.sha256(text).hexdigest()[:12],
                                      16))
    return pod


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
                                    creationTimestamp=_stamp(_now())),
                   'spec': document.get('spec') or {},
                   'status': {'phase': 'Running'}}
            pods[key] = _versioned(pod)
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
                meta['deletionTimestamp'] = _stamp(
                    _now() + datetime.timedelta(seconds=int(seconds)))
                meta['deletionGracePeriodSeconds'] = int(seconds)
                _versioned(pod)
            return pod
        return self._locked(mark)
