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

"""Changing the Glance spec: which object, what patch, what command. Pure.

On a cluster the OpenStackControlPlane owns the Glance CR and would undo a
change made to the Glance CR itself, so the patch goes to
``spec.glance.template`` of the control plane that is the Glance CR's
controller owner; ``patch_object = glance`` patches ``spec`` of the Glance
CR instead. ``patch_target`` decides from the Glance CR as read; ``nest``
wraps a patch of the spec in its object; ``render_command`` and
``oc_patch`` give the command lines (the configured ``patch_command``,
and the ``oc patch`` a restore that failed asks a person to run). The
deployment access layer (glance_multiapi_tests/deployment_access.py)
sends them.
"""

import json
import shlex

from glance_multiapi_kernel import errors
from glance_multiapi_kernel import kube
from glance_multiapi_tests.common import commands

# patch_object choice -> (resource, dotted path of the Glance spec in it).
TARGETS = {
    'openstackcontrolplane': (kube.CONTROLPLANE, 'spec.glance.template'),
    'glance': (kube.GLANCE, 'spec'),
}
PLACEHOLDER = '{patch}'


class PatchError(errors.OneLineError):
    """The patch could not be applied; str() is one line naming why."""


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


def nest(spec_path, spec_patch):
    """Wrap a patch of the Glance spec at its dotted path in the object.

    ``nest('spec.glance.template', {'keystoneEndpoint': 'api1'})`` gives
    the merge patch of an OpenStackControlPlane.
    """
    parts = [part for part in (spec_path or '').split('.') if part]
    if not parts:
        raise ValueError('patch_spec_path is empty; it must name where the '
                         'Glance spec lives, e.g. "spec"')
    patch = spec_patch
    for part in reversed(parts):
        patch = {part: patch}
    return patch


def _json(patch):
    return json.dumps(patch, separators=(',', ':'), sort_keys=True)


def render_command(template, patch):
    """The patch command line with {patch} replaced by the quoted JSON."""
    return commands.render(template, option='patch_command',
                           required=('patch',), patch=_json(patch))


def oc_patch(resource, name, namespace, patch, kubeconfig=None,
             context=None):
    """The ``oc patch`` of an object (kubectl takes the same arguments).

    name None: the first object of its kind in the namespace, looked up
    by the command itself.
    """
    if name:
        target = '%s %s' % (resource.kind.lower(), shlex.quote(name))
    else:
        # NOTE: "oc get KIND -o name" prints KIND.GROUP/NAME, which oc
        # patch takes as one argument.
        target = '"$(oc -n %s get %s -o name | head -1)"' % (
            shlex.quote(namespace), resource.kind.lower())
    words = ['oc']
    if kubeconfig:
        words += ['--kubeconfig', shlex.quote(kubeconfig)]
    if context:
        words += ['--context', shlex.quote(context)]
    words += ['-n', shlex.quote(namespace), 'patch', target,
              '--type', 'merge', '-p', shlex.quote(_json(patch))]
    return ' '.join(words)
