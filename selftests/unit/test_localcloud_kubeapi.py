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

"""The embedded Kubernetes API without a network: RBAC rules, faults and
the request handling on a state dir (its objects:
test_localcloud_kubeobjects.py; the stand-in it runs on:
test_kubeapi_standin.py)."""

import json
import os
import shutil
import tempfile

import testtools

from glance_multiapi_cloud.kubeapi import request as kube_request
from glance_multiapi_cloud import errors
from glance_multiapi_cloud import faults
from glance_multiapi_cloud.kubeapi.embedded import objects as kubeobjects
from glance_multiapi_cloud.kubeapi.embedded import rbac as kuberbac
from glance_multiapi_cloud.kubeapi.embedded import server as kubeapi_server
from selftests.unit.cloud_records import SPEC
from selftests.unit.cloud_records import state_json
from selftests.unit.cloud_records import TOKEN

ROLE = """---
kind: ServiceAccount
metadata: {name: glance-multiapi-tests}
---
kind: Role
metadata: {name: r}
rules:
- apiGroups: [glance.openstack.org]
  resources: [glances]
  verbs: [get, list]
- apiGroups: [apps]
  resources: [deployments]
  resourceNames: [heat-api]
  verbs: [get]
"""


class RbacTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.rules = kuberbac.parse_role(ROLE, 'role.yaml')

    def test_only_role_documents_count(self):
        self.assertEqual(2, len(self.rules))
        self.assertRaises(kuberbac.RoleError, kuberbac.parse_role,
                          'kind: ServiceAccount\n', 'sa.yaml')
        self.assertRaises(kuberbac.RoleError, kuberbac.parse_role,
                          'kind: Role\nrules: [{verbs: get}]\n', 'r.yaml')
        self.assertRaises(kuberbac.RoleError, kuberbac.parse_role,
                          'kind: [\n', 'r.yaml')

    def test_rules_match_verb_group_resource(self):
        allows = kuberbac.allows
        self.assertTrue(allows(self.rules, 'get', 'glance.openstack.org',
                               'glances', 'glance'))
        self.assertTrue(allows(self.rules, 'list', 'glance.openstack.org',
                               'glances', None))
        self.assertFalse(allows(self.rules, 'patch', 'glance.openstack.org',
                                'glances', 'glance'))
        self.assertFalse(allows(self.rules, 'get', 'core.openstack.org',
                                'glances', 'glance'))

    def test_resource_names_need_a_named_request(self):
        allows = kuberbac.allows
        self.assertTrue(allows(self.rules, 'get', 'apps', 'deployments',
                               'heat-api'))
        self.assertFalse(allows(self.rules, 'get', 'apps', 'deployments',
                                'heat-engine'))
        self.assertFalse(allows(self.rules, 'list', 'apps', 'deployments',
                                None))

    def test_wildcards(self):
        rules = [{'apiGroups': ['*'], 'resources': ['*'], 'verbs': ['*'],
                  'resourceNames': []}]
        self.assertTrue(kuberbac.allows(rules, 'delete', '', 'configmaps',
                                        'x'))


