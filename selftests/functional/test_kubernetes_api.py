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

"""The plugin's Kubernetes way against the embedded cloud's Kubernetes API.

Discovery and the spec patch are driven in-process (the code the bases
call) on the shared cloud; the refused patch is driven through tempest,
to show that what a CI reader sees is the one line. The running-image
test needs heat's Deployments: test_kubeapi_heat runs it on the heat
cloud.
"""

import json
import os
import types

from glance_multiapi_tests import deployment_access
from glance_multiapi_tests.multiapi import discovery
from selftests.functional import base

_T = 'glance_multiapi_tests.tests.'
SWITCHOVER = _T + 'scenario.test_switchover.KeystoneEndpointSwitchoverTest.' \
    'test_switch_keystone_endpoint'


def _opts(state_dir, **values):
    """[glance_multiapi] as the cloud's tempest.conf sets it, and values."""
    opts = dict(
        kubernetes_api=True,
        kubeconfig=os.path.join(state_dir, 'kubeconfig'),
        kubernetes_context=None, namespace='openstack', glance_name=None,
        patch_object='openstackcontrolplane', controlplane_name=None,
        kubernetes_timeout=30.0, discovery_command=None, api_names=[],
        api_types={}, public_endpoints={}, internal_endpoints={},
        default_stores={}, keystone_endpoint=None)
    opts.update(values)
    return types.SimpleNamespace(**opts)


class KubernetesApiTest(base.CloudTestCase):
    """Discovery and the spec patch through the Kubernetes API."""

    def opts(self, **values):
        return _opts(self.state_dir, **values)

    def access(self, **values):
        """The access a test class of these options would build."""
        found = deployment_access.choose(self.opts(**values))
        self.addCleanup(found.close)
        return found

    def audit(self):
        with open(os.path.join(self.state_dir, 'kubeapi-audit.log')) as f:
            return [json.loads(line) for line in f if line.strip()]

    def cli_spec(self):
        return self.doc()['spec']

    def test_discover_and_patch_the_control_plane(self):
        way = self.access()
        found = way.fetch()
        self.assertTrue(found.source.startswith(
            'Glance openstack/glance via the Kubernetes API at https://'
            '127.0.0.1:'), found.source)
        original = found.keystone_endpoint
        target = [api.name for api in found.non_edge()
                  if api.name != original][0]
        self.addCleanup(way.patch_spec, {'keystoneEndpoint': original})
        before = len(self.audit())
        done = way.patch_spec({'keystoneEndpoint': target})
        self.assertIn('OpenStackControlPlane openstack/openstack', done)
        self.assertEqual(target, self.cli_spec()['keystoneEndpoint'])
        self.assertEqual(target, way.fetch().keystone_endpoint)
        calls = [(a['verb'], a['resource'], a['name'], a['code'])
                 for a in self.audit()[before:]]
        self.assertIn(('patch', 'openstackcontrolplanes', 'openstack', 200),
                      calls)
        self.assertEqual([], [c for c in calls if c[3] != 200])

    def test_unknown_glance_is_one_line(self):
        exc = self.assertRaises(discovery.DiscoveryError,
                                self.access(glance_name='nope').fetch)
        self.assertIn('get glances.glance.openstack.org "nope" in namespace '
                      '"openstack": 404 Not Found: the object is missing',
                      str(exc))
        self.assertNotIn('\n', str(exc))

    def test_forbidden_patch_fails_the_switchover_in_one_line(self):
        with self.fault('kube-forbid=patch:openstackcontrolplanes'):
            results = self.run_tempest(SWITCHOVER.replace('.', r'\.'))
        self.assertOutcome(
            results, SWITCHOVER, 'fail',
            'patch openstackcontrolplanes.core.openstack.org "openstack" in '
            'namespace "openstack": 403 Forbidden: ',
            'lacks "patch" on "openstackcontrolplanes" in API group '
            '"core.openstack.org"')
