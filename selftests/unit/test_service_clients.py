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

"""The plugin's service clients as tempest registers and builds them."""

import json
import types

from tempest.lib.common import rest_client
from tempest.lib.services import clients
import testtools

from glance_multiapi_tests import plugin
from selftests.unit import stub_http
from glance_multiapi_tests.services.orchestration import heat_client
from glance_multiapi_tests.tests import waiters

STACK = {'id': 's1', 'stack_name': 'one', 'stack_status': 'CREATE_COMPLETE'}


def _service_client_config(name=None):
    """What tempest.config.service_client_config gives for a group."""
    common = {'disable_ssl_certificate_validation': False,
              'ca_certs': None, 'trace_requests': '', 'http_timeout': 5,
              'proxy_url': None}
    groups = {'consolidated_heat': ('orchestration', 'public', 180, 1.0),
              'image': ('image', 'publicURL', 300, 1)}
    if name is None:
        return common
    service, endpoint_type, timeout, interval = groups[name]
    return dict(common, service=service, endpoint_type=endpoint_type,
                build_timeout=timeout, build_interval=interval,
                region='regionOne')


class _Conf(object):
    consolidated_heat = types.SimpleNamespace(
        cfn_catalog_type='cloudformation')
    glance_multiapi = types.SimpleNamespace(image_timeout=123)


class RegistrationTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.patch(plugin.config, 'service_client_config',
                   _service_client_config)
        self.patch(plugin.config, 'CONF', _Conf())
        found = plugin.GlanceMultiApiTempestPlugin().get_service_clients()
        self.registered = {entry['name']: entry for entry in found}

    def _factory(self, name):
        entry = dict(self.registered[name])
        for key in ('name', 'service_version'):
            entry.pop(key)
        return clients.ClientsFactory(auth_provider=object(), **entry)

    def test_names_and_service_versions_are_the_plugins_own(self):
        self.assertEqual({
            'consolidated_heat': 'consolidated_heat.orchestration',
            'consolidated_heat_cfn': 'consolidated_heat.cloudformation',
            'glance_apis': 'glance_multiapi.image'},
            {name: entry['service_version']
             for name, entry in self.registered.items()})

    def test_heat_clients_reach_one_catalog_type_each(self):
        api = self._factory('consolidated_heat').HeatClient()
        cfn = self._factory('consolidated_heat_cfn').HeatClient()
        self.assertIsInstance(api, heat_client.HeatClient)
        self.assertEqual(('orchestration', 'cloudformation'),
                         (api.service, cfn.service))
        self.assertEqual((180, 1.0, 'public'), (
            api.build_timeout, api.build_interval, api.endpoint_type))

    def test_image_client_is_bound_at_call_time(self):
        factory = self._factory('glance_apis')
        one = factory.FixedUrlImagesClient(api_url='http://a:9292/',
                                           api_name='api0')
        two = factory.FixedUrlImagesClient(api_url='http://b:9292',
                                           api_name='api1')
        self.assertEqual(('http://a:9292/v2', 'api0'),
                         (one.base_url, one.api_name))
        self.assertEqual(('http://b:9292/v2', 'api1'),
                         (two.base_url, two.api_name))
        self.assertEqual(123, one.build_timeout)


class _Heat(stub_http.JsonHandler):
    """heat-api as far as HeatClient asks it."""

    def do_GET(self):
        if self.path == '/':
            self.send_json(300, json.dumps({'versions': [
                {'id': 'v1.0', 'status': 'CURRENT'}]}))
        elif self.path.endswith('/services'):
            self.send_json(200, json.dumps({'services': []}))
        elif self.path.endswith('/resources'):
            self.send_json(200, json.dumps({'resources': []}))
        else:
            self.send_json(200, json.dumps({'stack': STACK}))

    def do_POST(self):
        self.rfile.read(int(self.headers['Content-Length']))
        self.send_json(201, json.dumps({'stack': {'id': 's1'}}))

    def do_DELETE(self):
        self.send_response(204)
        self.send_header('Content-Length', '0')
        self.end_headers()


class _Auth(object):
    """The catalog's heat endpoint is host/v1/p; skip_path drops /v1/p."""

    def __init__(self, host):
        self.host = host

    def base_url(self, filters):
        return self.host if filters.get('skip_path') else self.host + '/v1/p'

    def auth_request(self, method, url, headers=None, body=None,
                     filters=None):
        headers = dict(headers or {}, **{'X-Auth-Token': 'tok'})
        return '%s/%s' % (self.base_url(filters or {}), url.lstrip('/')), \
            headers, body


class HeatClientTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        auth = _Auth('http://127.0.0.1:%d' % stub_http.serve(self, _Heat))
        self.heat = heat_client.HeatClient(
            auth, 'orchestration', 'r1', build_timeout=5,
            build_interval=0.01)

    def test_every_call_returns_a_response_body(self):
        calls = [self.heat.version_document(), self.heat.list_services(),
                 self.heat.create_stack('one', {}),
                 self.heat.show_stack('one', 's1'),
                 self.heat.list_resources('one', 's1'),
                 self.heat.delete_stack('one', 's1')]
        for body in calls:
            self.assertIsInstance(body, rest_client.ResponseBody)
        self.assertEqual([300, 200, 201, 200, 200, 204],
                         [body.response.status for body in calls])
        self.assertEqual('CURRENT', calls[0]['versions'][0]['status'])
        self.assertEqual(STACK, calls[3]['stack'])

    def test_stack_waiter_takes_the_clients_timeout(self):
        stack = waiters.wait_for_stack(self.heat, 'one', 's1',
                                       wanted='CREATE_COMPLETE')
        self.assertEqual(STACK, stack)
