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

"""Reading the operator's conditions: the Glance and GlanceAPI CRs."""

import json
import os
import shlex

import fixtures

from glance_multiapi_kernel import kube
from glance_multiapi_kernel import conditions
from glance_multiapi_tests.multiapi import discovery
from glance_multiapi_kernel import glance_cr
from glance_multiapi_tests.multiapi import readiness
from selftests.unit import kube_cases
from selftests.unit import kube_stub

READY = conditions.glanceapi_conditions(1, 1)
NOT_READY = conditions.glanceapi_conditions(0, 1)
STOPPED = conditions.glance_conditions([], 'api1')
HEALTHY = conditions.glance_conditions([conditions.api_ready([READY])], None)


def _glance(conds):
    return kube_cases.glance_object(status=dict(
        kube_cases.GLANCE['status'], conditions=conds))


def _api(name, conds, generation=None, observed=None):
    obj = {'apiVersion': 'glance.openstack.org/v1beta1',
           'kind': 'GlanceAPI', 'metadata': {'name': name},
           'status': {'conditions': conds}}
    if generation is not None:
        obj['metadata']['generation'] = generation
    if observed is not None:
        obj['status']['observedGeneration'] = observed
    return obj


def _generations(obj, generation, observed):
    obj['metadata']['generation'] = generation
    if observed is not None:
        obj['status']['observedGeneration'] = observed
    return obj


class ReadThroughApiTest(kube_cases.KubeTestCase):

    def put_apis(self, **conds):
        for name in ('glance-api0-external', 'glance-api0-internal',
                     'glance-api1-single'):
            found = conds.get(name.replace('-', '_'), READY)
            if found is not None:
                self.stub.put(kube.GLANCE_API, _api(name, found))

    def test_all_ready(self):
        self.stub.put(kube.GLANCE, _glance(HEALTHY))
        self.put_apis()
        report = self.access().report()
        self.assertEqual([], readiness.problems(report))
        self.assertEqual(
            ['GET %s' % kube_stub.path(kube.GLANCE_API, name) for name in (
                'glance-api0-external', 'glance-api0-internal',
                'glance-api1-single')],
            ['%s %s' % (r['method'], r['path']) for r in
             self.stub.requests[1:]])
        self.assertIn('GlanceAPI CRs: get through the Kubernetes API at',
                      report.describe_sources())

    def test_each_false_condition_is_quoted_with_its_cr(self):
        self.stub.put(kube.GLANCE, _glance(STOPPED))
        self.put_apis(glance_api0_internal=NOT_READY,
                      glance_api1_single=None)
        lines = readiness.problems(self.access().report())
        message = glance_cr.SINGLE_NOT_FILE_MESSAGE
        self.assertEqual([
            'Glance openstack/glance: Ready=False (Error, Warning): '
            + message,
            'Glance openstack/glance: CronJobReady=Unknown (Init): CronJob '
            'not started',
            'Glance openstack/glance: GlanceAPIReady=False (Error, '
            'Warning): ' + message,
            'GlanceAPI glance-api0-internal (API api0): Ready=False '
            '(Requested, Info): Deployment in progress',
            'GlanceAPI glance-api0-internal (API api0): DeploymentReady='
            'False (Requested, Info): Deployment in progress',
            'GlanceAPI glance-api1-single (API api1): missing: no GlanceAPI '
            '"glance-api1-single" in namespace "openstack"'], lines)
        self.assertEqual({'api0': lines[3:5], 'api1': lines[5:]},
                         readiness.api_problems(self.access().report()))

    def test_no_ready_condition_is_not_ready(self):
        self.stub.put(kube.GLANCE, kube_cases.glance_object())
        self.put_apis()
        self.assertEqual(['Glance openstack/glance: Ready=missing: the CR '
                          'reports no Ready condition'],
                         readiness.problems(self.access().report()))

    def test_forbidden_names_the_verb_and_resource(self):
        self.stub.put(kube.GLANCE, _glance(READY))
        self.put_apis()
        self.stub.answers[('GET', kube_stub.path(
            kube.GLANCE_API, 'glance-api0-external'))] = (
                403, kube_stub.status(403, 'Forbidden', 'no'))
        exc = self.assertRaises(discovery.DiscoveryError,
                                self.access().report)
        self.assertOneLine(exc, 'lacks "get" on "glanceapis" in API group '
                           '"glance.openstack.org"')

    def test_note_reads_only_the_apis_named(self):
        """The Glance CR the class read is reused; only api1's CR is got."""
        self.stub.put(kube.GLANCE, _glance(HEALTHY))
        self.put_apis(glance_api1_single=NOT_READY)
        way = self.access()
        way.discover()
        self.assertEqual(1, len(self.stub.requests))
        note = way.note(['api1'])
        self.assertTrue(note.startswith('\nwhat the operator says of api1 '
                                        '(Glance CR: Glance openstack/'
                                        'glance via the Kubernetes API'))
        self.assertIn('\n  GlanceAPI glance-api1-single (API api1): '
                      'Ready=False (Requested, Info): Deployment in '
                      'progress', note)
        self.assertEqual(['GET %s' % kube_stub.path(kube.GLANCE),
                          'GET %s' % kube_stub.path(kube.GLANCE_API,
                                                    'glance-api1-single')],
                         ['%s %s' % (r['method'], r['path'].split('?')[0])
                          for r in self.stub.requests])
        one = way.note(['api1'], one_line=True)
        self.assertNotIn('\n', one)
        self.assertTrue(one.startswith('; what the operator says of api1'))
        self.assertEqual('', way.note(['api0']))

    def test_note_never_raises(self):
        self.stub.put(kube.GLANCE, _glance(READY))
        way = self.access()
        # NOTE: nothing read yet: nothing to say, and no connection made.
        self.assertEqual('', way.note(['api0']))
        self.assertEqual([], self.stub.requests)
        way.discover()
        self.stub.answers[('GET', kube_stub.path(
            kube.GLANCE_API, 'glance-api0-external'))] = (
                500, kube_stub.status(500, 'InternalError', 'boom'))
        self.assertEqual('', way.note(['api0']))
        self.assertEqual('', way.note([]))
        self.assertEqual('', self.access(kubernetes_api=False).note(
            ['api0']))


