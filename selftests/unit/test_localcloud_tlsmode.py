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

from unittest import mock

from cryptography import x509
import fixtures
import testtools

from glance_multiapi_cloud import errors
from glance_multiapi_cloud import faults
from glance_multiapi_cloud import record as record_mod
from glance_multiapi_cloud import state as state_mod
from glance_multiapi_cloud import tempestconf
from glance_multiapi_cloud import tlsmode
from glance_multiapi_cloud import uwsgi

SPEC = {'keystoneEndpoint': 'api0', 'glanceAPIs': {
    'api0': {'type': 'split', 'replicas': 1},
    'api1': {'type': 'split', 'replicas': 1}}}


def _issuer(path):
    with open(path, 'rb') as f:
        return x509.load_pem_x509_certificate(f.read()).issuer


class _StateTest(testtools.TestCase):

    def _state(self, tls, fault_records=()):
        state = state_mod.State(self.useFixture(fixtures.TempDir()).path)
        state.record = record_mod.Record.from_json({
            'spec': SPEC, 'faults': list(fault_records),
            'options': {'tls': tls}})
        return state


class TestTlsMode(_StateTest):

    def test_off_is_plain_http(self):
        state = self._state(False)
        self.assertFalse(tlsmode.enabled(state))
        self.assertEqual('http', tlsmode.scheme(state))
        self.assertEqual('http://127.0.0.1:5000/v3',
                         tlsmode.url(state, 5000, '/v3'))
        self.assertIs(False, tlsmode.verify(state))

    def test_missing_option_is_off(self):
        state = self._state(False)
        state.record = record_mod.Record.from_json({'spec': SPEC})
        self.assertFalse(tlsmode.enabled(state))

    def test_on_is_https_under_the_cloud_ca(self):
        state = self._state(True)
        self.assertTrue(tlsmode.enabled(state))
        self.assertEqual('https://127.0.0.1:9292',
                         tlsmode.url(state, 9292))
        self.assertEqual(state.path('tls', 'ca.crt'), tlsmode.verify(state))

    def test_cert_signed_by_the_cloud_ca(self):
        state = self._state(True)
        cert, key = tlsmode.cert_for(state, 'glance-api0-public')
        self.assertEqual(_issuer(tlsmode.verify(state)), _issuer(cert))
        self.assertEqual((cert, key),
                         tlsmode.cert_for(state, 'glance-api0-public'))

    def test_untrusted_cert_fault_only_on_its_api(self):
        state = self._state(True, [['untrusted-cert', 'api1']])
        ca = _issuer(tlsmode.verify(state))
        bad, _key = tlsmode.cert_for(state, 'glance-api1-internal')
        good, _key = tlsmode.cert_for(state, 'glance-api0-internal')
        self.assertNotEqual(ca, _issuer(bad))
        self.assertEqual(ca, _issuer(good))
        self.assertEqual(ca, _issuer(tlsmode.cert_for(state, 'keystone')[0]))

    def test_untrusted_cert_may_name_an_api_added_later(self):
        active = faults.Faults([faults.parse('untrusted-cert=apigrow')],
                               SPEC)
        self.assertTrue(active.untrusted_cert('glance-apigrow-internal'))
        self.assertFalse(active.untrusted_cert('glance-api0-internal'))
        self.assertFalse(active.untrusted_cert('keystone'))

    def test_untrusted_cert_needs_tls(self):
        records = [faults.parse('untrusted-cert=api1')]
        self.assertRaises(errors.Invalid, faults.Faults, records, SPEC,
                          with_tls=False)


class TestTlsListeners(_StateTest):
    """What --tls changes in uwsgi's argv, clouds.yaml and tempest.conf."""

    def _argv(self, state):
        self.useFixture(fixtures.MockPatchObject(uwsgi, 'binary',
                                                 return_value='uwsgi'))
        return uwsgi.argv('m:app', [uwsgi.socket(state, 9292,
                                                 'glance-api0-public')], 'x')

    def test_plain_socket_without_tls(self):
        argv = self._argv(self._state(False))
        self.assertIn('--http-socket', argv)
        self.assertEqual('127.0.0.1:9292',
                         argv[argv.index('--http-socket') + 1])
        self.assertNotIn('--https-socket', argv)

    def test_https_socket_with_cert_and_key(self):
        state = self._state(True)
        argv = self._argv(state)
        self.assertNotIn('--http-socket', argv)
        self.assertEqual(
            '127.0.0.1:9292,%s,%s' % (
                state.path('tls', 'glance-api0-public.crt'),
                state.path('tls', 'glance-api0-public.key')),
            argv[argv.index('--https-socket') + 1])

    def _configs(self, tls):
        state = self._state(tls)
        state.record.ports = {'keystone': 5000, 'glance-api0-internal': 9293}
        state.record.passwords = {u: 'pw' for u in ('admin', 'demo',
                                                    'alt_demo')}
        with mock.patch.object(tempestconf.components, 'enabled',
                               return_value=[]):
            return state, tempestconf.clouds(state)['clouds'], \
                tempestconf.tempest_conf(state)

    def test_tls_configs_name_the_ca(self):
        state, clouds, conf = self._configs(True)
        ca = state.path('tls', 'ca.crt')
        self.assertEqual(ca, clouds['demo']['cacert'])
        self.assertEqual(ca, clouds['demo-api0']['cacert'])
        self.assertEqual('https://127.0.0.1:9293',
                         clouds['demo-api0']['image_endpoint_override'])
        self.assertEqual('https://127.0.0.1:5000/v3',
                         clouds['admin']['auth']['auth_url'])
        self.assertEqual(ca, conf.get('identity', 'ca_certificates_file'))
        self.assertEqual('False', conf.get(
            'identity', 'disable_ssl_certificate_validation'))
        self.assertEqual('https://127.0.0.1:5000/v3',
                         conf.get('identity', 'uri_v3'))

    def test_plain_configs_name_no_ca(self):
        _state, clouds, conf = self._configs(False)
        self.assertNotIn('cacert', clouds['demo'])
        self.assertFalse(conf.has_option('identity', 'ca_certificates_file'))
        self.assertEqual('http://127.0.0.1:5000/v3',
                         conf.get('identity', 'uri_v3'))
