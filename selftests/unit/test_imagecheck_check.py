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

"""The checks on hand-made sources, one rule at a time."""

import testtools

from glance_multiapi_tests.imagecheck import check
from glance_multiapi_kernel import image_errors
from glance_multiapi_kernel import image_mappings
from glance_multiapi_tests.imagecheck import pullspec
from glance_multiapi_tests.imagecheck import sources

REPO = 'quay.io/podified-antelope-centos9/openstack-heat-api'
A = REPO + '@sha256:' + 'a' * 64
B = REPO + '@sha256:' + 'b' * 64
MAPPING = image_mappings.parse_mapping(
    'heat/heat-api: [heatAPIImage, heatCfnapiImage, heatEngineImage]\n'
    'keystone/keystone: [keystoneAPIImage]\n', 'm.yaml')
KEYSTONE = 'quay.io/x/openstack-keystone:1'


def source(label, complete=True, **refs):
    return sources.Source(
        label=label, where=label + '-file',
        references={f: pullspec.parse(v) for f, v in refs.items()},
        origins={}, complete=complete)


def status(**refs):
    refs.setdefault('keystoneAPIImage', KEYSTONE)
    return source(sources.STATUS, **refs)


def kinds(report):
    return [finding.kind for finding in report.findings]


class CheckTest(testtools.TestCase):

    def test_same_digest_with_different_tags_agrees(self):
        report = check.check(MAPPING, [status(
            heatAPIImage=REPO + ':x@' + A.split('@')[1],
            heatCfnapiImage=A, heatEngineImage=A)])
        self.assertTrue(report.consistent, report.findings)

    def test_different_repositories(self):
        # NOTE: another repository holding another image name; the same
        # name under another registry or path is the same image (a
        # mirror, test_imagecheck_identity).
        other = 'quay.io/other/openstack-heat-all@' + A.split('@')[1]
        report = check.check(MAPPING, [status(
            heatAPIImage=A, heatCfnapiImage=other, heatEngineImage=A)])
        self.assertEqual([check.DIFFERENT_IMAGE], kinds(report))
        self.assertIn('heatCfnapiImage=' + other,
                      report.findings[0].message)

    def test_tags_without_digests_must_match(self):
        report = check.check(MAPPING, [status(
            heatAPIImage=REPO + ':1', heatCfnapiImage=REPO + ':1',
            heatEngineImage=REPO + ':2')])
        self.assertEqual([check.TAG_MISMATCH], kinds(report))
        self.assertIn('heatEngineImage=%s:2' % REPO,
                      report.findings[0].message)

    def test_tag_vs_digest_and_digest_mismatch_together(self):
        report = check.check(MAPPING, [status(
            heatAPIImage=A, heatCfnapiImage=B,
            heatEngineImage=REPO + ':latest')])
        self.assertEqual([check.TAG_VS_DIGEST, check.DIGEST_MISMATCH],
                         kinds(report))

    def test_missing_in_env_names_the_variable(self):
        report = check.check(MAPPING, [source(
            sources.ENV, heatAPIImage=A, heatEngineImage=A,
            keystoneAPIImage=KEYSTONE)])
        [finding] = report.findings
        self.assertEqual(check.MISSING, finding.kind)
        self.assertIn('RELATED_IMAGE_HEAT_CFNAPI_IMAGE_URL_DEFAULT',
                      finding.message)

    def test_partial_override_in_spec(self):
        spec = source(sources.SPEC, complete=False, heatAPIImage=A)
        report = check.check(MAPPING, [spec])
        self.assertEqual([check.PARTIAL_OVERRIDE], kinds(report))
        self.assertIn('overrides heatAPIImage=%s but not heatCfnapiImage, '
                      'heatEngineImage' % A, report.findings[0].message)
        self.assertIn('whether every mapped field exists was not checked',
                      report.notes[0])
        spec_rows = [r for r in report.rows if r.source == sources.SPEC]
        self.assertEqual(['heat/heat-api'] * 3,
                         [r.target for r in spec_rows])
        self.assertEqual('(default)', spec_rows[1].reference)

    def test_spec_override_must_reach_status(self):
        spec = source(sources.SPEC, complete=False, heatAPIImage=B,
                      heatCfnapiImage=B, heatEngineImage=B)
        report = check.check(MAPPING, [status(
            heatAPIImage=A, heatCfnapiImage=A, heatEngineImage=A), spec])
        self.assertEqual([check.DRIFT] * 3, kinds(report))
        self.assertIn('spec.customContainerImages sets heatAPIImage=' + B,
                      report.findings[0].message)

    def test_env_not_compared_across_versions(self):
        env = source(sources.ENV, heatAPIImage=B, heatCfnapiImage=B,
                     heatEngineImage=B, keystoneAPIImage=KEYSTONE)
        deployed = status(heatAPIImage=A, heatCfnapiImage=A,
                          heatEngineImage=A)
        same = check.check(MAPPING, [deployed, env],
                           versions=sources.Versions('1', '1'))
        self.assertEqual([check.DRIFT] * 3, kinds(same))
        upgrading = check.check(MAPPING, [deployed, env],
                                versions=sources.Versions('1', '2'))
        self.assertTrue(upgrading.consistent, upgrading.findings)
        self.assertIn('RELATED_IMAGE env (RELATED_IMAGE env-file) not '
                      'compared: version 2, not targetVersion 1',
                      upgrading.notes[0])

    def test_unknown_reference_name(self):
        other = 'quay.io/x/openstack-heat-all@' + A.split('@')[1]
        report = check.check(
            MAPPING, [status(heatAPIImage=other, heatCfnapiImage=other,
                             heatEngineImage=other)],
            known_names=frozenset(['openstack-heat-api',
                                   'openstack-keystone']),
            targets=['heat/heat-api'])
        [finding] = report.findings
        self.assertEqual(check.UNKNOWN_NAME, finding.kind)
        self.assertEqual(sources.STATUS, finding.source)
        self.assertIn('names image openstack-heat-all', finding.message)

    def test_targets_select_rows_but_doubles_are_global(self):
        doubled = image_mappings.parse_mapping(
            'heat/heat-api: [heatAPIImage]\nkeystone/keystone: '
            '[keystoneAPIImage, heatAPIImage]\n', 'm.yaml')
        report = check.check(doubled, [], targets=['heat/heat-api'])
        self.assertEqual([check.DOUBLY_ASSIGNED], kinds(report))
        self.assertEqual(['heatAPIImage'], [r.field for r in report.rows])
        self.assertEqual('doubly-assigned', report.rows[0].verdict)

    def test_field_listed_twice_under_one_target(self):
        twice = image_mappings.parse_mapping(
            'heat/heat-api: [heatAPIImage, heatAPIImage]\n', 'm.yaml')
        [finding] = check.check(twice).findings
        self.assertIn('listed 2 times under heat/heat-api', finding.message)

    def test_unknown_target_option(self):
        exc = self.assertRaises(image_errors.ImageCheckError, check.check,
                                MAPPING, [], targets=['heat/heat-all'])
        self.assertEqual(image_errors.EXIT_USAGE, exc.exit_code)
        self.assertIn('heat/heat-all is not in m.yaml', str(exc))


