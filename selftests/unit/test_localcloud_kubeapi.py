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

"""The embedded Kubernetes API without a network: RBAC rules, the
objects and the request handling on a state dir (the stand-in it runs
on: test_kubeapi_standin.py)."""

import copy
import datetime
import json
import os
import shutil
import tempfile
import uuid

import testtools

from glance_multiapi_cloud.kubeapi import request as kube_request
from glance_multiapi_cloud.kubeapi import tables
from glance_multiapi_cloud import deployed
from glance_multiapi_cloud import errors
from glance_multiapi_cloud import faults
from glance_multiapi_cloud import kubeglance
from glance_multiapi_cloud import kubeheat
from glance_multiapi_cloud import kubeobjects
from glance_multiapi_cloud import kuberbac
from glance_multiapi_cloud import record as record_mod
from glance_multiapi_cloud.runtime import kubeapi_server

SPEC = {'keystoneEndpoint': 'api0', 'glanceAPIs': {
    name: {'type': 'split', 'replicas': 1, 'customServiceConfig': (
        '[DEFAULT]\nenabled_backends = %s:file,x:file\n[glance_store]\n'
        'default_backend = %s\n' % (store, store))}
    for name, store in (('api0', 'ceph0'), ('api1', 'ceph1'))}}
TOKEN = 'the-token'
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


class FakeFaults(object):
    """What world() asks of the faults."""

    def __init__(self, drifted=(), versions=None, custom=None):
        self.drifted = drifted
        self.versions = versions or {}
        self.custom = custom or {}

    def custom_image(self, field, default):
        return self.custom.get(field)

    def image_drifts(self, deployment):
        return deployment in self.drifted

    def version_image(self, field, reference):
        return self.versions.get(field, reference)


def state_json(heat=False, faults_=()):
    return {'spec': copy.deepcopy(SPEC), 'faults': [list(f) for f in faults_],
            'options': {'heat': heat}, 'ports': {'registry': 20001},
            'status': {'apiEndpoint': {'api0-public': 'http://x:1'}},
            'kube': {'token': TOKEN, 'tokens': {TOKEN: kubeobjects.ACCOUNT},
                     'rules': None, 'uid_seed': str(uuid.uuid4()),
                     'created': '2026-01-01T00:00:00Z', 'generation': 1,
                     'heat_digest': 'ab' * 32}}


def state_data(heat=False, faults_=()):
    return record_mod.Record.from_json(state_json(heat, faults_))


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


