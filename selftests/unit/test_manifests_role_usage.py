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

"""Role usage from sample audit logs: used, unused, refused, uncovered."""

import json
import os

import fixtures
import testtools

from glance_multiapi_tests.results.gate import required_groups
from selftests.manifests import rbac
from selftests.manifests import role_usage
from selftests.unit import manifest_tools
from selftests.unit import synthetic_subunit

ROLE = os.path.join(manifest_tools.ETC, 'rbac.yaml')
DISRUPTIVE = os.path.join(manifest_tools.ETC, 'rbac-disruptive.yaml')
ACCOUNT = 'glance-multiapi-tests-disruptive'
USER = 'system:serviceaccount:openstack:' + ACCOUNT


def record(verb, group, resource, name='', code=200, user=USER):
    return {'verb': verb, 'apiGroup': group, 'resource': resource,
            'name': name, 'namespace': 'openstack', 'code': code,
            'user': user}


# Every request the plugin can make: the Glance and the OpenStackVersion
# by list (names unset) and by name, a GlanceAPI (one answered 404: the
# readiness check names it missing), a switchover patch, each heat
# Deployment (one answered 404: authorised all the same), the read of
# its own pod while the switchover has the deployment changed, and the
# heat-engine restart's pod list and delete.
ALL_REQUESTS = [
    record('list', 'glance.openstack.org', 'glances'),
    record('get', 'glance.openstack.org', 'glances', 'glance'),
    record('get', 'glance.openstack.org', 'glanceapis',
           'glance-api0-external'),
    record('get', 'glance.openstack.org', 'glanceapis', 'glance-x-single',
           code=404),
    record('patch', 'core.openstack.org', 'openstackcontrolplanes',
           'openstack'),
    record('get', 'glance.openstack.org', 'glances', 'glance'),
    record('list', 'core.openstack.org', 'openstackversions'),
    record('get', 'core.openstack.org', 'openstackversions', 'openstack'),
    record('get', 'apps', 'deployments', 'heat-api'),
    record('get', 'apps', 'deployments', 'heat-cfnapi'),
    record('get', 'apps', 'deployments', 'heat-engine', code=404),
    record('get', '', 'pods', 'glance-multiapi-tempest'),
    record('list', '', 'pods'),
    record('delete', '', 'pods', 'heat-engine-5d8f7c-x2x9q'),
]


def shipped_grants():
    docs = rbac.load_documents(ROLE) + rbac.load_documents(DISRUPTIVE)
    return rbac.account_grants(docs, ACCOUNT)


