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

"""The heat Deployments and OpenStackVersion of the embedded Kubernetes API.

On the heat cloud of test_heat (its own, or GLANCE_MULTIAPI_HEAT_CLOUD):
the three Deployments run the image references OpenStackVersion names in
the cloud's heat state (upstream's default by default: tcib's three
images by tag), the drift faults make one differ, and the consolidated
image checks pass on what the cloud writes and serves, in each of
upstream's layouts, and catch each kind of drift, in the Deployments and
in the digests their pods run. test_heat_states judges every state from
the CLI.
"""


import os
import shlex
import shutil
import subprocess
import sys
import tempfile

from glance_multiapi_kernel import polling
from selftests.functional import kube_base
from selftests.functional import test_heat

CONSOLIDATED = r'glance_multiapi_tests\.tests\.api\.test_consolidated_images'
RUNNING = ('test_consolidated_images.ConsolidatedRunningImagesTest.'
           'test_running_images_match_version')
REFERENCES = ('test_consolidated_images.ConsolidatedImageReferencesTest.'
              'test_deployed_image_references_agree')
MAPPING = ('test_consolidated_images.ConsolidatedImageMappingTest.'
           'test_image_mapping_assigns_fields_once_to_known_images')
DEPLOYMENTS = {'heat-api': 'heatAPIImage', 'heat-cfnapi': 'heatCfnapiImage',
               'heat-engine': 'heatEngineImage'}


