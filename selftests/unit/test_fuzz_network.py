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

"""Property tests: an exchange ends within its deadline, whatever comes.

A real loopback server (selftests/trickle.py, mode 'script') plays a
generated answer: a valid one (with a length, or chunked), bytes that are
no HTTP, or either cut short, altered or padded, sent in pieces with
pauses, then closing the connection or keeping it open. The report's
baseline fetch and the Kubernetes client must each end within their
deadline (plus the time to unwind) with what they promise: the figures
or one BaselineError line, an object or one KubeError line; never
another exception, never a wait past the deadline.
"""

import json
import os
import time

import fixtures
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import testtools

from glance_multiapi_kernel import kube
from glance_multiapi_tests.results.runmap import comparison
from selftests import fuzzing  # noqa: F401 - loads the profiles
from selftests import trickle

DEADLINE = 0.5
SLACK = 3.0
# NOTE: an example may wait out its deadline: fewer examples than the
# parsers' properties get (200 in ci), each bounded.
EXAMPLES = min(settings.default.max_examples, 30)
BODY = json.dumps({'figures': [{'figure': 'f', 'labels': {},
                                'value': 1.0}]}).encode()
GLANCE = json.dumps({'kind': 'Glance', 'metadata': {'name': 'g'}}).encode()


def _with_length(body):
    return (b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n'
            b'Content-Length: %d\r\n\r\n' % len(body)) + body


def _chunked(body):
    return (b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n'
            b'Transfer-Encoding: chunked\r\n\r\n%x\r\n' % len(body) + body +
            b'\r\n0\r\n\r\n')


@st.composite
def answers(draw, body):
    """(script, hang) of one generated answer to any request."""
    data = draw(st.sampled_from([_with_length(body), _chunked(body),
                                 b'']) | st.binary(max_size=200))
    change = draw(st.sampled_from(('none', 'cut', 'alter', 'pad')))
    if data and change == 'cut':
        data = data[:draw(st.integers(0, len(data) - 1))]
    elif data and change == 'alter':
        at = draw(st.integers(0, len(data) - 1))
        data = data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + \
            data[at + 1:]
    elif change == 'pad':
        data += draw(st.binary(min_size=1, max_size=100))
    # NOTE: up to 16 pieces 0.3 s apart: longer than the deadline and its
    # slack together, while no gap reaches a per-read timeout.
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=15)))
    pieces = [data[a:b] for a, b in zip([0] + cuts, cuts + [len(data)])]
    delays = draw(st.lists(st.sampled_from((0, 0.05, 0.3)),
                           min_size=len(pieces), max_size=len(pieces)))
    return list(zip(pieces, delays)), draw(st.booleans())


class TestExchangesEndInTime(testtools.TestCase):

    def _serve(self, answer):
        script, hang = answer
        server = trickle.TrickleServer('script', script=script, hang=hang)
        self.addCleanup(server.stop)
        return server

    def _kubeconfig(self, url):
        if not hasattr(self, '_folder'):
            self._folder = self.useFixture(fixtures.TempDir()).path
        path = os.path.join(self._folder, 'kubeconfig')
        with open(path, 'w') as f:
            json.dump({'clusters': [{'name': 'c', 'cluster': {
                'server': url}}], 'users': [{'name': 'u', 'user': {
                    'token': 't'}}], 'contexts': [{'name': 'c', 'context': {
                        'cluster': 'c', 'user': 'u'}}],
                'current-context': 'c'}, f)
        return path

    def assertInTime(self, started, error=None):
        took = time.monotonic() - started
        self.assertLess(took, DEADLINE + SLACK, str(error))
        if error is not None:
            self.assertEqual(1, len(str(error).splitlines()))

    @settings(max_examples=EXAMPLES)
    @given(answers(BODY))
    def test_baseline_url_gives_figures_or_one_line(self, answer):
        server = self._serve(answer)
        started = time.monotonic()
        try:
            figures = comparison.load(server.url + '/metrics.json',
                                      DEADLINE)
        except comparison.BaselineError as exc:
            self.assertInTime(started, exc)
            self.assertIn(server.url, str(exc))
        else:
            self.assertInTime(started)
            self.assertIsInstance(figures, list)
        finally:
            server.stop()

    @settings(max_examples=EXAMPLES)
    @given(answers(GLANCE))
    def test_kubernetes_request_gives_an_object_or_one_line(self, answer):
        server = self._serve(answer)
        config = self._kubeconfig(server.url)
        started = time.monotonic()
        try:
            with kube.connect(kube.Settings(kubeconfig=config,
                                            timeout=DEADLINE)) as client:
                found = client.get(kube.GLANCE, 'g')
        except kube.KubeError as exc:
            self.assertInTime(started, exc)
            self.assertIn(server.url, str(exc))
        else:
            self.assertInTime(started)
            self.assertIsInstance(found, dict)
        finally:
            server.stop()
