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

"""The running Deployments' images against each other and the status."""

import copy

import fixtures
import testtools

from glance_multiapi_kernel import kube
from glance_multiapi_tests import deployment_access
from glance_multiapi_tests.imagecheck import check
from glance_multiapi_kernel import image_errors
from glance_multiapi_tests.imagecheck import loader
from glance_multiapi_tests.imagecheck import sources
from selftests.unit import kube_stub
from selftests.unit import test_imagecheck_check
from selftests.unit import test_imagecheck_cli

REPO = test_imagecheck_check.REPO
A = test_imagecheck_check.A
B = test_imagecheck_check.B
MAPPING = test_imagecheck_check.MAPPING
FIELDS = {'heat-api': 'heatAPIImage', 'heat-cfnapi': 'heatCfnapiImage',
          'heat-engine': 'heatEngineImage'}
WHERE = 'Kubernetes API at http://127.0.0.1:1, namespace openstack'


def deployment(name, *containers):
    """A rolled out Deployment whose containers are (name, image) pairs."""
    if not containers:
        containers = ((name, A),)
    return {'apiVersion': 'apps/v1', 'kind': 'Deployment',
            'metadata': {'name': name, 'namespace': 'openstack',
                         'generation': 1},
            'spec': {'replicas': 1,
                     'selector': {'matchLabels': {'app': name}},
                     'template': {
                         'metadata': {'labels': {'app': name}},
                         'spec': {'containers': [
                             {'name': c, 'image': image}
                             for c, image in containers]}}},
            'status': {'observedGeneration': 1, 'replicas': 1,
                       'updatedReplicas': 1, 'readyReplicas': 1,
                       'availableReplicas': 1}}


def pod(deployment_name, image=A, image_id=None, suffix='x1'):
    """A running pod of the Deployment, its image resolved to image_id."""
    name = '%s-5d8f-%s' % (deployment_name, suffix)
    if image_id is None:
        image_id = image.split(':')[0].rsplit('@', 1)[0] + '@' + (
            image.split('@')[1] if '@' in image else 'sha256:' + '0' * 64)
    return {'apiVersion': 'v1', 'kind': 'Pod',
            'metadata': {'name': name, 'namespace': 'openstack',
                         'labels': {'app': deployment_name}},
            'spec': {'containers': [{'name': deployment_name,
                                     'image': image}]},
            'status': {'phase': 'Running', 'containerStatuses': [{
                'name': deployment_name, 'image': image, 'imageID': image_id,
                'ready': True}]}}


POD_PATH = '/api/v1/namespaces/openstack/pods/'


def running(**images):
    objects = {name: deployment(name, (name, images.get(name, A)))
               for name in FIELDS}
    return sources.parse_running(objects, FIELDS, WHERE)


def status(**refs):
    values = {'heatAPIImage': A, 'heatCfnapiImage': A, 'heatEngineImage': A}
    values.update(refs)
    return test_imagecheck_check.status(**values)


class ParseRunningTest(testtools.TestCase):

    def test_container_named_like_the_deployment(self):
        source = sources.parse_running(
            {'heat-api': deployment('heat-api', ('sidecar', B),
                                    ('heat-api', A))},
            {'heat-api': 'heatAPIImage'}, WHERE)
        self.assertEqual(A, source.references['heatAPIImage'].text)
        self.assertEqual('Deployment heat-api', source.origin('heatAPIImage'))

    def test_else_the_only_container(self):
        source = sources.parse_running(
            {'heat-api': deployment('heat-api', ('api', B))},
            {'heat-api': 'heatAPIImage'}, WHERE)
        self.assertEqual(B, source.references['heatAPIImage'].text)

    def test_several_unnamed_containers_is_malformed(self):
        exc = self.assertRaises(
            image_errors.MalformedInput, sources.parse_running,
            {'heat-api': deployment('heat-api', ('a', A), ('b', B))},
            {'heat-api': 'heatAPIImage'}, WHERE)
        self.assertIn('Deployment heat-api: has 2 containers (a, b) and '
                      'none is named heat-api', str(exc))

    def test_bad_image_names_the_container(self):
        exc = self.assertRaises(
            image_errors.MalformedInput, sources.parse_running,
            {'heat-api': deployment('heat-api', ('heat-api', 'Bad Image'))},
            {'heat-api': 'heatAPIImage'}, WHERE)
        self.assertIn('Deployment heat-api container heat-api image',
                      str(exc))

    def test_one_field_for_two_deployments_is_refused(self):
        exc = self.assertRaises(
            image_errors.MalformedInput, sources.parse_running,
            {'a': deployment('a'), 'b': deployment('b')},
            {'a': 'heatAPIImage', 'b': 'heatAPIImage'}, WHERE)
        self.assertIn('given to two Deployments, a and b', str(exc))