class FaultsTest(testtools.TestCase):

    def test_kube_forbid(self):
        active = faults.Faults([['kube-forbid', 'patch:glances']], SPEC)
        self.assertFalse(active.kube_allows('patch', 'glances'))
        self.assertTrue(active.kube_allows('get', 'glances'))
        self.assertTrue(active.kube_allows('patch', 'openstackcontrol'
                                                    'planes'))
        self.assertRaises(errors.Invalid, faults.Faults,
                          [['kube-forbid', 'patch']], SPEC)

    def test_heat_image_drift(self):
        active = faults.Faults([['heat-image-drift', 'heat-engine']], SPEC)
        self.assertTrue(active.image_drifts('heat-engine'))
        self.assertFalse(active.image_drifts('heat-api'))
        self.assertRaises(errors.Invalid, faults.Faults,
                          [['heat-image-drift', 'api0']], SPEC)
        self.assertRaises(errors.Invalid, faults.Faults,
                          [['heat-image-drift', 'heat-api']], SPEC,
                          with_heat=False)

    def test_pod_digest_drift_and_stuck_rollout(self):
        active = faults.Faults([['pod-digest-drift', 'heat-cfnapi'],
                                ['heat-rollout-stuck', 'heat-engine']], SPEC)
        self.assertEqual((False, True, False), tuple(
            active.pod_digest_drifts(name)
            for name in ('heat-api', 'heat-cfnapi', 'heat-engine')))
        self.assertEqual((False, False, True), tuple(
            active.rollout_stuck(name)
            for name in ('heat-api', 'heat-cfnapi', 'heat-engine')))
        for name in ('pod-digest-drift', 'heat-rollout-stuck'):
            self.assertRaises(errors.Invalid, faults.Faults,
                              [[name, 'heatAPIImage']], SPEC)

    def test_second_build_copies_the_api_image_elsewhere(self):
        active = faults.Faults([['second-build', 'heatCfnapiImage']], SPEC)
        deployed = {'heatAPIImage': 'registry.redhat.io/rhoso/openstack-'
                                    'heat-api-rhel9@sha256:' + 'a' * 64}
        other = active.custom_image('heatCfnapiImage', 'x', deployed)
        self.assertRegex(other, r'^registry\.redhat\.io/second-build/'
                                r'openstack-heat-api-rhel9@sha256:'
                                r'[0-9a-f]{64}$')
        self.assertNotIn('a' * 64, other)
        self.assertIsNone(active.custom_image('heatEngineImage', 'x',
                                              deployed))
        self.assertRaises(errors.Invalid, faults.Faults,
                          [['second-build', 'heatAPIImage']], SPEC)

    def test_described_in_help(self):
        text = faults.describe()
        self.assertIn('kube-forbid=VERB:RESOURCE', text)
        self.assertIn('heat-image-drift=DEPLOYMENT', text)


