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

"""The CAs requests-based clients get when none is configured."""

import ssl
from unittest import mock

import fixtures
import testtools

from glance_multiapi_tests.common import trust


def paths(**kwargs):
    fields = dict(cafile=None, capath=None, openssl_cafile_env='SSL_CERT_FILE',
                  openssl_cafile='/nonexistent/cert.pem',
                  openssl_capath_env='SSL_CERT_DIR',
                  openssl_capath='/nonexistent/certs')
    fields.update(kwargs)
    return ssl.DefaultVerifyPaths(**fields)


class TrustTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.temp = self.useFixture(fixtures.TempDir())
        self.bundle = self.temp.join('bundle.pem')
        open(self.bundle, 'w').close()

    def patched(self, **kwargs):
        return mock.patch.object(ssl, 'get_default_verify_paths',
                                 return_value=paths(**kwargs))

    def test_configured_file_wins(self):
        with self.patched(cafile=self.bundle):
            self.assertEqual('/x/ca.crt', trust.requests_verify('/x/ca.crt'))

    def test_insecure(self):
        self.assertIs(False, trust.requests_verify('/x/ca.crt', True))

    def test_system_bundle_not_certifi(self):
        with self.patched(cafile=self.bundle):
            self.assertEqual(self.bundle, trust.requests_verify(None))
        with self.patched(openssl_cafile=self.bundle):
            self.assertEqual(self.bundle, trust.requests_verify(''))

    def test_folder_then_certifi(self):
        with self.patched(capath=self.temp.path):
            self.assertEqual(self.temp.path, trust.requests_verify())
        with self.patched():
            self.assertIs(True, trust.requests_verify())
