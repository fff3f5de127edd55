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

"""Parsing of pullspecs, image mappings, env listings and the CR."""

import json

import testtools

from glance_multiapi_kernel import image_errors
from glance_multiapi_kernel import image_mappings
from glance_multiapi_tests.imagecheck import pullspec
from glance_multiapi_tests.imagecheck import sources

DIGEST = 'sha256:' + 'a' * 64
HEAT = 'quay.io/podified-antelope-centos9/openstack-heat-api'


class PullspecTest(testtools.TestCase):

    def test_digest_and_tag(self):
        ref = pullspec.parse('%s:current@%s' % (HEAT, DIGEST))
        self.assertEqual(HEAT, ref.repository)
        self.assertEqual('current', ref.tag)
        self.assertEqual(DIGEST, ref.digest)
        self.assertEqual('openstack-heat-api', ref.image_name)
        self.assertEqual(HEAT + ':current', ref.without_digest)

    def test_registry_port_is_not_a_tag(self):
        ref = pullspec.parse('127.0.0.1:5000/heat/openstack-heat-api')
        self.assertEqual('127.0.0.1:5000/heat/openstack-heat-api',
                         ref.repository)
        self.assertIsNone(ref.tag)
        self.assertIsNone(ref.digest)

    def test_invalid_references_say_why(self):
        cases = {
            HEAT + '@sha256:abc': '3 hex digits, not 64',
            HEAT + '@md5': 'invalid digest',
            HEAT + ':bad tag': 'white space',
            'quay.io/Heat/api': "path component 'Heat'",
            '': 'empty',
        }
        for text, why in cases.items():
            exc = self.assertRaises(pullspec.InvalidPullspec,
                                    pullspec.parse, text)
            self.assertIn(why, str(exc))

    def test_not_a_string(self):
        self.assertRaises(pullspec.InvalidPullspec, pullspec.parse, 3)


class MappingTest(testtools.TestCase):

    def test_s2i_document(self):
        parsed = image_mappings.parse_mapping(
            'openstack_version:\n  custom_container_images:\n'
            '    heat/heat-api: [heatAPIImage, heatCfnapiImage]\n'
            '    heat/heat-engine: [heatEngineImage]\n', 'm.yaml')
        self.assertEqual(['heat/heat-api', 'heat/heat-engine'],
                         [t.name for t in parsed.targets])
        self.assertEqual(('heatAPIImage', 'heatCfnapiImage'),
                         parsed.targets[0].fields)
        self.assertEqual('openstack-heat-api', parsed.targets[0].image_name)

    def test_flat_map(self):
        parsed = image_mappings.parse_mapping(
            'heat/heat-api: [heatAPIImage, heatEngineImage]\n', 'm.yaml')
        self.assertEqual({'heatAPIImage': ['heat/heat-api'],
                          'heatEngineImage': ['heat/heat-api']},
                         parsed.owners())

    def assert_malformed(self, text, *parts):
        exc = self.assertRaises(image_errors.MalformedInput,
                                image_mappings.parse_mapping, text, 'm.yaml')
        self.assertEqual(image_errors.EXIT_MALFORMED, exc.exit_code)
        self.assertTrue(str(exc).startswith('m.yaml: '), str(exc))
        for part in parts:
            self.assertIn(part, str(exc))
        self.assertNotIn('\n', str(exc))

    def test_malformed_mappings_name_file_and_field(self):
        self.assert_malformed('heat/heat-api: heatAPIImage\n',
                              'heat/heat-api:', 'non-empty list')
        self.assert_malformed('heat/heat-api: [heatAPIImage, 3]\n',
                              'heat/heat-api[1]', 'got 3')
        self.assert_malformed('heat/heat-api: [Heat-Api]\n',
                              'heat/heat-api[0]')
        self.assert_malformed('openstack_version: {images: {}}\n',
                              'openstack_version.custom_container_images')
        self.assert_malformed('heat/heat-api: [heatAPIImage\n',
                              'not valid YAML at line 2')
        self.assert_malformed('- heat\n', 'non-empty map')
        self.assert_malformed('', 'got nothing')

    def test_target_given_twice_is_malformed(self):
        self.assert_malformed(
            'heat/heat-api: [heatAPIImage]\nheat/heat-api: [heatEngineImage]'
            '\n', 'heat/heat-api', 'lines 1 and 2')


