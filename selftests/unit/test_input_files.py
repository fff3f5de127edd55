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

"""The kernel's input_files.py: what is not a regular file is named, at
once."""

import os
import socket
import time

import fixtures
import testtools

from glance_multiapi_kernel import documents
from glance_multiapi_kernel import input_files


class TestInputFiles(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.folder = self.useFixture(fixtures.TempDir()).path

    def path(self, name, data=None):
        path = os.path.join(self.folder, name)
        if data is not None:
            with open(path, 'wb') as f:
                f.write(data)
        return path

    def refused(self, path, needle, unavailable=True, read=None):
        start = time.monotonic()
        exc = self.assertRaises(input_files.InputFileError,
                                read or input_files.read_text, path, 'spec')
        self.assertLess(time.monotonic() - start, 5)
        sep = ': ' if needle.startswith('the key') else ' '
        self.assertEqual('spec %s%s%s' % (path, sep, needle), str(exc))
        self.assertEqual(unavailable, exc.unavailable)
        return exc

    def test_what_is_not_a_regular_file_is_named(self):
        fifo = self.path('fifo')
        os.mkfifo(fifo)
        loop = self.path('loop')
        os.symlink(loop, loop)
        afile = self.path('afile', b'x')
        sock = socket.socket(socket.AF_UNIX)
        self.addCleanup(sock.close)
        sock.bind(self.path('sock'))
        for path, needle in (
                (fifo, 'is a FIFO (named pipe), not a regular file'),
                ('/dev/zero', 'is a character device, not a regular file'),
                (self.folder, 'is a folder, not a regular file'),
                (self.path('sock'), 'is a socket, not a regular file'),
                (loop, 'is a symlink loop'),
                (self.path('missing'), 'does not exist'),
                (afile + '/x', 'cannot be reached: a part of its path is '
                               'not a folder')):
            self.refused(path, needle)
            self.refused(path, needle, read=input_files.check_regular)

    def test_a_fifo_with_a_writer_is_refused_too(self):
        fifo = self.path('fifo')
        os.mkfifo(fifo)
        writer = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
        self.addCleanup(os.close, writer)
        os.write(writer, b'a: 1\n')
        self.refused(fifo, 'is a FIFO (named pipe), not a regular file')

    def test_size_is_capped(self):
        big = self.path('big')
        with open(big, 'wb') as f:
            f.truncate(50 * 1024 * 1024)
        self.refused(big, 'is 50 MiB, more than the 2 MiB such an input '
                          'may hold', unavailable=False)
        self.refused(big, 'is 50 MiB, more than the 2 MiB such an input '
                          'may hold', unavailable=False,
                     read=input_files.check_regular)
        small = self.path('small', b'x' * 11)
        exc = self.assertRaises(input_files.InputFileError,
                                input_files.read_bytes, small, 'spec', 10)
        self.assertIn('is 11 bytes, more than the 10 bytes', str(exc))
        self.assertEqual(b'x' * 11, input_files.read_bytes(small, 'x', 11))

    def test_text_is_utf8(self):
        path = self.path('latin', 'a: 1\nb: é\n'.encode('latin-1'))
        self.refused(path, 'is not UTF-8 (line 2, column 4: byte 0xe9 at '
                           'offset 8)', unavailable=False)
        ok = self.path('ok', 'a: é\n'.encode())
        self.assertEqual('a: é\n', input_files.read_text(ok, 'spec'))

    def test_yaml_errors_name_the_file(self):
        path = self.path('dup', b'a: 1\na: 2\n')
        exc = self.refused(path, 'the key a is given twice (lines 1 and 2); '
                                 'one of the two would be silently ignored',
                           unavailable=False, read=input_files.load_yaml)
        self.assertEqual(path, exc.path)
        self.assertEqual({'a': 1}, input_files.load_yaml(
            self.path('one', b'a: 1\n'), 'spec'))

    def test_size_text(self):
        self.assertEqual('2 MiB', input_files.size_text(2 * 1024 * 1024))
        self.assertEqual('1.5 KiB', input_files.size_text(1536))
        self.assertEqual('7 bytes', input_files.size_text(7))


class TestDocumentedLimits(testtools.TestCase):

    def test_cli_reference_names_every_limit(self):
        path = os.path.join(os.path.dirname(__file__), '..', '..',
                            'doc', 'source', 'cli.rst')
        with open(path) as f:
            text = ' '.join(f.read().split())
        for _what, limit in input_files.LIMITS:
            self.assertIn(input_files.size_text(limit), text)
        self.assertIn('more than %s nodes' % format(
            documents.MAX_ALIAS_NODES, ','), text)
