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

"""common/documents.py: each way a text fails is one DocumentError line."""

import testtools

from glance_multiapi_tests.common import documents
from glance_multiapi_tests.common import errors
from glance_multiapi_tests.uploader import inputs

MD5 = 'd41d8cd98f00b204e9800998ecf8427e'


class TestDocuments(testtools.TestCase):

    def refused(self, load, text, *needles):
        exc = self.assertRaises(documents.DocumentError, load, text)
        self.assertNotIn('\n', str(exc))
        for needle in needles:
            self.assertIn(needle, str(exc))

    def test_each_failure_is_named(self):
        for text, needle in (
                ('a: [', 'not valid YAML at line 1'),
                ('[' * 1000, 'nested deeper than Python can read'),
                ('a: 2001-02-30', 'day is out of range'),
                ('1' * 5000, 'Exceeds the limit'),
                ('&a [*a]', '[0]: a YAML alias that contains itself'),
                ('a: {b: 2001-01-01}', 'a.b: a date (2001-01-01)'),
                ('a: !!set {x}', 'a: a set is not a JSON value'),
                ('{1: x}', 'the key 1 is not a string'),
                ('a:' + ' [' * 101 + ']' * 101, 'nested more than 100')):
            self.refused(documents.load_yaml, text, needle)
        self.refused(documents.load_json, '{"a":', 'not valid JSON')
        self.refused(documents.load_json, b'\xff', 'not UTF-8 (line 1, '
                     'byte 0xff)')

    def test_documents_of_json_shape_load(self):
        self.assertEqual({'a': [1, None, 'x']},
                         documents.load_yaml('a: [1, ~, x]'))
        self.assertEqual([{'a': 1}, None], documents.load_yaml_all(
            'a: 1\n---\n'))
        shared = documents.load_yaml('a: &x [1]\nb: *x\nc: *x\n')
        self.assertEqual([1], shared['c'])

    def test_number_keys_pass_when_asked(self):
        self.assertEqual({2024: 'x'}, documents.load_yaml(
            '2024: x', string_keys=False))

    def test_uploader_keeps_number_image_names(self):
        # NOTE: Sylva's uploader reads the file with plain PyYAML.
        spec, = inputs.parse_images(
            'os_images:\n  2024: {uri: "http://x/a", md5: %s, '
            'image-format: raw, 7: x}\n' % MD5)
        self.assertEqual('2024', spec.key)
        self.assertIn('sylva/7', spec.properties)

    def test_one_line_errors(self):
        self.assertEqual('a b c', str(errors.OneLineError('a\nb \t c')))
        self.assertEqual('x y', str(errors.CliError('x\n\ny', 3)))