class EnvListingTest(testtools.TestCase):

    def test_field_names_follow_operator_rule(self):
        cases = {
            'RELATED_IMAGE_HEAT_API_IMAGE_URL_DEFAULT': 'heatAPIImage',
            'RELATED_IMAGE_HEAT_CFNAPI_IMAGE_URL_DEFAULT': 'heatCfnapiImage',
            'RELATED_IMAGE_HEAT_ENGINE_IMAGE_URL_DEFAULT': 'heatEngineImage',
            'RELATED_IMAGE_OVN_NB_DBCLUSTER_IMAGE_URL_DEFAULT':
                'ovnNbDbclusterImage',
            'RELATED_IMAGE_APACHE_IMAGE_URL_DEFAULT': 'apacheImage',
            'RELATED_IMAGE_HEAT_OPERATOR_MANAGER_IMAGE_URL': None,
            'OPENSTACK_RELEASE_VERSION': None,
        }
        for name, field in cases.items():
            self.assertEqual(field, sources.field_for_env_name(name), name)
            if field:
                self.assertEqual(name, sources.env_name_for_field(field))

    def test_lines_with_export_quotes_and_comments(self):
        source = sources.parse_env_listing(
            '# defaults\n\nOPENSTACK_RELEASE_VERSION=0.0.1\n'
            'export RELATED_IMAGE_HEAT_API_IMAGE_URL_DEFAULT="%s@%s"\n'
            % (HEAT, DIGEST), 'env')
        self.assertEqual({'heatAPIImage'}, set(source.references))
        self.assertEqual(DIGEST, source.references['heatAPIImage'].digest)
        self.assertEqual('RELATED_IMAGE_HEAT_API_IMAGE_URL_DEFAULT',
                         source.origin('heatAPIImage'))
        self.assertTrue(source.complete)

    def test_comma_separated_and_k8s_list(self):
        csv = ('RELATED_IMAGE_HEAT_API_IMAGE_URL_DEFAULT=%s:a,'
               'FOO=x,y,RELATED_IMAGE_HEAT_ENGINE_IMAGE_URL_DEFAULT=%s:a'
               % (HEAT, HEAT))
        k8s = json.dumps([
            {'name': 'RELATED_IMAGE_HEAT_API_IMAGE_URL_DEFAULT',
             'value': HEAT + ':a'},
            {'name': 'POD_NAME', 'valueFrom': {'fieldRef': {}}},
            {'name': 'RELATED_IMAGE_HEAT_ENGINE_IMAGE_URL_DEFAULT',
             'value': HEAT + ':a'}])
        for text in (csv, k8s):
            source = sources.parse_env_listing(text, 'env')
            self.assertEqual({'heatAPIImage', 'heatEngineImage'},
                             set(source.references))

    def test_neutron_default_also_feeds_dnsmasq(self):
        source = sources.parse_env_listing(
            'RELATED_IMAGE_NEUTRON_API_IMAGE_URL_DEFAULT=q.io/a/neutron:1\n',
            'env')
        self.assertEqual({'neutronAPIImage', 'infraDnsmasqImage'},
                         set(source.references))

    def test_malformed_listings_name_file_and_line(self):
        cases = {
            'RELATED_IMAGE_HEAT_API_IMAGE_URL_DEFAULT\n': 'env: line 1:',
            'A=1\nA=2\n': 'env: A: set twice (line 1 and line 2)',
            'RELATED_IMAGE_HEAT_API_IMAGE_URL_DEFAULT=%s@sha256:ab\n' % HEAT:
                'env: RELATED_IMAGE_HEAT_API_IMAGE_URL_DEFAULT (line 1):',
            'FOO=1\n': 'no RELATED_IMAGE_*_URL_DEFAULT variable',
            '[{"name": "RELATED_IMAGE_HEAT_API_IMAGE_URL_DEFAULT"}]':
                'has no literal value',
            '[3]': 'env: entry 0:',
        }
        for text, part in cases.items():
            exc = self.assertRaises(image_errors.MalformedInput,
                                    sources.parse_env_listing, text, 'env')
            self.assertIn(part, str(exc))


