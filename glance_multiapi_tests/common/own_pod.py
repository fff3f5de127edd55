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

"""Whether the pod this run lives in is being deleted.

A test-operator tempest pod runs bash as PID 1 (tcib's run_tempest.sh is
the image's entrypoint). Deleting the pod makes the kubelet send SIGTERM
to PID 1 only, which bash ignores, and SIGKILL to every process when the
grace period ends: no test process is ever told. What such a process can
see is the Pod object itself: the API server sets its
``metadata.deletionTimestamp`` as soon as the deletion is asked for, and
a pod's hostname is its name. ``Watch.reason()`` looks, for the
restoration guard (tests/restoration.py), which undoes a pending change
within the grace period.

The name is learnt at run time, never pasted: test-operator names the
pod after the Tempest CR (d0ef1c3 internal/controller/common.go
GetPodName: the CR's name, or ``<cr>-sNN-<step>`` with a workflow), and
ci-framework names the CR ``<name>-<stage>``
(roles/test_operator/tasks/runners/tempest_runner.yml), so only the pod
itself knows it for sure.
"""

import os
import socket

from oslo_log import log as logging

from glance_multiapi_kernel import documents
from glance_multiapi_kernel import kube
from glance_multiapi_kernel import redaction

LOG = redaction.logger(logging.getLogger(__name__))


def pod_name(opts, environ=None):
    """The name of the run's own pod, else None.

    [glance_multiapi] pod_name, else, in a pod (KUBERNETES_SERVICE_HOST
    set, no kubeconfig), its hostname: $HOSTNAME, which the container
    runtime sets, else the kernel's (a pod's UTS hostname is its name:
    test-operator sets neither spec.hostname nor setHostnameAsFQDN).
    Outside a pod None.
    """
    environ = os.environ if environ is None else environ
    if opts.pod_name:
        return opts.pod_name
    in_pod = (environ.get(kube.IN_CLUSTER_ENV) and not opts.kubeconfig and
              not environ.get('KUBECONFIG'))
    if not in_pod:
        return None
    return environ.get('HOSTNAME') or socket.gethostname() or None


def deletion(pod):
    """Why the Pod object says it is going, or None."""
    meta = kube.metadata(pod)
    when = meta.get('deletionTimestamp')
    if not when:
        return None
    grace = meta.get('deletionGracePeriodSeconds')
    return 'pod %s is being deleted (deletionTimestamp %s%s)' % (
        documents.short(str(kube.name_of(pod))),
        documents.short(str(when)),
        ', grace %s s' % documents.short(str(grace)) if grace is not None
        else '')


class Watch(object):
    """Reads the run's own Pod; says when it is being deleted.

    start() reads it once: a pod that cannot be read then (no grant, not
    found: the name is not a pod's) is not watched, with one warning, so
    that the watch never fails a test by itself. Afterwards a pod that
    is gone counts as deleted.

    :param access: a deployment_access.KubernetesAccess of its own: the
        watch reads from another thread.
    """

    def __init__(self, access, name):
        self.access = access
        self.name = name
        self.disabled = None

    def _read(self):
        return self.access.read_pod(self.name)

    def _disable(self, why):
        self.disabled = why
        LOG.warning('not watching pod %s for its deletion, so a disruptive '
                    'change is not undone if the pod is deleted: %s',
                    self.name, why)

    def start(self):
        """Read the pod once; False (and a warning) when it cannot be."""
        try:
            self._read()
        except kube.KubeError as exc:
            self._disable(str(exc))
            return False
        LOG.info('watching pod %s for its deletion', self.name)
        return True

    def reason(self):
        """Why the pod is going (deleted, or gone), else None."""
        if self.disabled:
            return None
        try:
            pod = self._read()
        except kube.KubeError as exc:
            if exc.missing:
                return 'pod %s is gone' % self.name
            # NOTE: an API that stops answering for a moment is no sign of
            # a deletion; the next look may see one.
            LOG.warning('could not read pod %s: %s', self.name, exc)
            return None
        return deletion(pod)
