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

from tempest.lib import exceptions as lib_exc
import testtools

from glance_multiapi_tests.services.image import fixed_url_client
from selftests.unit import stub_http


class _Recorder(stub_http.JsonHandler):
    seen = []

    def do_GET(self):
        self.seen.append((self.path, self.headers.get('X-Auth-Token')))
        if self.path.endswith('/missing'):
            code, body = 404, {'message': 'not here'}
        else:
            code, body = 200, {'id': 'abc', 'status': 'active'}
        self.send_json(code, json.dumps(body))


class _Auth(object):
    def get_token(self):
        return 'tok'


class FixedUrlImagesClientTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        _Recorder.seen = []
        self.url = 'http://127.0.0.1:%d/' % stub_http.serve(self, _Recorder)
        self.client = fixed_url_client.FixedUrlImagesClient(
            _Auth(), 'image', 'r1', api_url=self.url, api_name='api1')

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