class GenerationTest(kube_cases.KubeTestCase):
    """Ready as the operator writes it: observedGeneration and Unknown."""

    def put_apis(self, **objs):
        for name in ('glance-api0-external', 'glance-api0-internal',
                     'glance-api1-single'):
            self.stub.put(kube.GLANCE_API, objs.get(
                name.replace('-', '_'), _api(name, READY, 1, 1)))

    def test_caught_up_is_ready(self):
        self.stub.put(kube.GLANCE, _generations(_glance(HEALTHY), 4, 4))
        self.put_apis()
        report = self.access().report()
        self.assertEqual([], readiness.problems(report))
        self.assertEqual([], readiness.settling(report))

    def test_just_patched_glance_is_not_ready(self):
        # NOTE: its conditions still say Ready True, of the pass before.
        self.stub.put(kube.GLANCE, _generations(_glance(HEALTHY), 4, 3))
        self.put_apis()
        report = self.access().report()
        self.assertEqual(
            ['Glance openstack/glance: status.observedGeneration 3, '
             'metadata.generation 4: the operator has not written a pass '
             'over the latest spec, so its conditions describe an earlier '
             'one'], readiness.problems(report))
        self.assertEqual(['Glance openstack/glance'],
                         readiness.settling(report))

    def test_unobserved_glanceapi_is_named(self):
        self.stub.put(kube.GLANCE, _generations(_glance(HEALTHY), 4, 4))
        self.put_apis(glance_api1_single=_api(
            'glance-api1-single', READY, 2))
        report = self.access().report()
        self.assertEqual(
            {'api0': [], 'api1': [
                'GlanceAPI glance-api1-single (API api1): status.'
                'observedGeneration missing, metadata.generation 2: the '
                'operator has not written a pass over this CR yet, so its '
                'conditions are not of its spec']},
            readiness.api_problems(report))
        self.assertEqual(['GlanceAPI glance-api1-single (API api1)'],
                         readiness.settling(report))

    def test_unknown_is_settling_false_is_a_finding(self):
        unknown = conditions.glanceapi_conditions(
            1, 1, statefulset_observed=False)
        self.stub.put(kube.GLANCE, _glance(HEALTHY))
        self.put_apis(glance_api0_external=_api(
            'glance-api0-external', unknown, 1, 1))
        report = self.access().report()
        self.assertIn('GlanceAPI glance-api0-external (API api0): '
                      'DeploymentReady=Unknown (Init): Deployment not '
                      'started', readiness.problems(report))
        self.assertEqual(['GlanceAPI glance-api0-external (API api0)'],
                         readiness.settling(report))
        # NOTE: beside a False one, there is nothing to wait for.
        self.put_apis(glance_api0_external=_api(
            'glance-api0-external', unknown, 1, 1),
            glance_api1_single=_api('glance-api1-single', NOT_READY, 1, 1))
        report = self.access().report()
        self.assertEqual(5, len(readiness.problems(report)))
        self.assertEqual([], readiness.settling(report))

    def test_missing_cr_is_a_finding(self):
        self.stub.put(kube.GLANCE, _generations(_glance(HEALTHY), 4, 3))
        self.put_apis()
        del self.stub.objects[kube_stub.path(kube.GLANCE_API,
                                             'glance-api1-single')]
        report = self.access().report()
        self.assertEqual(2, len(readiness.problems(report)))
        self.assertEqual([], readiness.settling(report))


class ReadThroughCommandTest(kube_cases.KubeTestCase):

    def command(self, obj):
        folder = self.useFixture(fixtures.TempDir()).path
        path = os.path.join(folder, 'glance.json')
        with open(path, 'w') as f:
            json.dump(obj, f)
        return 'cat %s' % shlex.quote(path)

    def test_glance_only_and_says_why(self):
        opts = self.opts(kubernetes_api=False, discovery_command=self.command(
            _glance(STOPPED)))
        report = self.access(opts).report()
        self.assertIsNone(report.api_crs)
        self.assertIn('GlanceAPI CRs: not read: only the Kubernetes API '
                      'reads them', report.describe_sources())
        self.assertEqual(3, len(readiness.problems(report)))
        self.assertEqual([], self.stub.requests)

    def test_not_json_is_a_discovery_error(self):
        opts = self.opts(kubernetes_api=False, discovery_command='echo nope')
        self.assertRaises(discovery.DiscoveryError, self.access(opts).report)
