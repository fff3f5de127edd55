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

"""The embedded cloud's Kubernetes API, driven by real clients.

The real kubectl and the ``kubernetes`` Python client against the shared
cloud: the Glance CR and its control plane, a merge patch that switches
the catalog before it answers, the Status errors (401, 403, 404, 415,
422), the audit log; and the command way (the CLI's get and patch through
discovery_command/patch_command) still driving the switchover scenario.
"""

import json
import os

import requests
import yaml

from glance_multiapi_cloud import state as state_mod
from glance_multiapi_cloud import tempestconf
from selftests.functional import kube_base

SWITCHOVER = ('glance_multiapi_tests.tests.scenario.test_switchover.'
              'KeystoneEndpointSwitchoverTest.test_switch_keystone_endpoint')


def image_catalog(state_dir):
    """[{interface: URL}] of the image services a demo token sees."""
    with open(os.path.join(state_dir, 'clouds.yaml')) as f:
        auth = yaml.safe_load(f)['clouds']['demo']['auth']
    resp = requests.post(auth['auth_url'] + '/auth/tokens', timeout=30,
                         json={'auth': {'identity': {
                             'methods': ['password'], 'password': {'user': {
                                 'name': auth['username'],
                                 'domain': {'id': 'default'},
                                 'password': auth['password']}}},
                             'scope': {'project': {
                                 'name': auth['project_name'],
                                 'domain': {'id': 'default'}}}}})
    resp.raise_for_status()
    return [{e['interface']: e['url'] for e in svc['endpoints']}
            for svc in resp.json()['token']['catalog']
            if svc['type'] == 'image']


def oscp_patch(endpoint):
    return {'spec': {'glance': {'template': {'keystoneEndpoint': endpoint}}}}


