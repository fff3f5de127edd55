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

"""lib-common's condition model and glance-operator's condition lists."""

import testtools

from glance_multiapi_kernel import conditions as c
from glance_multiapi_kernel import glance_cr


def _brief(cond):
    return (cond['type'], cond['status'], cond.get('reason'),
            cond.get('severity'), cond.get('message'))


class MirrorTest(testtools.TestCase):

    def test_ready_true_wins(self):
        conds = [c.true(c.READY, 'Setup complete'),
                 c.false(c.DB_READY, c.ERROR, c.SEVERITY_ERROR, 'x')]
        self.assertEqual(('T', 'True', 'Ready', None, 'Setup complete'),
                         _brief(c.mirror(conds, 'T')))

    def test_most_severe_group_wins(self):
        conds = [c.unknown(c.READY, c.INIT, 'Setup started'),
                 c.false('A', c.REQUESTED, c.SEVERITY_INFO, 'info'),
                 c.false('B', c.ERROR, c.SEVERITY_WARNING, 'warning'),
                 c.true('C', 'fine')]
        self.assertEqual(('T', 'False', 'Error', 'Warning', 'warning'),
                         _brief(c.mirror(conds, 'T')))
        conds = [c.unknown(c.READY, c.INIT, 'Setup started'),
                 c.true('C', 'fine')]
        self.assertEqual(('T', 'Unknown', 'Init', None, 'Setup started'),
                         _brief(c.mirror(conds, 'T')))
        self.assertIsNone(c.mirror([], 'T'))

    def test_higher_priority(self):
        info = c.false('A', c.REQUESTED, c.SEVERITY_INFO, 'i')
        ok = c.true('A', 'fine')
        self.assertIs(info, c.higher_priority(ok, info))
        self.assertIs(info, c.higher_priority(info, ok))
        self.assertIs(ok, c.higher_priority(None, ok))
        self.assertIs(ok, c.higher_priority(ok, c.true('A', 'also')))


class GlanceApiTest(testtools.TestCase):

    def test_ready_when_every_replica_is(self):
        for count, replicas in ((1, 1), (0, 0), (3, 3)):
            conds = c.glanceapi_conditions(count, replicas)
            self.assertEqual(c.READY, conds[0]['type'])
            self.assertEqual([], c.not_true(conds))
            self.assertEqual('Deployment completed', c.get(
                conds, c.DEPLOYMENT_READY)['message'])

    def test_missing_replica_is_deployment_in_progress(self):
        conds = c.glanceapi_conditions(0, 1)
        self.assertEqual(
            [('Ready', 'False', 'Requested', 'Info',
              'Deployment in progress'),
             ('DeploymentReady', 'False', 'Requested', 'Info',
              'Deployment in progress')],
            [_brief(x) for x in c.not_true(conds)])

    def test_sorted_ready_first_then_type(self):
        types = [x['type'] for x in c.glanceapi_conditions(1, 1)]
        self.assertEqual('Ready', types[0])
        self.assertEqual(sorted(types[1:]), types[1:])

    def test_unobserved_statefulset_leaves_deployment_ready_unknown(self):
        # NOTE: glanceapi_controller.go judges readyCount only once the
        # StatefulSet's generation is observed; whatever the count.
        for count in (0, 1):
            conds = c.glanceapi_conditions(count, 1,
                                           statefulset_observed=False)
            # NOTE: Ready mirrors the Unknown group; its members share a
            # lastTransitionTime here, so Ready's own (type order).
            self.assertEqual(
                [('Ready', 'Unknown', 'Init', None, 'Setup started'),
                 ('DeploymentReady', 'Unknown', 'Init', None,
                  'Deployment not started'),
                 ('NetworkAttachmentsReady', 'Unknown', 'Init', None,
                  'NetworkAttachments not started')],
                [_brief(x) for x in c.not_true(conds)])
            self.assertFalse(c.is_ready(conds))
            self.assertTrue(c.is_settling(conds))

    def test_glance_api_ready_mirrors_the_unknown(self):
        found = c.api_ready([c.glanceapi_conditions(
            1, 1, statefulset_observed=False)])
        self.assertEqual(('GlanceAPIReady', 'Unknown', 'Init', None,
                          'Setup started'), _brief(found))


