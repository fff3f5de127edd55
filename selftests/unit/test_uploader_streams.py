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

"""One-pass decompression and md5 of the uploader's sources."""

import gzip
import hashlib
import io
import os
import tarfile

import testtools

from glance_image_uploader import exitcodes
from glance_image_uploader import streams

IMAGE = os.urandom(300000) + b'\0' * 3000000 + b'tail'


def _tar_gz(members):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w:gz') as archive:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buf.getvalue()


class _TrickleReader(object):
    """Returns at most 777 bytes per read, like a slow socket."""

    def __init__(self, data):
        self._buf = io.BytesIO(data)
        self.reads = 0

    def read(self, size=-1):
        self.reads += 1
        return self._buf.read(min(size if size > 0 else 777, 777))


class TestLayout(testtools.TestCase):

    def test_names(self):
        self.assertEqual('tar', streams.layout_for('a.tar.gz'))
        self.assertEqual('tar', streams.layout_for('A.TGZ'))
        self.assertEqual('gzip', streams.layout_for('a.qcow2.gz'))
        self.assertEqual('plain', streams.layout_for('a.qcow2'))
        self.assertEqual('plain', streams.layout_for(''))
        self.assertEqual('tar', streams.layout_for(
            '', 'application/vnd.oci.image.layer.v1.tar+gzip'))


class TestImageChunks(testtools.TestCase):

    def _store(self, data, layout, reader=None):
        stream = streams.HashedStream(streams.image_chunks(
            reader or io.BytesIO(data), layout, 'src'))
        out = b''.join(stream)
        self.assertTrue(stream.complete)
        return stream.md5, stream.size, out

    def test_plain(self):
        md5, size, data = self._store(IMAGE, 'plain')
        self.assertEqual(hashlib.md5(IMAGE).hexdigest(), md5)
        self.assertEqual((len(IMAGE), IMAGE), (size, data))

    def test_gzip_multi_member(self):
        data = gzip.compress(IMAGE[:1000]) + gzip.compress(IMAGE[1000:])
        md5, size, out = self._store(data, 'gzip')
        self.assertEqual(IMAGE, out)
        self.assertEqual(hashlib.md5(IMAGE).hexdigest(), md5)

    def test_tar_gz_with_gz_member_through_small_reads(self):
        data = _tar_gz([('README', b'x'),
                        ('disk/img.raw.gz', gzip.compress(IMAGE))])
        reader = _TrickleReader(data)
        md5, size, out = self._store(data, 'tar', reader)
        self.assertEqual(IMAGE, out)
        self.assertEqual(hashlib.md5(IMAGE).hexdigest(), md5)

    def test_tar_gz_with_qcow2_member(self):
        md5, size, out = self._store(_tar_gz([('a.qcow2', IMAGE)]), 'tar')
        self.assertEqual(IMAGE, out)

    def test_tar_without_image(self):
        error = self.assertRaises(exitcodes.UploaderError, self._store,
                                  _tar_gz([('notes.txt', b'x')]), 'tar')
        self.assertEqual(exitcodes.SOURCE_ERROR, error.code)
        self.assertIn('holds no image file', error.message)

    def test_truncated_tar_gz(self):
        data = _tar_gz([('a.raw', IMAGE)])
        error = self.assertRaises(exitcodes.UploaderError, self._store,
                                  data[:len(data) // 2], 'tar')
        self.assertEqual(exitcodes.SOURCE_ERROR, error.code)

    def test_not_a_tar(self):
        error = self.assertRaises(exitcodes.UploaderError, self._store,
                                  b'<html>not found</html>', 'tar')
        self.assertIn('not a readable tar archive', error.message)

    def test_truncated_gzip(self):
        data = gzip.compress(IMAGE)
        error = self.assertRaises(exitcodes.UploaderError, self._store,
                                  data[:-100], 'gzip')
        self.assertIn('truncated', error.message)

    def test_corrupt_gzip(self):
        error = self.assertRaises(exitcodes.UploaderError, self._store,
                                  b'\x1f\x8b\x08\x00garbage' * 10, 'gzip')
        self.assertIn('corrupt', error.message)

    def test_empty_gzip(self):
        error = self.assertRaises(exitcodes.UploaderError, self._store,
                                  b'', 'gzip')
        self.assertIn('empty', error.message)

    def test_counting_reader(self):
        seen = []
        reader = streams.CountingReader(io.BytesIO(b'abcdef'), seen.append)
        self.assertEqual(b'abcd', reader.read(4))
        self.assertEqual(b'ef', reader.read(4))
        self.assertEqual(b'', reader.read(4))
        self.assertEqual([4, 2], seen)


class TestHashedStream(testtools.TestCase):

    def test_source_error_reaches_the_consumer(self):
        def chunks():
            yield b'a' * 10
            raise exitcodes.UploaderError(3, 'cut')
        stream = streams.HashedStream(chunks())
        seen = []
        error = self.assertRaises(exitcodes.UploaderError,
                                  lambda: seen.extend(stream))
        self.assertEqual('cut', error.message)
        self.assertEqual([b'a' * 10], seen)
        self.assertFalse(stream.complete)

    def test_many_chunks_in_order_with_progress(self):
        parts = [os.urandom(1000) for _ in range(200)]
        stream = streams.HashedStream(iter(parts))
        counted = []
        stream.on_chunk = counted.append
        self.assertEqual(b''.join(parts), b''.join(stream))
        self.assertEqual(hashlib.md5(b''.join(parts)).hexdigest(),
                         stream.md5)
        self.assertEqual(200000, stream.size)
        self.assertEqual(200000, sum(counted))

    def test_second_pass_refused(self):
        # NOTE: a retried PUT must not send an exhausted, empty body.
        stream = streams.HashedStream(iter([b'x']))
        self.assertEqual(b'x', b''.join(stream))
        error = self.assertRaises(exitcodes.UploaderError, list, stream)
        self.assertEqual(exitcodes.GLANCE_ERROR, error.code)

    def test_consumer_that_gives_up_stops_the_producer(self):
        produced = []

        def endless():
            for index in range(10000):
                produced.append(index)
                yield b'y' * 100
        stream = streams.HashedStream(endless())
        iterator = iter(stream)
        next(iterator)
        iterator.close()
        stream.producer.join(5)
        self.assertFalse(stream.producer.is_alive())
        self.assertLess(len(produced), 10000)
