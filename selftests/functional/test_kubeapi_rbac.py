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

"""RBAC of the embedded Kubernetes API (``up --kube-role``).

This class brings up its own small cloud (no registry, no file server)
under a Role that lacks the control plane's patch rule, or reuses the one
named by GLANCE_MULTIAPI_KUBE_RBAC_CLOUD.
"""

import os
import shutil
import subprocess
import tempfile

from selftests.functional import base
from selftests.functional import kube_base

ENV_RBAC_CLOUD = 'GLANCE_MULTIAPI_KUBE_RBAC_CLOUD'
# NOTE: what the plugin needs to read, but not to patch the control plane.
RULES = [
    {'apiGroups': ['glance.openstack.org'], 'resources': ['glances'],
     'verbs': ['get', 'list']},
    {'apiGroups': ['core.openstack.org'],
     'resources': ['openstackversions'], 'resourceNames': ['openstack'],
     'verbs': ['get']},
]


class KubeApiRbacTest(kube_base.RoleCloudTestCase):
    """Requests outside the Role get the API server's 403."""

    cloud_env = ENV_RBAC_CLOUD
    extra_up_args = ('--no-registry', '--no-fileserver')

    @classmethod
    def write_role(cls, folder):
        return kube_base.write_role_file(folder, RULES)

    def test_role_grants_what_it_lists(self):
        custom, _apps = self.apis()
        self.assertEqual('glance', custom.get_namespaced_custom_object(
            *kube_base.GLANCE, 'glance')['metadata']['name'])
        custom.list_namespaced_custom_object(*kube_base.GLANCE)
        custom.get_namespaced_custom_object(*kube_base.OSV, 'openstack')
        self.assertEqual(200, self.audit()[-1]['code'])

    def test_missing_rule_is_forbidden(self):
        custom, _apps = self.apis()
        body = self.assertApiError(
            403, 'Forbidden', custom.patch_namespaced_custom_object,
            *kube_base.OSCP, 'openstack',
            {'spec': {'glance': {'template': {'keystoneEndpoint': 'api1'}}}})
        self.assertEqual(
            'openstackcontrolplanes.core.openstack.org "openstack" is '
            'forbidden: User "%s" cannot patch resource '
            '"openstackcontrolplanes" in API group "core.openstack.org" in '
            'the namespace "openstack"' % kube_base.USER, body['message'])
        self.assertEqual({'name': 'openstack', 'group': 'core.openstack.org',
                          'kind': 'openstackcontrolplanes'}, body['details'])
        self.assertEqual({'verb': 'patch', 'apiGroup': 'core.openstack.org',
                          'resource': 'openstackcontrolplanes',
                          'name': 'openstack', 'namespace': 'openstack',
                          'code': 403, 'user': kube_base.USER},
                         self.audit()[-1])
        self.assertEqual('api0', self.cli_spec()['keystoneEndpoint'])

    def test_resource_names_and_scope_limit_the_grant(self):
        custom, apps = self.apis()
        # NOTE: the Role names the OpenStackVersion, so "list" is refused.
        self.assertApiError(403, 'Forbidden',
                            custom.list_namespaced_custom_object,
                            *kube_base.OSV)
        body = self.assertApiError(403, 'Forbidden',
                                   custom.list_cluster_custom_object,
                                   'glance.openstack.org', 'v1beta1',
                                   'glances')
        self.assertIn('at the cluster scope', body['message'])
        body = self.assertApiError(403, 'Forbidden',
                                   apps.read_namespaced_deployment,
                                   'heat-api', 'openstack')
        self.assertIn('in API group "apps"', body['message'])

    def test_kubectl_shows_the_forbidden_message(self):
        proc = self.kubectl('get', 'oscp', 'openstack')
        self.assertEqual(1, proc.returncode)
        self.assertIn('Error from server (Forbidden): '
                      'openstackcontrolplanes.core.openstack.org '
                      '"openstack" is forbidden', proc.stderr)
        # NOTE: discovery is open to any authenticated user
        # (system:discovery), whatever the Role.
        self.assertEqual(0, self.kubectl('get', 'glances').returncode)

    def cli_spec(self):
        return self.doc()['spec']

    def test_up_refuses_a_file_without_a_role(self):
        folder = tempfile.mkdtemp(prefix='gmt-bad-role-')
        self.addCleanup(shutil.rmtree, folder, ignore_errors=True)
        path = os.path.join(folder, 'sa.yaml')
        with open(path, 'w') as f:
            f.write('kind: ServiceAccount\nmetadata: {name: x}\n')
        proc = subprocess.run(base.cli_argv(
            os.path.join(folder, 'cloud'), 'up', '--kube-role', path),
            capture_output=True, text=True, timeout=120)
        self.assertEqual(22, proc.returncode, proc.stderr)
        self.assertEqual(['glance-multiapi-cloud: error: %s: no '
                          'document of kind Role' % path],
                         proc.stderr.splitlines())
