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

"""Every heat state a cluster is in, judged by glance-multiapi-image-check.

On the heat cloud of test_heat (its own, or GLANCE_MULTIAPI_HEAT_CLOUD),
in each state of heat's images the embedded cloud plays (kubeapi/
embedded/heat.py STATES: upstream's tcib default by tag, s2i through the
overrides, pinned or by its rolling tag, all in one, a product's names, a
field moved through a mirror, an update that made the next version
available), the CLI reads the OpenStackVersion, the Deployments and
their pods through the Kubernetes API, as a cluster admin runs it
without a mapping file: healthy, it passes with or without the
operator's manager env (the verdict does not depend on it); broken by a
fault, it fails naming the fields, the values and the pods.
"""

import json
import os
import subprocess
import sys

from glance_multiapi_cloud.kubeapi.embedded import heat as kubeheat
from glance_multiapi_kernel import kube
from selftests.functional import kube_base
from selftests.functional import test_heat

REPO = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir)
S2I_FILE = os.path.join(REPO, 'etc', 'image-check',
                        's2i-image-mappings-560e86c.yaml')
RUNNING = ('heat-api=heatAPIImage', 'heat-cfnapi=heatCfnapiImage',
           'heat-engine=heatEngineImage')
TCIB = 'quay.io/podified-antelope-centos9/openstack-heat-'


