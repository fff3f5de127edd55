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

"""etc/test-operator/doctor.yaml: the doctor's Job against the gate CR."""

import copy
import os

import testtools
import yaml

from selftests.manifests import doctor_manifest
from selftests.unit import manifest_tools

DOCTOR = os.path.join(manifest_tools.ETC, 'doctor.yaml')
GATE = os.path.join(manifest_tools.ETC, 'tempest-glance-multiapi.yaml')


def load(path):
    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d]


class DoctorManifestTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.docs = load(DOCTOR)
        self.gate, = load(GATE)

    def problems(self, docs=None, gate=None):
        return doctor_manifest.problems(docs or self.docs,
                                        gate or self.gate)

    def job(self, docs):
        return doctor_manifest.split(docs)[1]

    def test_shipped_doctor_matches_the_gate_cr(self):
        self.assertEqual([], self.problems())
        code, out, err = manifest_tools.run(self, 'check_test_operator')
        self.assertEqual((0, ''), (code, err), out)
        self.assertIn('doctor.yaml matches tempest-glance-multiapi.yaml', out)

    def test_an_override_that_drifts_is_named(self):
        gate = copy.deepcopy(self.gate)
        gate['spec']['tempestconfRun']['overrides'] += (
            'glance_multiapi.probe_timeout 9\n')
        self.assertEqual(["doctor.conf glance_multiapi.probe_timeout is "
                          "None; the gate CR's override is '9'"],
                         self.problems(gate=gate))

    def test_another_token_or_image_or_url_is_named(self):
        docs = copy.deepcopy(self.docs)
        pod = self.job(docs)['spec']['template']['spec']
        for volume in pod['volumes']:
            if volume['name'] == 'glance-multiapi-tests-token':
                volume['secret']['secretName'] = (
                    'glance-multiapi-tests-disruptive-token')
        gate = copy.deepcopy(self.gate)
        gate['spec']['containerImage'] = 'quay.io/x/tempest:py312'
        gate['spec']['tempestRun']['externalPlugin'][0]['repository'] = (
            'https://git.example/glance-multiapi-tests')
        found = self.problems(docs, gate)
        self.assertEqual(3, len(found), found)
        self.assertIn('Job mounts Secret glance-multiapi-tests-disruptive-'
                      'token at /var/run/secrets/kubernetes.io/'
                      'serviceaccount; the gate CR mounts glance-multiapi-'
                      'tests-token', found)
        self.assertIn("Job runs image %s; the gate CR's pod runs quay.io/x/"
                      "tempest:py312" % doctor_manifest.DEFAULT_IMAGE, found)
        self.assertIn("Job installs from '<git-url-of-glance-multiapi-"
                      "tests>'; the gate CR from 'https://git.example/"
                      "glance-multiapi-tests'", found)

    def test_a_job_that_retries_or_takes_the_default_token_is_refused(self):
        docs = copy.deepcopy(self.docs)
        job = self.job(docs)
        job['spec']['backoffLimit'] = 3
        job['spec']['template']['spec']['automountServiceAccountToken'] = (
            True)
        job['metadata']['namespace'] = 'openstack'
        found = self.problems(docs)
        self.assertEqual(3, len(found), found)

    def test_config_and_ca_must_be_what_is_mounted(self):
        docs = copy.deepcopy(self.docs)
        configmap = doctor_manifest.split(docs)[0]
        configmap['data']['doctor.conf'] = configmap['data'][
            'doctor.conf'].replace('/etc/pki/', '/etc/ssl/')
        container = self.job(docs)['spec']['template']['spec'][
            'containers'][0]
        container['args'] = [container['args'][0].replace(
            '/etc/glance-multiapi/doctor.conf', '/tmp/doctor.conf')]
        found = self.problems(docs)
        self.assertEqual(2, len(found), found)
        self.assertIn('--config-file /tmp/doctor.conf', found[0])
        self.assertIn('ca_certificates_file /etc/ssl/', found[1])

    def test_parts_the_stage_plays(self):
        parts = doctor_manifest.parts(self.docs)
        self.assertEqual('/etc/glance-multiapi/doctor.conf',
                         parts['config_file'])
        self.assertIn('glance-multiapi-doctor --strict', parts['script'])
        self.assertEqual('<git-url-of-glance-multiapi-tests>',
                         parts['env']['REPOSITORY'])
