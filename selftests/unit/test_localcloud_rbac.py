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

"""The embedded cloud's reading of RBAC manifests (up --kube-role)."""

import os

import fixtures
import testtools

from glance_multiapi_cloud.kubeapi.embedded import rbac as kuberbac
from selftests.unit import manifest_tools

GATE = 'glance-multiapi-tests'
DISRUPTIVE = 'glance-multiapi-tests-disruptive'


def shipped(*names):
    texts = []
    for name in names:
        path = os.path.join(manifest_tools.ETC, name)
        with open(path) as f:
            texts.append((f.read(), name))
    return texts


class ShippedManifestsTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.rbac = kuberbac.parse_rbac(
            shipped('rbac.yaml', 'rbac-disruptive.yaml'), 'osp')

    def allows(self, account, verb, group, resource, name=None):
        return kuberbac.allows(kuberbac.account_rules(self.rbac, account),
                               verb, group, resource, name)

    def test_each_token_secret_names_its_account(self):
        self.assertEqual({'glance-multiapi-tests-token': GATE,
                          'glance-multiapi-tests-disruptive-token':
                              DISRUPTIVE}, self.rbac.token_secrets)

    def test_gate_account_only_reads(self):
        self.assertTrue(self.allows(GATE, 'list', 'glance.openstack.org',
                                    'glances'))
        self.assertFalse(self.allows(GATE, 'patch', 'core.openstack.org',
                                     'openstackcontrolplanes', 'any'))
        self.assertFalse(self.allows(GATE, 'delete', '', 'pods', 'p'))

    def test_disruptive_account_has_both_roles(self):
        self.assertTrue(self.allows(DISRUPTIVE, 'list',
                                    'glance.openstack.org', 'glances'))
        # NOTE: any name: one control plane per namespace.
        self.assertTrue(self.allows(DISRUPTIVE, 'patch',
                                    'core.openstack.org',
                                    'openstackcontrolplanes', 'my-osp'))
        self.assertTrue(self.allows(DISRUPTIVE, 'delete', '', 'pods',
                                    'heat-engine-abc'))

    def test_two_bound_accounts_need_a_choice(self):
        exc = self.assertRaises(kuberbac.RoleError,
                                kuberbac.default_account, self.rbac)
        self.assertIn('bind 2 service accounts', str(exc))
        self.assertEqual(GATE, kuberbac.default_account(
            kuberbac.parse_rbac(shipped('rbac.yaml'), 'osp')))

    def test_subject_in_another_namespace_is_not_bound(self):
        text = shipped('rbac.yaml')[0][0].replace(
            '    name: glance-multiapi-tests\n',
            '    name: glance-multiapi-tests\n    namespace: elsewhere\n')
        rbac = kuberbac.parse_rbac([(text, 'r.yaml')], 'osp')
        self.assertEqual([], kuberbac.account_rules(rbac, GATE))
        rbac = kuberbac.parse_rbac([(text, 'r.yaml')], 'elsewhere')
        self.assertNotEqual([], kuberbac.account_rules(rbac, GATE))


class MalformedTest(testtools.TestCase):

    def refused(self, text):
        exc = self.assertRaises(kuberbac.RoleError, kuberbac.parse_rbac,
                                [(text, 'x.yaml')], 'osp')
        self.assertNotIn('\n', str(exc))
        return str(exc)

    def test_binding_to_an_undeclared_role(self):
        self.assertIn('names Role nope', self.refused(
            'kind: Role\nmetadata: {name: r}\nrules: []\n---\n'
            'kind: RoleBinding\nmetadata: {name: b}\n'
            'roleRef: {kind: Role, name: nope}\n'))

    def test_role_twice_and_no_role(self):
        self.assertIn('declared twice', self.refused(
            'kind: Role\nmetadata: {name: r}\n---\n'
            'kind: Role\nmetadata: {name: r}\n'))
        self.assertIn('no document of kind Role', self.refused(
            'kind: ServiceAccount\nmetadata: {name: a}\n'))

    def test_not_mappings(self):
        self.assertIn('document 1 is not a mapping', self.refused('- 1\n'))
        self.assertIn('not valid YAML', self.refused('a: [\n'))
        self.assertIn('without metadata.name', self.refused(
            'kind: Role\nrules: []\n'))

    def test_bare_role_binds_whoever_uses_the_cloud(self):
        rbac = kuberbac.parse_rbac([(
            'kind: Role\nmetadata: {name: r}\nrules:\n- apiGroups: [""]\n'
            '  resources: [pods]\n  verbs: [get]\n', 'r.yaml')], 'osp')
        self.assertEqual(1, len(kuberbac.account_rules(rbac, 'anyone')))
        self.assertIsNone(kuberbac.default_account(rbac))


class KeptManifestsTest(testtools.TestCase):

    def test_token_a_user_wrote_is_not_kept(self):
        from glance_multiapi_cloud.components import kubeapi
        from glance_multiapi_cloud import state as state_mod
        text = shipped('rbac.yaml')[0][0].replace(
            'kubernetes.io/service-account.name: glance-multiapi-tests\n',
            'kubernetes.io/service-account.name: glance-multiapi-tests\n'
            'stringData:\n  token: Pl4nted-Token\n', 1)
        self.assertIn('Pl4nted-Token', text)
        folder = self.useFixture(fixtures.TempDir()).path
        state = state_mod.State(folder)
        kubeapi.install_rbac(state, [(text, 'rbac.yaml')])
        with open(state.path(kuberbac.ROLE_FILE)) as f:
            kept = f.read()
        self.assertNotIn('Pl4nted-Token', kept)
        self.assertEqual(
            {'glance-multiapi-tests-token': GATE},
            kuberbac.parse_rbac([(kept, 'kept')], 'osp').token_secrets)
