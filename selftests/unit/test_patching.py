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

"""The command a failed restore prints: exact, quoted, runnable."""

import json
import shlex
import types

import testtools

from glance_multiapi_tests import deployment_access

RESTORE = {'keystoneEndpoint': 'api0'}


def _opts(**values):
    base = dict(kubernetes_api=True, kubeconfig=None, kubernetes_context=None,
                namespace='openstack', kubernetes_timeout=30.0,
                patch_object='openstackcontrolplane',
                controlplane_name=None, patch_command=None,
                patch_spec_path='spec')
    base.update(values)
    return types.SimpleNamespace(**base)


def manual_command(opts, spec_patch, patched=None):
    """What the access of opts says to run, after patching patched."""
    way = deployment_access.choose(opts)
    if patched:
        # NOTE: as KubernetesAccess.patch_spec remembers what it patched.
        way._patched.update(patched)
    return way.manual_patch(spec_patch)


class ManualCommandTest(testtools.TestCase):

    def test_kubernetes_way_names_the_patched_control_plane(self):
        words = shlex.split(manual_command(
            _opts(kubeconfig='/k/config', kubernetes_context='ctx'),
            RESTORE, {'openstackcontrolplane': 'my cp'}))
        self.assertEqual(['oc', '--kubeconfig', '/k/config', '--context',
                          'ctx', '-n', 'openstack', 'patch',
                          'openstackcontrolplane', 'my cp', '--type',
                          'merge', '-p'], words[:-1])
        self.assertEqual({'spec': {'glance': {'template': RESTORE}}},
                         json.loads(words[-1]))

    def test_glance_object_is_patched_at_spec(self):
        words = shlex.split(manual_command(
            _opts(patch_object='glance'), RESTORE, {'glance': 'glance'}))
        self.assertEqual(['oc', '-n', 'openstack', 'patch', 'glance',
                          'glance'], words[:6])
        self.assertEqual({'spec': RESTORE}, json.loads(words[-1]))

    def test_unknown_name_is_looked_up_in_the_command(self):
        line = manual_command(_opts(namespace='ns'), RESTORE)
        self.assertIn('patch "$(oc -n ns get openstackcontrolplane -o name '
                      '| head -1)" --type merge', line)

    def test_command_way_renders_patch_command(self):
        line = manual_command(
            _opts(kubernetes_api=False,
                  patch_command='oc patch openstackcontrolplane openstack '
                                '--type merge -p {patch}',
                  patch_spec_path='spec.glance.template'), RESTORE)
        words = shlex.split(line)
        self.assertEqual({'spec': {'glance': {'template': RESTORE}}},
                         json.loads(words[-1]))
        self.assertEqual('oc patch openstackcontrolplane openstack --type '
                         'merge -p', ' '.join(words[:-1]))
