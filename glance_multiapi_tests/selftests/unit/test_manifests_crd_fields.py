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

"""The CRD fact list: its paths, its file format, a CR walked against it."""

import os

import fixtures
import testtools
import yaml

from glance_multiapi_tests.selftests.manifests import crd_fields
from glance_multiapi_tests.selftests.unit import manifest_tools

SCHEMA = {
    'type': 'object',
    'properties': {
        'apiVersion': {'type': 'string'},
        'kind': {'type': 'string'},
        'metadata': {'type': 'object'},
        'spec': {
            'type': 'object',
            'properties': {
                'parallel': {'type': 'boolean'},
                'concurrency': {'type': 'integer'},
                'configOverwrite': {
                    'type': 'object',
                    'additionalProperties': {'type': 'string'}},
                'limits': {
                    'type': 'object',
                    'additionalProperties': {
                        'x-kubernetes-int-or-string': True}},
                'plugins': {
                    'type': 'array',
                    'items': {
                        'type': 'object',
                        'properties': {
                            'repository': {'type': 'string'}}}},
            },
        },
    },
}


def crd(versions=None):
    return {
        'apiVersion': 'apiextensions.k8s.io/v1',
        'kind': 'CustomResourceDefinition',
        'metadata': {'name': 'tempests.test.openstack.org'},
        'spec': {
            'group': 'test.openstack.org',
            'names': {'kind': 'Tempest'},
            'versions': versions or [
                {'name': 'v1alpha1', 'storage': False,
                 'schema': {'openAPIV3Schema': {'type': 'object'}}},
                {'name': 'v1beta1', 'storage': True,
                 'schema': {'openAPIV3Schema': SCHEMA}}],
        },
    }


def cr(**spec):
    return {'apiVersion': 'test.openstack.org/v1beta1', 'kind': 'Tempest',
            'metadata': {'name': 'x', 'labels': {'a': 'b'}}, 'spec': spec}


class SchemaFieldsTest(testtools.TestCase):

    def test_paths_and_types(self):
        fields = crd_fields.schema_fields(SCHEMA)
        self.assertEqual('free-form', fields['metadata'])
        self.assertEqual('boolean', fields['spec.parallel'])
        self.assertEqual('string', fields['spec.configOverwrite.*'])
        self.assertEqual('int-or-string', fields['spec.limits.*'])
        self.assertEqual('array', fields['spec.plugins'])
        self.assertEqual('string', fields['spec.plugins[].repository'])
        self.assertNotIn('', fields)

    def test_storage_version_by_default(self):
        meta, fields = crd_fields.crd_facts(crd())
        self.assertEqual({'crd': 'tempests.test.openstack.org',
                          'group': 'test.openstack.org', 'kind': 'Tempest',
                          'version': 'v1beta1'}, meta)
        self.assertIn('spec.concurrency', fields)

    def test_unknown_version_names_the_known_ones(self):
        exc = self.assertRaises(crd_fields.FieldListError,
                                crd_fields.crd_facts, crd(), 'v2')
        self.assertIn('v1alpha1, v1beta1', str(exc))

    def test_not_a_crd(self):
        self.assertRaises(crd_fields.FieldListError, crd_fields.crd_facts,
                          {'kind': 'Tempest'})


class FactListTest(testtools.TestCase):

    def test_round_trip(self):
        meta, fields = crd_fields.crd_facts(crd())
        text = crd_fields.format_facts(meta, fields, 'repo@abc:path', 'gen')
        self.assertIn('# origin: repo@abc:path\n', text)
        parsed_meta, parsed = crd_fields.parse_facts(text)
        self.assertEqual(fields, parsed)
        self.assertEqual('v1beta1', parsed_meta['version'])

    def test_bad_line_is_named(self):
        text = '# group: g\n# kind: K\n# version: v\nspec object extra\n'
        exc = self.assertRaises(crd_fields.FieldListError,
                                crd_fields.parse_facts, text, 'f.txt')
        self.assertIn('f.txt line 4', str(exc))

    def test_missing_header(self):
        exc = self.assertRaises(crd_fields.FieldListError,
                                crd_fields.parse_facts, 'spec object\n')
        self.assertIn('"# group:"', str(exc))


class CheckObjectTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.meta, self.fields = crd_fields.crd_facts(crd())

    def check(self, obj):
        return crd_fields.check_object(obj, self.meta, self.fields)

    def test_valid_cr(self):
        self.assertEqual([], self.check(cr(
            parallel=False, concurrency=2, configOverwrite={'a.conf': 'x'},
            limits={'cpu': '2', 'memory': 4}, plugins=[{'repository': 'u'}])))

    def test_unknown_field_named_with_index(self):
        self.assertEqual(
            ['spec.plugins[1].repo: no such field in the Tempest CRD'],
            self.check(cr(plugins=[{'repository': 'u'}, {'repo': 'v'}])))

    def test_wrong_types(self):
        self.assertEqual(
            ['spec.parallel: is str, the CRD wants boolean',
             'spec.concurrency: is bool, the CRD wants integer'],
            self.check(cr(parallel='false', concurrency=True)))

    def test_other_kind_or_version(self):
        obj = cr()
        obj['apiVersion'] = 'test.openstack.org/v1'
        obj['kind'] = 'Tobiko'
        self.assertEqual(2, len(self.check(obj)))


class ToolTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path

    def test_writes_fact_list(self):
        source = os.path.join(self.tmp, 'crd.yaml')
        out = os.path.join(self.tmp, 'fields.txt')
        with open(source, 'w') as stream:
            yaml.safe_dump(crd(), stream)
        code, stdout, _ = manifest_tools.run(
            self, 'tempest_crd_fields', '--from', source, '--origin',
            'o@1:p', '-o', out)
        self.assertEqual(0, code)
        self.assertIn('Tempest test.openstack.org/v1beta1', stdout)
        with open(out) as stream:
            meta, fields = crd_fields.parse_facts(stream.read())
        self.assertEqual('o@1:p', meta['origin'])
        self.assertEqual('integer', fields['spec.concurrency'])

    def test_unreadable_crd_exits_2_in_one_line(self):
        code, _, err = manifest_tools.run(
            self, 'tempest_crd_fields', '--from',
            os.path.join(self.tmp, 'none.yaml'), '--origin', 'o', '-o', '-')
        self.assertEqual(2, code)
        self.assertEqual(1, err.count('\n'), err)
        self.assertIn('none.yaml', err)

    def test_shipped_fact_list_is_for_test_operator_tempest(self):
        with open(os.path.join(manifest_tools.ETC,
                               'tempest-crd-fields.txt')) as stream:
            meta, fields = crd_fields.parse_facts(stream.read())
        self.assertEqual(('test.openstack.org', 'Tempest', 'v1beta1'),
                         (meta['group'], meta['kind'], meta['version']))
        self.assertIn('openstack-k8s-operators/test-operator@',
                      meta['origin'])
        self.assertEqual(
            'string', fields['spec.tempestRun.externalPlugin[].repository'])
