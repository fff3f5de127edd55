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
the three Deployments run the one image reference OpenStackVersion names,
the drift fault makes one differ, and the consolidated image checks pass
on what the cloud writes and serves, and catch the drift.
"""

import os
import shlex
import shutil
import subprocess
import sys
import tempfile

from glance_multiapi_tests.common import polling
from glance_multiapi_tests.localcloud import kubeheat
from glance_multiapi_tests.selftests.functional import kube_base
from glance_multiapi_tests.selftests.functional import test_heat

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

    def test_deployments_run_the_one_heat_image(self):
        found, images = self.images()
        reference = images['heatAPIImage']
        for name, field in DEPLOYMENTS.items():
            self.assertEqual(reference, images[field])
            self.assertEqual((reference, 1), found[name])
        self.assertIn('/podified/openstack-heat-api@sha256:', reference)
        # NOTE: the digest is that of the installed heat's RECORD.
        self.assertTrue(reference.endswith(
            kubeheat.record_digest()), reference)

    def test_image_drift_fault_changes_one_deployment(self):
        with self.fault('heat-image-drift=heat-engine'):
            found, images = self.images()
        self.assertEqual(images['heatAPIImage'], found['heat-api'][0])
        self.assertEqual(images['heatAPIImage'], found['heat-cfnapi'][0])
        engine = found['heat-engine'][0]
        self.assertNotEqual(images['heatEngineImage'], engine)
        self.assertEqual(images['heatEngineImage'].split('@')[0],
                         engine.split('@')[0])
        found, _images = self.images()
        self.assertEqual(images['heatEngineImage'], found['heat-engine'][0])

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
        self.assertIn('CONSISTENT: 3 field reference(s)', proc.stdout)

    # NOTE: no mapping file, as in a test-operator pod: the built-in
    # groups and tcib's names stand in for it. One test per cloud state:
    # the three tempest runs in one took 219 to 248 s on two cores.
    BUILTIN = {'consolidated_images': {'mappings_file': '',
                                       'known_image_names_file': ''}}

    def test_builtin_groups_pass(self):
        with self.fault():
            results = self.run_tempest(CONSOLIDATED, overrides=self.BUILTIN)
        self.assertEqual(3, len(results), results)
        self.assertEqual({'success'}, {s for s, _d in results.values()},
                         results)

    def test_builtin_groups_catch_version_digest_drift(self):
        with self.fault('version-digest-drift=heatEngineImage'):
            results = self.run_tempest(CONSOLIDATED, overrides=self.BUILTIN)
        self.assertOutcome(results, REFERENCES, 'fail', 'digest-mismatch',
                           'heatEngineImage', 'built-in image groups')
        self.assertOutcome(results, RUNNING, 'fail', 'heat-engine',
                           'running-drift')

    def test_builtin_groups_catch_a_missing_version_field(self):
        with self.fault('version-field-missing=heatCfnapiImage'):
            results = self.run_tempest(CONSOLIDATED, overrides=self.BUILTIN)
        self.assertOutcome(results, MAPPING, 'fail', 'missing',
                           'lacks heatCfnapiImage', 'openstackversion_types')

    def test_consolidated_checks_pass_then_catch_drift(self):
        with self.fault():
            results = self.run_tempest(CONSOLIDATED)
        self.assertEqual({'success'}, {s for s, _d in results.values()},
                         results)
        with self.fault('heat-image-drift=heat-cfnapi'):
            results = self.run_tempest(CONSOLIDATED)
        self.assertOutcome(results, RUNNING, 'fail', 'heatCfnapiImage',
                           'running Deployments')
