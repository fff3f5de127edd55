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

"""Image identity as images are built: the name, not where it is kept.

Product names (openstack-heat-api-rhel9), mirrors (another registry and
path, the same name) and a field moved onto another service's shared
image (heatCfnapiImage on openstack-heat-api) are judged by the image
name; two builds of one image fail wherever each copy is kept.
"""

import json
import os

import fixtures
import testtools

from glance_multiapi_kernel import heat_images
from glance_multiapi_tests.imagecheck import check
from glance_multiapi_tests.imagecheck import declared
from glance_multiapi_tests.imagecheck import identity
from glance_multiapi_tests.imagecheck import loader
from glance_multiapi_tests.imagecheck import pullspec
from glance_multiapi_tests.imagecheck import sources
from selftests.unit import test_imagecheck_check as by_mapping
from selftests.unit import test_imagecheck_declared as by_declaration

API, CFN, ENGINE = heat_images.API, heat_images.CFNAPI, heat_images.ENGINE
PRODUCT = 'registry.redhat.io/rhoso/'
MIRROR = 'mirror.example.com:5000/rhoso/'


def digest(char):
    return by_declaration.digest(char)


def product(mirror_cfn=None):
    """Three product images by digest; cfn optionally elsewhere."""
    refs = {API: PRODUCT + 'openstack-heat-api-rhel9' + digest('a'),
            CFN: PRODUCT + 'openstack-heat-api-cfn-rhel9' + digest('b'),
            ENGINE: PRODUCT + 'openstack-heat-engine-rhel9' + digest('c')}
    if mirror_cfn:
        refs[CFN] = mirror_cfn
    return refs


def run(*found, **kwargs):
    return declared.check_declared(list(found), **kwargs)


def status(refs):
    return by_declaration.source(sources.STATUS, refs)


class IdentityTest(testtools.TestCase):

    def ref(self, text):
        return pullspec.parse(text)

    def test_image_is_the_last_path_component(self):
        self.assertEqual('openstack-heat-api-rhel9', identity.image_of(
            self.ref(PRODUCT + 'openstack-heat-api-rhel9:18.0')))
        self.assertEqual('openstack-heat-api', identity.image_of(
            self.ref('127.0.0.1:5000/a/b/openstack-heat-api' + digest('a'))))

    def test_same_build_is_the_digest_wherever_kept(self):
        home = self.ref(PRODUCT + 'openstack-heat-api-rhel9' + digest('a'))
        mirror = self.ref(MIRROR + 'openstack-heat-api-rhel9' + digest('a'))
        other = self.ref(MIRROR + 'openstack-heat-api-rhel9' + digest('b'))
        renamed = self.ref(MIRROR + 'openstack-heat-engine' + digest('a'))
        self.assertTrue(identity.same_build(home, mirror))
        self.assertFalse(identity.same_build(home, other))
        self.assertFalse(identity.same_build(home, renamed))

    def test_tags_are_one_build_only_when_spelled_alike(self):
        quay = self.ref('quay.io/x/openstack-heat-api:current-podified')
        mirror = self.ref(MIRROR + 'openstack-heat-api:current-podified')
        self.assertTrue(identity.same_build(quay, quay))
        self.assertFalse(identity.same_build(quay, mirror))

    def test_by_image_keeps_field_order(self):
        refs = {f: self.ref(v) for f, v in product(
            MIRROR + 'openstack-heat-api-rhel9' + digest('a')).items()}
        self.assertEqual(
            {'openstack-heat-api-rhel9': [API, CFN],
             'openstack-heat-engine-rhel9': [ENGINE]},
            dict(identity.by_image(refs, heat_images.FIELDS)))


