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

"""The digests heat's pods run, read once their rollouts are over.

A tag (``:current-podified``) resolves at pull time: the pods of one
image must run one digest (and the one status pins); a rollout still
going when the wait ends is named a rollout, not drift.
"""

import copy

import testtools

from glance_multiapi_kernel import heat_images
from glance_multiapi_kernel import image_errors
from glance_multiapi_tests.common import rollout
from glance_multiapi_tests.imagecheck import check
from glance_multiapi_tests.imagecheck import declared
from glance_multiapi_tests.imagecheck import loader
from glance_multiapi_tests.imagecheck import sources
from selftests.unit import test_imagecheck_cli
from selftests.unit import test_imagecheck_declared as by_declaration
from selftests.unit import test_imagecheck_running as running_case

API, CFN, ENGINE = heat_images.API, heat_images.CFNAPI, heat_images.ENGINE
FIELDS = running_case.FIELDS
REPO = 'quay.io/podified-antelope-centos9/openstack-heat-api'
TAG = REPO + ':current-podified'
D1, D2 = 'sha256:' + '1' * 64, 'sha256:' + '2' * 64
WHERE = running_case.WHERE


def pods_of(**digests):
    """Pods: {Deployment: digest} one pod each (None: not resolved)."""
    listed = {}
    for name in FIELDS:
        digest = digests.get(name, D1)
        image_id = (REPO + '@' + digest) if digest else ''
        listed[name] = [running_case.pod(name, TAG, image_id=image_id)]
    return sources.parse_pods(listed, FIELDS, WHERE)


def status(refs):
    return by_declaration.source(sources.STATUS, refs)


def s2i_by_tag():
    refs = {f: TAG for f in (API, CFN)}
    refs[ENGINE] = REPO.replace('heat-api', 'heat-engine') + \
        ':current-podified'
    return refs


def tcib_by_tag():
    return by_declaration.layout('tcib', 'current-podified')


def judge(refs, pods, **kwargs):
    return declared.check_declared([status(refs)], pods=pods, **kwargs)


class ParsePodsTest(testtools.TestCase):

    def test_image_id_forms(self):
        self.assertEqual((D1, True), sources.image_id_digest(
            REPO + '@' + D1))
        self.assertEqual((D1, True), sources.image_id_digest(
            'docker-pullable://' + REPO + '@' + D1))
        self.assertEqual((D1, False), sources.image_id_digest(D1))
        for nothing in ('', None, 'sha256:xyz', 42, REPO + ':tag'):
            self.assertEqual((None, False), sources.image_id_digest(nothing))

    def test_terminating_pods_are_not_read_and_waiting_ones_say_why(self):
        gone = running_case.pod('heat-api', TAG, image_id=REPO + '@' + D2,
                                suffix='old')
        gone['metadata']['deletionTimestamp'] = '2026-01-01T00:00:00Z'
        waiting = running_case.pod('heat-api', TAG, image_id='',
                                   suffix='new')
        waiting['status']['containerStatuses'][0]['state'] = {
            'waiting': {'reason': 'ContainerCreating'}}
        found = sources.parse_pods({'heat-api': [gone, waiting]},
                                   {'heat-api': API}, WHERE)
        pod, = found.by_field[API]
        self.assertEqual(('heat-api-5d8f-new', None, 'ContainerCreating'),
                         (pod.pod, pod.digest, pod.waiting))

    def test_a_pod_that_is_no_object_is_malformed(self):
        exc = self.assertRaises(image_errors.MalformedInput,
                                sources.parse_pods, {'heat-api': ['x']},
                                {'heat-api': API}, WHERE)
        self.assertIn('pods of Deployment heat-api', str(exc))