class ServerTest(testtools.TestCase):
    """kubeapi_server.Api on a state dir, without HTTP."""

    def setUp(self):
        super().setUp()
        self.root = tempfile.mkdtemp(prefix='gmt-unit-kubeapi-')
        self.addCleanup(shutil.rmtree, self.root, ignore_errors=True)
        self.write_state(state_json(heat=True))
        self.api = kubeapi_server.Api(self.root, '127.0.0.1:1')

    def write_state(self, data):
        with open(os.path.join(self.root, 'state.json'), 'w') as f:
            json.dump(data, f)

    def call(self, method, path, token=TOKEN, body=b'', **headers):
        if token:
            headers['Authorization'] = 'Bearer ' + token
        return self.api.handle(method, path, headers, body)

    def audit(self):
        with open(os.path.join(self.root, kuberbac.AUDIT_LOG)) as f:
            return [json.loads(line) for line in f]

    def test_token_is_required_everywhere_but_health(self):
        self.assertEqual(200, self.call('GET', '/healthz', token=None)[0])
        for path in ('/apis', '/api/v1/namespaces/openstack/configmaps',
                     '/no/such/path'):
            code, body = self.call('GET', path, token='wrong')
            self.assertEqual((401, 'Unauthorized'), (code, body['reason']))

    def test_get_list_and_not_found(self):
        base = '/apis/glance.openstack.org/v1beta1/namespaces/openstack/'
        code, body = self.call('GET', base + 'glances/glance')
        self.assertEqual((200, 'Glance', 'api0'), (
            code, body['kind'], body['spec']['keystoneEndpoint']))
        code, body = self.call('GET', base + 'glances')
        self.assertEqual((200, 'GlanceList', 1), (code, body['kind'],
                                                  len(body['items'])))
        code, body = self.call('GET', base + 'glances/nope')
        self.assertEqual((404, 'NotFound'), (code, body['reason']))
        code, body = self.call(
            'GET', '/apis/glance.openstack.org/v1beta1/glances')
        self.assertEqual(200, code)
        self.assertEqual([('get', 200), ('list', 200), ('get', 404),
                          ('list', 200)],
                         [(r['verb'], r['code']) for r in self.audit()])
        self.assertEqual('', self.audit()[-1]['namespace'])
        # NOTE: a namespaced object has no cluster-wide path.
        code, body = self.call(
            'GET', '/apis/glance.openstack.org/v1beta1/glances/glance')
        self.assertEqual((404, 'NotFound'), (code, body['reason']))

    def test_an_unexpected_error_is_a_500_status(self):
        self.patch(self.api, 'serve', self._boom)
        code, body = self.call(
            'GET', '/apis/glance.openstack.org/v1beta1/namespaces/'
            'openstack/glances/glance')
        self.assertEqual((500, 'InternalError'), (code, body['reason']))
        self.assertIn('ValueError: boom', body['message'])

    @staticmethod
    def _boom(*args):
        raise ValueError('boom')

    def test_verbs_and_media_types(self):
        base = '/apis/core.openstack.org/v1beta1/namespaces/openstack/'
        code, body = self.call('DELETE', base + 'openstackversions/'
                               'openstack')
        self.assertEqual((405, 'MethodNotAllowed'), (code, body['reason']))
        code, body = self.call('PATCH', base + 'openstackcontrolplanes/'
                               'openstack', body=b'[]', **{
                                   'Content-Type':
                                   'application/json-patch+json'})
        self.assertEqual((415, 'UnsupportedMediaType'), (code,
                                                         body['reason']))
        code, body = self.call('PATCH', base + 'openstackcontrolplanes/'
                               'openstack', body=b'{', **{
                                   'Content-Type': kube_request.MERGE_PATCH
                               })
        self.assertEqual(400, code)

    def test_direct_glance_patch_is_answered_and_not_kept(self):
        path = ('/apis/glance.openstack.org/v1beta1/namespaces/openstack/'
                'glances/glance')
        headers = {'Content-Type': kube_request.MERGE_PATCH}
        code, body = self.call('PATCH', path, body=json.dumps(
            {'spec': {'keystoneEndpoint': 'api1'}}).encode(), **headers)
        self.assertEqual((200, 'api1'), (code,
                                         body['spec']['keystoneEndpoint']))
        self.assertEqual('api0', self.call('GET', path)[1]['spec'][
            'keystoneEndpoint'])
        code, body = self.call('PATCH', path, body=json.dumps(
            {'spec': {'keystoneEndpoint': 'zz'}}).encode(), **headers)
        self.assertEqual((422, 'Invalid'), (code, body['reason']))

    def test_role_and_fault_forbid(self):
        data = state_json(heat=True)
        data['kube']['rules'] = {kubeobjects.ACCOUNT: kuberbac.parse_role(
            ROLE, 'role.yaml')}
        self.write_state(data)
        apps = '/apis/apps/v1/namespaces/openstack/deployments/'
        self.assertEqual(200, self.call('GET', apps + 'heat-api')[0])
        code, body = self.call('GET', apps + 'heat-engine')
        self.assertEqual((403, 'Forbidden'), (code, body['reason']))
        # NOTE: discovery stays open to the authenticated user.
        self.assertEqual(200, self.call('GET', '/apis/apps/v1')[0])
        self.write_state(state_json(heat=True, faults_=[
            ('kube-forbid', 'get:deployments')]))
        self.assertEqual(403, self.call('GET', apps + 'heat-api')[0])
        self.assertEqual([200, 403, 403],
                         [r['code'] for r in self.audit()])

    def test_table_when_asked(self):
        code, body = self.call(
            'GET', '/apis/glance.openstack.org/v1beta1/namespaces/openstack/'
            'glances', Accept='application/json;as=Table;v=v1;'
            'g=meta.k8s.io,application/json')
        self.assertEqual((200, 'Table'), (code, body['kind']))
        self.assertEqual('glance', body['rows'][0]['cells'][0])