class RunningCheckTest(testtools.TestCase):

    def test_all_on_the_status_digest_is_consistent(self):
        report = check.check(MAPPING, [status()], running=running())
        self.assertTrue(report.consistent, report.findings)
        shown = [row for row in report.rows
                 if row.source == sources.RUNNING]
        self.assertEqual(3, len(shown))
        self.assertEqual({'ok'}, {row.verdict for row in shown})

    def test_drifted_deployment_names_itself_image_and_field(self):
        report = check.check(MAPPING, [status()],
                             running=running(**{'heat-engine': B}))
        found = {f.kind: f for f in report.findings}
        self.assertEqual({check.DIGEST_MISMATCH, check.RUNNING_DRIFT},
                         set(found))
        drift = found[check.RUNNING_DRIFT]
        self.assertIn('heat/heat-api: Deployment heat-engine (%s) runs %s, '
                      'but status.containerImages.heatEngineImage=%s'
                      % (WHERE, B, A), drift.message)
        self.assertEqual(sources.RUNNING, drift.source)
        mismatch = found[check.DIGEST_MISMATCH]
        self.assertIn('heatEngineImage (Deployment heat-engine)=' + B,
                      mismatch.message)
        self.assertIn('heatAPIImage (Deployment heat-api)=' + A,
                      mismatch.message)
        verdicts = {row.field: row.verdict for row in report.rows
                    if row.source == sources.RUNNING}
        self.assertEqual('digest-mismatch,running-drift',
                         verdicts['heatEngineImage'])

    def test_status_drift_alone_fails_only_the_running_comparison(self):
        # All three Deployments agree, but not with what status says.
        report = check.check(MAPPING, [status(
            heatAPIImage=B, heatCfnapiImage=B, heatEngineImage=B)],
            running=running())
        self.assertEqual([check.RUNNING_DRIFT] * 3,
                         [f.kind for f in report.findings])

    def test_field_absent_from_status(self):
        report = check.check(
            MAPPING, [test_imagecheck_check.status(
                heatAPIImage=A, heatCfnapiImage=A)],
            running=running())
        drift = [f for f in report.findings
                 if f.kind == check.RUNNING_DRIFT]
        self.assertEqual(1, len(drift))
        self.assertIn('but status.containerImages has no heatEngineImage',
                      drift[0].message)

    def test_without_status_only_a_note(self):
        report = check.check(MAPPING, [], running=running())
        self.assertTrue(report.consistent)
        self.assertIn('running Deployments not compared with '
                      'status.containerImages', ' '.join(report.notes))

    def test_unmapped_field_is_compared_with_status(self):
        objects = {'keystone': deployment('keystone',
                                          ('keystone', 'quay.io/x/k:2'))}
        report = check.check(MAPPING, [status()], running=(
            sources.parse_running(objects, {'keystone': 'keystoneAPIImage'},
                                  WHERE)))
        self.assertEqual([check.RUNNING_DRIFT], [
            f.kind for f in report.findings])
        self.assertIn('Deployment keystone', report.findings[0].message)


VERSION = {
    'apiVersion': 'core.openstack.org/v1beta1', 'kind': 'OpenStackVersion',
    'metadata': {'name': 'openstack', 'namespace': 'openstack'},
    'spec': {'targetVersion': '0.1'},
    'status': {'deployedVersion': '0.1', 'containerImages': {
        'heatAPIImage': A, 'heatCfnapiImage': A, 'heatEngineImage': A}},
}


class ApiStubCase(testtools.TestCase):
    """The OpenStackVersion and heat's Deployments on a stub API."""

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.EnvironmentVariable(kube.IN_CLUSTER_ENV))
        self.stub = kube_stub.KubeStub(self)
        self.stub.put(kube.VERSION, copy.deepcopy(VERSION))
        for name in FIELDS:
            self.stub.objects['/apis/apps/v1/namespaces/openstack/'
                              'deployments/' + name] = deployment(name)
            self.put_pod(pod(name))
        folder = self.useFixture(fixtures.TempDir()).path
        self.mappings = folder + '/m.yaml'
        with open(self.mappings, 'w') as f:
            f.write('heat/heat-api: [heatAPIImage, heatCfnapiImage, '
                    'heatEngineImage]\n')

    def put_pod(self, obj):
        self.stub.objects[POD_PATH + obj['metadata']['name']] = obj

    def inputs(self, **values):
        base = dict(mappings_file=self.mappings,
                    kubernetes=deployment_access.KubernetesAccess(
                        kube.Settings(kubeconfig=self.stub.kubeconfig(self))),
                    version_name_option='[consolidated_images] '
                                        'openstackversion_name',
                    running_deployments=tuple(sorted(FIELDS.items())))
        base.update(values)
        return loader.Inputs(**base)


