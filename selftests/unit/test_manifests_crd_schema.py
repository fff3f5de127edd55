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

"""The CRD schema document, and CRs validated against it with jsonschema."""

import json
import os

import fixtures
import testtools
import yaml

from selftests.manifests import crd_schema
from selftests.unit import manifest_tools

SCHEMA = {
    'type': 'object',
    'properties': {
        'apiVersion': {'type': 'string'},
        'kind': {'type': 'string'},
        'metadata': {'type': 'object'},
        'spec': {
            'type': 'object',
            'description': 'the spec',
            'properties': {
                'parallel': {'type': 'boolean'},
                'concurrency': {'type': 'integer', 'minimum': 0},
                'configOverwrite': {
                    'type': 'object',
                    'additionalProperties': {'type': 'string'}},
                'limits': {
                    'type': 'object',
                    'additionalProperties': {
                        'anyOf': [{'type': 'integer'}, {'type': 'string'}],
                        'x-kubernetes-int-or-string': True}},
                'extra': {'type': 'object', 'properties': {
                    'a': {'type': 'string'}},
                    'x-kubernetes-preserve-unknown-fields': True},
                'plugins': {
                    'type': 'array',
                    'items': {
                        'type': 'object',
                        'required': ['repository'],
                        'properties': {
                            # NOTE: a field named like the keyword.
                            'description': {'type': 'string'},
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


class FromCrdTest(testtools.TestCase):

    def test_storage_version_by_default_without_descriptions(self):
        meta, schema = crd_schema.from_crd(crd())
        self.assertEqual({'crd': 'tempests.test.openstack.org',
                          'group': 'test.openstack.org', 'kind': 'Tempest',
                          'version': 'v1beta1'}, meta)
        spec = schema['properties']['spec']
        self.assertNotIn('description', spec)
        self.assertIn('description',
                      spec['properties']['plugins']['items']['properties'])

    def test_unknown_version_names_the_known_ones(self):
        exc = self.assertRaises(crd_schema.SchemaError,
                                crd_schema.from_crd, crd(), 'v2')
        self.assertIn('v1alpha1, v1beta1', str(exc))

    def test_not_a_crd(self):
        self.assertRaises(crd_schema.SchemaError, crd_schema.from_crd,
                          {'kind': 'Tempest'})


class DocumentTest(testtools.TestCase):

    def test_round_trip_header_first(self):
        meta, schema = crd_schema.from_crd(crd())
        text = crd_schema.format_document(meta, schema, 'repo@abc:path',
                                          'gen')
        self.assertEqual(['_note', 'origin', 'crd', 'group', 'kind',
                          'version', 'openAPIV3Schema'],
                         list(json.loads(text)))
        parsed_meta, parsed = crd_schema.parse_document(text)
        self.assertEqual(schema, parsed)
        self.assertEqual('repo@abc:path', parsed_meta['origin'])

    def test_missing_header_is_named(self):
        exc = self.assertRaises(
            crd_schema.SchemaError, crd_schema.parse_document,
            json.dumps({'openAPIV3Schema': SCHEMA, 'kind': 'Tempest'}),
            's.json')
        self.assertIn('s.json: no crd, group, version, origin', str(exc))

    def test_not_json(self):
        exc = self.assertRaises(crd_schema.SchemaError,
                                crd_schema.parse_document, '{', 's.json')
        self.assertIn('s.json: not JSON', str(exc))


class CheckerTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.checker = crd_schema.Checker(*crd_schema.from_crd(crd()))

    def check(self, obj):
        return self.checker.problems(obj)

    def test_valid_cr(self):
        self.assertEqual([], self.check(cr(
            parallel=False, concurrency=2, configOverwrite={'a.conf': 'x'},
            limits={'cpu': '2', 'memory': 4},
            extra={'a': 'x', 'anything': [1]},
            plugins=[{'repository': 'u', 'description': 'd'}])))

    def test_unknown_field_named_with_index(self):
        self.assertEqual(
            ["spec.plugins[1]: 'repository' is a required property",
             'spec.plugins[1].repo: no such field in the Tempest CRD'],
            self.check(cr(plugins=[{'repository': 'u'}, {'repo': 'v'}])))

    def test_unknown_top_level_field(self):
        obj = cr()
        obj['spek'] = {}
        self.assertEqual(['spek: no such field in the Tempest CRD'],
                         self.check(obj))

    def test_wrong_types(self):
        self.assertEqual(
            ['spec.concurrency: is boolean, the CRD wants integer',
             'spec.parallel: is string, the CRD wants boolean'],
            self.check(cr(parallel='false', concurrency=True)))

    def test_int_or_string_and_minimum(self):
        self.assertEqual(
            ['spec.concurrency: -1 is less than the minimum of 0',
             'spec.limits.cpu: is boolean, the CRD wants an integer or a '
             'string'],
            self.check(cr(concurrency=-1, limits={'cpu': True})))

    def test_null_is_pruned_not_refused(self):
        self.assertEqual([], self.check(cr(parallel=None)))

    def test_other_kind_or_version(self):
        obj = cr()
        obj['apiVersion'] = 'test.openstack.org/v1'
        obj['kind'] = 'Tobiko'
        self.assertEqual(2, len(self.check(obj)))

    def test_not_a_mapping(self):
        self.assertEqual(['(the object): is array, a CR is a mapping'],
                         self.check([]))


class ToolTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path

    def test_writes_schema_document(self):
        source = os.path.join(self.tmp, 'crd.yaml')
        out = os.path.join(self.tmp, 'schema.json')
        with open(source, 'w') as stream:
            yaml.safe_dump(crd(), stream)
        code, stdout, _ = manifest_tools.run(
            self, 'tempest_crd_schema', '--from', source, '--origin',
            'o@1:p', '-o', out)
        self.assertEqual(0, code)
        self.assertIn('Tempest test.openstack.org/v1beta1', stdout)
        checker = crd_schema.load(out)
        self.assertEqual('o@1:p', checker.meta['origin'])
        self.assertEqual([], checker.problems(cr(concurrency=1)))

    def test_unreadable_crd_exits_2_in_one_line(self):
        code, _, err = manifest_tools.run(
            self, 'tempest_crd_schema', '--from',
            os.path.join(self.tmp, 'none.yaml'), '--origin', 'o', '-o', '-')
        self.assertEqual(2, code)
        self.assertEqual(1, err.count('\n'), err)
        self.assertIn('none.yaml', err)

    def test_shipped_schema_is_test_operator_tempest(self):
        checker = crd_schema.load(os.path.join(manifest_tools.ETC,
                                               'tempest-crd-schema.json'))
        meta = checker.meta
        self.assertEqual(('test.openstack.org', 'Tempest', 'v1beta1'),
                         (meta['group'], meta['kind'], meta['version']))
        self.assertRegex(meta['origin'],
                         r'^openstack-k8s-operators/test-operator@[0-9a-f]'
                         r'{40}:config/crd/bases/test\.openstack\.org_'
                         r'tempests\.yaml$')
        self.assertEqual(
            ["spec.tempestRun.externalPlugin[0]: 'repository' is a "
             'required property',
             'spec.tempestRun.externalPlugin[0].repo: no such field in '
             'the Tempest CRD'],
            checker.problems(cr(tempestRun={
                'externalPlugin': [{'repo': 'u'}]})))
