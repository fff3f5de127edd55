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

"""A service the scenario disturbs, and how long its failures are "not yet".

A scenario that restarts a service (heat-engine) or loads one (a held
upload, uploaders running against Glance) sees it answer 5xx or time out
for a while: heat-api answers 500 to every call it relays to a restarting
heat-engine once its RPC timeout passed. A Disturbance names that window.
While it is open a transient failure (transient_problem) of a call made
through it is recorded in its Timeline and counts as "not yet"; once the
window has ended, the next one fails the test (StillFailing) naming the
failure, how often and since when it was seen, and what was last seen
before it. Any other exception passes through unchanged.

The window is open from the start; settle() says the disturbance itself
is over (the restart command returned) and starts the grace after which
the window ends. A Disturbance never settled stays open, so a poll's own
timeout bounds it.
"""

import http.client
import json
import socket
import time

import requests
from tempest.lib import exceptions as lib_exc
import urllib3

from glance_multiapi_kernel import polling
from glance_multiapi_tests.multiapi import probes

_CONNECTION_ERRORS = (ConnectionError, http.client.HTTPException,
                      urllib3.exceptions.ProtocolError,
                      urllib3.exceptions.NewConnectionError,
                      requests.exceptions.ConnectionError)
_TIMEOUTS = (socket.timeout, urllib3.exceptions.TimeoutError,
             requests.exceptions.Timeout)


class StillFailing(AssertionError):
    """A disturbed service still failed after its window ended."""


def _error_type(body):
    """heat's error.type, or a title, of a 5xx body; '' if none."""
    if isinstance(body, bytes):
        body = body.decode('utf-8', 'replace')
    if isinstance(body, str):
        try:
            body = json.loads(body)
        except ValueError:
            return ''
    if not isinstance(body, dict):
        return ''
    error = body.get('error')
    if isinstance(error, dict) and error.get('type'):
        return ' %s' % error['type']
    return ' %s' % body['title'] if body.get('title') else ''


def transient_problem(exc):
    """One line for a 5xx answer or a timeout; None for anything else.

    A TLS failure is a configuration problem, never transient; 501 is an
    answer, not a failure; our own waiters' timeouts are verdicts.
    """
    if isinstance(exc, (polling.PollTimeout, StillFailing)):
        return None
    if probes.tls_problem(exc) is not None:
        return None
    if isinstance(exc, lib_exc.RestClientException):
        if isinstance(exc, lib_exc.InvalidHTTPResponseBody):
            # NOTE: raised only for a 500 or 501 whose body is not JSON.
            return 'HTTP 5xx with a body that is not JSON'
        status = getattr(getattr(exc, 'resp', None), 'status', None)
        if isinstance(status, int) and status >= 500 and status != 501:
            return 'HTTP %d%s' % (status, _error_type(
                getattr(exc, 'resp_body', None)))
        return None
    reason = exc
    if isinstance(exc, urllib3.exceptions.MaxRetryError) and exc.reason:
        reason = exc.reason
    # NOTE: urllib3's NewConnectionError is also a ConnectTimeoutError.
    if isinstance(reason, _CONNECTION_ERRORS):
        return 'connection failed (%s)' % type(reason).__name__
    if isinstance(reason, _TIMEOUTS):
        return 'timed out (%s)' % type(reason).__name__
    return None


class Timeline(object):
    """What a scenario saw, in order, in seconds since it started.

    The same text added again in a row is one entry with a count, so a run
    of identical answers reads as one line.
    """

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self.started = clock()
        self.entries = []

    def add(self, text):
        """Record text now; the line as it reads after that."""
        now = self.clock() - self.started
        if self.entries and self.entries[-1]['text'] == text:
            self.entries[-1].update(last=now,
                                    count=self.entries[-1]['count'] + 1)
        else:
            self.entries.append({'first': now, 'last': now, 'count': 1,
                                 'text': text})
        return self.line(self.entries[-1])

    @staticmethod
    def line(entry):
        if entry['count'] == 1:
            return '%.1fs %s' % (entry['first'], entry['text'])
        return '%.1fs %s (%d times, until %.1fs)' % (
            entry['first'], entry['text'], entry['count'], entry['last'])

    def lines(self, last=None):
        entries = self.entries[-last:] if last else self.entries
        return [self.line(e) for e in entries]

    def __str__(self):
        return ' | '.join(self.lines())


class Disturbance(object):
    """The window in which a disturbed service's failures are "not yet".

    what names the disturbance (e.g. "heat-engine restart"); grace is how
    long after settle() the window stays open.
    """

    def __init__(self, what, *, grace=0, timeline=None,
                 clock=time.monotonic):
        self.what = what
        self.grace = grace
        self.clock = clock
        self.timeline = timeline if timeline is not None else Timeline(
            clock)
        self.settled_at = None
        self.failures = 0
        # NOTE: {label: problem text: (first seen, times)}.
        self.seen = {}

    def settle(self, note=None):
        """The disturbance itself ended; the grace starts now (once).

        note: what ended it, for the timeline.
        """
        if self.settled_at is None:
            self.settled_at = self.clock()
            self.timeline.add('%s; failures count as not yet for %d s '
                              'more' % (note or self.what + ' ended',
                                        self.grace))

    @property
    def over(self):
        return (self.settled_at is not None and
                self.clock() - self.settled_at > self.grace)

    def absorb(self, label, exc, last_seen=None, record=True):
        """Count a transient failure of label; its line.

        None when exc is not transient (the caller re-raises it);
        StillFailing when the window has ended. record: add the line to
        the timeline (a caller that records one line per poll says no).
        """
        problem = transient_problem(exc)
        if problem is None:
            return None
        text = '%s: %s' % (label, problem)
        now = self.clock() - self.timeline.started
        first, count = self.seen.get(text, (now, 0))
        self.seen[text] = (first, count + 1)
        self.failures += 1
        line = self.timeline.add(text) if record else text
        if self.over:
            raise StillFailing(
                '%s still failed %d s after the %s ended: %s (%d times '
                'since %.1fs); last seen before: %s; timeline: %s' % (
                    label, self.grace, self.what, text, count + 1, first,
                    last_seen or 'nothing', ' | '.join(
                        self.timeline.lines(last=8)))) from None
        return line

    def call(self, label, func, *args, last_seen=None, record=True,
             **kwargs):
        """(True, func's result), or (False, line) on a transient failure."""
        try:
            return True, func(*args, **kwargs)
        except Exception as exc:
            line = self.absorb(label, exc, last_seen=last_seen,
                               record=record)
            if line is None:
                raise
            return False, line
