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

from tempest.lib import decorators

from glance_multiapi_tests.multiapi import catalog
from glance_multiapi_tests.tests.multiapi import base
from glance_multiapi_tests.tests import recording


class CatalogOwnershipTest(base.MultiApiTest):
    """The catalog's image service belongs to the keystoneEndpoint API."""

    def _problems(self):
        found = self.fetch_catalog()
        problems = catalog.ownership_problems(
            found, self.deployment, self.interfaces(), self.region())
        owner = self.deployment.keystone_api
        for interface in self.interfaces():
            matches, text = catalog.interface_verdict(
                found, owner, interface, self.deployment, self.region())
            if matches is not None:
                self.record_verdict('catalog:%s' % interface,
                                    'passed' if matches else 'failed', text)
        self.record_verdict('keystone_endpoint',
                            'failed' if problems else 'passed',
                            problems[0] if problems else (
                                'the catalog holds %s\'s endpoints and no '
                                'other API\'s' % owner.name))
        return problems, catalog.summary(found, self.region())

    @decorators.attr(type='smoke')
    @decorators.idempotent_id('5647408c-d394-416f-91ae-437017e9cc08')
    @recording.checks('catalog')
    def test_catalog_has_one_image_service(self):
        """Exactly one service of type image is registered."""
        found = self.fetch_catalog()
        services = catalog.image_services(found)
        self.assertEqual(
            1, len(services),
            'the catalog holds %d services of type image, expected '
            'exactly one (owned by %s, keystoneEndpoint); catalog: %s%s' % (
                len(services), self.deployment.keystone_endpoint,
                catalog.summary(found, self.region()),
                '' if len(services) == 1 else self.operator_note(
                    self.deployment.keystone_endpoint)))

    @decorators.attr(type='smoke')
    @decorators.idempotent_id('551ea01b-634f-4f00-a3ce-355533ab4d3d')
    @recording.checks('keystone_endpoint', 'catalog:*')
    def test_image_endpoints_belong_to_keystone_endpoint_api(self):
        """Per interface the endpoint is keystoneEndpoint's; no other API."""
        problems, summary = self._problems()
        if problems:
            self.fail('the catalog does not match keystoneEndpoint %s of '
                      '%s:\n%s\ncatalog: %s%s' % (
                          self.deployment.keystone_endpoint,
                          self.deployment.source, '\n'.join(problems),
                          summary, self.operator_note(
                              self.deployment.keystone_endpoint)))
