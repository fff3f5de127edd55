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

"""One deadline per exchange, against a real trickling loopback server.

Each library the project talks HTTP through keeps its own timeout per
socket read, longer here than the trickle's interval: only the
exchange's deadline can end it, and it must, within a fraction of a
second of the deadline, with one line naming the URL, the deadline and
the bytes received.
"""

import http.client
import socket
import time
import urllib.error
import urllib.request

import requests
import testtools
import urllib3

from glance_multiapi_kernel import deadlines
from selftests import trickle

DEADLINE = 1.0
# NOTE: the per-read timeout each library gets: a trickle every 0.2 s
# never reaches it.
PER_READ = 30
# NOTE: the deadline, the watchdog's wake-up and the library's unwinding
# on a shared machine.
SLACK = 3.0


class DeadlineCase(testtools.TestCase):

    def assertEndsInTime(self, call, *needles):
        started = time.monotonic()
        error = self.assertRaises(deadlines.DeadlineExceeded, call)
        took = time.monotonic() - started
        self.assertLess(took, DEADLINE + SLACK, str(error))
        self.assertGreaterEqual(took, DEADLINE * 0.9, str(error))
        text = str(error)
        self.assertEqual(1, len(text.splitlines()))
        self.assertIn('answer within 1 s', text)
        for needle in needles:
            self.assertIn(needle, text)
        return error


class TestDeadlineEndsEveryLibrary(DeadlineCase):

    def _bounded(self, call, url):
        def run():
            with deadlines.exchange(url, DEADLINE, 'GET'):
                return call()
        return run

    def test_urllib3_trickled_body(self):
        server = trickle.serve(self, 'trickle')
        pool = urllib3.PoolManager()
        error = self.assertEndsInTime(self._bounded(
            lambda: pool.request('GET', server.url + '/m.json',
                                 timeout=PER_READ, retries=False),
            server.url + '/m.json'), server.url + '/m.json',
            'no complete answer within 1 s (received ')
        self.assertGreater(error.received, 0)

    def test_requests_slow_headers(self):
        server = trickle.serve(self, 'slow-headers')
        self.assertEndsInTime(self._bounded(
            lambda: requests.get(server.url, timeout=PER_READ),
            server.url), server.url)

    def test_requests_slow_redirect(self):
        server = trickle.serve(self, 'slow-redirect')
        self.assertEndsInTime(self._bounded(
            lambda: requests.get(server.url, timeout=PER_READ),
            server.url))

    def test_urllib_request_silent_server(self):
        server = trickle.serve(self, 'silent')
        error = self.assertEndsInTime(self._bounded(
            lambda: urllib.request.urlopen(server.url,
                                           timeout=PER_READ).read(),
            server.url), 'no answer within 1 s (nothing received)')
        self.assertEqual(0, error.received)

    def test_http_client_streamed_read(self):
        server = trickle.serve(self, 'trickle')

        def read():
            conn = http.client.HTTPConnection('127.0.0.1', server.port,
                                              timeout=PER_READ)
            conn.request('GET', '/')
            return conn.getresponse().read()
        self.assertEndsInTime(self._bounded(read, server.url))

    def test_credentials_left_out_of_the_message(self):
        server = trickle.serve(self, 'trickle')
        url = 'http://someone:s3cret@127.0.0.1:%d/x' % server.port
        error = self.assertEndsInTime(self._bounded(
            lambda: requests.get('http://127.0.0.1:%d/x' % server.port,
                                 timeout=PER_READ).content, url),
            'http://someone:***@127.0.0.1:%d/x' % server.port)
        self.assertNotIn('s3cret', str(error))


class TestExchangeScope(DeadlineCase):

    def test_inner_block_ends_with_the_outer_deadline(self):
        server = trickle.serve(self, 'trickle')

        def nested():
            with deadlines.exchange('outer', DEADLINE, 'upload'):
                with deadlines.exchange(server.url, 60, 'GET'):
                    requests.get(server.url, timeout=PER_READ).content
        error = self.assertEndsInTime(nested, 'upload outer')
        self.assertEqual('outer', error.url)

    def test_answer_in_time_passes(self):
        server = trickle.serve(self, 'ok')
        with deadlines.exchange(server.url, 10) as current:
            answer = requests.get(server.url, timeout=PER_READ)
        self.assertEqual(b'{}', answer.content)
        self.assertFalse(current.expired)

    def test_pooled_connection_is_not_carried_past_its_exchange(self):
        # NOTE: the first answer comes in time over a keep-alive
        # connection; the second exchange must not ride that connection
        # unseen, or a trickle on it would never be cut.
        server = trickle.serve(self, 'ok-then-trickle')
        pool = urllib3.PoolManager()
        with deadlines.exchange(server.url, 30):
            first = pool.request('GET', server.url, timeout=PER_READ,
                                 retries=False)
        self.assertEqual(b'{}', first.data)
        started = time.monotonic()
        with deadlines.exchange(server.url, DEADLINE):
            second = pool.request('GET', server.url, timeout=PER_READ,
                                  retries=False)
        # NOTE: a connection of its own, which the server answers at once.
        self.assertEqual(b'{}', second.data)
        self.assertLess(time.monotonic() - started, DEADLINE + SLACK)

    def test_connect_after_the_deadline_fails_at_once(self):
        server = trickle.serve(self, 'silent')
        pool = urllib3.PoolManager()

        def retrying():
            with deadlines.exchange(server.url, DEADLINE):
                for _ in range(20):
                    try:
                        pool.request('GET', server.url, timeout=PER_READ,
                                     retries=False)
                    except urllib3.exceptions.HTTPError:
                        continue
        self.assertEndsInTime(retrying)

    def test_other_errors_pass_unchanged(self):
        def broken():
            with deadlines.exchange('http://127.0.0.1:9', 10):
                raise ValueError('not a timeout')
        self.assertRaises(ValueError, broken)


class TestShownUrl(testtools.TestCase):

    def test_password_masked_by_the_one_redaction(self):
        self.assertEqual('https://user:***@[::1]:5/v3?a=1', deadlines.Exchange(
            'GET', 'https://user:pw@[::1]:5/v3?a=1', 1).url)

    def test_plain_url_unchanged(self):
        self.assertEqual('http://127.0.0.1/x', deadlines.Exchange(
            'GET', 'http://127.0.0.1/x', 1).url)


class TestTimedOut(testtools.TestCase):
    """What counts as a library's own timeout at the deadline's moment."""

    def test_timeouts_of_the_libraries_and_what_wraps_them(self):
        for exc in (socket.timeout('timed out'), TimeoutError(),
                    urllib.error.URLError(socket.timeout('timed out')),
                    requests.exceptions.ReadTimeout('read timed out')):
            self.assertTrue(deadlines._timed_out(exc), repr(exc))

    def test_other_errors_are_their_own(self):
        for exc in (ValueError('not JSON'), ConnectionRefusedError(),
                    urllib.error.URLError(ConnectionResetError())):
            self.assertFalse(deadlines._timed_out(exc), repr(exc))