class ObjectsTest(testtools.TestCase):

    def document(self, data):
        passed = deployed.of_record(data)
        answering = {'api0': True, 'api1': False}
        return {'apiVersion': 'glance.openstack.org/v1beta1',
                'kind': 'Glance', 'metadata': {}, 'spec': data.spec,
                'status': dict(
                    data.status,
                    glanceAPIReadyCounts=kubeglance.ready_counts(
                        passed, answering),
                    conditions=kubeglance.glance_conditions(
                        passed, answering, 1767225600.0))}

    def test_glance_is_owned_by_the_control_plane(self):
        data = state_data()
        glance = kubeobjects.glance(data, self.document(data))
        oscp = kubeobjects.controlplane(data)
        owner, = glance['metadata']['ownerReferences']
        self.assertEqual((oscp['metadata']['uid'], 'openstack', True, True),
                         (owner['uid'], owner['name'], owner['controller'],
                          owner['blockOwnerDeletion']))
        self.assertEqual(SPEC, oscp['spec']['glance']['template'])
        # NOTE: api1, the last API, does not answer: its GlanceAPIReady
        # is the Glance CR's, and so Ready.
        ready = glance['status']['conditions'][0]
        self.assertEqual(('Ready', 'False', 'Requested', 'Info',
                          'Deployment in progress',
                          '2026-01-01T00:00:00Z'),
                         tuple(ready[k] for k in (
                             'type', 'status', 'reason', 'severity',
                             'message', 'lastTransitionTime')))

    def test_glanceapis_as_the_controller_makes_them(self):
        data = state_data()
        data.status['apiEndpoint'].update({
            'api0-internal': 'http://x:2', 'api1-public': 'http://x:3',
            'api1-internal': 'http://x:4'})
        world = kubeobjects.world(data, self.document(data))
        found = {o['metadata']['name']: o for o in world['glanceapis']}
        self.assertEqual(['glance-api0-external', 'glance-api0-internal',
                          'glance-api1-external', 'glance-api1-internal'],
                         sorted(found))
        external = found['glance-api0-external']
        self.assertEqual({'keystoneEndpoint': 'true',
                          'glance.openstack.org/wsgi': 'true'},
                         external['metadata']['annotations'])
        self.assertEqual({'service': 'glance', 'api-name': 'api0'},
                         external['metadata']['labels'])
        owner, = external['metadata']['ownerReferences']
        self.assertEqual(('Glance', 'glance'), (owner['kind'],
                                                owner['name']))
        self.assertEqual(world['glances'][0]['metadata']['uid'],
                         owner['uid'])
        self.assertEqual(('external', 1, {'public': 'http://x:1'}),
                         (external['spec']['apiType'],
                          external['status']['readyCount'],
                          external['status']['apiEndpoint']))
        self.assertEqual({'internal': 'http://x:4'},
                         found['glance-api1-internal']['status'][
                             'apiEndpoint'])
        self.assertNotIn('keystoneEndpoint', found['glance-api1-internal'][
            'metadata']['annotations'])
        ready = {name: (o['status']['conditions'][0]['status'],
                        o['status']['conditions'][0]['message'])
                 for name, o in found.items()}
        self.assertEqual(('True', 'Setup complete'),
                         ready['glance-api0-internal'])
        self.assertEqual(('False', 'Deployment in progress'),
                         ready['glance-api1-external'])

    def test_uid_stable_resource_version_follows_spec(self):
        data = state_data()
        first = kubeobjects.glance(data, self.document(data))
        again = kubeobjects.glance(data, self.document(data))
        self.assertEqual(first['metadata'], again['metadata'])
        data.spec['keystoneEndpoint'] = 'api1'
        changed = kubeobjects.glance(data, self.document(data))
        self.assertEqual(first['metadata']['uid'],
                         changed['metadata']['uid'])
        self.assertNotEqual(first['metadata']['resourceVersion'],
                            changed['metadata']['resourceVersion'])
        self.assertTrue(changed['metadata']['resourceVersion'].isdigit())

    def test_heat_objects_only_with_heat(self):
        data = state_data()
        world = kubeobjects.world(data, self.document(data))
        self.assertEqual([], world['deployments'])
        self.assertEqual({}, world['openstackversions'][0]['status'][
            'containerImages'])

    def images(self, world):
        deployments = {
            d['metadata']['name']:
            d['spec']['template']['spec']['containers'][0]['image']
            for d in world['deployments']}
        version = world['openstackversions'][0]
        return (deployments, version['status']['containerImages'],
                version['spec']['customContainerImages'])

    def test_deployments_run_their_layout_image_unless_drifted(self):
        data = state_data(heat=True)
        pods = {'heat-api': [kubeheat.PodFact('heat-api-x-1', 100.0, True,
                                              None, 0, None)],
                'heat-engine': [kubeheat.PodFact('heat-engine-x-2', 100.0,
                                                 True, None, 0, None)]}
        world = kubeobjects.world(data, self.document(data), pods, 105.0,
                                  FakeFaults(drifted=['heat-cfnapi']))
        images, status, custom = self.images(world)
        # NOTE: the default layout, s2i: api and cfn from one image.
        api = status['heatAPIImage']
        engine = status['heatEngineImage']
        self.assertIn('127.0.0.1:20001/podified/openstack-heat-api@sha256:',
                      api)
        self.assertIn('/podified/openstack-heat-engine@sha256:', engine)
        self.assertEqual(api, status['heatCfnapiImage'])
        self.assertNotEqual(api.split('@')[1], engine.split('@')[1])
        self.assertEqual({}, custom)
        self.assertEqual(api, images['heat-api'])
        self.assertEqual(engine, images['heat-engine'])
        self.assertNotEqual(api, images['heat-cfnapi'])
        self.assertEqual(api.split('@')[0],
                         images['heat-cfnapi'].split('@')[0])
        wanted = api
        ready = {d['metadata']['name']: d['status'].get('readyReplicas')
                 for d in world['deployments']}
        # NOTE: heat-engine's probe passes 10 s after its start only.
        self.assertEqual({'heat-api': 1, 'heat-cfnapi': None,
                          'heat-engine': None}, ready)
        pod_images = {p['metadata']['name']:
                      p['spec']['containers'][0]['image']
                      for p in world['pods']}
        self.assertEqual({'heat-api-x-1': wanted,
                          'heat-engine-x-2': engine}, pod_images)

    def test_every_layout_declares_its_images(self):
        for layout, per_image in (('tcib', 3), ('s2i', 2), ('one', 1)):
            data = state_data(heat=True)
            data.options.heat_layout = layout
            world = kubeobjects.world(data, self.document(data), {}, 105.0,
                                      FakeFaults())
            images, status, _custom = self.images(world)
            self.assertEqual(per_image, len(set(status.values())), layout)
            self.assertEqual(sorted(status.values()),
                             sorted(images.values()), layout)

    def test_partial_override_is_deployed_and_shown(self):
        data = state_data(heat=True)
        override = '127.0.0.1:1/podified/openstack-heat-api@sha256:' + (
            'cd' * 32)
        world = kubeobjects.world(
            data, self.document(data), {}, 105.0,
            FakeFaults(custom={'heatAPIImage': override}))
        images, status, custom = self.images(world)
        self.assertEqual({'heatAPIImage': override}, custom)
        self.assertEqual(override, status['heatAPIImage'])
        self.assertEqual(override, images['heat-api'])
        self.assertNotEqual(override, status['heatCfnapiImage'])

    def test_template_patch(self):
        patch = kubeobjects.template_patch(
            {'spec': {'glance': {'template': {'keystoneEndpoint': 'a'}}}})
        self.assertEqual({'keystoneEndpoint': 'a'}, patch)
        self.assertIsNone(kubeobjects.template_patch({'metadata': {}}))
        self.assertIsNone(kubeobjects.template_patch(
            {'spec': {'glance': {'enabled': True}}}))
        for bad in ([], {'spec': {'glance': {'enabled': False}}},
                    {'spec': {'glance': {'template': None}}},
                    {'spec': {'glance': 'x'}}):
            self.assertRaises(kubeobjects.PatchError,
                              kubeobjects.template_patch, bad)

    def test_discovery_lists_every_group(self):
        names = [g['name'] for g in
                 kubeobjects.SERVED.api_group_list()['groups']]
        self.assertEqual(['glance.openstack.org', 'core.openstack.org',
                          'apps'], names)
        listing = kubeobjects.SERVED.resource_list('glance.openstack.org',
                                                   'v1beta1')
        self.assertEqual('glance.openstack.org/v1beta1',
                         listing['groupVersion'])
        self.assertIsNone(kubeobjects.SERVED.resource_list('apps', 'v2'))

    def test_table_columns(self):
        data = state_data(heat=True)
        pods = {'heat-api': [kubeheat.PodFact(
            'heat-api-x-1', None, False, None, 0, 'CrashLoopBackOff')]}
        deps = kubeobjects.world(data, self.document(data), pods,
                                 100.0)['deployments']
        res = kubeobjects.SERVED.find('apps', 'v1', 'deployments')
        now = datetime.datetime(2026, 1, 1, 0, 5, tzinfo=datetime.
                                timezone.utc)
        table = tables.table(res, deps, now)
        self.assertEqual(['Name', 'Ready', 'Up-to-date', 'Available', 'Age',
                          'Containers', 'Images', 'Selector'],
                         [c['name'] for c in table['columnDefinitions']])
        self.assertEqual(['heat-api', '0/1', 1, 0, '5m'],
                         table['rows'][0]['cells'][:5])


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
