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

"""Heat's images judged as each upstream layout declares them.

No mapping file: the deployment's own references group the fields. Every
layout upstream has (tcib's three images, s2i's two, all in one) passes
when healthy, and each kind of drift fails in each.
"""

import testtools

from glance_multiapi_kernel import heat_images
from glance_multiapi_tests.imagecheck import check
from glance_multiapi_tests.imagecheck import declared
from glance_multiapi_kernel import image_errors
from glance_multiapi_tests.imagecheck import pullspec
from glance_multiapi_tests.imagecheck import sources

REGISTRY = 'quay.io/podified-antelope-centos9/'
API, CFN, ENGINE = heat_images.API, heat_images.CFNAPI, heat_images.ENGINE


def digest(char):
    return '@sha256:' + char * 64


def layout(name, tag=None):
    """{field: reference} of a healthy deployment in layout name."""
    refs = {}
    for index, (image, fields) in enumerate(heat_images.LAYOUTS[name]):
        suffix = ':%s' % tag if tag else digest('abcdef'[index])
        for field in fields:
            refs[field] = REGISTRY + image + suffix
    return refs


def source(label, refs, complete=True):
    return sources.Source(
        label=label, where=label + '-file',
        references={f: pullspec.parse(v) for f, v in refs.items()},
        origins={}, complete=complete)


def run(*found, **kwargs):
    kwargs.setdefault('known_names', heat_images.KNOWN_NAMES)
    return declared.check_declared(list(found), **kwargs)


def kinds(report):
    return sorted({finding.kind for finding in report.findings})


