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

"""Turn a downloaded byte stream into image bytes in one streaming pass.

A source is read once: tar.gz is unpacked and gunzipped while it arrives,
the image member (.gz, .raw, .qcow2, .img) is gunzipped again when needed,
and the md5 of the image bytes is computed as they are written. Nothing but
the final image touches the disk, so the temp disk peak is the image size.
"""

import hashlib
import queue
import tarfile
import threading
import zlib

from glance_multiapi_tests.uploader import exitcodes

CHUNK = 1 << 20
IMAGE_SUFFIXES = ('.gz', '.raw', '.qcow2', '.img')
TAR_SUFFIXES = ('.tar.gz', '.tgz')
TAR_MEDIA_TYPES = ('application/vnd.oci.image.layer.v1.tar+gzip',
                   'application/vnd.oci.image.layer.v1.tar',
                   'application/gzip+tar')


class CountingReader(object):
    """File-like view of a raw stream that reports every byte read."""

    def __init__(self, raw, on_bytes):
        self._raw = raw
        self._on_bytes = on_bytes

    def read(self, size=-1):
        data = self._raw.read(size)
        if data:
            self._on_bytes(len(data))
        return data


def layout_for(name, media_type=''):
    """Return 'tar', 'gzip' or 'plain' for a source file name."""
    low = (name or '').lower()
    if low.endswith(TAR_SUFFIXES) or low.endswith('.tar'):
        return 'tar'
    if media_type in TAR_MEDIA_TYPES and not low.endswith(IMAGE_SUFFIXES):
        return 'tar'
    if low.endswith('.gz'):
        return 'gzip'
    return 'plain'


def read_chunks(reader, size=CHUNK):
    while True:
        data = reader.read(size)
        if not data:
            return
        yield data


def gunzip_chunks(chunks, source):
    """Decompress gzip data (possibly multi-member) chunk by chunk."""
    inflater = zlib.decompressobj(wbits=31)
    in_member = False
    seen = False
    for chunk in chunks:
        while chunk:
            seen = in_member = True
            try:
                out = inflater.decompress(chunk, CHUNK)
            except zlib.error as exc:
                raise exitcodes.UploaderError(
                    exitcodes.SOURCE_ERROR,
                    '%s: gzip data is corrupt (%s)' % (source, exc))
            if out:
                yield out
            if inflater.eof:
                chunk = inflater.unused_data
                inflater = zlib.decompressobj(wbits=31)
                in_member = False
            else:
                chunk = inflater.unconsumed_tail
    if in_member:
        tail = inflater.flush()
        if tail:
            yield tail
        if not inflater.eof:
            raise exitcodes.UploaderError(
                exitcodes.SOURCE_ERROR, '%s: gzip data is truncated' % source)
    if not seen:
        raise exitcodes.UploaderError(
            exitcodes.SOURCE_ERROR, '%s: gzip data is empty' % source)


def image_chunks(reader, layout, source):
    """Yield the image bytes of a source read from reader, in one pass."""
    if layout == 'tar':
        yield from _tar_image_chunks(reader, source)
    elif layout == 'gzip':
        yield from gunzip_chunks(read_chunks(reader), source)
    else:
        yield from read_chunks(reader)


def _tar_image_chunks(reader, source):
    # NOTE: stream mode ('r|*') never seeks, so the archive is unpacked
    # while it downloads; closing it closes only tarfile's own wrapper.
    try:
        archive = tarfile.open(fileobj=reader, mode='r|*', bufsize=CHUNK)
    except (tarfile.TarError, EOFError, zlib.error) as exc:
        raise exitcodes.UploaderError(
            exitcodes.SOURCE_ERROR,
            '%s is not a readable tar archive (%s)' % (source, exc))
    try:
        member = None
        for candidate in archive:
            if (candidate.isfile() and
                    candidate.name.lower().endswith(IMAGE_SUFFIXES)):
                member = candidate
                break
        if member is None:
            raise exitcodes.UploaderError(
                exitcodes.SOURCE_ERROR,
                '%s holds no image file (%s)'
                % (source, ', '.join(IMAGE_SUFFIXES)))
        chunks = read_chunks(archive.extractfile(member))
        if member.name.lower().endswith('.gz'):
            chunks = gunzip_chunks(chunks, '%s:%s' % (source, member.name))
        yield from chunks
    except (tarfile.TarError, EOFError, zlib.error) as exc:
        raise exitcodes.UploaderError(
            exitcodes.SOURCE_ERROR,
            '%s is not a readable tar archive (%s)' % (source, exc))
    finally:
        archive.close()


class _Stage(object):
    """A thread applying one function to every chunk, in order.

    hashlib and file writes release the GIL on large buffers, so hashing
    and writing in their own threads overlap with reading and inflating.
    """

    def __init__(self, apply):
        self._apply = apply
        self._queue = queue.Queue(maxsize=8)
        self.error = None
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self):
        while True:
            chunk = self._queue.get()
            if chunk is None:
                return
            if self.error is None:
                try:
                    self._apply(chunk)
                except Exception as exc:
                    # NOTE: keep draining so that the producer never
                    # blocks on a full queue; it sees the error next put.
                    self.error = exc

    def put(self, chunk):
        if self.error is not None:
            raise self.error
        self._queue.put(chunk)

    def finish(self):
        self._queue.put(None)
        self._thread.join()


def store(chunks, path):
    """Write chunks to path; return (md5 hex digest, size in bytes)."""
    digest = hashlib.md5(usedforsecurity=False)
    size = 0
    with open(path, 'wb') as out:
        stages = [_Stage(digest.update), _Stage(out.write)]
        try:
            for chunk in chunks:
                size += len(chunk)
                for stage in stages:
                    stage.put(chunk)
        finally:
            for stage in stages:
                stage.finish()
        for stage in stages:
            if stage.error is not None:
                raise stage.error
    return digest.hexdigest(), size
