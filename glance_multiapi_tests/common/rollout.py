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

"""A Deployment's rollout, judged: after a restart, and at any time. Pure.

What a rebuild of a service's image does to its pods, done through the
Kubernetes API alone (a test-operator pod has no ``oc``): the pods the
Deployment's own selector chooses are deleted (each with its own grace
period), then the Deployment must roll out again: its pods that were
deleted gone, as many new pods Ready as it wants, and status.readyReplicas
back. The deployment access layer
(glance_multiapi_tests/deployment_access.py, ``KubernetesAccess.restart``)
deletes and reads; ``selector`` and ``judge`` say what that means.
``rolled_out`` says whether a Deployment is still rolling out at all (a
new template not yet on every pod), as ``kubectl rollout status`` does:
the image check waits for that before it reads which digests pods run.
"""

import dataclasses


class RolloutError(Exception):
    """The restart could not be made or did not finish (one line)."""


@dataclasses.dataclass(frozen=True)
class Restart:
    """What one restart did: the pods deleted and how long it took."""

    deployment: str
    deleted: tuple
    replaced_by: tuple
    seconds: float

    def describe(self):
        return 'Deployment %s: deleted pod(s) %s, rolled out again with %s ' \
               'in %.1f s' % (self.deployment, ', '.join(self.deleted),
                              ', '.join(self.replaced_by), self.seconds)


def selector(deployment):
    """The label selector of a Deployment object, as a query string."""
    spec_selector = ((deployment.get('spec') or {}).get('selector') or {})
    parts = ['%s=%s' % item for item in sorted(
        (spec_selector.get('matchLabels') or {}).items())]
    for expr in spec_selector.get('matchExpressions') or []:
        key, op = expr.get('key'), expr.get('operator')
        values = ','.join(expr.get('values') or [])
        parts.append({'In': '%s in (%s)' % (key, values),
                      'NotIn': '%s notin (%s)' % (key, values),
                      'Exists': key,
                      'DoesNotExist': '!' + str(key)}.get(op, ''))
    parts = [p for p in parts if p]
    if not parts:
        raise RolloutError('Deployment %s has no spec.selector to find its '
                           'pods with' % name(deployment))
    return ','.join(parts)


def name(obj):
    """metadata.name of a Deployment or pod, '?' when it has none."""
    return (obj.get('metadata') or {}).get('name') or '?'


def _ready(pod):
    for condition in (pod.get('status') or {}).get('conditions') or []:
        if condition.get('type') == 'Ready':
            return condition.get('status') == 'True'
    return False


def pod_state(pod):
    """'NAME Running Ready', 'NAME Pending (ImagePullBackOff)', ..."""
    status = pod.get('status') or {}
    words = [name(pod)]
    if (pod.get('metadata') or {}).get('deletionTimestamp'):
        words.append('Terminating')
    else:
        words.append(status.get('phase') or '?')
    words.append('Ready' if _ready(pod) else 'not Ready')
    reasons = sorted({
        (c.get('state') or {}).get('waiting', {}).get('reason')
        for c in status.get('containerStatuses') or []} - {None})
    if reasons:
        words.append('(%s)' % ', '.join(reasons))
    return ' '.join(words)


def judge(deployment, pods, deleted_uids):
    """(done, seen) of a rollout after the pods deleted_uids were deleted.

    Done when none of those pods is left, at least spec.replicas other
    pods are Ready and not terminating, and status.readyReplicas says so
    for the Deployment's current generation.
    """
    want = (deployment.get('spec') or {}).get('replicas')
    want = 1 if want is None else want
    status = deployment.get('status') or {}
    meta = deployment.get('metadata') or {}
    old = [p for p in pods
           if (p.get('metadata') or {}).get('uid') in deleted_uids]
    new = [p for p in pods if p not in old and not (
        p.get('metadata') or {}).get('deletionTimestamp')]
    ready_new = [p for p in new if _ready(p)]
    observed = status.get('observedGeneration', 0) >= meta.get(
        'generation', 0)
    ready = status.get('readyReplicas') or 0
    seen = 'readyReplicas %d/%d%s; pods: %s' % (
        ready, want, '' if observed else ' (generation not observed yet)',
        '; '.join(pod_state(p) for p in pods) or 'none')
    done = (not old and len(ready_new) >= want and ready >= want
            and observed)
    return done, seen


def _count(status, key):
    value = status.get(key)
    return value if isinstance(value, int) and not isinstance(
        value, bool) else 0


def rolled_out(deployment):
    """(done, seen) of a Deployment's rollout, as kubectl rollout status.

    Done when the controller has observed the current generation
    (status.observedGeneration >= metadata.generation), every wanted
    replica runs the current template (updatedReplicas >= spec.replicas),
    no old replica is left (replicas <= updatedReplicas) and every updated
    one is available (availableReplicas >= updatedReplicas).
    """
    deployment = deployment if isinstance(deployment, dict) else {}
    meta = deployment.get('metadata')
    spec = deployment.get('spec')
    status = deployment.get('status')
    meta = meta if isinstance(meta, dict) else {}
    spec = spec if isinstance(spec, dict) else {}
    status = status if isinstance(status, dict) else {}
    generation = _count(meta, 'generation')
    observed = _count(status, 'observedGeneration')
    want = spec.get('replicas')
    want = 1 if not isinstance(want, int) or isinstance(want, bool) \
        else want
    updated = _count(status, 'updatedReplicas')
    replicas = _count(status, 'replicas')
    available = _count(status, 'availableReplicas')
    if observed < generation:
        return False, 'generation %d not observed yet (observedGeneration ' \
            '%d)' % (generation, observed)
    if updated < want:
        return False, 'updatedReplicas %d of %d' % (updated, want)
    if replicas > updated:
        return False, '%d old replica(s) still running beside %d updated' \
            % (replicas - updated, updated)
    if available < updated:
        return False, 'availableReplicas %d of %d updated' % (
            available, updated)
    return True, 'rolled out (generation %d, %d replica(s))' % (generation,
                                                                updated)
