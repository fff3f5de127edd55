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

"""heat's pods in the embedded Kubernetes API: a kubelet and a ReplicaSet.

The pods of the heat Deployments are played by the cloud's processes
(heat.py builds the objects from the facts gathered here). Deleting
a heat-engine pod does what a cluster does: the API server marks it
(deletionTimestamp: now + its grace, 60 s as heat-operator sets it); its
ReplicaSet starts a replacement at once (a new heat-engine process); the
kubelet sends SIGTERM to the old pod's process group, SIGKILL if it still
runs when the grace ends, and the pod object goes when its process has.
In-flight work drains as heat-engine's graceful shutdown and the grace
allow, and two engines run side by side meanwhile, as two pods would.

Only heat-engine's pods can be deleted: the API pods listen on fixed
loopback ports, which a second process could not bind while the first
drains (on a cluster each pod has an address of its own); deleting one is
answered 405. Faults: pod-not-replaced (the replacement stays Pending),
pod-delete-ignored (the deletion is recorded, nothing acts on it; once
the fault is cleared the deletion is forgotten).
"""

import json
import os
import threading
import time
import uuid

from glance_multiapi_cloud.kubeapi import request as kube_request
from glance_multiapi_cloud.kubeapi import status
from glance_multiapi_cloud.components import heat
from glance_multiapi_cloud.kubeapi.embedded import heat as kubeheat
from glance_multiapi_cloud import processes
from glance_multiapi_cloud.runtime import heat_faults

STORE = 'kube-heat-pods.json'
DELETABLE = ('heat-engine',)
WAITING = 'ImagePullBackOff'
_LOCK = threading.RLock()


def _load(root):
    try:
        with open(os.path.join(root, STORE)) as f:
            return json.load(f)
    except (FileNotFoundError, ValueError):
        return {}


def _save(root, pods):
    path = os.path.join(root, STORE)
    with open(path + '.new', 'w') as f:
        json.dump(pods, f, sort_keys=True)
    os.replace(path + '.new', path)


def _seed(state, process):
    record = processes.pid_of(state, process)
    return '%s/%s' % (record, processes.started_at(state, process))


def facts(state):
    """{Deployment: [kubeheat.PodFact]} of the processes playing pods."""
    if not heat.enabled(state):
        return {}
    stored = _settle(state)
    return {name: _pods_of(state, name, role, {
        pod: entry for pod, entry in stored.items()
        if entry['deployment'] == name})
        for name, role in kubeheat.DEPLOYMENTS.items()}


def _settle(state):
    """The stored pods, once what a cleared fault held back is forgotten.

    A deletion pod-delete-ignored held is dropped once the fault is gone:
    the pod runs on as if the request had been lost, so that clearing the
    fault leaves a healthy cloud at once rather than a deletion that
    strikes whatever runs at some later read. A Pending replacement is
    forgotten once its Deployment's process runs again.
    """
    with _LOCK:
        stored = _load(state.root)
        faults = state.faults
        changed = False
        for pod, entry in sorted(stored.items()):
            role = kubeheat.DEPLOYMENTS[entry['deployment']]
            if entry.get('waiting') and processes.pid_of(state,
                                                         role.process):
                del stored[pod]
                changed = True
            elif (entry.get('deleted_at') and not entry.get('process') and
                    faults.acts_on_delete(entry['deployment'])):
                del stored[pod]
                changed = True
            elif entry.get('process') and (
                    time.time() > entry['deleted_at'] + entry['grace'] + 5):
                # NOTE: its kubelet thread died with an earlier server.
                threading.Thread(target=_kubelet, daemon=True, args=(
                    state, pod, entry['process'], 0)).start()
        if changed:
            _save(state.root, stored)
        return stored


