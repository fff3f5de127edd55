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

"""The kernel's documents.py: each way a text fails is one DocumentError.
"""

import testtools

from glance_multiapi_kernel import documents
from glance_multiapi_kernel import errors
from glance_image_uploader import inputs

MD5 = 'd41d8cd98f00b204e9800998ecf8427e'


class TestDocuments(testtools.TestCase):

    def refused(self, load, text, *needles, **kwargs):
        exc = self.assertRaises(documents.DocumentError, load, text,
                                **kwargs)
        self.assertNotIn('\n', str(exc))
        for needle in needles:
            self.assertIn(needle, str(exc))

    def test_each_failure_is_named(self):
        # NOTE: libyaml bounds nesting at 1,000 levels since 0.2.5; the
        # older one PyYAML 6.0.3's wheels carry (the Python 3.9 pins)
        # reads the 1,001st '[' as a syntax error. Refused either way.
        exc = self.assertRaises(documents.DocumentError,
                                documents.load_yaml, '[' * 1001)
        self.assertRegex(str(exc), r'^not (a usable document: nested '
                         r'deeper than|valid YAML at line)')
        for text, needle in (
                ('a: [', 'not valid YAML at line'),
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
                     'column 1: byte 0xff at offset 0)')

    def test_documents_of_json_shape_load(self):
        self.assertEqual({'a': [1, None, 'x']},
                         documents.load_yaml('a: [1, ~, x]'))
        self.assertEqual([{'a': 1}, None], documents.load_yaml_all(
            'a: 1\n---\n'))
        shared = documents.load_yaml('a: &x [1]\nb: *x\nc: *x\n')
        self.assertEqual([1], shared['c'])

    def test_bad_utf8_is_placed(self):
        self.refused(documents.load_yaml, b'a: 1\nb: x\xc3(\n',
                     'not UTF-8 (line 2, column 5: byte 0xc3 at offset 9)')
        self.assertIsNone(documents.utf8_problem('é'.encode()))

    def test_key_given_twice_names_both_lines(self):
        self.refused(documents.load_yaml, 'a: 1\nb:\n  c: 2\n  c: 3\n',
                     'the key c is given twice (lines 3 and 4)')
        self.refused(documents.load_yaml_all, 'x: 1\n---\na: 1\na: 2\n',
                     'the key a is given twice (lines 3 and 4)')
        self.refused(documents.load_yaml, '1: a\n1: b\n',
                     'the key 1 is given twice', string_keys=False)
        self.refused(documents.load_json, '{"a": 1,\n "b": {},\n "a": 2}',
                     'the key a is given twice (lines 1 and 3)')
        self.assertEqual({'a': 2}, documents.load_json(
            '{"a": 1, "a": 2}', unique_keys=False))

    def test_merge_keys_may_override(self):
        self.assertEqual(
            {'base': {'x': 1, 'y': 2}, 'c': {'x': 5, 'y': 2}},
            documents.load_yaml('base: &b {x: 1, y: 2}\n'
                                'c: {<<: *b, x: 5}\n'))

    def test_alias_bomb_is_refused(self):
        lines = ['a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]']
        for level in range(1, 9):
            lines.append('a%d: &a%d [%s]' % (level, level, ', '.join(
                ['*a%d' % (level - 1)] * 9)))
        self.refused(documents.load_yaml, '\n'.join(lines),
                     'YAML aliases would add more than 10000 nodes',
                     'the anchor at line')
        self.refused(documents.load_yaml_all, 'x: 1\n---\n' + '\n'.join(
            lines), 'YAML aliases would add more than 10000 nodes')

    def test_small_aliases_pass(self):
        text = 'a: &a [%s]\n' % ', '.join(['x'] * 100) + ''.join(
            'b%d: *a\n' % i for i in range(99))
        self.assertEqual(100, len(documents.load_yaml(text)['b98']))
        self.refused(documents.load_yaml, text + 'b99: *a\nb100: *a\n',
                     'more than 10000 nodes')

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