class DeclaredIdentityTest(testtools.TestCase):
    """Without a mapping: the deployment's own names group the fields."""

    def test_product_names_pass_without_known_names(self):
        report = run(status(product()),
                     by_declaration.source(sources.ENV, product()))
        self.assertTrue(report.consistent,
                        [f.message for f in report.findings])
        self.assertIn('declares layout tcib', '\n'.join(report.notes))

    def test_cfn_on_the_api_image_through_a_mirror_passes(self):
        refs = product(MIRROR + 'openstack-heat-api-rhel9' + digest('a'))
        report = run(status(refs))
        self.assertTrue(report.consistent,
                        [f.message for f in report.findings])
        self.assertIn('declares layout s2i', '\n'.join(report.notes))

    def test_two_builds_of_the_shared_image_fail(self):
        # NOTE: heatCfnapiImage names s2i's shared heat-api image, from
        # another path and at another digest than heatAPIImage's pin.
        refs = product(MIRROR + 'openstack-heat-api-rhel9' + digest('9'))
        report = run(status(refs))
        self.assertEqual([check.DIGEST_MISMATCH],
                         [f.kind for f in report.findings])
        finding, = report.findings
        self.assertEqual((API, CFN), finding.fields)
        self.assertIn('openstack-heat-api-rhel9 in status.containerImages',
                      finding.message)
        self.assertIn('heatCfnapiImage=' + refs[CFN], finding.message)
        self.assertIn('heatAPIImage=' + refs[API], finding.message)

    def test_layout_changed_by_override_passes(self):
        # NOTE: the defaults serve all three fields from one image; the
        # user gives heat-engine an image of its own: s2i's layout.
        defaults = by_declaration.layout('one')
        override = {ENGINE: 'quay.io/openstack-k8s-operators/'
                            'openstack-heat-engine' + digest('e')}
        deployed = dict(defaults, **override)
        for found in ([status(deployed)], [
                status(deployed),
                by_declaration.source(sources.ENV, defaults)]):
            report = run(by_declaration.source(
                sources.SPEC, override, complete=False), *found)
            self.assertTrue(report.consistent,
                            [f.message for f in report.findings])

    def test_override_onto_the_shared_image_must_match_its_pin(self):
        defaults = by_declaration.layout('tcib')
        api = defaults[API]
        for cfn, consistent in ((api, True),
                                (api.split('@')[0] + digest('9'), False)):
            override = {CFN: cfn}
            report = run(status(dict(defaults, **override)),
                         by_declaration.source(sources.SPEC, override,
                                               complete=False),
                         by_declaration.source(sources.ENV, defaults))
            self.assertEqual(consistent, report.consistent,
                             [f.message for f in report.findings])
            if not consistent:
                self.assertIn(check.PARTIAL_OVERRIDE,
                              [f.kind for f in report.findings])


class MappingIdentityTest(testtools.TestCase):
    """With a mapping: a target's fields are one image by name too."""

    def test_mirror_of_one_digest_agrees(self):
        mirror = 'quay.io/other/openstack-heat-api@' + (
            by_mapping.A.split('@')[1])
        report = check.check(by_mapping.MAPPING, [by_mapping.status(
            heatAPIImage=by_mapping.A, heatCfnapiImage=mirror,
            heatEngineImage=by_mapping.A)])
        self.assertTrue(report.consistent, report.findings)

    def test_mirror_of_another_digest_is_a_digest_mismatch(self):
        mirror = 'quay.io/other/openstack-heat-api@' + (
            by_mapping.B.split('@')[1])
        report = check.check(by_mapping.MAPPING, [by_mapping.status(
            heatAPIImage=by_mapping.A, heatCfnapiImage=mirror,
            heatEngineImage=by_mapping.A)])
        self.assertEqual([check.DIGEST_MISMATCH],
                         by_mapping.kinds(report))


class KnownNamesTest(testtools.TestCase):
    """The name check is one the user opts into; none is built in."""

    def version_file(self, refs):
        folder = self.useFixture(fixtures.TempDir()).path
        path = os.path.join(folder, 'osv.json')
        with open(path, 'w') as out:
            json.dump({'kind': 'OpenStackVersion',
                       'spec': {'targetVersion': '18.0.0'},
                       'status': {'containerImages': refs}}, out)
        return path

    def test_product_names_pass_without_known_names(self):
        report = loader.run(loader.Inputs(
            mappings_file=None, builtin=True,
            version_file=self.version_file(product())))
        self.assertTrue(report.consistent,
                        [f.message for f in report.findings])

    def test_known_names_given_are_checked(self):
        report = loader.run(loader.Inputs(
            mappings_file=None, builtin=True,
            version_file=self.version_file(product()),
            known_names=tuple(sorted(heat_images.KNOWN_NAMES))))
        self.assertEqual([check.UNKNOWN_NAME] * 3,
                         [f.kind for f in report.findings])
        self.assertIn('names image openstack-heat-api-rhel9',
                      report.findings[0].message)
