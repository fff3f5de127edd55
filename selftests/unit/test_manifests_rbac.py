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

"""rbac.yaml's shape checks and the Role's rules as single grants."""

import copy
import os

import fixtures
import testtools

from selftests.manifests import rbac
from selftests.unit import manifest_tools

SHIPPED = os.path.join(manifest_tools.ETC, 'rbac.yaml')
DISRUPTIVE = os.path.join(manifest_tools.ETC, 'rbac-disruptive.yaml')
GATE_ACCOUNT = 'glance-multiapi-tests'
DISRUPTIVE_ACCOUNT = 'glance-multiapi-tests-disruptive'
READS = [
    'get glances.glance.openstack.org',
    'list glances.glance.openstack.org',
    'get glanceapis.glance.openstack.org',
    'get openstackversions.core.openstack.org',
    'list openstackversions.core.openstack.org',
    'get deployments.apps/heat-api',
    'get deployments.apps/heat-cfnapi',
    'get deployments.apps/heat-engine',
    'get pods',
    'list pods',
]


def shipped():
    return rbac.load_documents(SHIPPED)


def both():
    return shipped() + rbac.load_documents(DISRUPTIVE)


def role_of(docs):
    return rbac.roles(docs)[0]


class ShippedRbacTest(testtools.TestCase):

    def test_shape_is_clean(self):
        self.assertEqual([], rbac.check_shape(shipped()))
        self.assertEqual([], rbac.check_shape(
            rbac.load_documents(DISRUPTIVE),
            known_roles=[GATE_ACCOUNT]))

    def test_gate_account_only_reads(self):
        labels = [rbac.grant_label(g) for g in rbac.account_grants(
            both(), GATE_ACCOUNT)]
        self.assertEqual(READS, labels)

    def test_disruptive_account_reads_and_changes(self):
        labels = [rbac.grant_label(g) for g in rbac.account_grants(
            both(), DISRUPTIVE_ACCOUNT)]
        self.assertEqual(READS + [
            'patch openstackcontrolplanes.core.openstack.org',
            'delete pods',
        ], labels)

    def test_manifests_name_no_namespace(self):
        for doc in both():
            self.assertNotIn('namespace', doc['metadata'])
            for subject in doc.get('subjects') or []:
                self.assertNotIn('namespace', subject)

    def test_disruptive_binding_needs_the_gate_role(self):
        problems = rbac.check_shape(rbac.load_documents(DISRUPTIVE))
        self.assertEqual(1, len(problems), problems)
        self.assertIn('roleRef', problems[0])


class ShapeProblemsTest(testtools.TestCase):

    def problems(self, change):
        docs = copy.deepcopy(shipped())
        change(docs)
        return rbac.check_shape(docs)

    def rule(self, docs, index):
        return role_of(docs)['rules'][index]

    def test_wildcard_verb(self):
        problems = self.problems(
            lambda d: self.rule(d, 0).update(verbs=['*']))
        self.assertEqual(['Role glance-multiapi-tests rules[0]: "*" in verbs '
                          'grants more than least privilege allows'],
                         problems)

    def test_unknown_verb(self):
        problems = self.problems(
            lambda d: self.rule(d, 0).update(verbs=['get', 'read']))
        self.assertEqual(["Role glance-multiapi-tests rules[0]: 'read' is "
                          "not a Kubernetes verb"], problems)

    def test_list_with_resource_names(self):
        problems = self.problems(
            lambda d: self.rule(d, 0).update(resourceNames=['glance']))
        self.assertEqual(1, len(problems))
        self.assertIn("'list' cannot be limited by resourceNames", problems[0])

    def test_wrong_api_group(self):
        problems = self.problems(
            lambda d: self.rule(d, 3).update(apiGroups=['extensions']))
        self.assertIn("deployments are in API group 'apps'", problems[0])

    def test_binding_to_another_role_and_account(self):
        def change(docs):
            binding = [d for d in docs if d['kind'] == 'RoleBinding'][0]
            binding['roleRef']['name'] = 'admin'
            binding['subjects'][0]['name'] = 'default'
        problems = self.problems(change)
        self.assertEqual(3, len(problems), problems)
        self.assertIn('roleRef', problems[0])
        self.assertIn('subject', problems[1])
        self.assertIn('no RoleBinding binds it', problems[2])

    def test_token_for_another_account(self):
        def change(docs):
            secret = [d for d in docs if d['kind'] == 'Secret'][0]
            secret['metadata']['annotations'][
                'kubernetes.io/service-account.name'] = 'default'
        self.assertIn("is 'default', want one of glance-multiapi-tests",
                      self.problems(change)[0])

    def test_missing_role_and_foreign_kind(self):
        def change(docs):
            docs[:] = [d for d in docs if d['kind'] != 'Role']
            docs.append({'apiVersion': 'v1', 'kind': 'Pod',
                         'metadata': {'name': 'p'}})
        problems = self.problems(change)
        self.assertIn('Pod p: kind not expected', problems[0])
        self.assertIn('want a Role, found none', problems[1])

    def test_namespace_set(self):
        problems = self.problems(
            lambda d: d[0]['metadata'].update(namespace='openstack'))
        self.assertIn('metadata.namespace is set', problems[-1])

    def test_subject_namespace_set(self):
        def change(docs):
            binding = [d for d in docs if d['kind'] == 'RoleBinding'][0]
            binding['subjects'][0]['namespace'] = 'openstack'
        self.assertIn('names a namespace', self.problems(change)[0])


class GrantsTest(testtools.TestCase):

    def test_rule_expands_over_groups_resources_verbs_names(self):
        role = {'rules': [{'apiGroups': ['a', 'b'], 'resources': ['r'],
                           'verbs': ['get', 'patch'],
                           'resourceNames': ['x', 'y']}]}
        self.assertEqual(8, len(rbac.grants(role)))
        self.assertIn(rbac.Grant('b', 'r', 'patch', 'y'), rbac.grants(role))

    def test_core_group_label(self):
        self.assertEqual('get pods/p',
                         rbac.grant_label(rbac.Grant('', 'pods', 'get', 'p')))


class LoadTest(testtools.TestCase):

    def test_not_yaml_is_one_line(self):
        path = self.useFixture(fixtures.TempDir()).join('r.yaml')
        with open(path, 'w') as stream:
            stream.write('a: [\n')
        exc = self.assertRaises(rbac.ManifestError, rbac.load_documents,
                                path)
        self.assertNotIn('\n', str(exc))
        self.assertIn('not YAML', str(exc))
