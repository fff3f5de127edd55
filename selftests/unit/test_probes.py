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
import time

import testtools

from glance_multiapi_tests.multiapi import probes
from selftests import trickle
from selftests.unit import stub_http


class _Handler(stub_http.JsonHandler):
    # NOTE: what glance answers on GET /: 300 and a list of versions.
    status = 300
    body = json.dumps({'versions': [{'id': 'v2.16', 'status': 'CURRENT'},
                                    {'id': 'v2.0', 'status': 'SUPPORTED'}]})

    def do_GET(self):
        self.send_json(self.status, self.body)


def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class ProbeTest(testtools.TestCase):

    def serve(self, status=300, body=None):
        handler = type('H', (_Handler,), {
            'status': status, 'body': body or _Handler.body})
        return 'http://127.0.0.1:%d' % stub_http.serve(self, handler)

    def test_glance_version_document_passes(self):
        self.assertIn('v2.16', probes.probe(self.serve(), 2))

    def test_dns_failure_names_stage_and_os_error(self):
        exc = self.assertRaises(
            probes.StageError, probes.probe,
            'http://glance-api1-public.openstack.invalid:9292', 2)
        self.assertEqual('DNS', exc.stage)
        self.assertTrue(exc.error)

    def test_tcp_refused(self):
        exc = self.assertRaises(probes.StageError, probes.probe,
                                'http://127.0.0.1:%d' % _free_port(), 2)
        self.assertEqual('TCP', exc.stage)
        self.assertIn('Connection refused', exc.error)

    def test_http_error_status(self):
        exc = self.assertRaises(probes.StageError, probes.probe,
                                self.serve(status=503, body='{}'), 2)
        self.assertEqual('HTTP', exc.stage)
        self.assertIn('503', exc.error)

    def test_not_a_version_document(self):
        exc = self.assertRaises(probes.StageError, probes.probe,
                                self.serve(status=200, body='<html>'), 2)
        self.assertIn('no version document', exc.error)

    def test_no_v2_offered(self):
        body = json.dumps({'versions': [{'id': 'v1.1'}]})
        exc = self.assertRaises(probes.StageError, probes.probe,
                                self.serve(body=body), 2)
        self.assertIn('offers no v2 (offers: v1.1)', exc.error)

    def test_http_stage_is_bounded(self):
        # A listener that never answers: TCP connects, HTTP must time out.
        sock = socket.socket()
        self.addCleanup(sock.close)
        sock.bind(('127.0.0.1', 0))
        sock.listen(1)
        exc = self.assertRaises(
            probes.StageError, probes.probe,
            'http://127.0.0.1:%d' % sock.getsockname()[1], 0.3)
        self.assertEqual(('HTTP', 'timed out'), (exc.stage, exc.error))

    def test_probe_all_reports_every_failure(self):
        good = self.serve()
        bad = 'http://glance-api1-public.openstack.invalid:9292'
        refused = 'http://127.0.0.1:%d' % _free_port()
        targets = [probes.Target('api0', 'public', good),
                   probes.Target('api1', 'public', bad),
                   probes.Target('catalog(glance, api1)', 'public', bad),
                   probes.Target('api1', 'internal', refused)]
        failures = probes.probe_all(targets, 2)
        self.assertEqual([t for t in targets[1:]],
                         [f.target for f in failures])
        text = str(failures[0])
        self.assertTrue(text.startswith(
            'api1 public http://glance-api1-public.openstack.invalid:9292: '
            'DNS: '), text)

    def test_answers(self):
        self.assertEqual((True, None), probes.answers(self.serve(), 2))
        ok, why = probes.answers('http://127.0.0.1:%d' % _free_port(), 2)
        self.assertFalse(ok)
        self.assertIn('TCP', why)


class ProbeDeadlineTest(testtools.TestCase):
    """TCP, TLS and HTTP of a probe end within its timeout, in all."""

    def _probe(self, mode):
        server = trickle.serve(self, mode)
        started = time.monotonic()
        error = self.assertRaises(probes.StageError, probes.probe,
                                  server.url + '/', 1.0)
        self.assertLess(time.monotonic() - started, 4.0, str(error))
        return error

    def test_trickled_version_document_ends_at_the_timeout(self):
        error = self._probe('trickle')
        self.assertEqual('HTTP', error.stage)
        self.assertIn('no complete answer within 1 s (received ',
                      error.error)

    def test_silent_endpoint_ends_at_the_timeout(self):
        error = self._probe('silent')
        self.assertEqual(('HTTP', 'timed out'), (error.stage, error.error))
