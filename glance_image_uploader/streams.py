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
and the md5 of the image bytes is computed while they are sent on. Nothing
touches the disk: the temp disk peak is zero.
"""

import hashlib
import queue
import tarfile
import threading
import zlib

from glance_image_uploader import exitcodes

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

    hashlib releases the GIL on large buffers, so hashing in its own
    thread overlaps with reading, inflating and sending.
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


_END = object()


class HashedStream(object):
    """Chunks produced in a thread, hashed on the way, iterated once.

    The producer (download + inflate) runs ahead of the consumer (the
    socket to Glance) by at most QUEUE_CHUNKS chunks, so memory stays
    bounded whatever the image size. md5 and size are final once the
    iteration ended without error.
    """

    QUEUE_CHUNKS = 8

    def __init__(self, chunks):
        self.chunks = chunks
        self.expected_size = 0
        self._digest = hashlib.md5(usedforsecurity=False)
        self.size = 0
        self.complete = False
        self.on_chunk = None
        self._used = False
        self.producer = None
        self._stop = threading.Event()
        self._queue = queue.Queue(maxsize=self.QUEUE_CHUNKS)

    @property
    def md5(self):
        return self._digest.hexdigest()

    def _offer(self, item):
        # NOTE: a consumer that gave up (failed upload) no longer reads;
        # the producer must notice instead of blocking forever.
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.2)
                return True
            except queue.Full:
                continue
        return False

    def _produce(self):
        hasher = _Stage(self._digest.update)
        outcome = _END
        try:
            for chunk in self.chunks:
                hasher.put(chunk)
                if not self._offer(chunk):
                    break
        except BaseException as exc:
            outcome = exc
        finally:
            # NOTE: closes the source's connection when the consumer quit.
            close = getattr(self.chunks, 'close', None)
            if close is not None:
                close()
        hasher.finish()
        if outcome is _END and hasher.error is not None:
            outcome = hasher.error
        self._offer(outcome)

    def __iter__(self):
        if self._used:
            # NOTE: a retried request would resend an exhausted stream as
            # an empty body; refuse instead of uploading nothing.
            raise exitcodes.UploaderError(
                exitcodes.GLANCE_ERROR,
                'the connection to glance dropped during the upload; a '
                'stream cannot be sent twice')
        self._used = True
        self.producer = threading.Thread(target=self._produce, daemon=True)
        self.producer.start()
        try:
            while True:
                item = self._queue.get()
                if item is _END:
                    self.complete = True
                    return
                if isinstance(item, BaseException):
                    raise item
                self.size += len(item)
                if self.on_chunk is not None:
                    self.on_chunk(len(item))
                yield item
        finally:
            self._stop.set()
