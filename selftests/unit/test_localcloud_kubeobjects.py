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

"""The embedded Kubernetes API's objects, built from a cloud's record:
the Glance CR and its GlanceAPI CRs, the OpenStackVersion and heat's
Deployments and pods in each heat layout."""

import datetime

import testtools

from glance_multiapi_cloud.kubeapi import tables
from glance_multiapi_cloud import deployed
from glance_multiapi_cloud.kubeapi.embedded import glance as kubeglance
from glance_multiapi_cloud.kubeapi.embedded import heat as kubeheat
from glance_multiapi_cloud.kubeapi.embedded import objects as kubeobjects
from selftests.unit.cloud_records import FakeFaults
from selftests.unit.cloud_records import SPEC
from selftests.unit.cloud_records import state_data


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
        # NOTE: the default state, tcib's: three images by tag, as
        # openstack-operator's default_images.yaml ships them.
        tcib = 'quay.io/podified-antelope-centos9/openstack-heat-'
        self.assertEqual({
            'heatAPIImage': tcib + 'api:current-podified',
            'heatCfnapiImage': tcib + 'api-cfn:current-podified',
            'heatEngineImage': tcib + 'engine:current-podified'}, status)
        api, engine = status['heatAPIImage'], status['heatEngineImage']
        self.assertEqual({}, custom)
        self.assertEqual(api, images['heat-api'])
        self.assertEqual(engine, images['heat-engine'])
        cfn = status['heatCfnapiImage']
        self.assertTrue(images['heat-cfnapi'].startswith(cfn + '@sha256:'))
        ready = {d['metadata']['name']: d['status'].get('readyReplicas')
                 for d in world['deployments']}
        # NOTE: heat-engine's probe passes 10 s after its start only.
        self.assertEqual({'heat-api': 1, 'heat-cfnapi': None,
                          'heat-engine': None}, ready)
        pod_images = {p['metadata']['name']:
                      p['spec']['containers'][0]['image']
                      for p in world['pods']}
        self.assertEqual({'heat-api-x-1': api,
                          'heat-engine-x-2': engine}, pod_images)
        # NOTE: the tag resolved to one digest of the image's own.
        ids = {p['metadata']['name']:
               p['status']['containerStatuses'][0]['imageID']
               for p in world['pods']}
        self.assertRegex(ids['heat-api-x-1'], r'^quay\.io/podified-antelope-'
                         r'centos9/openstack-heat-api@sha256:[0-9a-f]{64}$')
        self.assertNotEqual(ids['heat-api-x-1'].split('@')[1],
                            ids['heat-engine-x-2'].split('@')[1])

    def test_every_layout_declares_its_images(self):
        for layout, per_image in (('tcib', 3), ('s2i', 2), ('one', 1),
                                  ('s2i-latest', 2), ('product', 3),
                                  ('mirror', 2), ('update', 3),
                                  ('proposed', 2)):
            data = state_data(heat=True)
            data.options.heat_state = layout
            world = kubeobjects.world(data, self.document(data), {}, 105.0,
                                      FakeFaults())
            images, status, _custom = self.images(world)
            self.assertEqual(per_image, len(kubeheat.by_image(status)),
                             layout)
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

    def state(self, name, faults=None, pods=None):
        data = state_data(heat=True)
        data.options.heat_state = name
        return kubeobjects.world(data, self.document(data), pods or {},
                                 105.0, faults or FakeFaults())

    def test_update_keeps_each_versions_defaults(self):
        version = self.state('update')['openstackversions'][0]
        self.assertEqual(('0.0.1', '0.0.2', '0.0.1'), (
            version['spec']['targetVersion'],
            version['status']['availableVersion'],
            version['status']['deployedVersion']))
        by_version = version['status']['containerImageVersionDefaults']
        self.assertEqual(['0.0.1', '0.0.2'], sorted(by_version))
        nxt = by_version['0.0.2']
        self.assertEqual(nxt['heatAPIImage'], nxt['heatCfnapiImage'])
        hotfix = version['spec']['customContainerImages']['heatAPIImage']
        self.assertIn('/openstack-heat-api@sha256:', hotfix)
        self.assertEqual(dict(by_version['0.0.1'], heatAPIImage=hotfix),
                         version['status']['containerImages'])

    def test_product_and_mirror_names(self):
        status = self.state('product')['openstackversions'][0]['status']
        self.assertEqual(
            ['openstack-heat-api-cfn-rhel9', 'openstack-heat-api-rhel9',
             'openstack-heat-engine-rhel9'],
            sorted(name for name, _f in kubeheat.by_image(
                status['containerImages'])))
        self.assertTrue(all(ref.startswith('registry.redhat.io/rhoso/')
                            for ref in status['containerImages'].values()))
        version = self.state('mirror')['openstackversions'][0]
        cfn = version['spec']['customContainerImages']['heatCfnapiImage']
        api = version['status']['containerImages']['heatAPIImage']
        self.assertTrue(cfn.startswith('127.0.0.1:20001/rhoso/'))
        self.assertEqual(api.rsplit('/', 1)[1], cfn.rsplit('/', 1)[1])

    def test_pod_digest_drift_and_stuck_rollout(self):
        pods = {name: [kubeheat.PodFact(name + '-x-1', 50.0, True, None, 0,
                                        None)]
                for name in kubeheat.DEPLOYMENTS}
        world = self.state('s2i-latest', FakeFaults(
            apart=['heat-cfnapi'], rolling=['heat-engine']), pods)
        ids = {p['metadata']['name']:
               p['status']['containerStatuses'][0]['imageID']
               for p in world['pods']}
        api, cfn = ids['heat-api-x-1'], ids['heat-cfnapi-x-1']
        self.assertEqual(api.split('@')[0], cfn.split('@')[0])
        self.assertNotEqual(api.split('@')[1], cfn.split('@')[1])
        engine = {d['metadata']['name']: d
                  for d in world['deployments']}['heat-engine']
        self.assertEqual(2, engine['metadata']['generation'])
        self.assertEqual(2, engine['status']['observedGeneration'])
        self.assertNotIn('updatedReplicas', engine['status'])
        template = engine['spec']['template']['spec']['containers'][0][
            'image']
        pod, = [p for p in world['pods']
                if p['metadata']['name'] == 'heat-engine-x-1']
        self.assertNotEqual(template, pod['spec']['containers'][0]['image'])

    def test_manager_env_is_the_available_versions(self):
        images = kubeheat.HeatImages('update', 'ab' * 32, 20001)
        env = dict(kubeheat.manager_env(images))
        self.assertEqual('0.0.2', env['OPENSTACK_RELEASE_VERSION'])
        self.assertEqual(env['RELATED_IMAGE_HEAT_API_IMAGE_URL_DEFAULT'],
                         env['RELATED_IMAGE_HEAT_CFNAPI_IMAGE_URL_DEFAULT'])
        tcib = dict(kubeheat.manager_env(images._replace(state='tcib')))
        self.assertEqual('0.0.1', tcib['OPENSTACK_RELEASE_VERSION'])
        self.assertEqual('quay.io/podified-antelope-centos9/'
                         'openstack-heat-engine:current-podified',
                         tcib['RELATED_IMAGE_HEAT_ENGINE_IMAGE_URL_DEFAULT'])

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
