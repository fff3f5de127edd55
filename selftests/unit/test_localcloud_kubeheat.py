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

"""heat's Deployments and Pods as the embedded Kubernetes API builds
them, and the label selectors it answers lists with."""

import testtools

from glance_multiapi_cloud.kubeapi import request as kube_request
from glance_multiapi_cloud.kubeapi.embedded import heat as kubeheat

DATA = kubeheat.HeatImages('s2i', 'ab' * 32, 5000)
META = {'namespace': 'osp', 'uid': 'u', 'creationTimestamp': 'x'}


def fact(name='heat-engine-h-1', started=100.0, alive=True, deleted=None,
         grace=0, waiting=None):
    return kubeheat.PodFact(name, started, alive, deleted, grace, waiting)


class PodTest(testtools.TestCase):

    def test_labels_are_heat_operators(self):
        pod = kubeheat.pod(DATA, 'heat-engine', fact(), 120.0, META)
        labels = pod['metadata']['labels']
        self.assertEqual(('heat', 'engine'), (labels['service'],
                                              labels['component']))
        self.assertIn('pod-template-hash', labels)
        self.assertEqual('ReplicaSet',
                         pod['metadata']['ownerReferences'][0]['kind'])
        self.assertEqual(60, pod['spec']['terminationGracePeriodSeconds'])
        self.assertEqual('service=heat,component=engine'.split(','),
                         sorted(kubeheat.selector('heat-engine').split(','),
                                reverse=True))

    def test_engine_is_ready_after_its_probes_delay(self):
        early = kubeheat.pod(DATA, 'heat-engine', fact(), 105.0, META)
        late = kubeheat.pod(DATA, 'heat-engine', fact(), 111.0, META)
        self.assertEqual('False', early['status']['conditions'][0]['status'])
        self.assertEqual('True', late['status']['conditions'][0]['status'])

    def test_a_deleted_pod_is_marked_and_not_ready(self):
        pod = kubeheat.pod(DATA, 'heat-engine', fact(deleted=200.0,
                                                     grace=60), 210.0, META)
        self.assertEqual('1970-01-01T00:04:20Z',
                         pod['metadata']['deletionTimestamp'])
        self.assertEqual(60, pod['metadata']['deletionGracePeriodSeconds'])
        self.assertFalse(pod['status']['containerStatuses'][0]['ready'])

    def test_a_waiting_pod_is_pending(self):
        pod = kubeheat.pod(DATA, 'heat-engine', fact(
            started=None, alive=False, waiting='ImagePullBackOff'), 1.0,
            META)
        self.assertEqual('Pending', pod['status']['phase'])
        self.assertEqual({'waiting': {'reason': 'ImagePullBackOff'}},
                         pod['status']['containerStatuses'][0]['state'])


class DeploymentStatusTest(testtools.TestCase):

    def status(self, *facts, now=200.0):
        return kubeheat.deployment_status('heat-engine', list(facts), now)

    def test_one_ready_pod(self):
        self.assertEqual({'observedGeneration': 1, 'replicas': 1,
                          'updatedReplicas': 1, 'readyReplicas': 1,
                          'availableReplicas': 1}, self.status(fact()))

    def test_terminating_pod_is_no_replica(self):
        self.assertEqual(
            {'observedGeneration': 1, 'replicas': 1, 'updatedReplicas': 1,
             'unavailableReplicas': 1},
            self.status(fact(deleted=190.0, grace=60),
                        fact('heat-engine-h-2', started=195.0)))

    def test_stuck_replacement_leaves_it_unavailable(self):
        status = self.status(fact(started=None, alive=False,
                                  waiting='ImagePullBackOff'))
        self.assertNotIn('readyReplicas', status)
        self.assertEqual(1, status['unavailableReplicas'])


class SelectorTest(testtools.TestCase):

    def matches(self, selector, labels):
        return kube_request.selector_matcher(selector)(labels)

    def test_equality_and_sets(self):
        labels = {'service': 'heat', 'component': 'engine'}
        self.assertTrue(self.matches('service=heat,component==engine',
                                     labels))
        self.assertFalse(self.matches('component!=engine', labels))
        self.assertTrue(self.matches('component in (api, engine)', labels))
        self.assertFalse(self.matches('component notin (engine)', labels))
        self.assertTrue(self.matches('service,!missing', labels))
        self.assertFalse(self.matches('missing', labels))
        self.assertTrue(self.matches('', labels))

    def test_unparsable_is_a_400(self):
        exc = self.assertRaises(kube_request.Response,
                                kube_request.selector_matcher,
                                'a in b)')
        self.assertEqual(400, exc.code)