class DeclaredLayoutTest(testtools.TestCase):

    def test_every_upstream_layout_passes_when_healthy(self):
        for name in heat_images.LAYOUTS:
            refs = layout(name)
            report = run(source(sources.STATUS, refs),
                         source(sources.ENV, refs))
            self.assertTrue(report.consistent,
                            (name, [f.message for f in report.findings]))
            self.assertIn('status.containerImages declares layout %s'
                          % name, '\n'.join(report.notes))

    def test_tags_alike_pass(self):
        for name in heat_images.LAYOUTS:
            report = run(source(sources.STATUS, layout(name, 'current')))
            self.assertTrue(report.consistent, name)

    def test_s2i_api_and_cfn_on_two_digests_fail(self):
        refs = layout('s2i')
        refs[CFN] = refs[CFN].split('@')[0] + digest('9')
        report = run(source(sources.STATUS, refs))
        self.assertEqual([check.DIGEST_MISMATCH], kinds(report))
        finding, = report.findings
        self.assertEqual((API, CFN), finding.fields)
        self.assertIn('openstack-heat-api in status.containerImages',
                      finding.message)
        self.assertIn('heatCfnapiImage=%s' % refs[CFN], finding.message)

    def test_one_engine_on_another_digest_fails(self):
        refs = layout('one')
        refs[ENGINE] = refs[ENGINE].split('@')[0] + digest('9')
        report = run(source(sources.STATUS, refs))
        self.assertEqual([check.DIGEST_MISMATCH], kinds(report))

    def test_tag_beside_digest_fails(self):
        refs = layout('s2i')
        refs[API] = refs[API].split('@')[0] + ':current'
        report = run(source(sources.STATUS, refs))
        self.assertEqual([check.TAG_VS_DIGEST], kinds(report))

    def test_tcib_fields_on_other_digests_are_other_images(self):
        # NOTE: three repositories are three images; their digests differ
        # by nature, and that is no finding.
        report = run(source(sources.STATUS, layout('tcib')))
        self.assertTrue(report.consistent)
        self.assertEqual(['openstack-heat-api', 'openstack-heat-api-cfn',
                          'openstack-heat-engine'],
                         sorted({row.target for row in report.rows}))

    def test_override_declaring_another_layout_is_no_finding(self):
        # NOTE: operators defaulting to tcib, the user moves to s2i's
        # images by overriding every field of each image.
        s2i = layout('s2i')
        report = run(source(sources.STATUS, s2i),
                     source(sources.SPEC, s2i, complete=False),
                     source(sources.ENV, layout('tcib', 'current')))
        self.assertTrue(report.consistent,
                        [f.message for f in report.findings])

    def test_partial_override_of_one_image_fails(self):
        defaults = layout('s2i')
        override = {API: defaults[API].split('@')[0] + digest('9')}
        deployed = dict(defaults, **override)
        report = run(source(sources.STATUS, deployed),
                     source(sources.SPEC, override, complete=False),
                     source(sources.ENV, defaults))
        self.assertIn(check.PARTIAL_OVERRIDE, kinds(report))
        finding = [f for f in report.findings
                   if f.kind == check.PARTIAL_OVERRIDE][0]
        self.assertIn('overrides heatAPIImage=', finding.message)
        self.assertIn('but not heatCfnapiImage', finding.message)
        # NOTE: and the two fields of one image now pin two digests.
        self.assertIn(check.DIGEST_MISMATCH, kinds(report))

    def test_overriding_a_whole_tcib_image_is_no_partial_override(self):
        defaults = layout('tcib')
        override = {API: defaults[API].split('@')[0] + digest('9')}
        report = run(source(sources.STATUS, dict(defaults, **override)),
                     source(sources.SPEC, override, complete=False),
                     source(sources.ENV, defaults))
        self.assertTrue(report.consistent,
                        [f.message for f in report.findings])

    def test_drift_from_the_default(self):
        defaults = layout('s2i')
        deployed = dict(defaults)
        deployed[ENGINE] = deployed[ENGINE].split('@')[0] + digest('9')
        report = run(source(sources.STATUS, deployed),
                     source(sources.ENV, defaults))
        self.assertEqual([check.DRIFT], kinds(report))

    def test_missing_field_and_unknown_name(self):
        refs = layout('s2i')
        del refs[CFN]
        refs[ENGINE] = REGISTRY + 'openstack-heat-all' + digest('e')
        report = run(source(sources.STATUS, refs))
        self.assertEqual([check.MISSING, check.UNKNOWN_NAME],
                         kinds(report))
        rows = {(row.field, row.source): row.reference
                for row in report.rows}
        self.assertEqual('MISSING', rows[(CFN, sources.STATUS)])

    def test_running_deployment_on_another_digest_fails(self):
        for name in heat_images.LAYOUTS:
            refs = layout(name)
            running = dict(refs)
            running[ENGINE] = running[ENGINE].split('@')[0] + digest('9')
            report = run(source(sources.STATUS, refs),
                         running=source(sources.RUNNING, running,
                                        complete=False))
            self.assertIn(check.RUNNING_DRIFT, kinds(report), name)

    def test_layout_upstream_does_not_ship_is_a_note(self):
        refs = layout('tcib')
        refs[ENGINE] = refs[API]
        report = run(source(sources.STATUS, refs))
        self.assertTrue(report.consistent)
        self.assertIn('a layout upstream does not ship',
                      '\n'.join(report.notes))

    def test_targets_select_fields(self):
        self.assertEqual((ENGINE,),
                         declared.select_fields(['heat/heat-engine']))
        self.assertEqual(heat_images.FIELDS, declared.select_fields([]))
        exc = self.assertRaises(image_errors.ImageCheckError,
                                declared.select_fields, ['heat/heat-all'])
        self.assertIn('heat/heat-api, heat/heat-engine', str(exc))


class BuiltinTest(testtools.TestCase):

    def test_groups_are_s2i_landed_mapping(self):
        self.assertEqual((('heat/heat-api', (API, CFN)),
                          ('heat/heat-engine', (ENGINE,))), heat_images.GROUPS)
        self.assertEqual('s2i', heat_images.layout_named(
            fields for _name, fields in heat_images.GROUPS))

    def test_known_names_are_tcib_and_s2i(self):
        self.assertEqual({'openstack-heat-api', 'openstack-heat-api-cfn',
                          'openstack-heat-engine'},
                         set(heat_images.KNOWN_NAMES))
