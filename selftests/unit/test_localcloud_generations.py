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

"""The embedded cloud's generations: metadata.generation, the observed one.

What the Glance and GlanceAPI CRs say of them after a pass
(deployed.advance, deployed.observe), with and without the faults that
hold the status behind or leave a StatefulSet unobserved.
"""

import copy
import types

import testtools

from glance_multiapi_cloud import deployed
from glance_multiapi_cloud.kubeapi.embedded import glance as kubeglance
from glance_multiapi_cloud.kubeapi.embedded import objects as kubeobjects
from glance_multiapi_kernel import conditions
from selftests.unit.cloud_records import FakeFaults
from selftests.unit.cloud_records import state_data


class UnobservedFaults(FakeFaults):
    """statefulset-not-observed on some APIs."""

    def __init__(self, unobserved):
        super().__init__()
        self.unobserved = unobserved

    def statefulset_observed(self, api):
        return api not in self.unobserved


def _state(record):
    return types.SimpleNamespace(record=record)


def _document(record, now):
    """The get document's status as kubeglance.document() builds it."""
    passed = deployed.of_record(record)
    answering = {api: True for api in passed['apis']}
    status = dict(record.status, glanceAPIReadyCounts=kubeglance.ready_counts(
        passed, answering), conditions=kubeglance.glance_conditions(
            passed, answering))
    observed = deployed.observed(record, now)['glance']
    if observed:
        status['observedGeneration'] = observed
    return {'apiVersion': 'glance.openstack.org/v1beta1', 'kind': 'Glance',
            'metadata': {'generation': record.kube.generation},
            'spec': record.spec, 'status': status}


class GenerationsTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.record = state_data()
        deployed.advance(_state(self.record))
        deployed.observe(self.record, 100.0)

    def world(self, now, faults=None):
        return kubeobjects.world(self.record, _document(self.record, now),
                                 now=now, faults=faults)

    def lags(self, now):
        world = self.world(now)
        return [conditions.generation_lag(obj)
                for obj in world['glances'] + world['glanceapis']]

    def patch(self, change):
        # NOTE: as cloud.patch: the spec, one more generation, a pass.
        change(self.record.spec)
        self.record.kube.generation += 1
        deployed.advance(_state(self.record))

    def test_a_fresh_cloud_has_observed_everything(self):
        self.assertEqual([None] * 5, self.lags(100.0))
        glance = self.world(100.0)['glances'][0]
        self.assertEqual((1, 1), (glance['metadata']['generation'],
                                  glance['status']['observedGeneration']))

    def test_nothing_observed_before_the_first_pass_is_written(self):
        record = state_data()
        deployed.advance(_state(record))
        obj = kubeobjects.world(record, _document(record, 1.0),
                                now=1.0)['glances'][0]
        self.assertNotIn('observedGeneration', obj['status'])
        self.assertEqual((1, None), conditions.generation_lag(obj))

    def test_a_patch_is_behind_until_its_pass_is_written(self):
        self.patch(lambda spec: spec.update(keystoneEndpoint='api1'))
        # NOTE: no observe() yet: the reconcile is still under way.
        glance = self.world(1000.0)['glances'][0]
        self.assertEqual((2, 1), conditions.generation_lag(glance))
        # NOTE: its conditions still say Ready, of the pass before.
        self.assertTrue(conditions.is_ready(conditions.of(glance)))

    def test_only_a_changed_api_gets_a_new_generation(self):
        def grow(spec):
            spec['glanceAPIs']['api1']['replicas'] = 2
        self.patch(grow)
        deployed.observe(self.record, 200.0)
        found = {o['metadata']['name']: o['metadata']['generation']
                 for o in self.world(200.0)['glanceapis']}
        self.assertEqual({'glance-api0-external': 1,
                          'glance-api0-internal': 1,
                          'glance-api1-external': 2,
                          'glance-api1-internal': 2}, found)
        self.assertEqual([None] * 5, self.lags(200.0))

    def test_lag_holds_the_status_behind_for_its_seconds(self):
        def grow(spec):
            spec['glanceAPIs']['api1']['replicas'] = 2
        self.patch(grow)
        deployed.observe(self.record, 200.0, lag=6)
        self.assertEqual([(2, 1), None, None, (2, 1), (2, 1)],
                         self.lags(205.9))
        self.assertEqual([None] * 5, self.lags(206.0))
        # NOTE: a reconcile without a new generation shows no lag.
        deployed.observe(self.record, 300.0, lag=6)
        self.assertEqual([None] * 5, self.lags(301.0))

    def test_a_removed_api_starts_again_at_one(self):
        removed = copy.deepcopy(self.record.spec['glanceAPIs']['api1'])
        self.patch(lambda spec: spec['glanceAPIs'].pop('api1'))
        self.assertNotIn('api1', self.record.kube.api_generations)
        self.patch(lambda spec: spec['glanceAPIs'].update(api1=removed))
        self.assertEqual(1, self.record.kube.api_generations['api1'])

    def test_unobserved_statefulset_leaves_deployment_ready_unknown(self):
        world = self.world(100.0, UnobservedFaults({'api0'}))
        found = {o['metadata']['name']: conditions.of(o)
                 for o in world['glanceapis']}
        for name in ('glance-api0-external', 'glance-api0-internal'):
            self.assertEqual(
                ('Unknown', 'Init', 'Deployment not started'),
                tuple(conditions.get(found[name], 'DeploymentReady')[k]
                      for k in ('status', 'reason', 'message')))
            self.assertTrue(conditions.is_settling(found[name]))
        self.assertTrue(conditions.is_ready(found['glance-api1-external']))