class KubeApiTest(kube_base.KubeCloudTestCase):
    """kubectl and the kubernetes client see and change the cloud."""

    def other_api(self, doc):
        return sorted(a for a in doc['spec']['glanceAPIs']
                      if a != doc['spec']['keystoneEndpoint'])[0]

    def restore_endpoint(self, doc):
        self.addCleanup(self.cli, 'patch', '-p', json.dumps(
            {'spec': {'keystoneEndpoint': doc['spec']['keystoneEndpoint']}}))

    def test_kubectl_get_glance_is_the_cli_document(self):
        proc = self.kubectl('get', 'glance', 'glance', '-o', 'json')
        self.assertEqual(0, proc.returncode, proc.stderr)
        obj = json.loads(proc.stdout)
        doc = self.doc()
        self.assertEqual(doc['spec'], obj['spec'])
        self.assertEqual(doc['status']['apiEndpoint'],
                         obj['status']['apiEndpoint'])
        meta = obj['metadata']
        self.assertEqual(('glance', 'openstack'), (meta['name'],
                                                   meta['namespace']))
        for key in ('uid', 'resourceVersion', 'creationTimestamp'):
            self.assertTrue(meta.get(key), meta)
        owner, = meta['ownerReferences']
        self.assertEqual(('OpenStackControlPlane', 'openstack', True),
                         (owner['kind'], owner['name'], owner['controller']))

    def test_kubectl_get_glances_prints_a_table(self):
        proc = self.kubectl('get', 'glances')
        self.assertEqual(0, proc.returncode, proc.stderr)
        header, row = proc.stdout.splitlines()
        self.assertEqual(['NAME', 'STATUS', 'MESSAGE', 'AGE'],
                         header.split())
        self.assertTrue(row.startswith('glance '), row)
        self.assertIn('True', row)

    def test_kubectl_patch_controlplane_switches_catalog(self):
        doc = self.doc()
        target = self.other_api(doc)
        self.restore_endpoint(doc)
        before = len(self.audit())
        proc = self.kubectl('patch', 'openstackcontrolplane', 'openstack',
                            '--type', 'merge', '-p',
                            json.dumps(oscp_patch(target)))
        self.assertEqual(0, proc.returncode, proc.stderr)
        self.assertIn('patched', proc.stdout)
        # NOTE: the patch is reconciled before it is answered: no wait.
        endpoints = self.doc()['status']['apiEndpoint']
        self.assertEqual([{'public': endpoints[target + '-public'],
                           'internal': endpoints[target + '-internal']}],
                         image_catalog(self.state_dir))
        got = self.kubectl('get', 'glance', 'glance', '-o',
                           'jsonpath={.spec.keystoneEndpoint}')
        self.assertEqual(target, got.stdout)
        # NOTE: kubectl reads the object before it patches it.
        self.assertEqual([('get', 200), ('patch', 200)], [
            (r['verb'], r['code']) for r in self.audit()[before:]
            if r['resource'] == 'openstackcontrolplanes'])

    def test_kubectl_refused_patch_is_invalid(self):
        doc = self.doc()
        proc = self.kubectl('patch', 'oscp', 'openstack', '--type', 'merge',
                            '-p', json.dumps(oscp_patch('nope')))
        self.assertEqual(1, proc.returncode)
        self.assertIn('is invalid', proc.stderr)
        self.assertIn("'nope' names no API", proc.stderr)
        self.assertEqual(doc['spec'], self.doc()['spec'])

    def test_kubectl_patch_unsetting_keystone_endpoint_is_refused(self):
        # NOTE: with two APIs and more the webhook leaves an unset
        # keystoneEndpoint unset and refuses it (glance_webhook.go
        # Default, isValidKeystoneEP), in its own words.
        doc = self.doc()
        self.assertGreater(len(doc['spec']['glanceAPIs']), 1)
        proc = self.kubectl('patch', 'oscp', 'openstack', '--type', 'merge',
                            '-p', json.dumps({'spec': {'glance': {
                                'template': {'keystoneEndpoint': None}}}}))
        self.assertEqual(1, proc.returncode)
        self.assertIn('is invalid', proc.stderr)
        self.assertIn('spec.keystoneEndpoint: Invalid value: "": '
                      'KeystoneEndpoint is assigned to an invalid GlanceAPI '
                      'instance', proc.stderr)
        self.assertEqual(422, self.audit()[-1]['code'])
        self.assertEqual(doc['spec'], self.doc()['spec'])

    def test_kubectl_json_patch_is_unsupported(self):
        proc = self.kubectl('patch', 'oscp', 'openstack', '--type', 'json',
                            '-p', '[]')
        self.assertEqual(1, proc.returncode)
        self.assertIn('application/merge-patch+json', proc.stderr)
        self.assertEqual(415, self.audit()[-1]['code'])

    def test_client_gets_lists_and_patches(self):
        custom, _apps = self.apis()
        doc = self.doc()
        target = self.other_api(doc)
        self.restore_endpoint(doc)
        glance = custom.get_namespaced_custom_object(*kube_base.GLANCE,
                                                     'glance')
        listed = custom.list_namespaced_custom_object(*kube_base.GLANCE)
        self.assertEqual('GlanceList', listed['kind'])
        self.assertEqual([glance['metadata']['uid']],
                         [i['metadata']['uid'] for i in listed['items']])
        owner = glance['metadata']['ownerReferences'][0]['name']
        patched = custom.patch_namespaced_custom_object(
            *kube_base.OSCP, owner, oscp_patch(target))
        self.assertEqual(target, patched['spec']['glance']['template'][
            'keystoneEndpoint'])
        after = custom.get_namespaced_custom_object(*kube_base.GLANCE,
                                                    'glance')
        self.assertEqual(target, after['spec']['keystoneEndpoint'])
        self.assertNotEqual(glance['metadata']['resourceVersion'],
                            after['metadata']['resourceVersion'])
        self.assertEqual(glance['metadata']['generation'] + 1,
                         after['metadata']['generation'])
        self.assertEqual(1, len(image_catalog(self.state_dir)))
        self.assertIn(after['status']['apiEndpoint'][target + '-public'],
                      image_catalog(self.state_dir)[0].values())

    def test_direct_glance_patch_is_reverted_by_its_owner(self):
        custom, _apps = self.apis()
        doc = self.doc()
        target = self.other_api(doc)
        answer = custom.patch_namespaced_custom_object(
            *kube_base.GLANCE, 'glance',
            {'spec': {'keystoneEndpoint': target}})
        self.assertEqual(target, answer['spec']['keystoneEndpoint'])
        self.assertEqual(doc['spec'], custom.get_namespaced_custom_object(
            *kube_base.GLANCE, 'glance')['spec'])
        self.assertEqual(doc['spec'], self.doc()['spec'])

    def test_wrong_token_is_unauthorized(self):
        custom, _apps = self.apis(token='not-the-token')
        body = self.assertApiError(
            401, 'Unauthorized', custom.get_namespaced_custom_object,
            *kube_base.GLANCE, 'glance')
        self.assertEqual('Unauthorized', body['message'])
        # NOTE: a refused token is of no user the audit could name.
        self.assertEqual({'verb': 'get', 'apiGroup': 'glance.openstack.org',
                          'resource': 'glances', 'name': 'glance',
                          'namespace': 'openstack', 'code': 401,
                          'user': ''},
                         self.audit()[-1])

    def test_unknown_objects_are_not_found(self):
        custom, apps = self.apis()
        body = self.assertApiError(404, 'NotFound',
                                   custom.get_namespaced_custom_object,
                                   *kube_base.GLANCE, 'nope')
        self.assertEqual('glances.glance.openstack.org "nope" not found',
                         body['message'])
        self.assertEqual({'name': 'nope', 'group': 'glance.openstack.org',
                          'kind': 'glances'}, body['details'])
        # NOTE: this cloud runs no heat, so it has no heat Deployments.
        body = self.assertApiError(404, 'NotFound',
                                   apps.read_namespaced_deployment,
                                   'heat-api', 'openstack')
        self.assertEqual('deployments.apps "heat-api" not found',
                         body['message'])

    def test_kube_forbid_fault_is_forbidden(self):
        custom, _apps = self.apis()
        with self.fault('kube-forbid=patch:openstackcontrolplanes'):
            body = self.assertApiError(
                403, 'Forbidden', custom.patch_namespaced_custom_object,
                *kube_base.OSCP, 'openstack', oscp_patch('api0'))
            # NOTE: other verbs and resources are untouched.
            custom.get_namespaced_custom_object(*kube_base.OSCP,
                                                'openstack')
        self.assertEqual(
            'openstackcontrolplanes.core.openstack.org "openstack" is '
            'forbidden: User "%s" cannot patch resource '
            '"openstackcontrolplanes" in API group "core.openstack.org" in '
            'the namespace "openstack"' % kube_base.USER, body['message'])
        records = [r for r in self.audit() if r['verb'] == 'patch']
        self.assertEqual(403, records[-1]['code'])

    def test_discovery_documents(self):
        with open(self.kubeconfig()) as f:
            config = yaml.safe_load(f)
        server = config['clusters'][0]['cluster']['server']
        token = config['users'][0]['user']['token']
        verify = os.path.join(self.state_dir, 'kubeapi', 'ca.crt')

        def get(path, auth=True):
            headers = {'Authorization': 'Bearer ' + token} if auth else {}
            return requests.get(server + path, headers=headers,
                                verify=verify, timeout=30)

        self.assertEqual(401, get('/apis', auth=False).status_code)
        groups = {g['name'] for g in get('/apis').json()['groups']}
        self.assertEqual({'glance.openstack.org', 'core.openstack.org',
                          'apps'}, groups)
        resources = {r['name']: r for r in get(
            '/apis/core.openstack.org/v1beta1').json()['resources']}
        oscp = resources['openstackcontrolplanes']
        self.assertEqual(('OpenStackControlPlane', True,
                          'openstackcontrolplane'),
                         (oscp['kind'], oscp['namespaced'],
                          oscp['singularName']))
        self.assertIn('oscp', oscp['shortNames'])
        self.assertIn('patch', oscp['verbs'])
        self.assertIn('v1', get('/api').json()['versions'])
        self.assertEqual('1', get('/version').json()['major'])


class CommandWayTest(kube_base.KubeCloudTestCase):
    """The plugin's command way (the CLI's get and patch) still works."""

    def test_command_way_drives_switchover(self):
        state = state_mod.State(self.state_dir).load()
        before = len(self.audit())
        results = self.run_tempest(
            SWITCHOVER.replace('.', r'\.'), overrides={
                'glance_multiapi': dict(tempestconf.command_options(state),
                                        convergence_timeout=60)})
        self.assertOutcome(results, SWITCHOVER, 'success')
        # NOTE: nothing went through the Kubernetes API.
        self.assertEqual([], self.audit()[before:])
