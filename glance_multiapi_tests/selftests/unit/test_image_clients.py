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

import http.server
import json
import threading

from tempest.lib import exceptions as lib_exc
import testtools

from glance_multiapi_tests import image_clients


class _Recorder(http.server.BaseHTTPRequestHandler):
    seen = []

    def do_GET(self):
        self.seen.append((self.path, self.headers.get('X-Auth-Token')))
        if self.path.endswith('/missing'):
            code, body = 404, {'message': 'not here'}
        else:
            code, body = 200, {'id': 'abc', 'status': 'active'}
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


class _Auth(object):
    def get_token(self):
        return 'tok'


class FixedUrlImagesClientTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        _Recorder.seen = []
        server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                 _Recorder)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        self.addCleanup(thread.join, 5)
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        self.url = 'http://127.0.0.1:%d/' % server.server_address[1]
        self.client = image_clients.FixedUrlImagesClient(
            _Auth(), self.url, 'api1')

    def test_requests_go_to_fixed_url_with_token(self):
        image = self.client.show_image('abc')
        self.assertEqual('active', image['status'])
        self.assertEqual([('/v2/images/abc', 'tok')], _Recorder.seen)
        self.assertEqual(self.url.rstrip('/') + '/v2', self.client.base_url)

    def test_errors_are_tempest_exceptions(self):
        self.assertRaises(lib_exc.NotFound, self.client.show_image,
                          'missing')

    def test_str_names_api_and_url(self):
        self.assertIn('api1 at http://127.0.0.1:', str(self.client))
