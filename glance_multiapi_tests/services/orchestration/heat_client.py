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

"""The few heat API calls the consolidated heat checks make.

Tempest no longer ships an orchestration client, so this is a small
tempest.lib RestClient for heat-api (orchestration) and heat-api-cfn
(cloudformation). Like tempest's own clients, every call returns a
rest_client.ResponseBody (the decoded body, with the response's status
and headers in .response). The plugin registers it with tempest
(plugin.get_service_clients), once per catalog type, so a test reaches
it as ``cls.os_primary.consolidated_heat.HeatClient()``; its stack
waiters are in tests/waiters.py with every other waiter.
"""

from oslo_serialization import jsonutils as json
from tempest.lib.common import rest_client
import urllib3

from glance_multiapi_tests.services import error_bodies

# NOTE: heat answers GET / with 300 Multiple Choices and the versions.
VERSION_STATUSES = (200, 300)


def one_read_attempt(http_obj):
    """Make a tempest http object give up on its first read timeout.

    tempest's ClosingHttp passes urllib3 a Retry with the default total of
    10, so a GET that gets no answer within http_timeout is sent 11 times
    before it fails: eleven minutes with the default 60 s, longer than any
    window a scenario gives a restarting service. One timeout is one
    failure here; the waiters poll again.
    """
    urlopen = http_obj.urlopen

    def single(method, url, redirect=True, **kwargs):
        retries = kwargs.get('retries')
        if isinstance(retries, urllib3.util.Retry):
            kwargs['retries'] = retries.new(read=0)
        return urlopen(method, url, redirect=redirect, **kwargs)
    http_obj.urlopen = single
    return http_obj


class HeatClient(error_bodies.ReadableErrors, rest_client.RestClient):
    """heat-api or heat-api-cfn, by catalog type.

    Error bodies tempest cannot read (heat's 500 for an RPC timeout has
    no error message) still raise tempest errors: see error_bodies.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        one_read_attempt(self.http_obj)

    def error_service_name(self):
        return 'heat (%s)' % self.service

    def version_document(self):
        """GET / of the service's endpoint host: its versions.

        heat answers 300 Multiple Choices with the versions document;
        the status is the body's response.status.
        """
        self.skip_path()
        try:
            resp, body = self.get('/')
        finally:
            self.reset_path()
        self.expected_success(list(VERSION_STATUSES), resp.status)
        return rest_client.ResponseBody(resp, json.loads(body))

    def list_services(self):
        """The engine service list (admin): {'services': [...]}."""
        resp, body = self.get('services')
        self.expected_success(200, resp.status)
        return rest_client.ResponseBody(resp, json.loads(body))

    def create_stack(self, name, template, timeout_mins=10):
        """Create a stack: {'stack': {'id': ..., 'links': [...]}}."""
        body = json.dumps({'stack_name': name, 'template': template,
                           'timeout_mins': timeout_mins,
                           'disable_rollback': True})
        resp, body = self.post('stacks', body)
        self.expected_success(201, resp.status)
        return rest_client.ResponseBody(resp, json.loads(body))

    def show_stack(self, name, stack_id):
        """One stack: {'stack': {...}}."""
        resp, body = self.get('stacks/%s/%s' % (name, stack_id))
        self.expected_success(200, resp.status)
        return rest_client.ResponseBody(resp, json.loads(body))

    def list_resources(self, name, stack_id):
        """A stack's resources: {'resources': [...]}."""
        resp, body = self.get('stacks/%s/%s/resources' % (name, stack_id))
        self.expected_success(200, resp.status)
        return rest_client.ResponseBody(resp, json.loads(body))

    def delete_stack(self, name, stack_id):
        """Ask heat to delete a stack (204, no body)."""
        resp, _body = self.delete('stacks/%s/%s' % (name, stack_id))
        self.expected_success(204, resp.status)
        return rest_client.ResponseBody(resp)
