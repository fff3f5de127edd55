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

"""What a runner knows beyond its subunit stream, as more subunit events.

The JUnit XML and HTML reports come from the standard tools
(subunit2junitxml, subunit2html), which show only what a stream holds.
So the results the runners add are appended to the stream first, each a
test of its own: a stream with no result at all (``<name>.no_test_result``
failed), a test that started and never finished (that test failed), a
required group that did not run (``required_group.<group>`` failed) and
a check made outside the stream (``checks.<name>``).
"""

import collections
import datetime
import io

import subunit
import testtools

from glance_multiapi_tests.results.gate import required_groups

CHECK_OUTCOMES = {'pass': 'success', 'fail': 'fail', 'skip': 'skip'}
# NOTE: testtools prints a failure's "traceback" attachment bare, every
# other one as "name: {{{text}}}"; the message is the failure's text.
FAILURE_ATTACHMENT = 'traceback'
UNFINISHED = ('the test started and never finished: the stream ends before '
              'its result (its worker died, or the run was stopped)')

Event = collections.namedtuple('Event', 'test_id status message route_code')


def parse_check(text):
    """The Event of "NAME=pass", "NAME=fail:MESSAGE" or "NAME=skip:MESSAGE".

    ValueError naming the text when it is none of those.
    """
    name, _eq, result = text.partition('=')
    outcome, _colon, message = result.partition(':')
    if not name or outcome not in CHECK_OUTCOMES or (
            outcome == 'pass' and message):
        raise ValueError('bad --check %r: want NAME=pass, NAME=fail:MESSAGE'
                         ' or NAME=skip:MESSAGE' % text)
    return Event('checks.' + name, CHECK_OUTCOMES[outcome], message, None)


class _Tracker(testtools.StreamResult):
    """Which tests of a stream are still in progress at its end."""

    def __init__(self):
        super().__init__()
        self.running = collections.OrderedDict()
        self.results = 0
        self.last_timestamp = None

    def status(self, test_id=None, test_status=None, test_tags=None,
               runnable=True, file_name=None, file_bytes=None, eof=False,
               mime_type=None, route_code=None, timestamp=None):
        if timestamp is not None:
            self.last_timestamp = timestamp
        if test_id is None or test_status is None:
            return
        # NOTE: a worker's route code tells two runs of one id apart.
        key = (test_id, route_code)
        if test_status == 'inprogress':
            self.running[key] = True
        elif test_status != 'exists':
            self.running.pop(key, None)
            self.results += 1


def read(data):
    """(results, unfinished, last timestamp, the stream written anew).

    unfinished: [(test id, route code)] of tests never finished. data:
    the bytes of a subunit v2 stream. Written anew, a stream that
    was cut inside a packet ends cleanly (the parser's own failure,
    test id subunit.parser, in it), so events appended to it are read;
    bytes that are not subunit (a worker's stray output) are kept as an
    attachment named stdout, as the report tools read them.
    """
    tracker = _Tracker()
    copy = io.BytesIO()
    case = subunit.ByteStreamToStreamResult(io.BytesIO(data),
                                            non_subunit_name='stdout')
    result = testtools.CopyStreamResult(
        [tracker, subunit.StreamResultToBytes(copy)])
    result.startTestRun()
    case.run(result)
    result.stopTestRun()
    return (tracker.results, list(tracker.running), tracker.last_timestamp,
            copy.getvalue())


def synthetic(name, path, data, tests, required=(), checks=()):
    """(Events the reports need beyond the stream's, the stream anew).

    name: the stream's name (results/unit.subunit -> unit); data: its
    bytes; tests: its subunit_stream.Tests; required: group names that
    must have run; checks: Events of parse_check.
    """
    results, unfinished, last, data = read(data)
    events = [Event(test_id, 'fail', UNFINISHED, route)
              for test_id, route in unfinished]
    if not results and not unfinished:
        events.append(Event(
            '%s.no_test_result' % name, 'fail',
            'no test result: %s holds none (the run stopped before its '
            'tests, see its log)' % path, None))
    events += [Event('required_group.%s' % group, 'fail', line, None)
               for group, line in required_groups.missing(tests, required)]
    return events + list(checks), data, last


def to_bytes(events, timestamp=None):
    """A subunit v2 stream of the events, each a test that took no time."""
    when = timestamp or datetime.datetime.now(datetime.timezone.utc)
    out = io.BytesIO()
    stream = subunit.StreamResultToBytes(out)
    for event in events:
        stream.status(test_id=event.test_id, test_status='inprogress',
                      route_code=event.route_code, timestamp=when)
        if event.message:
            file_name = ('reason' if event.status == 'skip'
                         else FAILURE_ATTACHMENT)
            stream.status(test_id=event.test_id, file_name=file_name,
                          file_bytes=event.message.encode('utf-8'),
                          mime_type='text/plain; charset=utf8', eof=True,
                          route_code=event.route_code, timestamp=when)
        stream.status(test_id=event.test_id, test_status=event.status,
                      route_code=event.route_code, timestamp=when)
    return out.getvalue()


def enriched(name, path, data, tests, required=(), checks=()):
    """data with the synthetic events appended (bytes)."""
    events, data, last = synthetic(name, path, data, tests, required,
                                   checks)
    return data + to_bytes(events, last)
