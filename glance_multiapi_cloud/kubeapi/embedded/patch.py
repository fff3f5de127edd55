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

"""Merge patches to the embedded Kubernetes-style API, answered as the
operators would: a patch of the OpenStackControlPlane's Glance template
runs the CLI's ``patch`` verb, so the cloud is reconciled before the
answer; a direct patch of an owned Glance CR is accepted and undone.
"""

import json
import subprocess
import sys

from glance_multiapi_kernel import documents
from glance_multiapi_cloud.kubeapi import request as kube_request
from glance_multiapi_cloud.kubeapi import status
from glance_multiapi_cloud import errors
from glance_multiapi_cloud.kubeapi.embedded import objects as kubeobjects
from glance_multiapi_cloud import spec as spec_mod
from glance_multiapi_cloud import state as state_mod

# NOTE: a patch reconciles the cloud (restarts APIs, rewrites the
# catalog) before it answers, as the control plane's patch is awaited.
PATCH_TIMEOUT = 600


def serve_patch(root, state, request, current, headers, body):
    """A merge patch of the control plane or of the Glance CR."""
    content_type = kube_request.content_type(headers)
    if content_type != kube_request.MERGE_PATCH:
        raise kube_request.Response(415, status.unsupported_media_type(
            content_type))
    try:
        patch = documents.load_json(body or b'null')
    except documents.DocumentError as exc:
        raise kube_request.Response(400, status.bad_request(
            'error decoding patch: %s' % exc))
    res = request.resource
    if res.plural == 'openstackcontrolplanes':
        return _patch_controlplane(root, request, patch)
    return _patch_glance(state, request, current, patch)


def _patch_controlplane(root, request, patch):
    res = request.resource
    try:
        template = kubeobjects.template_patch(patch)
    except kubeobjects.PatchError as exc:
        raise kube_request.Response(422, status.invalid(
            res.group, res.kind, request.name, str(exc),
            'spec.glance'))
    if template is not None:
        _run_cli_patch(root, request, json.dumps({'spec': template}))
    return 200, kubeobjects.controlplane(
        state_mod.State(root).load().record)


def _run_cli_patch(root, request, patch_text):
    res = request.resource
    argv = [sys.executable, '-m', 'glance_multiapi_cloud.cli',
            '--state-dir', root, 'patch', '-p', patch_text]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True,
                              timeout=PATCH_TIMEOUT, cwd=root,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise kube_request.Response(500, status.internal_error(
            'the patch was not reconciled within %d s' % PATCH_TIMEOUT))
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    reason = lines[-1] if lines else 'exit %d' % proc.returncode
    reason = reason.split(': error: ', 1)[-1]
    if proc.returncode == errors.EXIT_INVALID:
        raise kube_request.Response(422, status.invalid(
            res.group, res.kind, request.name, reason,
            'spec.glance.template'))
    if proc.returncode:
        raise kube_request.Response(500, status.internal_error(reason))


def _patch_glance(state, request, current, patch):
    """Answer as the API server does, then revert like the owner.

    NOTE: openstack-operator's internal/openstack/glance.go writes
    the Glance spec from the control plane's spec.glance.template on
    every reconcile (CreateOrPatch, Template.DeepCopyInto), so a
    direct patch of an owned Glance CR is accepted and undone at
    once: the stored spec stays what the template says.
    """
    res = request.resource
    spec_patch = patch.get('spec') if isinstance(patch, dict) else None
    answer = dict(current)
    if spec_patch is not None:
        try:
            answer['spec'] = spec_mod.apply_patch(
                state.record.spec, json.dumps({'spec': spec_patch}))
        except spec_mod.SpecError as exc:
            raise kube_request.Response(422, status.invalid(
                res.group, res.kind, request.name, str(exc)))
    return 200, answer
