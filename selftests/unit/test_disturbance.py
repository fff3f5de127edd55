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
import socket
import threading
import time

from tempest.lib.common import rest_client
from tempest.lib import exceptions as lib_exc
import testtools

from glance_multiapi_kernel import polling
from selftests.unit import stub_http
from selftests.unit import test_error_bodies
from glance_multiapi_tests.services.orchestration import heat_client
from glance_multiapi_tests.tests import disturbance
from glance_multiapi_tests.tests import waiters


class _Clock(object):
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


class _Resp(dict):
    def __init__(self, status):
        super().__init__()
        self.status = status


def _fault(status, body=None, cls=lib_exc.ServerFault):
    return cls(body, resp=_Resp(status))


class _Slow(stub_http.JsonHandler):
    """Answers only after release is set (bounded), or never in time."""

    release = threading.Event()

    def do_GET(self):
        self.release.wait(10)
        self.send_json(200, '{}')

    def handle(self):
        # NOTE: the client gave up long before; nobody reads the answer.
        try:
            super().handle()
        except (ConnectionError, BrokenPipeError):
            pass


class TransientProblemTest(testtools.TestCase):

    def test_heat_rpc_timeout_names_its_type(self):
        exc = _fault(500, json.dumps(test_error_bodies.HEAT_RPC_TIMEOUT))
        self.assertEqual('HTTP 500 MessagingTimeout',
                         disturbance.transient_problem(exc))

    def test_gateway_errors_are_transient(self):
        exc = lib_exc.UnexpectedResponseCode('503', resp=_Resp(503))
        self.assertEqual('HTTP 503', disturbance.transient_problem(exc))

    def test_answers_are_not_transient(self):
        for exc in (_fault(404, cls=lib_exc.NotFound),
                    _fault(501, cls=lib_exc.NotImplemented),
                    _fault(409, cls=lib_exc.Conflict),
                    polling.PollTimeout('waited'),
                    disturbance.StillFailing('over'),
                    KeyError('message'), ValueError('x')):
            self.assertIsNone(disturbance.transient_problem(exc), exc)

    def _timed_out(self, client):
        started = time.monotonic()
        try:
            client.get('stacks')
        except Exception as exc:
            return (disturbance.transient_problem(exc),
                    time.monotonic() - started)
        self.fail('no timeout')

    def test_client_read_timeout_is_transient(self):
        # NOTE: what tempest's client really raises when a service does
        # not answer within http_timeout; tempest sends a GET 11 times
        # (urllib3's default total of 10 retries), the heat client once.
        self.addCleanup(_Slow.release.set)
        auth = test_error_bodies._Auth()
        auth.url = 'http://127.0.0.1:%d' % stub_http.serve(self, _Slow)
        problem, seconds = self._timed_out(
            rest_client.RestClient(auth, 'x', 'r1', http_timeout=0.3))
        self.assertEqual('timed out (ReadTimeoutError)', problem)
        self.assertGreater(seconds, 3.0)
        problem, seconds = self._timed_out(heat_client.HeatClient(
            auth, 'orchestration', 'r1', http_timeout=0.3))
        self.assertEqual('timed out (ReadTimeoutError)', problem)
        self.assertLess(seconds, 1.5)

    def test_refused_connection_is_transient(self):
        auth = test_error_bodies._Auth()
        # NOTE: a port nobody listens on: bound, never listening.
        sock = socket.socket()
        sock.bind(('127.0.0.1', 0))
        self.addCleanup(sock.close)
        auth.url = 'http://127.0.0.1:%d' % sock.getsockname()[1]
        client = rest_client.RestClient(auth, 'x', 'r1', http_timeout=2)
        try:
            client.get('stacks')
        except Exception as exc:
            problem = disturbance.transient_problem(exc)
        self.assertTrue(problem.startswith('connection failed ('), problem)