class GlanceTest(testtools.TestCase):

    def _api(self, ready):
        return c.api_ready([c.glanceapi_conditions(1 if ready else 0, 1),
                            c.glanceapi_conditions(1, 1)])

    def test_healthy(self):
        conds = c.glance_conditions([self._api(True), self._api(True)],
                                    None)
        self.assertEqual([], c.not_true(conds))
        self.assertEqual(('Ready', 'True', 'Ready', None, 'Setup complete'),
                         _brief(conds[0]))
        self.assertTrue(c.is_ready(conds))

    def test_split_api_takes_its_worse_half(self):
        found = self._api(False)
        self.assertEqual(('GlanceAPIReady', 'False', 'Requested', 'Info',
                          'Deployment in progress'), _brief(found))

    def test_last_api_sets_glance_api_ready(self):
        # NOTE: upstream Sets GlanceAPIReady once per API: the last wins.
        early = c.glance_conditions([self._api(False), self._api(True)],
                                    None)
        self.assertTrue(c.is_ready(early))
        late = c.glance_conditions([self._api(True), self._api(False)],
                                   None)
        self.assertEqual(['Ready', 'GlanceAPIReady'],
                         [x['type'] for x in c.not_true(late)])
        self.assertEqual('Deployment in progress', late[0]['message'])

    def test_stopped_pass_says_why_in_the_operators_words(self):
        conds = c.glance_conditions([self._api(True)], 'zz')
        wanted = ('False', 'Error', 'Warning',
                  glance_cr.SINGLE_NOT_FILE_MESSAGE)
        self.assertEqual(('Ready',) + wanted, _brief(conds[0]))
        self.assertEqual(('GlanceAPIReady',) + wanted,
                         _brief(c.get(conds, c.GLANCE_API_READY)))
        self.assertEqual(('CronJobReady', 'Unknown', 'Init', None,
                          'CronJob not started'),
                         _brief(c.get(conds, c.CRONJOB_READY)))

    def test_ready_held_back_until_every_glanceapi_is_observed(self):
        # NOTE: checkGlanceAPIsGeneration: every other condition True,
        # and still not Ready; the deferred patch mirrors Ready's own
        # Unknown.
        conds = c.glance_conditions([self._api(True)], None,
                                    apis_observed=False)
        self.assertEqual([('Ready', 'Unknown', 'Init', None,
                           'Setup started')],
                         [_brief(x) for x in c.not_true(conds)])
        self.assertTrue(c.is_settling(conds))


class ReadingTest(testtools.TestCase):

    def test_generation_lag(self):
        def obj(generation, observed=None, status=True):
            found = {'metadata': {'generation': generation}}
            if status:
                found['status'] = {} if observed is None else {
                    'observedGeneration': observed}
            return found
        self.assertIsNone(c.generation_lag(obj(3, 3)))
        self.assertIsNone(c.generation_lag(obj(3, 4)))
        self.assertEqual((3, 2), c.generation_lag(obj(3, 2)))
        # NOTE: omitted when 0: no pass written yet.
        self.assertEqual((1, None), c.generation_lag(obj(1)))
        self.assertEqual((1, None), c.generation_lag(obj(1, status=False)))
        # NOTE: no generation: not from an API server, nothing to judge.
        for other in (None, [], {}, {'metadata': {}}, {'metadata': {
                'generation': '3'}}, {'metadata': {'generation': True}}):
            self.assertIsNone(c.generation_lag(other))
        self.assertEqual((3, None), c.generation_lag(
            {'metadata': {'generation': 3}, 'status': {
                'observedGeneration': 'x'}}))
        self.assertEqual(
            'status.observedGeneration 2, metadata.generation 3: the '
            'operator has not written a pass over the latest spec, so '
            'its conditions describe an earlier one',
            c.describe_lag((3, 2)))
        self.assertIn('status.observedGeneration missing, '
                      'metadata.generation 1', c.describe_lag((1, None)))

    def test_settling_is_unknown_ready_only(self):
        self.assertFalse(c.is_settling(c.glanceapi_conditions(0, 1)))
        self.assertFalse(c.is_settling(c.glanceapi_conditions(1, 1)))
        self.assertFalse(c.is_settling([]))

    def test_of_tolerates_any_shape(self):
        for obj in (None, [], {}, {'status': None}, {'status': {
                'conditions': 'x'}}):
            self.assertEqual([], c.of(obj))
        good = {'type': 'Ready', 'status': 'True'}
        self.assertEqual([good], c.of({'status': {'conditions': [
            good, 'junk', {'status': 'False'}]}}))

    def test_describe_is_one_line(self):
        cond = c.false(c.GLANCE_API_READY, c.ERROR, c.SEVERITY_WARNING,
                       'two\nlines')
        self.assertEqual('GlanceAPIReady=False (Error, Warning): two lines',
                         c.describe(cond))
        self.assertEqual('Ready=Unknown', c.describe(
            {'type': 'Ready', 'status': 'Unknown'}))