class HeatStatesCliTest(kube_base.KubeMixin, test_heat.HeatCloudTestCase):
    """Each state passes healthy and fails broken, from the CLI."""

    def image_check(self, *extra, env=False, rollout_timeout=60):
        """(exit code, the JSON report or None, stderr) of the CLI."""
        argv = [sys.executable, '-m', 'glance_multiapi_tests.imagecheck.cli',
                '--kubernetes', '--kubeconfig', self.kubeconfig(),
                '--rollout-timeout', str(rollout_timeout), '-o', 'json']
        for item in RUNNING:
            argv += ['--running', item]
        if env:
            argv += ['--env-file', os.path.join(self.state_dir,
                                                'related-images.env')]
        proc = subprocess.run(argv + list(extra), capture_output=True,
                              text=True, timeout=300)
        report = json.loads(proc.stdout) if proc.stdout.strip() else None
        return proc.returncode, report, proc.stderr

    def assertVerdict(self, code, *extra, **kwargs):
        got, report, err = self.image_check(*extra, **kwargs)
        self.assertEqual(code, got, json.dumps(report, indent=1) + err)
        return report

    def findings(self, report, kind=None):
        return [f for f in report['findings']
                if kind is None or f['kind'] == kind]

    def assertNames(self, text, *needles):
        for needle in needles:
            self.assertIn(needle, text)

    def test_default_state_is_tcibs_three_images_by_tag(self):
        custom, _apps = self.apis()
        version = custom.get_namespaced_custom_object(*kube_base.OSV,
                                                      'openstack')
        tcib = {'heatAPIImage': TCIB + 'api:current-podified',
                'heatCfnapiImage': TCIB + 'api-cfn:current-podified',
                'heatEngineImage': TCIB + 'engine:current-podified'}
        self.assertEqual(tcib, version['status']['containerImages'])
        self.assertEqual({}, version['spec']['customContainerImages'])
        self.assertEqual({'0.0.1': tcib}, version['status'][
            'containerImageVersionDefaults'])
        with open(os.path.join(self.state_dir, 'related-images.env')) as f:
            env = f.read()
        self.assertIn('OPENSTACK_RELEASE_VERSION=0.0.1\n', env)
        self.assertIn('RELATED_IMAGE_HEAT_CFNAPI_IMAGE_URL_DEFAULT=' + TCIB +
                      'api-cfn:current-podified\n', env)
        report = self.assertVerdict(0)
        pods = {r['field']: r for r in report['rows']
                if r['source'] == 'running pods'}
        self.assertEqual(3, len({r['digest'] for r in pods.values()}))
        for row in pods.values():
            self.assertRegex(row['digest'], r'^sha256:[0-9a-f]{64}$')

    def test_every_state_passes_with_or_without_the_env(self):
        for name in kubeheat.STATES:
            with self.heat_state(name):
                alone = self.assertVerdict(0)
                given = self.assertVerdict(0, env=True)
            self.assertEqual([], alone['findings'], name)
            self.assertEqual([], given['findings'], name)
            if name == 'update':
                self.assertIn('not compared: version 0.0.2, not '
                              'targetVersion 0.0.1', ' '.join(
                                  given['notes']))

    def test_s2i_own_mapping_file_loads_on_its_state(self):
        with self.heat_state('s2i'):
            report = self.assertVerdict(
                0, '--mappings', S2I_FILE, '--target', 'heat/heat-api',
                '--target', 'heat/heat-engine', env=True)
        self.assertIn('lists manilaShareImage under manila/manila-share',
                      ' '.join(report['notes']))

    def test_tcib_deployment_on_another_digest_fails_naming_it(self):
        with self.fault('heat-image-drift=heat-engine'):
            report = self.assertVerdict(1)
        drift, = self.findings(report, 'running-drift')
        self.assertNames(drift['message'], 'Deployment heat-engine',
                         TCIB + 'engine:current-podified@sha256:',
                         'status.containerImages.heatEngineImage=' + TCIB +
                         'engine:current-podified')

    def test_two_builds_of_the_shared_image_fail(self):
        with self.heat_state('product'), self.fault(
                'second-build=heatCfnapiImage'):
            report = self.assertVerdict(1)
        mismatch = self.findings(report, 'digest-mismatch')
        self.assertTrue(mismatch, report['findings'])
        self.assertNames(mismatch[0]['message'],
                         'openstack-heat-api-rhel9 in status.containerImages',
                         'heatAPIImage=registry.redhat.io/rhoso/'
                         'openstack-heat-api-rhel9@sha256:',
                         'heatCfnapiImage=registry.redhat.io/second-build/'
                         'openstack-heat-api-rhel9@sha256:')
        self.assertTrue(self.findings(report, 'partial-override'))
        pods, = self.findings(report, 'running-digests')
        self.assertNames(pods['message'], 'of Deployment heat-api',
                         'of Deployment heat-cfnapi', 'runs sha256:')

    def test_a_tag_resolved_to_two_digests_fails_naming_both_pods(self):
        with self.heat_state('s2i-latest'), self.fault(
                'pod-digest-drift=heat-cfnapi'):
            before = len(self.audit())
            report = self.assertVerdict(1)
        finding, = self.findings(report)
        self.assertEqual('running-digests', finding['kind'])
        self.assertEqual(['heatAPIImage', 'heatCfnapiImage'],
                         finding['fields'])
        (api_pod, api_digest), (cfn_pod, cfn_digest) = finding['pods']
        self.assertNotEqual(api_digest, cfn_digest)
        self.assertNames(finding['message'], 'its pods run 2 digests',
                         'pod %s of Deployment heat-api (heatAPIImage) runs '
                         '%s' % (api_pod, api_digest),
                         'pod %s of Deployment heat-cfnapi (heatCfnapiImage) '
                         'runs %s' % (cfn_pod, cfn_digest))
        # NOTE: listed through each Deployment's selector, then each pod
        # it names read again by name before it was reported.
        made = [(r['verb'], r['resource'], r.get('name') or None)
                for r in self.audit()[before:]]
        self.assertIn(('list', 'pods', None), made)
        self.assertIn(('get', 'pods', cfn_pod), made)

    def test_mirror_pod_off_its_pin_fails(self):
        with self.heat_state('mirror'), self.fault(
                'pod-digest-drift=heat-cfnapi'):
            report = self.assertVerdict(1)
        messages = ' '.join(f['message'] for f in self.findings(
            report, 'running-digests'))
        self.assertNames(messages, 'of Deployment heat-cfnapi runs sha256:',
                         'but status.containerImages.heatCfnapiImage pins '
                         'sha256:')

    def test_update_is_judged_against_the_target_versions_defaults(self):
        with self.heat_state('update'), self.fault(
                'version-digest-drift=heatEngineImage'):
            report = self.assertVerdict(1, env=True)
        drift, = self.findings(report, 'drift')
        self.assertNames(drift['message'],
                         'status.containerImageVersionDefaults[0.0.1].'
                         'heatEngineImage=' + TCIB +
                         'engine:current-podified')
        self.assertIn('not compared: version 0.0.2', ' '.join(
            report['notes']))

    def test_one_image_on_two_digests_fails(self):
        with self.heat_state('one'), self.fault(
                'version-digest-drift=heatEngineImage'):
            report = self.assertVerdict(1)
        self.assertTrue(self.findings(report, 'digest-mismatch'))

    def test_proposed_defaults_partial_override_fails(self):
        # NOTE: defaults serving heat-api and heat-api-cfn from one image,
        # of which the user overrides one field.
        with self.heat_state('proposed'), self.fault(
                'version-partial-override=heatAPIImage'):
            report = self.assertVerdict(1)
        partial, = self.findings(report, 'partial-override')
        self.assertNames(partial['message'], 'overrides heatAPIImage=',
                         'but not heatCfnapiImage')

    def test_a_restarts_rollout_is_waited_out(self):
        # NOTE: a deleted heat-engine pod is replaced at once, and the new
        # one is Ready 10 s after it started (its probe's delay): until
        # then the Deployment is rolling out (availableReplicas 0 of 1).
        with kube.connect(kube.Settings(kubeconfig=self.kubeconfig(),
                                        namespace=kube_base.NS)) as client:
            engine, = [kube.name_of(p) for p in client.list(
                kube.POD, label_selector='service=heat,component=engine')
                if not kube.metadata(p).get('deletionTimestamp')]
            client.delete(kube.POD, engine)
        report = self.assertVerdict(1, rollout_timeout=0)
        self.assertEqual(['rollout'], [f['kind'] for f in report['findings']])
        self.assertNames(report['findings'][0]['message'],
                         'Deployment heat-engine',
                         'availableReplicas 0 of 1')
        self.assertVerdict(0, rollout_timeout=60)

    def test_a_stuck_rollout_is_named_a_rollout_not_drift(self):
        self.assertVerdict(0, rollout_timeout=2)
        with self.fault('heat-rollout-stuck=heat-engine'):
            report = self.assertVerdict(1, rollout_timeout=2)
        self.assertEqual(['rollout'], [f['kind'] for f in report['findings']])
        self.assertNames(report['findings'][0]['message'],
                         'Deployment heat-engine',
                         'is still rolling out after',
                         'updatedReplicas 0 of 1')