class TimelineTest(testtools.TestCase):

    def test_repeats_are_counted_in_one_line(self):
        clock = _Clock()
        timeline = disturbance.Timeline(clock)
        timeline.add('a')
        clock.now += 1.5
        timeline.add('b')
        clock.now += 1
        line = timeline.add('b')
        self.assertEqual('1.5s b (2 times, until 2.5s)', line)
        self.assertEqual('0.0s a | 1.5s b (2 times, until 2.5s)',
                         str(timeline))


class DisturbanceTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.clock = _Clock()
        self.window = disturbance.Disturbance('heat-engine restart',
                                              grace=10, clock=self.clock)

    def _fail(self):
        raise _fault(500, json.dumps(test_error_bodies.HEAT_RPC_TIMEOUT))

    def test_transient_is_not_yet_while_open(self):
        ok, line = self.window.call('stack show', self._fail)
        self.assertFalse(ok)
        self.assertEqual('0.0s stack show: HTTP 500 MessagingTimeout', line)
        self.assertEqual((True, 3), self.window.call('x', lambda: 3))

    def test_other_errors_pass_through(self):
        def missing():
            raise lib_exc.NotFound()
        self.assertRaises(lib_exc.NotFound, self.window.call, 'x', missing)

    def test_fails_once_grace_after_settle_passed(self):
        self.window.settle()
        self.clock.now += 10
        self.assertFalse(self.window.call('stack show', self._fail)[0])
        self.clock.now += 1
        exc = self.assertRaises(disturbance.StillFailing, self.window.call,
                                'stack show', self._fail,
                                last_seen='CREATE_IN_PROGRESS')
        text = str(exc)
        self.assertIn('stack show still failed 10 s after the heat-engine '
                      'restart ended: stack show: HTTP 500 MessagingTimeout '
                      '(2 times since 10.0s)', text)
        self.assertIn('10.0s stack show: HTTP 500 MessagingTimeout (2 '
                      'times, until 11.0s)', text)
        self.assertIn('last seen before: CREATE_IN_PROGRESS', text)


class _Stacks(object):
    """Plays back show_stack answers: a dict, or an exception to raise."""

    base_url = 'http://heat'

    def __init__(self, *answers):
        self.answers = list(answers)

    def show_stack(self, name, stack_id):
        answer = (self.answers.pop(0) if len(self.answers) > 1
                  else self.answers[0])
        if isinstance(answer, Exception):
            raise answer
        return {'stack': answer}


class WaitersUnderDisturbanceTest(testtools.TestCase):

    def _stack(self, status):
        return {'stack_status': status, 'stack_status_reason': 'r'}

    def test_without_disturbance_a_500_ends_the_wait(self):
        client = _Stacks(self._stack('CREATE_IN_PROGRESS'), _fault(500))
        self.assertRaises(lib_exc.ServerFault, waiters.wait_for_stack,
                          client, 's', 'id', wanted='CREATE_COMPLETE',
                          timeout=5, interval=0.01)

    def test_500s_during_the_window_are_not_yet(self):
        client = _Stacks(self._stack('CREATE_IN_PROGRESS'), _fault(500),
                         _fault(500), self._stack('CREATE_COMPLETE'))
        window = disturbance.Disturbance('restart')
        stack = waiters.wait_for_stack(
            client, 's', 'id', wanted='CREATE_COMPLETE', timeout=5,
            interval=0.01, disturbance=window)
        self.assertEqual('CREATE_COMPLETE', stack['stack_status'])
        self.assertEqual(2, window.failures)
        self.assertIn('HTTP 500 (2 times', str(window.timeline))

    def test_timeout_names_the_500s_and_what_was_seen_before(self):
        client = _Stacks(self._stack('CREATE_IN_PROGRESS'), _fault(500))
        exc = self.assertRaises(
            polling.PollTimeout, waiters.wait_for_stack, client, 's', 'id',
            wanted='CREATE_COMPLETE', timeout=0.3, interval=0.01,
            disturbance=disturbance.Disturbance('restart'))
        text = str(exc)
        self.assertIn('last seen: ', text)
        self.assertIn(': HTTP 500 (', text)
        self.assertIn('before that: CREATE_IN_PROGRESS (r)', text)