class ReadThroughApiTest(ApiStubCase):

    def test_reads_only_version_and_named_deployments(self):
        report = loader.run(self.inputs())
        self.assertTrue(report.consistent, report.findings)
        self.assertEqual(
            ['GET /apis/core.openstack.org/v1beta1/namespaces/openstack/'
             'openstackversions'] + [
                'GET /apis/apps/v1/namespaces/openstack/deployments/' + n
                for n in sorted(FIELDS)] + [
                'GET /api/v1/namespaces/openstack/pods?labelSelector=app%3D'
                + n for n in sorted(FIELDS)],
            ['%s %s' % (r['method'], r['path'] if 'pods' in r['path']
                        else r['path'].split('?')[0])
             for r in self.stub.requests])
        self.assertIn(sources.RUNNING, {row.source for row in report.rows})

    def test_drift_found_through_the_api(self):
        self.stub.objects['/apis/apps/v1/namespaces/openstack/deployments/'
                          'heat-cfnapi'] = deployment(
                              'heat-cfnapi', ('heat-cfnapi', B))
        report = loader.run(self.inputs(openstackversion_name='openstack'))
        drift = [f for f in report.findings
                 if f.kind == check.RUNNING_DRIFT]
        self.assertEqual(1, len(drift))
        self.assertIn('Deployment heat-cfnapi', drift[0].message)
        self.assertIn('OpenStackVersion openstack/openstack via the '
                      'Kubernetes API at ' + self.stub.server,
                      drift[0].message)

    def test_without_mapping_only_status_is_compared(self):
        self.stub.objects['/apis/apps/v1/namespaces/openstack/deployments/'
                          'heat-api'] = deployment('heat-api',
                                                   ('heat-api', B))
        report = loader.run(self.inputs(mappings_file=None))
        self.assertEqual([check.RUNNING_DRIFT],
                         [f.kind for f in report.findings])
        self.assertIn('Deployment heat-api', report.findings[0].message)
        self.assertIn('compared with status.containerImages only',
                      ' '.join(report.notes))

    def test_mapping_still_needed_without_running(self):
        exc = self.assertRaises(image_errors.ImageCheckError, loader.run,
                                self.inputs(mappings_file=None,
                                            running_deployments=()))
        self.assertIn('no image mappings file given', str(exc))

    def test_forbidden_deployment_is_one_unavailable_line(self):
        route = '/apis/apps/v1/namespaces/openstack/deployments/heat-engine'
        self.stub.answers[('GET', route)] = (403, kube_stub.status(
            403, 'Forbidden', 'no'))
        exc = self.assertRaises(image_errors.InputUnavailable, loader.run,
                                self.inputs())
        self.assertIn('get deployments.apps "heat-engine" in namespace '
                      '"openstack": 403 Forbidden: the kubeconfig\'s user '
                      'lacks "get" on "deployments" in API group "apps"',
                      str(exc))
        self.assertNotIn('\n', str(exc))

    def test_two_versions_name_the_option(self):
        second = copy.deepcopy(VERSION)
        second['metadata']['name'] = 'other'
        self.stub.put(kube.VERSION, second)
        exc = self.assertRaises(image_errors.InputUnavailable, loader.run,
                                self.inputs())
        self.assertIn('2 found: openstack, other; set [consolidated_images] '
                      'openstackversion_name', str(exc))

    def test_version_command_and_api_are_exclusive(self):
        exc = self.assertRaises(image_errors.ImageCheckError, loader.run,
                                self.inputs(version_command='true'))
        self.assertIn('read through the Kubernetes API', str(exc))

    def test_running_without_api_is_refused(self):
        exc = self.assertRaises(image_errors.ImageCheckError, loader.run,
                                self.inputs(kubernetes=None))
        self.assertIn('only be read through the Kubernetes API', str(exc))


class CliThroughApiTest(ApiStubCase):
    """glance-multiapi-image-check --kubernetes --running."""

    def main(self, *argv):
        return test_imagecheck_cli.run_main(*argv)

    def args(self, *extra):
        return ['--mappings', self.mappings, '--kubernetes',
                '--kubeconfig', self.stub.kubeconfig(self)] + [
            '--running=%s=%s' % item for item in sorted(FIELDS.items())
        ] + list(extra)

    def test_drift_exits_1_naming_the_deployment(self):
        self.stub.objects['/apis/apps/v1/namespaces/openstack/deployments/'
                          'heat-engine'] = deployment(
                              'heat-engine', ('heat-engine', B))
        code, out, err = self.main(*self.args())
        self.assertEqual(1, code, err)
        self.assertIn('running-drift: heat/heat-api: Deployment heat-engine',
                      out)

    def test_api_failure_exits_23_in_one_line(self):
        self.stub.answers[('GET', kube_stub.path(kube.VERSION))] = (
            403, kube_stub.status(403, 'Forbidden', 'no'))
        code, out, err = self.main(*self.args())
        self.assertEqual(image_errors.EXIT_UNAVAILABLE, code)
        self.assertEqual(1, err.count('\n'), err)
        self.assertIn('lacks "list" on "openstackversions"', err)

    def test_running_needs_kubernetes(self):
        code, _, err = self.main('--mappings', self.mappings,
                                 '--running', 'heat-api=heatAPIImage')
        self.assertEqual(image_errors.EXIT_USAGE, code)
        self.assertIn('--running needs --kubernetes', err)

    def test_running_must_be_a_pair(self):
        code, _, err = self.main(*self.args('--running', 'heat-api'))
        self.assertEqual(image_errors.EXIT_USAGE, code)
        self.assertIn("'heat-api' is not DEPLOYMENT=FIELD", err)
