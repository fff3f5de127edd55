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

"""The TLS diagnosis of the probes: each certificate problem named."""

import json
import ssl
import time
from unittest import mock

import fixtures
import requests
import testtools

from glance_multiapi_cloud import certs
from glance_multiapi_cloud import state as state_mod
from glance_multiapi_tests.multiapi import probes
from selftests.unit import stub_http
from glance_multiapi_tests.tests.multiapi import scenario_base
from glance_multiapi_tests.tests import waiters


class _Handler(stub_http.JsonHandler):

    def do_GET(self):
        self.send_json(300, json.dumps({'versions': [{'id': 'v2.16'}]}))


class _TlsServing(testtools.TestCase):
    """Serves a version document over https with a given certificate."""

    def setUp(self):
        super().setUp()
        self.state = state_mod.State(
            self.useFixture(fixtures.TempDir()).path)
        self.ca = certs.ca_path(self.state)

    def serve(self, cert, key):
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        port = stub_http.serve(self, _Handler, ssl_context=context)
        return 'https://127.0.0.1:%d' % port


class TlsProbeTest(_TlsServing):

    def probe_error(self, url, context):
        exc = self.assertRaises(probes.StageError, probes.probe, url, 5,
                                context)
        self.assertEqual('TLS', exc.stage)
        return exc.error

    def test_trusted_certificate_passes(self):
        url = self.serve(*certs.issue(self.state, 'good'))
        self.assertIn('v2.16', probes.probe(
            url, 5, probes.ssl_context(self.ca)))

    def test_unknown_ca_is_named(self):
        url = self.serve(*certs.issue_untrusted(self.state, 'bad'))
        self.assertEqual('certificate verify failed: unable to get local '
                         'issuer certificate',
                         self.probe_error(url, probes.ssl_context(self.ca)))

    def test_hostname_mismatch_is_named(self):
        url = self.serve(*certs.issue(self.state, 'other',
                                      hosts=('127.0.0.2',), dns_names=()))
        error = self.probe_error(url, probes.ssl_context(self.ca))
        self.assertTrue(error.startswith('certificate verify failed: '),
                        error)
        self.assertIn('mismatch', error)
        self.assertIn('127.0.0.1', error)

    def test_self_signed_is_named(self):
        # NOTE: the CA's own certificate is a self-signed one.
        url = self.serve(self.ca, self.state.path('tls', 'ca.key'))
        error = self.probe_error(url, probes.ssl_context())
        self.assertIn('certificate verify failed: self', error)
        self.assertIn('signed certificate', error)

    def test_plain_http_server_is_named(self):
        port = stub_http.serve(self, _Handler)
        error = self.probe_error('https://127.0.0.1:%d' % port,
                                 probes.ssl_context(self.ca))
        self.assertIn('plain http?', error)

    def test_insecure_context_accepts_any_certificate(self):
        url = self.serve(*certs.issue_untrusted(self.state, 'bad'))
        self.assertIn('v2.16', probes.probe(
            url, 5, probes.ssl_context(self.ca, insecure=True)))

    def test_answers_says_tls(self):
        url = self.serve(*certs.issue_untrusted(self.state, 'bad'))
        ok, why = probes.answers(url, 5, probes.ssl_context(self.ca))
        self.assertFalse(ok)
        self.assertTrue(why.startswith('TLS: certificate verify failed'))

    def test_tls_problem_digs_through_requests(self):
        url = self.serve(*certs.issue_untrusted(self.state, 'bad'))
        exc = self.assertRaises(requests.RequestException, requests.get,
                                url, verify=self.ca, timeout=5)
        self.assertEqual('certificate verify failed: unable to get local '
                         'issuer certificate', probes.tls_problem(exc))

    def test_tls_problem_of_other_errors_is_none(self):
        self.assertIsNone(probes.tls_problem(ValueError('x')))
        self.assertIsNone(probes.tls_problem(
            requests.ConnectionError(OSError(111, 'Connection refused'))))


class _Api(object):
    name = 'api1'

    def __init__(self, *urls):
        self.endpoints = dict(zip(('internal', 'public'), urls))


class _Waiting(object):
    """What wait_for_answers needs of a test: its trust and fail()."""

    def __init__(self, context):
        self.context = context

    def ssl_context(self):
        return self.context

    def fail(self, message):
        raise AssertionError(message)


class TlsWaitTest(_TlsServing):
    """A certificate problem never reads as an API that stopped."""

    def setUp(self):
        super().setUp()
        conf = mock.Mock()
        conf.glance_multiapi.probe_timeout = 5
        conf.glance_multiapi.convergence_timeout = 30
        conf.glance_multiapi.convergence_interval = 0.05
        self.useFixture(fixtures.MockPatchObject(scenario_base,
                                                 'CONF', conf))

    def wait(self, api, up, context):
        scenario = scenario_base.MultiApiScenarioTest
        return scenario.wait_for_answers(_Waiting(context), api, up)

    def test_shrink_wait_fails_at_once_on_tls(self):
        url = self.serve(*certs.issue_untrusted(self.state, 'bad'))
        began = time.monotonic()
        exc = self.assertRaises(AssertionError, self.wait, _Api(url),
                                False, probes.ssl_context(self.ca))
        self.assertLess(time.monotonic() - began, 10)
        self.assertIn('every endpoint of api1 to stop answering', str(exc))
        self.assertIn('%s TLS: certificate verify failed: unable to get '
                      'local issuer certificate' % url, str(exc))
        self.assertIn('not an endpoint that is down', str(exc))

    def test_trusted_endpoint_answers(self):
        url = self.serve(*certs.issue(self.state, 'good'))
        self.wait(_Api(url), True, probes.ssl_context(self.ca))

    def test_waiter_names_a_client_tls_failure(self):
        url = self.serve(*certs.issue_untrusted(self.state, 'bad'))

        def check():
            requests.get(url, verify=self.ca, timeout=5)
            return True, 'answered'

        exc = self.assertRaises(probes.TlsError, waiters.wait_for, check,
                                what='the image', timeout=30)
        self.assertEqual('waiting for the image: TLS: certificate verify '
                         'failed: unable to get local issuer certificate',
                         str(exc))
