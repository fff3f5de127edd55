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

"""Read a subunit v2 stream test by test, and only a whole one.

For glance-multiapi-report's verdict (results/gate/verdict.py), the map's
outcomes (results/runmap/outcomes.py) and the project's own runners and
reports. python-subunit's parser reads a damaged stream on: a packet
cut short or altered becomes a test named ``subunit.parser``, and a
stream cut between two packets reads as a shorter run. A gate must not
pass on that, so the readers here walk the stream packet by packet
(``packets``: the signature, the version, the length, the CRC32 of each,
as the subunit v2 format defines them), hand each whole packet to
python-subunit, and stop at the first damaged one with DamagedStream,
which names the file, the byte offset of the packet and what is wrong;
the tests read until then are kept (one still running shows as
unfinished).
"""

import collections
import errno
import io
import struct
import zlib

from glance_multiapi_kernel import errors
from glance_multiapi_kernel import input_files

# What a subunit status means to a reader of the results.
OUTCOMES = {'success': 'pass', 'xfail': 'pass', 'fail': 'fail',
            'uxsuccess': 'fail', 'skip': 'skip',
            # NOTE: started and never finished: the worker died under it.
            'inprogress': 'error'}

# NOTE: duration (seconds, 0.0 when a timestamp is missing) is what
# tools/suite_times.py records for stestr's scheduler. damage: True on
# the one error "test" that stands for a stream read only in part.
Test = collections.namedtuple('Test', 'id outcome reason duration damage',
                              defaults=(False,))

# NOTE: python-subunit's subunit/v2.py: every packet starts with this
# byte, then 16 bits of flags whose top 4 are the version (2), a length
# of 1 to 3 bytes (the whole packet, at most 4 MiB) and ends with the
# CRC32 of everything before it.
SIGNATURE = 0xb3
VERSION = 2
_MIN_PACKET = 1 + 2 + 1 + 4
PARSER_ID = 'subunit.parser'


class DamagedStream(errors.OneLineError):
    """A stream that is not whole: its name, the offset and the damage."""

    def __init__(self, name, offset, problem):
        self.name = name
        self.offset = offset
        self.problem = problem
        super().__init__('%s: damaged subunit stream at byte %d: %s' % (
            name, offset, problem))


def _read(stream, size):
    data = b''
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            break
        data += chunk
    return data


def _length(header):
    """(packet length, bytes it takes) of the varint after the flags."""
    first = header[2]
    size = (first >> 6) + 1
    if size == 4:
        return None, size
    value = first & 0x3f
    for byte in header[3:2 + size]:
        value = (value << 8) | byte
    return value, size


def packets(stream, name):
    """(offset, bytes) of each packet of a subunit v2 byte stream.

    :raises DamagedStream: at the first packet that is not whole: a byte
        other than the signature where one starts, another version, a
        length that cannot be, the end of the stream inside a packet
        (a file cut short) or a CRC32 that does not match (bytes
        altered).
    """
    offset = 0
    while True:
        head = stream.read(1)
        if not head:
            return
        if head[0] != SIGNATURE:
            raise DamagedStream(name, offset, 'byte 0x%02x where a packet '
                                'starts with 0x%02x (not subunit v2 '
                                'there)' % (head[0], SIGNATURE))
        # NOTE: the flags and up to 3 length bytes; every packet has them
        # (at least 8 bytes: the CRC32 follows).
        header = _read(stream, 5)
        if len(header) < 5:
            raise DamagedStream(name, offset, 'the stream ends inside a '
                                'packet header (cut short)')
        length, size = _length(header)
        version = struct.unpack('>H', header[:2])[0] >> 12
        if version != VERSION:
            raise DamagedStream(name, offset, 'a packet of version %d, not '
                                '%d' % (version, VERSION))
        if length is None:
            raise DamagedStream(name, offset, 'a packet length of 4 bytes; '
                                'subunit v2 packets are at most 4 MiB')
        if length < max(_MIN_PACKET, 1 + 2 + size + 4):
            raise DamagedStream(name, offset, 'a packet length of %d '
                                'bytes, too short for a packet' % length)
        body = _read(stream, length - 1 - len(header))
        packet = head + header + body
        if len(packet) < length:
            raise DamagedStream(name, offset, 'the stream ends inside a '
                                'packet (%d of its %d bytes; cut short)' % (
                                    len(packet), length))
        stored = struct.unpack('>I', packet[-4:])[0]
        if zlib.crc32(packet[:-4]) & 0xffffffff != stored:
            raise DamagedStream(name, offset, 'the packet\'s CRC32 does '
                                'not match its bytes (altered)')
        yield offset, packet
        offset += length