def _ring(size):
    """A mapping of size targets, each field listed under two of them."""
    return image_mappings.parse_mapping(''.join(
        's%d/s%d: [f%dImage, f%dImage]\n' % (i, i, i, (i + 1) % size)
        for i in range(size)), 'ring.yaml')


class LinearTest(testtools.TestCase):
    """The row x verdict step looks at a row's own findings only."""

    def setUp(self):
        super().setUp()
        # NOTE: the ring's fields are made up; every one counts as a field
        # an OpenStackVersion may hold, so none is set aside unjudged.
        self.patch(check.openstackversion_fields, 'not_a_field',
                   lambda field, deployed: None)

    def looked_at(self, size):
        seen = []
        real = check._verdict

        def verdict(target, field, label, findings):
            seen.append(len(findings))
            return real(target, field, label, findings)

        self.patch(check, '_verdict', verdict)
        report = check.check(_ring(size))
        self.assertEqual(size, len(report.findings))
        self.assertEqual(2 * size, len(report.rows))
        self.assertEqual({'doubly-assigned'},
                         {row.verdict for row in report.rows})
        return sum(seen)

    def test_findings_looked_at_grow_with_the_rows(self):
        small, large = self.looked_at(200), self.looked_at(2000)
        self.assertEqual(400, small)
        self.assertEqual(10 * small, large)

    def test_targets_chosen_by_name_without_a_scan_each(self):
        mapping = _ring(3000)
        calls = []
        self.patch(image_mappings.Mapping, 'target',
                   lambda self, name: calls.append(name))
        report = check.check(mapping, targets=['s%d/s%d' % (i, i)
                                               for i in range(3000)])
        self.assertEqual(6000, len(report.rows))
        self.assertEqual([], calls)