class UsageTest(testtools.TestCase):

    def test_every_grant_used(self):
        report = role_usage.usage(shipped_grants(), ALL_REQUESTS)
        self.assertEqual([], report.problems)
        self.assertEqual(2, report.counts[rbac.Grant(
            'glance.openstack.org', 'glances', 'get', None)])

    def test_grants_of_scenarios_that_did_not_run_may_go_unused(self):
        heat_restart = {('list', 'pods'), ('delete', 'pods'),
                        ('get', 'deployments'), ('list', 'openstackversions'),
                        ('get', 'openstackversions')}
        records = [r for r in ALL_REQUESTS
                   if (r['verb'], r['resource']) not in heat_restart]
        allow = [role_usage.parse_allowance('get:openstackversions')]
        ran = {'multiapi', 'switchover', 'grow_shrink', 'uploader'}
        report = role_usage.usage(shipped_grants(), records, allow, ran)
        self.assertEqual([], report.problems)
        table = role_usage.format_table(report, allow)
        self.assertIn('(not needed: heat_engine_restart did not run)',
                      table)
        # NOTE: not told which ran, every grant must be used; told the
        # restart ran, its grants must be.
        self.assertEqual(6, len(role_usage.usage(
            shipped_grants(), records, allow).problems))
        problems = role_usage.usage(shipped_grants(), records, allow,
                                    ran | {'heat_engine_restart'}).problems
        self.assertEqual(['never used (the Role grants more than the run '
                          'needs): %s' % label for label in (
                              'get deployments.apps/heat-api',
                              'get deployments.apps/heat-cfnapi',
                              'get deployments.apps/heat-engine',
                              'list pods', 'delete pods')], problems)

    def test_needed_by_names_shipped_grants_and_known_groups(self):
        shipped = {(g.verb, g.resource) for g in shipped_grants()}
        for key, groups in role_usage.NEEDED_BY.items():
            self.assertIn(key, shipped)
            self.assertTrue(set(groups) <= set(required_groups.GROUPS),
                            groups)

    def test_refused_request_is_a_problem(self):
        refused = record('patch', 'glance.openstack.org', 'glances',
                         'glance', code=403)
        records = ALL_REQUESTS + [refused] * 2
        self.assertEqual(
            ['refused (403) 2 time(s): patch '
             'glances.glance.openstack.org/glance'],
            role_usage.usage(shipped_grants(), records).problems)

    def test_unused_grant_is_a_problem_unless_allowed(self):
        records = [r for r in ALL_REQUESTS if r['resource'] != 'deployments']
        report = role_usage.usage(shipped_grants(), records)
        self.assertEqual(3, len(report.problems))
        self.assertEqual('never used (the Role grants more than the run '
                         'needs): get deployments.apps/heat-api',
                         report.problems[0])
        allow = [role_usage.parse_allowance('get:deployments.apps')]
        self.assertEqual([], role_usage.usage(
            shipped_grants(), records, allow).problems)

    def test_allowance_by_name(self):
        records = [r for r in ALL_REQUESTS if r['name'] != 'heat-engine']
        allow = [role_usage.parse_allowance('get:deployments/heat-engine')]
        self.assertEqual([], role_usage.usage(
            shipped_grants(), records, allow).problems)

    def test_allowance_matching_nothing_is_a_problem(self):
        allow = [role_usage.parse_allowance('delete:glances')]
        self.assertEqual(
            ['--allow-unused delete:glances matches no grant of the Role'],
            role_usage.usage(shipped_grants(), ALL_REQUESTS, allow).problems)

    def test_uncovered_request_is_a_problem(self):
        records = ALL_REQUESTS + [record('get', 'apps', 'deployments', 'nova')]
        self.assertEqual(
            ['not granted by the Role, yet made 1 time(s): get '
             'deployments.apps/nova'],
            role_usage.usage(shipped_grants(), records).problems)

    def test_unauthenticated_request_uses_nothing(self):
        records = [record('list', 'glance.openstack.org', 'glances',
                          code=401)]
        grants = [rbac.Grant('glance.openstack.org', 'glances', 'list',
                             None)]
        self.assertEqual(1, len(role_usage.usage(grants, records).problems))

    def test_wildcards_match(self):
        grant = rbac.Grant('*', '*', 'get', None)
        self.assertTrue(role_usage.matches(grant, ALL_REQUESTS[1]))
        self.assertFalse(role_usage.matches(grant, ALL_REQUESTS[0]))

    def test_named_grant_does_not_match_list(self):
        grant = rbac.Grant('glance.openstack.org', 'glances', 'list',
                           'glance')
        self.assertFalse(role_usage.matches(grant, ALL_REQUESTS[0]))

    def test_table(self):
        table = role_usage.format_table(
            role_usage.usage(shipped_grants(), ALL_REQUESTS))
        lines = table.splitlines()
        self.assertEqual(['grant', 'used'], lines[0].split())
        # NOTE: the gate Role's grants first, pods' reads last of them.
        self.assertEqual(['list', 'pods', '1'], lines[10].split())
        self.assertEqual(
            ['patch', 'openstackcontrolplanes.core.openstack.org', '1'],
            lines[11].split())

    def test_only_the_accounts_requests_count(self):
        gate = record('patch', 'core.openstack.org',
                      'openstackcontrolplanes', 'openstack',
                      user='system:serviceaccount:openstack:other')
        mine = role_usage.of_account(ALL_REQUESTS + [gate], ACCOUNT)
        self.assertEqual(ALL_REQUESTS, mine)


