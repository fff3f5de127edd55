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

"""s2i's own image-mappings.yaml (560e86c) against a whole OpenStackVersion.

The file lists manilaShareImage, which the defaults name but overrides
and status hold per backend (manilaShareImages): it is reported in a
note and the rest of the file is judged.
"""

import json
import os

import fixtures
import testtools

from glance_multiapi_kernel import image_mappings
from glance_multiapi_kernel import openstackversion_fields
from glance_multiapi_tests.imagecheck import check
from glance_multiapi_tests.imagecheck import loader
from glance_multiapi_tests.imagecheck import sources

S2I = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, 'etc',
                   'image-check', 's2i-image-mappings-560e86c.yaml')
REGISTRY = 'quay.io/openstack-k8s-operators/'


def deployed(mapping, skew=None):
    """status.containerImages of every field, one digest per target.

    skew: a field given another digest of its target's image.
    """
    images = {}
    for index, target in enumerate(mapping.targets):
        ref = '%s%s@sha256:%064x' % (REGISTRY, target.image_name, index)
        for field in target.fields:
            images[field] = ref
    for index, field in enumerate(sorted(
            openstackversion_fields.IMAGE_FIELDS - set(images))):
        images[field] = '%sopenstack-%s@sha256:%064x' % (
            REGISTRY, field.lower(), 1000 + index)
    images.pop('manilaShareImage', None)
    images['manilaShareImages'] = {'default': REGISTRY +
                                   'openstack-manila-share:x'}
    if skew:
        images[skew] = images[skew].split('@')[0] + '@sha256:' + 'f' * 64
    return images


class S2iMappingsTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        with open(S2I) as f:
            self.mapping = image_mappings.parse_mapping(f.read(), S2I)
        self.folder = self.useFixture(fixtures.TempDir()).path

    def version_file(self, images):
        path = os.path.join(self.folder, 'osv.json')
        with open(path, 'w') as f:
            json.dump({'kind': 'OpenStackVersion',
                       'spec': {'targetVersion': '0.0.1'},
                       'status': {'containerImages': images}}, f)
        return path

    def run_check(self, images, **kwargs):
        return loader.run(loader.Inputs(
            mappings_file=S2I, version_file=self.version_file(images),
            **kwargs))

    def test_the_file_holds_s2i_heat_groups(self):
        target = self.mapping.target('heat/heat-api')
        self.assertEqual(('heatAPIImage', 'heatCfnapiImage'), target.fields)
        self.assertEqual(('manilaShareImage',),
                         self.mapping.target('manila/manila-share').fields)

    def test_loads_and_passes_reporting_manila_share(self):
        report = self.run_check(deployed(self.mapping))
        self.assertTrue(report.consistent,
                        [f.message for f in report.findings])
        self.assertEqual(0, report.exit_code)
        self.assertIn(
            '%s lists manilaShareImage under manila/manila-share: the '
            'defaults name it, but spec.customContainerImages and '
            'status.containerImages hold manilaShareImages, a map per '
            'backend; not checked' % S2I, report.notes)
        self.assertNotIn('manilaShareImage',
                         {row.field for row in report.rows})

    def test_still_catches_a_heat_field_on_another_digest(self):
        report = self.run_check(deployed(self.mapping,
                                         skew='heatCfnapiImage'))
        self.assertEqual([check.DIGEST_MISMATCH],
                         [f.kind for f in report.findings])
        self.assertIn('heat/heat-api in status.containerImages',
                      report.findings[0].message)

    def test_a_missing_field_of_the_type_is_still_missing(self):
        images = deployed(self.mapping)
        del images['heatEngineImage']
        report = self.run_check(images, targets=('heat/heat-engine',))
        self.assertEqual([check.MISSING], [f.kind for f in report.findings])

    def test_a_field_a_newer_operator_deploys_is_judged(self):
        mapping = image_mappings.parse_mapping(
            'x/x-api: [xAPIImage, xWorkerImage]\n', 'm.yaml')
        images = {'xAPIImage': REGISTRY + 'openstack-x-api@sha256:' +
                  'a' * 64,
                  'xWorkerImage': REGISTRY + 'openstack-x-api@sha256:' +
                  'b' * 64}
        report = check.check(mapping, [sources.parse_version(
            {'status': {'containerImages': images}}, 'osv')[0][0]])
        self.assertEqual([check.DIGEST_MISMATCH],
                         [f.kind for f in report.findings])
        unknown = check.check(mapping, [])
        self.assertIn('m.yaml lists xAPIImage under x/x-api: not a field of '
                      'the OpenStackVersion', ' '.join(unknown.notes))
