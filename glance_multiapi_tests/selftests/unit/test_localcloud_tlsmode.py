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

from cryptography import x509
import fixtures
import testtools

from glance_multiapi_tests.localcloud import errors
from glance_multiapi_tests.localcloud import faults
from glance_multiapi_tests.localcloud import state as state_mod
from glance_multiapi_tests.localcloud import tlsmode

SPEC = {'keystoneEndpoint': 'api0', 'glanceAPIs': {
    'api0': {'type': 'split', 'replicas': 1},
    'api1': {'type': 'split', 'replicas': 1}}}


def _issuer(path):
    with open(path, 'rb') as f:
        return x509.load_pem_x509_certificate(f.read()).issuer


class TestTlsMode(testtools.TestCase):

    def _state(self, tls, fault_records=()):
        state = state_mod.State(self.useFixture(fixtures.TempDir()).path)
        state.data = {'spec': SPEC, 'faults': list(fault_records),
                      'options': {'tls': tls}}
        return state

    def test_off_is_plain_http(self):
        state = self._state(False)
        self.assertFalse(tlsmode.enabled(state))
        self.assertEqual('http', tlsmode.scheme(state))
        self.assertEqual('http://127.0.0.1:5000/v3',
                         tlsmode.url(state, 5000, '/v3'))
        self.assertIs(False, tlsmode.verify(state))

    def test_missing_option_is_off(self):
        state = self._state(False)
        state.data = {'spec': SPEC}
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

    def test_untrusted_cert_needs_tls(self):
        records = [faults.parse('untrusted-cert=api1')]
        self.assertRaises(errors.Invalid, faults.Faults, records, SPEC,
                          with_tls=False)