class VersionDocumentTest(testtools.TestCase):

    def document(self, **changes):
        doc = {'apiVersion': 'core.openstack.org/v1beta1',
               'kind': 'OpenStackVersion',
               'spec': {'targetVersion': '1',
                        'customContainerImages': {'heatAPIImage': HEAT}},
               'status': {'availableVersion': '1', 'containerImages': {
                   'heatAPIImage': HEAT, 'heatEngineImage': HEAT,
                   'cinderVolumeImages': {'default': HEAT},
                   'manilaShareImages': None}}}
        doc.update(changes)
        return json.dumps(doc)

    def test_status_and_spec_sources(self):
        found, versions = sources.parse_version_document(
            self.document(), 'osv.json')
        by_label = {source.label: source for source in found}
        self.assertEqual({'heatAPIImage', 'heatEngineImage'},
                         set(by_label[sources.STATUS].references))
        self.assertTrue(by_label[sources.STATUS].complete)
        self.assertEqual({'heatAPIImage'},
                         set(by_label[sources.SPEC].references))
        self.assertFalse(by_label[sources.SPEC].complete)
        self.assertEqual(('1', '1'), (versions.target, versions.available))

    def test_list_of_one_and_yaml(self):
        doc = json.loads(self.document())
        listing = json.dumps({'kind': 'List', 'items': [doc]})
        self.assertEqual(2, len(sources.parse_version_document(
            listing, 'osv.json')[0]))
        yaml_text = ('kind: OpenStackVersion\nstatus:\n  containerImages:\n'
                     '    heatAPIImage: %s\n' % HEAT)
        self.assertEqual(1, len(sources.parse_version_document(
            yaml_text, 'osv.yaml')[0]))

    def test_malformed_documents_name_file_and_field(self):
        bad_ref = self.document(
            status={'containerImages': {'heatAPIImage': 'quay.io/A B'}})
        cases = {
            self.document(kind='Glance'): 'osv.json: kind: expected',
            bad_ref: 'osv.json: status.containerImages.heatAPIImage:',
            self.document(status={'containerImages': ['x']}):
                'osv.json: status.containerImages: expected a map',
            self.document(spec={}, status={}): 'nothing to check',
            json.dumps({'kind': 'OpenStackVersionList', 'items': [{}, {}]}):
                'osv.json: items: expected exactly one OpenStackVersion, '
                'got 2',
            '[1, 2]': 'expected an OpenStackVersion object',
            '{"kind": ': 'not valid YAML',
        }
        for text, part in cases.items():
            exc = self.assertRaises(image_errors.MalformedInput,
                                    sources.parse_version_document, text,
                                    'osv.json')
            self.assertIn(part, str(exc))


class KnownNamesTest(testtools.TestCase):

    def test_one_per_line_with_comments(self):
        self.assertEqual(
            frozenset(['openstack-heat-api', 'openstack-heat-engine']),
            sources.parse_known_names(
                '# tcib\nopenstack-heat-api\n\nopenstack-heat-engine # x\n',
                'names'))

    def test_malformed(self):
        for text, part in (('quay.io/x/openstack-heat-api\n', 'line 1'),
                           ('# nothing\n', 'lists no image name')):
            exc = self.assertRaises(image_errors.MalformedInput,
                                    sources.parse_known_names, text, 'names')
            self.assertIn(part, str(exc))
