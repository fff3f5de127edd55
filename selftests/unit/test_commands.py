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

import json
import time

import testtools

from glance_multiapi_tests.common import commands
from glance_multiapi_tests.multiapi import patching


class CommandsTest(testtools.TestCase):

    def test_nest_patch(self):
        self.assertEqual(
            {'spec': {'glance': {'template': {'keystoneEndpoint': 'a'}}}},
            patching.nest('spec.glance.template', {'keystoneEndpoint': 'a'}))

    def test_render_quotes_patch(self):
        line = patching.render_command(
            "printf '%s' {patch}", {'spec': {'x': "it's"}})
        out = commands.run(line, timeout=10, what='patch command')
        self.assertEqual({'spec': {'x': "it's"}}, json.loads(out))

    def test_render_needs_placeholder(self):
        self.assertRaises(ValueError, patching.render_command,
                          'oc patch x', {})

    def test_timeout_kills_and_names_command(self):
        start = time.monotonic()
        exc = self.assertRaises(commands.CommandError, commands.run,
                                'sleep 30; echo late', timeout=0.5,
                                what='discovery command')
        self.assertLess(time.monotonic() - start, 10)
        self.assertIn("discovery command 'sleep 30; echo late' did not "
                      "finish within 0.5 s", str(exc))

    def test_missing_program(self):
        exc = self.assertRaises(commands.CommandError, commands.run,
                                'no-such-program-here', timeout=5,
                                what='patch command')
        self.assertIn('exited 127', str(exc))

    def test_output_is_bounded(self):
        start = time.monotonic()
        exc = self.assertRaises(commands.CommandError, commands.run,
                                'cat /dev/zero', timeout=30,
                                what='discovery command', limit=1000)
        self.assertLess(time.monotonic() - start, 10)
        self.assertIn("discovery command 'cat /dev/zero' printed more than "
                      "1000 bytes", str(exc))

    def test_output_must_be_utf8(self):
        exc = self.assertRaises(commands.CommandError, commands.run,
                                r"printf 'ok\n\377'", timeout=10,
                                what='version command')
        self.assertIn('printed text that is not UTF-8 (line 2, column 1: '
                      'byte 0xff at offset 3)', str(exc))

    def test_stderr_tail_is_kept(self):
        exc = self.assertRaises(commands.CommandError, commands.run,
                                'seq 1 100000 >&2; exit 3', timeout=10,
                                what='patch command')
        self.assertIn('exited 3: 99998 | 99999 | 100000', str(exc))