class _Guard(object):
    """Passes events on to result, keeping back python-subunit's errors."""

    def __init__(self, result):
        self.result = result
        self.error = None

    def status(self, **kwargs):
        if kwargs.get('test_id') == PARSER_ID:
            if kwargs.get('file_name') == 'Parser Error':
                self.error = bytes(kwargs.get('file_bytes') or b'').decode(
                    'utf-8', 'replace')
            return
        self.result.status(**kwargs)


def for_each_test(stream, on_test, name=None):
    """Call on_test(dict) for every test of a subunit v2 byte stream.

    The dict is testtools.StreamToDict's: id, status, details, tags.
    With name (how messages name the stream), only whole packets are
    read and DamagedStream ends the reading at the first that is not,
    after on_test has had every test read until then (one started and
    not finished as inprogress). Without it, python-subunit reads what
    it can, as it always did (the project's own test runs).
    """
    # NOTE: imported here, where a stream is read: python-subunit with
    # testtools is some 40 % of what glance-multiapi-report imports, paid
    # by every start that ends on its arguments or files first.
    import subunit
    import testtools

    result = testtools.StreamToDict(on_test)
    result.startTestRun()
    try:
        if name is None:
            subunit.ByteStreamToStreamResult(
                stream, non_subunit_name='out').run(result)
            return
        for offset, packet in packets(stream, name):
            guard = _Guard(result)
            subunit.ByteStreamToStreamResult(io.BytesIO(packet)).run(guard)
            if guard.error is not None:
                raise DamagedStream(name, offset, guard.error)
    finally:
        result.stopTestRun()


def parse_subunit(stream):
    """{test id: (status, details text)} of a subunit v2 byte stream."""
    results = {}

    def on_test(test):
        details = []
        for name, content in sorted(test['details'].items()):
            try:
                details.append('%s: %s' % (name, content.as_text()))
            except Exception:  # noqa: S110 - binary attachment, skip it
                pass
        results[test['id']] = (test['status'], '\n'.join(details))

    for_each_test(stream, on_test)
    return results


def _reason(raw):
    content = raw['details'].get('reason')
    if content is None:
        return ''
    try:
        return content.as_text().strip()
    except Exception:  # noqa: S110 - a binary attachment has no text
        return ''


def _test(raw):
    outcome = OUTCOMES.get(raw['status'])
    if outcome is None:
        return None
    start, stop = raw['timestamps']
    duration = (stop - start).total_seconds() if start and stop else 0.0
    return Test(raw['id'], outcome, _reason(raw), duration)


def read_tests(path):
    """The Tests of a subunit v2 file in stream order ([] when missing).

    Listings ('exists') and other non-results are left out. A stream
    that cannot be read (not a regular file, no permission) or is
    damaged ends with one error Test (damage=True) that names the file,
    the byte offset and the problem, after the tests read before it.
    """
    tests = []

    def on_test(raw):
        test = _test(raw)
        if test:
            tests.append(test)

    problem = _read_each(path, on_test)
    if problem:
        tests.append(problem)
    return tests


def _read_each(path, on_test):
    """for_each_test on a file; the error Test of one not read whole.

    None when it was read whole or is missing (nothing ran); else the
    error Test (damage=True) that names the file, the byte offset and
    the problem, on_test having had every test read before it.
    """
    try:
        stream = input_files.open_regular(path, 'subunit stream')
    except input_files.InputFileError as exc:
        if exc.errno == errno.ENOENT:
            return None
        return Test(str(exc), 'error', exc.problem, 0.0, True)
    with stream:
        try:
            for_each_test(stream, on_test, name=path)
        except DamagedStream as exc:
            return Test(str(exc), 'error', exc.problem, 0.0, True)
        except OSError as exc:
            return Test('%s: cannot read the subunit stream: %s' % (
                path, exc.strerror or exc), 'error', str(exc), 0.0, True)
    return None


def failure_tails(path, lines=8, width=300):
    """{test id: the last lines of its traceback} of a file's failures.

    For a console that keeps only its tail (a CI's), where a failure's
    message must be read beside its name. Each failed or errored test
    gives its 'traceback' attachment (else every text attachment), the
    last ``lines`` non-blank lines, each cut at ``width`` characters. A
    file that cannot be read gives {}; a damaged one what was read.
    """
    tails = {}

    def on_test(raw):
        if OUTCOMES.get(raw['status']) not in ('fail', 'error'):
            return
        details = raw['details']
        names = ['traceback'] if 'traceback' in details else sorted(details)
        text = []
        for name in names:
            try:
                text += details[name].as_text().splitlines()
            except Exception:  # noqa: S110 - a binary attachment
                pass
        tails[raw['id']] = [line[:width] for line in text
                            if line.strip()][-lines:]

    _read_each(path, on_test)
    return tails


def damage(tests):
    """The error Tests that stand for streams read only in part."""
    return [test for test in tests if test.damage]
