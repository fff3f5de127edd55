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

"""The samples under etc/image-check: one consistent, each broken one fails.

A broken sample is the consistent set with one file swapped; each must
fail with findings of the expected kind that name the broken fields.
"""

import os

import testtools

from glance_multiapi_tests.imagecheck import check
from glance_multiapi_tests.imagecheck import loader

SAMPLES = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir,
                       'etc', 'image-check')
HEAT_API_FIELDS = ('heatAPIImage', 'heatCfnapiImage')


def sample(name):
    return os.path.join(SAMPLES, name)


def inputs(**swap):
    files = dict(mappings_file='image-mappings.yaml',
                 version_file='openstackversion.json',
                 env_file='related-images.env',
                 known_names_file='known-image-names.txt')
    files.update(swap)
    return loader.Inputs(**{key: sample(value)
                            for key, value in files.items()})


class SamplesTest(testtools.TestCase):

    def run_sample(self, **swap):
        return loader.run(inputs(**swap))

    def findings(self, result, kind):
        return [f for f in result.findings if f.kind == kind]

    def test_consistent_sample_passes(self):
        result = self.run_sample()
        self.assertTrue(result.consistent, result.findings)
        self.assertEqual(0, result.exit_code)
        self.assertEqual({'ok'}, {row.verdict for row in result.rows})
        # status, spec (glance override only) and env rows are all shown
        self.assertEqual(11, len(result.rows))

    def test_digest_mismatch_names_fields_and_digests(self):
        result = self.run_sample(
            version_file='openstackversion-digest-mismatch.json')
        self.assertEqual(1, result.exit_code)
        [finding] = self.findings(result, check.DIGEST_MISMATCH)
        self.assertEqual(HEAT_API_FIELDS, finding.fields)
        self.assertIn('heatCfnapiImage=quay.io/podified-antelope-centos9/'
                      'openstack-heat-api@sha256:e15ffdef', finding.message)
        self.assertIn('heatAPIImage=', finding.message)
        [drift] = self.findings(result, check.DRIFT)
        self.assertEqual(('heatCfnapiImage',), drift.fields)
        self.assertIn('RELATED_IMAGE_HEAT_CFNAPI_IMAGE_URL_DEFAULT',
                      drift.message)

    def test_missing_field_is_named(self):
        result = self.run_sample(
            version_file='openstackversion-missing-field.json')
        self.assertEqual(1, result.exit_code)
        [finding] = result.findings
        self.assertEqual(check.MISSING, finding.kind)
        self.assertEqual(('heatCfnapiImage',), finding.fields)
        self.assertIn('status.containerImages', finding.message)
        self.assertIn('heatCfnapiImage', finding.message)
        missing_rows = [r for r in result.rows if r.verdict == 'missing']
        self.assertEqual(['heatCfnapiImage'],
                         [r.field for r in missing_rows])

    def test_doubly_assigned_field_is_named(self):
        result = self.run_sample(
            mappings_file='image-mappings-doubly-assigned.yaml')
        self.assertEqual(1, result.exit_code)
        # NOTE: and heat/heat-api's fields now name two images, in status
        # and in the env listing.
        self.assertEqual([check.DOUBLY_ASSIGNED] + [
            check.DIFFERENT_IMAGE] * 2, [f.kind for f in result.findings])
        finding = result.findings[0]
        self.assertTrue(finding.about_mapping)
        self.assertEqual(('heatEngineImage',), finding.fields)
        self.assertIn('heat/heat-api, heat/heat-engine', finding.message)

    def test_tag_vs_digest_is_reported(self):
        result = self.run_sample(
            version_file='openstackversion-tag-vs-digest.json')
        self.assertEqual(1, result.exit_code)
        [finding] = self.findings(result, check.TAG_VS_DIGEST)
        self.assertIn('heatAPIImage pinned by digest but heatCfnapiImage '
                      'only by tag', finding.message)
        self.assertIn('heatCfnapiImage=quay.io/podified-antelope-centos9/'
                      'openstack-heat-api:current-podified', finding.message)

    def test_unknown_image_name_is_named(self):
        result = self.run_sample(
            mappings_file='image-mappings-unknown-name.yaml')
        [finding] = result.findings
        self.assertEqual(check.UNKNOWN_NAME, finding.kind)
        self.assertIn('heat/heat-all builds openstack-heat-all',
                      finding.message)

    def test_names_not_checked_without_known_names(self):
        result = loader.run(loader.Inputs(
            mappings_file=sample('image-mappings-unknown-name.yaml')))
        self.assertTrue(result.consistent, result.findings)
        self.assertIn('only the mapping itself was checked',
                      result.notes[0])


class SamplesWithoutMappingTest(testtools.TestCase):
    """The same samples judged as they group heat's fields themselves."""

    def run_sample(self, **swap):
        files = dict(mappings_file=None, version_file='openstackversion.json',
                     env_file='related-images.env')
        files.update(swap)
        return loader.run(loader.Inputs(builtin=True, **{
            key: sample(value) if value else None
            for key, value in files.items()}))

    def test_consistent_sample_passes_in_layout_s2i(self):
        result = self.run_sample()
        self.assertTrue(result.consistent, result.findings)
        self.assertIn('status.containerImages declares layout s2i',
                      '\n'.join(result.notes))

    def test_broken_samples_fail_alike(self):
        for version, kinds in (
                ('openstackversion-digest-mismatch.json',
                 [check.DIGEST_MISMATCH, check.DRIFT]),
                ('openstackversion-missing-field.json', [check.MISSING]),
                ('openstackversion-tag-vs-digest.json',
                 [check.TAG_VS_DIGEST, check.DRIFT])):
            result = self.run_sample(version_file=version)
            self.assertEqual(kinds, [f.kind for f in result.findings],
                             version)
