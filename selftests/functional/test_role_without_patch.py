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

"""The shipped Role minus its patch grant: the switchover names the 403.

A cloud of its own, brought up with --kube-role of etc/test-operator's
Role without the openstackcontrolplanes rule (what a cluster admin who
dropped it would have). The plugin's switchover must fail with the API
server's own Forbidden message, naming the user, verb and resource, and
tools/check_role_usage.py must report the refused request.
"""

import os
import subprocess
import sys

import yaml

from selftests.functional import kube_base
from selftests.manifests import rbac

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), '..',
                                     '..'))
SHIPPED_ROLE = os.path.join(REPO, 'etc', 'test-operator', 'rbac.yaml')
SWITCHOVER = ('glance_multiapi_tests.tests.scenario.test_switchover.'
              'KeystoneEndpointSwitchoverTest.test_switch_keystone_endpoint')
FORBIDDEN = (
    'openstackcontrolplanes.core.openstack.org "openstack" is forbidden: '
    'User "system:serviceaccount:openstack:glance-multiapi-tests" cannot '
    'patch resource "openstackcontrolplanes" in API group '
    '"core.openstack.org" in the namespace "openstack"')


def write_role_without_patch(folder):
    """The shipped rbac.yaml with the OpenStackControlPlane rule removed."""
    docs = rbac.load_documents(SHIPPED_ROLE)
    for role in rbac.roles(docs):
        role['rules'] = [r for r in role['rules']
                         if 'openstackcontrolplanes' not in r['resources']]
    path = os.path.join(folder, 'rbac-without-patch.yaml')
    with open(path, 'w') as stream:
        yaml.safe_dump_all(docs, stream)
    return path


class MissingPatchGrantTest(kube_base.RoleCloudTestCase):
    """A Role without the patch grant fails the switchover with its 403."""

    # NOTE: never set, so this class always brings up its own cloud: the
    # shared one runs without a Role.
    cloud_env = 'GLANCE_MULTIAPI_FUNCTIONAL_NO_PATCH_GRANT_CLOUD'

    @classmethod
    def write_role(cls, folder):
        return write_role_without_patch(folder)

    def test_switchover_fails_with_the_forbidden_message(self):
        results = self.run_tempest(
            SWITCHOVER.replace('.', r'\.'),
            overrides={'glance_multiapi': {'convergence_timeout': 20}})
        self.assertOutcome(results, 'test_switch_keystone_endpoint', 'fail',
                           '403', FORBIDDEN)
        proc = subprocess.run(
            [sys.executable, os.path.join(REPO, 'tools',
                                          'check_role_usage.py'),
             '--role', self.role, self.state_dir],
            capture_output=True, text=True, timeout=60)
        self.assertEqual(1, proc.returncode, proc.stdout + proc.stderr)
        self.assertIn('refused (403) ', proc.stdout)
        self.assertIn(': patch openstackcontrolplanes.core.openstack.org/'
                      'openstack', proc.stdout)
