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

"""Changing the Glance spec: one merge patch, by command or Kubernetes API.

On a cluster the OpenStackControlPlane owns the Glance CR and would undo a
change made to the Glance CR itself, so the patch goes to
``spec.glance.template`` of the control plane that is the Glance CR's
controller owner; ``patch_object = glance`` patches ``spec`` of the Glance
CR instead. ``patch_target`` decides, without I/O.
"""

import json
import shlex

from glance_multiapi_tests.common import commands
from glance_multiapi_kernel import errors
from glance_multiapi_kernel import kube
from glance_multiapi_tests.multiapi import discovery

# patch_object choice -> (resource, dotted path of the Glance spec in it).
TARGETS = {
    'openstackcontrolplane': (kube.CONTROLPLANE, 'spec.glance.template'),
    'glance': (kube.GLANCE, 'spec'),
}
# NOTE: the object each patch_object choice last patched, by name, so a
# restore that fails can name the object to patch by hand without
# reading the cluster again.
_patched = {}


class PatchError(errors.OneLineError):
    """The patch could not be applied; str() is one line naming why."""


def can_patch(opts):
    """Why the options cannot change the deployment, or None if they can."""
    if opts.kubernetes_api:
        return None
    if not opts.patch_command:
        return ('[glance_multiapi] patch_command is unset and kubernetes_api '
                'is False, so the deployment cannot be changed')
    if commands.PATCH_PLACEHOLDER not in opts.patch_command:
        return '[glance_multiapi] patch_command %r lacks the %s ' \
               'placeholder' % (opts.patch_command,
                                commands.PATCH_PLACEHOLDER)
    return None


def patch_target(opts, glance):
    """(resource, name, spec path) of the object a spec patch goes to.

    :param glance: the Glance CR as read from the API; None is allowed
        only when controlplane_name names the control plane.
    """
    resource, spec_path = TARGETS[opts.patch_object]
    if resource == kube.GLANCE:
        name = kube.name_of(glance)
        if not name:
            raise PatchError('%s has no metadata.name, so it cannot be '
                             'patched' % kube.describe(
                                 glance, kube.GLANCE.kind))
        return resource, name, spec_path
    name = opts.controlplane_name
    if not name:
        name = kube.controller_owner(glance, kube.CONTROLPLANE.kind)
    if not name:
        raise PatchError(
            '%s has no controller ownerReference of kind %s, so the '
            'control plane to patch is unknown: set [glance_multiapi] '
            'controlplane_name, or patch_object = glance' % (
                kube.describe(glance, kube.GLANCE.kind),
                kube.CONTROLPLANE.kind))
    return resource, name, spec_path


def apply_spec_patch(opts, spec_patch):
    """Apply a merge patch of the Glance spec; return what was patched."""
    if not opts.kubernetes_api:
        try:
            commands.apply_spec_patch(opts, spec_patch)
        except (commands.CommandError, ValueError) as exc:
            raise PatchError(str(exc)) from None
        return 'patch command %r' % opts.patch_command
    try:
        with kube.connect(kube.Settings.from_opts(opts)) as client:
            glance = None
            if opts.patch_object == 'glance' or not opts.controlplane_name:
                glance = discovery.read_glance(client, opts)
            resource, name, spec_path = patch_target(opts, glance)
            client.patch(resource, name,
                         commands.nest_patch(spec_path, spec_patch))
            _patched[opts.patch_object] = name
            return '%s at %s' % (client.describe_object(name, resource),
                                 spec_path)
    except kube.KubeError as exc:
        raise PatchError(str(exc)) from None


def manual_command(opts, spec_patch):
    """The shell command that applies spec_patch by hand, for messages.

    The command way gives its own patch_command; the Kubernetes way an
    ``oc patch`` (kubectl takes the same arguments) of the object the
    plugin patched, in the same namespace and with the same kubeconfig.
    """
    if not opts.kubernetes_api:
        patch = commands.nest_patch(opts.patch_spec_path, spec_patch)
        return commands.render_patch_command(opts.patch_command, patch)
    resource, spec_path = TARGETS[opts.patch_object]
    namespace = kube.namespace_for(kube.Settings.from_opts(opts))
    name = _patched.get(opts.patch_object)
    if not name and resource == kube.CONTROLPLANE:
        name = opts.controlplane_name
    if name:
        target = '%s %s' % (resource.kind.lower(), shlex.quote(name))
    else:
        # NOTE: "oc get KIND -o name" prints KIND.GROUP/NAME, which oc
        # patch takes as one argument.
        target = '"$(oc -n %s get %s -o name | head -1)"' % (
            shlex.quote(namespace), resource.kind.lower())
    words = ['oc']
    if opts.kubeconfig:
        words += ['--kubeconfig', shlex.quote(opts.kubeconfig)]
    if opts.kubernetes_context:
        words += ['--context', shlex.quote(opts.kubernetes_context)]
    patch = json.dumps(commands.nest_patch(spec_path, spec_patch),
                       separators=(',', ':'), sort_keys=True)
    words += ['-n', shlex.quote(namespace), 'patch', target,
              '--type', 'merge', '-p', shlex.quote(patch)]
    return ' '.join(words)
