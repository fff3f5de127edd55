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

from tempest.lib.common import rest_client
from tempest.lib import exceptions as lib_exc
import testtools

from selftests.unit import stub_http
from glance_multiapi_tests.services.image import fixed_url_client
from glance_multiapi_tests.services.orchestration import heat_client

# NOTE: what heat-api's FaultWrapper renders for an oslo.messaging
# MessagingTimeout (not a "safe" exception, so no error.message).
HEAT_RPC_TIMEOUT = {
    'code': 500, 'title': 'Internal Server Error',
    'explanation': 'The server has either erred or is incapable of '
                   'performing the requested operation.',
    'error': {'type': 'MessagingTimeout', 'traceback': None}}


class _Answers(stub_http.JsonHandler):
    """GET .../<status>/<kind>: that status with that kind of body."""

    def do_GET(self):
        status, kind = self.path.split('/')[-2:]
        body = {'heat': HEAT_RPC_TIMEOUT,
                'string-error': {'error': 'just a string'},
                'readable': {'error': {'message': 'engine said no'}},
                }.get(kind)
        self.send_json(int(status), json.dumps(body))


class _Auth(object):
    def get_token(self):
        return 'tok'

    def auth_request(self, method, url, headers=None, body=None,
                     filters=None):
        headers = dict(headers or {}, **{'X-Auth-Token': 'tok'})
        return '%s/%s' % (self.url, url), headers, body


class ErrorBodiesTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        auth = _Auth()
        auth.url = 'http://127.0.0.1:%d' % stub_http.serve(self, _Answers)
        self.url = auth.url
        self.heat = heat_client.HeatClient(auth, 'orchestration', 'r1')
        self.plain = rest_client.RestClient(auth, 'orchestration', 'r1')
        self.images = fixed_url_client.FixedUrlImagesClient(
            auth, 'image', 'r1', api_url=self.url, api_name='api1')

    def test_plain_tempest_client_raises_key_error(self):
        # NOTE: the reason for error_bodies: tempest's own checker.
        exc = self.assertRaises(KeyError, self.plain.get, '500/heat')
        self.assertEqual("'message'", str(exc))

    def test_heat_rpc_timeout_is_server_fault_with_status_and_body(self):
        exc = self.assertRaises(lib_exc.ServerFault, self.heat.get,
                                '500/heat')
        text = str(exc)
        self.assertIn('heat (orchestration) answered 500 to GET %s/500/heat'
                      % self.url, text)
        self.assertIn("KeyError: 'message'", text)
        self.assertIn('"type": "MessagingTimeout"', text)
        self.assertEqual(500, exc.resp.status)

    def test_string_error_is_server_fault(self):
        exc = self.assertRaises(lib_exc.ServerFault, self.heat.get,
                                '500/string-error')
        self.assertIn('TypeError', str(exc))
        self.assertIn('just a string', str(exc))

    def test_501_is_not_implemented(self):
        self.assertRaises(lib_exc.NotImplemented, self.heat.get, '501/heat')

    def test_readable_bodies_keep_tempest_behaviour(self):
        exc = self.assertRaises(lib_exc.ServerFault, self.heat.get,
                                '500/readable')
        self.assertIn('engine said no', str(exc))
        self.assertRaises(lib_exc.NotFound, self.heat.get, '404/heat')

    def test_fixed_url_images_client_names_its_api(self):
        exc = self.assertRaises(lib_exc.ServerFault, self.images.get,
                                '500/heat')
        self.assertIn('Glance API api1 answered 500 to GET', str(exc))
