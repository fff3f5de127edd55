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

import http.client
import types

from tempest.lib import exceptions as lib_exc
import testtools
from urllib3 import exceptions as urllib3_exc

from glance_multiapi_tests.tests.multiapi import base


def _http_error(cls, status):
    return cls(b'{}', resp=types.SimpleNamespace(status=status))


class TestReadRefusal(testtools.TestCase):
    """Which failed downloads count as an API refusing cleanly."""

    def test_http_errors_are_refusals(self):
        self.assertEqual('HTTP 500', base.read_refusal(
            _http_error(lib_exc.ServerFault, 500)))
        self.assertEqual('HTTP 404', base.read_refusal(
            _http_error(lib_exc.NotFound, 404)))

    def test_success_codes_are_not(self):
        self.assertIsNone(base.read_refusal(
            _http_error(lib_exc.InvalidHttpSuccessCode, 204)))

    def test_closed_connection_is_a_refusal(self):
        # NOTE: what glance 33 under uwsgi does (UnknownScheme uncaught).
        closed = http.client.RemoteDisconnected('Remote end closed')
        wrapped = urllib3_exc.ProtocolError('Connection aborted.', closed)
        retried = urllib3_exc.MaxRetryError(None, '/v2/images/x/file',
                                            wrapped)
        for exc in (closed, wrapped, retried):
            self.assertEqual('connection closed without a response',
                             base.read_refusal(exc))

    def test_timeout_is_not(self):
        timeout = urllib3_exc.ReadTimeoutError(None, '/x', 'read timed out')
        self.assertIsNone(base.read_refusal(timeout))
        self.assertIsNone(base.read_refusal(
            urllib3_exc.MaxRetryError(None, '/x', timeout)))

    def test_other_errors_are_not(self):
        self.assertIsNone(base.read_refusal(ValueError('bad')))