class KubeApiHeatTest(kube_base.KubeMixin, test_heat.HeatCloudTestCase):
    """Deployments and OpenStackVersion agree, unless a fault says not."""

    def images(self):
        """({deployment: (image, ready replicas)}, containerImages).

        NOTE: heat-engine's pod is Ready 10 s after it started (its
        readiness probe's delay), so the replicas are waited for.
        """
        custom, apps = self.apis()
        found = {}

        def read():
            for name in DEPLOYMENTS:
                dep = apps.read_namespaced_deployment(name, kube_base.NS)
                container, = dep.spec.template.spec.containers
                self.assertEqual(name, container.name)
                found[name] = (container.image, dep.status.ready_replicas)
            return all(ready == 1 for _i, ready in found.values()), found

        polling.poll(read, what='the heat Deployments to be ready',
                     timeout=30, interval=0.5, describe=str)
        version = custom.get_namespaced_custom_object(*kube_base.OSV,
                                                      'openstack')
        return found, version['status']['containerImages']

    def test_deployments_run_the_s2i_images(self):
        # NOTE: s2i's images reach a cluster through the overrides.
        with self.heat_state('s2i'):
            found, images = self.images()
        for name, field in DEPLOYMENTS.items():
            self.assertEqual((images[field], 1), found[name])
        api = images['heatAPIImage']
        self.assertEqual(api, images['heatCfnapiImage'])
        self.assertIn('/openstack-k8s-operators/openstack-heat-api@sha256:',
                      api)
        engine = images['heatEngineImage']
        self.assertIn('/openstack-k8s-operators/openstack-heat-engine'
                      '@sha256:', engine)
        self.assertNotEqual(api.split('@')[1], engine.split('@')[1])

    def test_each_layout_runs_its_images(self):
        for name, count in (('tcib', 3), ('one', 1)):
            with self.heat_state(name):
                found, images = self.images()
            self.assertEqual(count, len(set(images.values())), name)
            self.assertEqual(sorted(images.values()),
                             sorted(image for image, _r in found.values()))

    def test_image_drift_fault_changes_one_deployment(self):
        # NOTE: in s2i's layout, where heat-api and heat-cfnapi share one.
        with self.heat_state('s2i'):
            with self.fault('heat-image-drift=heat-engine'):
                found, images = self.images()
            self.assertEqual(images['heatAPIImage'], found['heat-api'][0])
            self.assertEqual(images['heatAPIImage'],
                             found['heat-cfnapi'][0])
            engine = found['heat-engine'][0]
            self.assertNotEqual(images['heatEngineImage'], engine)
            self.assertEqual(images['heatEngineImage'].split('@')[0],
                             engine.split('@')[0])
            found, _images = self.images()
            self.assertEqual(images['heatEngineImage'],
                             found['heat-engine'][0])

    def test_image_check_passes_on_what_the_cloud_writes(self):
        kubectl = shutil.which('kubectl')
        if not kubectl:
            self.skipTest('kubectl not installed')
        home = tempfile.mkdtemp(prefix='gmt-kubectl-home-')
        self.addCleanup(shutil.rmtree, home, ignore_errors=True)
        command = '%s --kubeconfig %s get openstackversion openstack -o ' \
            'json' % (kubectl, shlex.quote(self.kubeconfig()))
        proc = subprocess.run(
            [sys.executable, '-m', 'glance_multiapi_tests.imagecheck.cli',
             '--mappings', os.path.join(self.state_dir,
                                        'image-mappings.yaml'),
             '--known-names', os.path.join(self.state_dir,
                                           'known-image-names.txt'),
             '--version-command', command],
            capture_output=True, text=True, timeout=120,
            env=dict(os.environ, HOME=home))
        self.assertEqual(0, proc.returncode, proc.stdout + proc.stderr)
        # NOTE: three in status, three in the version's defaults.
        self.assertIn('CONSISTENT: 6 field reference(s)', proc.stdout)

    # NOTE: no mapping file, as in a test-operator pod: heat's fields are
    # judged as the cloud's OpenStackVersion groups them. One test per
    # cloud state: the three tempest runs in one took 219 to 248 s on two
    # cores.
    BUILTIN = {'consolidated_images': {'mappings_file': '',
                                       'known_image_names_file': ''}}

    def test_builtin_groups_pass(self):
        with self.fault():
            results = self.run_tempest(CONSOLIDATED, overrides=self.BUILTIN)
        self.assertEqual(3, len(results), results)
        self.assertEqual({'success'}, {s for s, _d in results.values()},
                         results)

    def test_builtin_groups_catch_api_and_cfn_on_two_digests(self):
        with self.heat_state('s2i'), self.fault(
                'version-digest-drift=heatCfnapiImage'):
            results = self.run_tempest(CONSOLIDATED, overrides=self.BUILTIN)
        self.assertOutcome(results, REFERENCES, 'fail', 'digest-mismatch',
                           'openstack-heat-api in status.containerImages',
                           'heatCfnapiImage', 'the images the deployment '
                           'declares')
        self.assertOutcome(results, RUNNING, 'fail', 'heat-cfnapi',
                           'running-drift')

    def test_builtin_groups_catch_missing_field_and_partial_override(self):
        # NOTE: defaults serving heat-api and heat-api-cfn from one image,
        # of which the user overrides one field.
        with self.heat_state('proposed'), self.fault(
                'version-field-missing=heatEngineImage',
                'version-partial-override=heatAPIImage'):
            results = self.run_tempest(CONSOLIDATED, overrides=self.BUILTIN)
        self.assertOutcome(results, MAPPING, 'fail', 'missing',
                           'lacks heatEngineImage', 'openstackversion_types')
        self.assertOutcome(results, REFERENCES, 'fail', 'partial-override',
                           'overrides heatAPIImage=', 'but not '
                           'heatCfnapiImage')
        # NOTE: the override is deployed: heat-api and heat-cfnapi, one
        # image, now run two digests.
        self.assertOutcome(results, RUNNING, 'fail', 'heat-api',
                           'digest-mismatch')

    def healthy_then_broken(self, layout, fault):
        """The consolidated tests in layout: all pass, then with fault."""
        with self.heat_state(layout):
            with self.fault():
                results = self.run_tempest(CONSOLIDATED,
                                           overrides=self.BUILTIN)
            self.assertEqual({'success'}, {s for s, _d in results.values()},
                             results)
            with self.fault(fault):
                return self.run_tempest(CONSOLIDATED, overrides=self.BUILTIN)

    def test_tcib_layout_passes_then_catches_a_drifted_deployment(self):
        results = self.healthy_then_broken('tcib',
                                           'heat-image-drift=heat-engine')
        self.assertOutcome(results, RUNNING, 'fail', 'heat-engine',
                           'running-drift', 'openstack-heat-engine')
        self.assertOutcome(results, REFERENCES, 'success')

    def test_one_layout_passes_then_catches_a_digest_drift(self):
        results = self.healthy_then_broken(
            'one', 'version-digest-drift=heatEngineImage')
        self.assertOutcome(results, REFERENCES, 'fail', 'digest-mismatch',
                           'heatAPIImage=', 'heatEngineImage=')

    def test_tag_resolved_apart_fails_naming_both_pods(self):
        # NOTE: s2i's images by their rolling tag: the heat-api and
        # heat-cfnapi pods, one image, resolved master-latest apart.
        results = self.healthy_then_broken('s2i-latest',
                                           'pod-digest-drift=heat-cfnapi')
        self.assertOutcome(results, RUNNING, 'fail', 'running-digests',
                           'its pods run 2 digests', 'of Deployment heat-api '
                           '(heatAPIImage) runs sha256:', 'of Deployment '
                           'heat-cfnapi (heatCfnapiImage) runs sha256:')
        self.assertOutcome(results, REFERENCES, 'success')

    def test_product_names_pass_and_two_builds_fail(self):
        results = self.healthy_then_broken('product',
                                           'second-build=heatCfnapiImage')
        self.assertOutcome(results, REFERENCES, 'fail', 'digest-mismatch',
                           'heatAPIImage=registry.redhat.io/rhoso/openstack-'
                           'heat-api-rhel9@sha256:', 'heatCfnapiImage='
                           'registry.redhat.io/second-build/openstack-heat-'
                           'api-rhel9@sha256:')
        self.assertOutcome(results, RUNNING, 'fail', 'running-digests')

    def test_stuck_rollout_fails_as_a_rollout_not_drift(self):
        overrides = {'consolidated_images': dict(
            self.BUILTIN['consolidated_images'], rollout_timeout=3)}
        with self.fault('heat-rollout-stuck=heat-engine'):
            results = self.run_tempest(CONSOLIDATED, overrides=overrides)
        details = self.assertOutcome(results, RUNNING, 'fail', 'rollout: ',
                                     'Deployment heat-engine',
                                     'is still rolling out after')
        self.assertNotIn('running-drift', details)
        self.assertNotIn('running-digests', details)
        self.assertOutcome(results, REFERENCES, 'success')

    def test_consolidated_checks_pass_then_catch_drift(self):
        with self.fault():
            results = self.run_tempest(CONSOLIDATED)
        self.assertEqual({'success'}, {s for s, _d in results.values()},
                         results)
        with self.fault('heat-image-drift=heat-cfnapi'):
            results = self.run_tempest(CONSOLIDATED)
        self.assertOutcome(results, RUNNING, 'fail', 'heatCfnapiImage',
                           'running Deployments')