def _pods_of(state, name, role, marked):
    pods = []
    running = processes.pid_of(state, role.process)
    if running:
        pod = kubeheat.pod_name(kubeheat.images_of(state.record), name,
                                _seed(state, role.process))
        entry = marked.get(pod) or {}
        pods.append(kubeheat.PodFact(
            pod, processes.started_at(state, role.process), True,
            entry.get('deleted_at'), entry.get('grace', 0), None))
    else:
        waiting = [(pod, entry['waiting']) for pod, entry in
                   sorted(marked.items()) if entry.get('waiting')]
        # NOTE: a ReplicaSet keeps its pod when the container will not
        # run (heat-engine-down): CrashLoopBackOff, not no pod.
        for pod, why in waiting or [(kubeheat.pod_name(
                kubeheat.images_of(state.record), name, 'down'),
                'CrashLoopBackOff')]:
            pods.append(kubeheat.PodFact(pod, None, False, None, 0, why))
    for pod, entry in sorted(marked.items()):
        process = entry.get('process')
        if process and process != role.process and processes.pid_of(
                state, process):
            pods.append(kubeheat.PodFact(
                pod, processes.started_at(state, process), True,
                entry['deleted_at'], entry['grace'], None))
    return pods


def find(state, name):
    """(Deployment, PodFact) of a heat pod called name, else None."""
    for deployment, pods in facts(state).items():
        for fact in pods:
            if fact.name == name:
                return deployment, fact
    return None


def delete(state, name, grace):
    """Delete heat pod name as a cluster would; its PodFact after.

    None when no heat pod has that name (the stored pods answer then).
    """
    with _LOCK:
        found = find(state, name)
        if found is None:
            return None
        deployment, fact = found
        if deployment not in DELETABLE:
            raise kube_request.Response(405, status.status(
                405, 'MethodNotAllowed', 'the embedded cloud deletes only '
                "heat-engine's pods (%s listens on fixed loopback ports "
                'that a replacement could not bind while it drains)'
                % deployment, {'name': name, 'kind': 'pods'}))
        if fact.deleted_at is not None:
            return fact
        grace = kubeheat.GRACE_SECONDS if grace is None else max(0, grace)
        return _delete(state, deployment, fact, grace)


def _delete(state, deployment, fact, grace):
    stored = _load(state.root)
    faults = state.faults
    now = time.time()
    if fact.waiting:
        stored.pop(fact.name, None)
        _replace(state, stored, faults, deployment)
    elif not faults.acts_on_delete(deployment):
        stored[fact.name] = {'deployment': deployment, 'deleted_at': now,
                             'grace': grace}
    else:
        _act(state, stored, faults, deployment, fact.name, grace)
    _save(state.root, stored)
    return fact._replace(deleted_at=now, grace=grace)


def _act(state, stored, faults, deployment, pod, grace):
    """The kubelet stops pod's process; its ReplicaSet replaces it."""
    role = kubeheat.DEPLOYMENTS[deployment]
    process = '%s%s' % (heat.TERMINATING_PREFIX, pod)
    processes.rename(state, role.process, process)
    stored[pod] = {'deployment': deployment, 'process': process,
                   'deleted_at': time.time(), 'grace': grace}
    heat_faults.mark_restart(state.root)
    threading.Thread(target=_kubelet, daemon=True,
                     args=(state, pod, process, grace)).start()
    _replace(state, stored, faults, deployment)


def _replace(state, stored, faults, deployment):
    """The ReplicaSet's new pod: a process, or a Pending pod."""
    role = kubeheat.DEPLOYMENTS[deployment]
    if not faults.starts_service(role.process):
        # NOTE: heat-engine-down: the replacement crash-loops as the
        # deleted pod did.
        return
    if faults.replaces_pod(deployment):
        # NOTE: none when an engine runs already, one the CLI's reconcile
        # or restart started meanwhile: a ReplicaSet's one replica.
        proc = heat.start_engine(state, unless_running=True)
        if proc:
            # NOTE: this server is its parent: reap it when it ends.
            threading.Thread(target=proc.wait, daemon=True).start()
    else:
        pending = kubeheat.pod_name(kubeheat.images_of(state.record),
                                    deployment, uuid.uuid4())
        stored[pending] = {'deployment': deployment, 'waiting': WAITING}


def _kubelet(state, pod, process, grace):
    """SIGTERM the pod's process group, SIGKILL at the grace's end."""
    # NOTE: processes.stop is the kubelet's sequence: SIGTERM, up to
    # grace seconds, SIGKILL; then the pod object goes.
    processes.stop(state, process, timeout=max(grace, 0.1))
    with _LOCK:
        stored = _load(state.root)
        stored.pop(pod, None)
        _save(state.root, stored)