class PodDigestsTest(testtools.TestCase):

    def test_one_image_on_one_digest_passes(self):
        report = judge(s2i_by_tag(), pods_of())
        self.assertTrue(report.consistent, report.findings)
        rows = [r for r in report.rows if r.source == sources.PODS]
        self.assertEqual(3, len(rows))
        self.assertEqual('heat-api-5d8f-x1', rows[0].reference)

    def test_a_tag_resolved_to_two_digests_names_both_pods(self):
        report = judge(s2i_by_tag(), pods_of(**{'heat-cfnapi': D2}))
        finding, = report.findings
        self.assertEqual(check.RUNNING_DIGESTS, finding.kind)
        self.assertEqual((API, CFN), finding.fields)
        self.assertIn('openstack-heat-api: its pods run 2 digests',
                      finding.message)
        self.assertIn('pod heat-api-5d8f-x1 of Deployment heat-api '
                      '(heatAPIImage) runs ' + D1, finding.message)
        self.assertIn('pod heat-cfnapi-5d8f-x1 of Deployment heat-cfnapi '
                      '(heatCfnapiImage) runs ' + D2, finding.message)
        self.assertEqual((('heat-api-5d8f-x1', D1),
                          ('heat-cfnapi-5d8f-x1', D2)), finding.pods)

    def test_separate_images_may_run_separate_digests(self):
        report = judge(tcib_by_tag(), pods_of(**{'heat-cfnapi': D2}))
        self.assertTrue(report.consistent, report.findings)

    def test_a_pod_off_its_pin_fails(self):
        refs = {f: REPO + '@' + D1 for f in heat_images.FIELDS}
        report = judge(refs, pods_of(**{'heat-engine': D2}))
        self.assertEqual({check.RUNNING_DIGESTS},
                         {f.kind for f in report.findings})
        self.assertIn('pod heat-engine-5d8f-x1 of Deployment heat-engine '
                      'runs %s but status.containerImages.heatEngineImage '
                      'pins %s' % (D2, D1), ' '.join(
                          f.message for f in report.findings))

    def test_unresolved_pod_is_a_note(self):
        report = judge(s2i_by_tag(), pods_of(**{'heat-api': None}))
        self.assertTrue(report.consistent)
        self.assertIn('pod heat-api-5d8f-x1 of Deployment heat-api '
                      '(heatAPIImage) not judged', ' '.join(report.notes))

    def test_mapping_targets_group_the_pods_too(self):
        report = check.check(heat_images.image_mapping(),
                             [status(s2i_by_tag())],
                             pods=pods_of(**{'heat-cfnapi': D2}))
        self.assertEqual([check.RUNNING_DIGESTS],
                         [f.kind for f in report.findings])
        self.assertEqual('heat/heat-api', report.findings[0].target)

    def test_a_rollout_is_named_and_not_judged_as_drift(self):
        pods = pods_of(**{'heat-cfnapi': D2})
        pods = pods.__class__(
            where=pods.where, by_field=pods.by_field,
            deployments={f: n for n, f in FIELDS.items()},
            unsettled={'heat-cfnapi': 'updatedReplicas 0 of 1'}, waited=5)
        report = judge(s2i_by_tag(), pods)
        self.assertEqual([check.ROLLOUT], [f.kind for f in report.findings])
        self.assertIn('Deployment heat-cfnapi (%s) is still rolling out '
                      'after 5 s of waiting: updatedReplicas 0 of 1'
                      % WHERE, report.findings[0].message)


class RolledOutTest(testtools.TestCase):

    def dep(self, **status):
        obj = running_case.deployment('heat-api')
        obj['status'].update(status)
        return obj

    def test_done(self):
        self.assertEqual((True, 'rolled out (generation 1, 1 replica(s))'),
                         rollout.rolled_out(self.dep()))

    def test_each_way_of_still_rolling(self):
        for status, seen in (
                ({'observedGeneration': 0}, 'generation 1 not observed yet'),
                ({'updatedReplicas': 0}, 'updatedReplicas 0 of 1'),
                ({'replicas': 2}, '1 old replica(s) still running'),
                ({'availableReplicas': 0}, 'availableReplicas 0 of 1')):
            done, said = rollout.rolled_out(self.dep(**status))
            self.assertFalse(done, status)
            self.assertIn(seen, said)

    def test_any_object_is_judged(self):
        for obj in (None, [], {'status': 'x'}, {'spec': {'replicas': 'x'}}):
            self.assertIsInstance(rollout.rolled_out(obj)[1], str)