class AuditLogTest(testtools.TestCase):

    def test_bad_line_is_named(self):
        exc = self.assertRaises(role_usage.AuditLogError,
                                role_usage.read_audit,
                                [json.dumps(ALL_REQUESTS[0]),
                                 '{"verb": "get"}'],
                                'a.log')
        self.assertIn('a.log line 2: want an object with', str(exc))

    def test_not_json(self):
        exc = self.assertRaises(role_usage.AuditLogError,
                                role_usage.read_audit, ['', 'nope'])
        self.assertIn('line 2: not JSON', str(exc))

    def test_allowance_syntax(self):
        self.assertEqual(
            ('get', 'deployments', 'heat-api'),
            role_usage.parse_allowance('get:deployments/heat-api'))
        self.assertRaises(ValueError, role_usage.parse_allowance, 'get')


class ToolTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.state = self.useFixture(fixtures.TempDir()).path

    def write_log(self, records):
        with open(os.path.join(self.state, role_usage.AUDIT_LOG), 'w') as f:
            f.writelines(json.dumps(r) + '\n' for r in records)

    def run_tool(self, *args):
        return manifest_tools.run(
            self, 'check_role_usage', '--role', ROLE, '--role', DISRUPTIVE,
            '--service-account', ACCOUNT, *args)

    def test_clean_run_exits_0(self):
        self.write_log(ALL_REQUESTS)
        code, out, err = self.run_tool(self.state)
        self.assertEqual((0, ''), (code, err), out)
        self.assertIn('14 requests, every grant of rbac.yaml, '
                      'rbac-disruptive.yaml (account %s) used' % ACCOUNT,
                      out)

    def test_ran_spares_the_grants_of_what_did_not_run(self):
        self.write_log([r for r in ALL_REQUESTS
                        if (r['verb'], r['resource']) not in (
                            ('list', 'pods'), ('delete', 'pods'))])
        code, out, _ = self.run_tool(self.state)
        self.assertEqual(1, code, out)
        stream = synthetic_subunit.write(
            self.state, 'suite.subunit',
            ('glance_multiapi_tests.tests.scenario.test_switchover.'
             'KeystoneEndpointSwitchoverTest.test_switch', 'success'),
            ('glance_multiapi_tests.tests.scenario.test_heat_engine_restart.'
             'HeatEngineRestartTest.test_restart', 'skip'))
        code, out, err = self.run_tool('--ran', stream, self.state)
        self.assertEqual((0, ''), (code, err), out)
        self.assertIn('list pods', out)
        self.assertIn('not needed: heat_engine_restart did not run', out)
        code, _out, err = self.run_tool('--ran', self.state, self.state)
        self.assertEqual(2, code)
        self.assertIn('is a folder', err)

    def test_refused_exits_1_naming_it(self):
        self.write_log(ALL_REQUESTS + [record(
            'patch', 'glance.openstack.org', 'glances', 'glance', code=403)])
        code, out, _ = self.run_tool(self.state)
        self.assertEqual(1, code)
        self.assertIn('refused (403) 1 time(s)', out)

    def test_missing_log_means_nothing_used(self):
        code, out, _ = self.run_tool('--allow-unused', 'get:glances',
                                     self.state)
        self.assertEqual(1, code)
        self.assertIn('no Kubernetes API request recorded', out)
        self.assertEqual(11, out.count('never used'))

    def test_two_accounts_need_a_name(self):
        self.write_log(ALL_REQUESTS)
        code, _, err = manifest_tools.run(
            self, 'check_role_usage', '--role', ROLE, '--role', DISRUPTIVE,
            self.state)
        self.assertEqual(2, code)
        self.assertIn('name one with --service-account', err)

    def test_gate_account_by_default_with_rbac_yaml(self):
        # NOTE: the gate reads pods too (the image check's digests).
        reads = [dict(r, user='system:serviceaccount:x:glance-multiapi-'
                      'tests') for r in ALL_REQUESTS
                 if r['verb'] in ('get', 'list')]
        self.write_log(reads)
        code, out, err = manifest_tools.run(self, 'check_role_usage',
                                            self.state)
        self.assertEqual((0, ''), (code, err), out)

    def test_broken_log_exits_2(self):
        with open(os.path.join(self.state, role_usage.AUDIT_LOG), 'w') as f:
            f.write('nope\n')
        code, _, err = manifest_tools.run(self, 'check_role_usage',
                                          self.state)
        self.assertEqual(2, code)
        self.assertIn('line 1: not JSON', err)