class ReadPodsThroughApiTest(running_case.ApiStubCase):

    def dep_path(self, name):
        return '/apis/apps/v1/namespaces/openstack/deployments/' + name

    def run_loader(self, **values):
        values.setdefault('mappings_file', None)
        values.setdefault('builtin', True)
        return loader.run(self.inputs(**values))

    def requests(self, kind):
        return [r['path'] for r in self.stub.requests
                if r['method'] == 'GET' and kind in r['path']]

    def test_a_rollout_is_waited_out(self):
        rolling = self.stub.objects[self.dep_path('heat-engine')]
        done = copy.deepcopy(rolling)
        rolling['status']['updatedReplicas'] = 0
        access = self.inputs().kubernetes
        reads = []
        real = access.deployments

        def deployments(names):
            found, where = real(names)
            reads.append(1)
            if len(reads) >= 2:
                found['heat-engine'] = done
            return found, where

        access.deployments = deployments
        report = loader.run(self.inputs(kubernetes=access,
                                        rollout_timeout=30.0))
        self.assertTrue(report.consistent, report.findings)
        self.assertEqual(2, len(reads))

    def test_a_rollout_not_over_is_named_after_the_bound(self):
        self.stub.objects[self.dep_path('heat-engine')]['status'][
            'updatedReplicas'] = 0
        report = loader.run(self.inputs(rollout_timeout=0.0))
        self.assertEqual([check.ROLLOUT], [f.kind for f in report.findings])
        self.assertNotIn('heat-engine', ' '.join(self.requests('pods')))

    def test_an_update_in_progress_is_waited_for_then_named(self):
        self.stub.objects[next(k for k in self.stub.objects
                               if 'openstackversions' in k)]['status'][
            'deployedVersion'] = '0.0'
        report = loader.run(self.inputs(rollout_timeout=0.0))
        self.assertEqual([check.ROLLOUT] * 3,
                         [f.kind for f in report.findings])
        self.assertIn('an update of the OpenStackVersion to targetVersion '
                      '0.1 is in progress (deployedVersion 0.0)',
                      report.findings[0].message)

    def test_two_digests_are_read_again_by_name_before_they_fail(self):
        other = running_case.pod('heat-cfnapi', running_case.A,
                                 image_id=REPO + '@' + D2)
        self.put_pod(other)
        report = self.run_loader()
        self.assertIn(check.RUNNING_DIGESTS,
                      {f.kind for f in report.findings})
        self.assertIn('/api/v1/namespaces/openstack/pods/'
                      'heat-cfnapi-5d8f-x1', self.requests('pods/'))

    def test_a_pod_gone_since_the_list_makes_a_second_read(self):
        other = running_case.pod('heat-cfnapi', running_case.A,
                                 image_id=REPO + '@' + D2)
        self.put_pod(other)
        self.stub.answers[('GET', running_case.POD_PATH +
                           'heat-cfnapi-5d8f-x1')] = (
            404, running_case.kube_stub.status(
                404, 'NotFound', 'gone', name='heat-cfnapi-5d8f-x1'))
        self.run_loader()
        listed = [p for p in self.requests('pods?') if 'heat-cfnapi' in p]
        self.assertEqual(2, len(listed), self.stub.requests)

    def test_a_pod_still_pulling_is_read_until_resolved(self):
        name = 'heat-engine-5d8f-x1'
        pulling = self.stub.objects[running_case.POD_PATH + name]
        resolved = copy.deepcopy(pulling)
        pulling['status']['containerStatuses'][0]['imageID'] = ''
        access = self.inputs().kubernetes
        real = access.read_pod
        access.read_pod = lambda pod: resolved if pod == name else real(pod)
        report = loader.run(self.inputs(kubernetes=access,
                                        rollout_timeout=30.0))
        self.assertTrue(report.consistent, report.findings)
        self.assertEqual([], [n for n in report.notes if 'not judged' in n])


class RolloutTimeoutOptionTest(testtools.TestCase):

    def test_negative_is_a_usage_error(self):
        code, _out, err = test_imagecheck_cli.run_main(
            '--rollout-timeout', '-1')
        self.assertEqual(image_errors.EXIT_USAGE, code)
        self.assertIn("'-1' is not a number of seconds, zero or more", err)
