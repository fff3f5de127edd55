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

"""heat-api, heat-api-cfn and heat-engine, from however many images they
are deployed, work together: both APIs answer, the engines report, a
stack goes through."""

from tempest import config
from tempest.lib import decorators

from glance_multiapi_tests.tests.heat import base
from glance_multiapi_tests.tests import recording

CONF = config.CONF
SECRET_LENGTH = 16


class HeatServicesTest(base.HeatTest):
    """The three heat services, through the catalog."""

    credentials = ['primary', 'admin']

    @classmethod
    def setup_clients(cls):
        """Add heat-api-cfn and heat-api as admin (service list)."""
        super().setup_clients()
        cls.cfn = cls.os_primary.consolidated_heat_cfn.HeatClient()
        cls.admin_heat = cls.os_admin.consolidated_heat.HeatClient()

    def _check_version_document(self, client, service):
        body = client.version_document()
        status = body.response.status
        versions = body.get('versions') or []
        current = [v.get('id') for v in versions
                   if v.get('status') == 'CURRENT']
        self.assertTrue(current, '%s (%s) at %s answered HTTP %d without a '
                        'CURRENT version: %s' % (
                            service, client.service, client.base_url,
                            status, dict(body)))

    @decorators.attr(type='smoke')
    @decorators.idempotent_id('4ec73288-df08-4751-b653-1ce81af9f7a0')
    @recording.checks('heat:heat-api')
    def test_orchestration_version_document(self):
        """heat-api answers its version document."""
        self._check_version_document(self.heat, 'heat-api')

    @decorators.attr(type='smoke')
    @decorators.idempotent_id('a30da094-01c7-4ba8-a331-6760c79678fe')
    @recording.checks('heat:heat-api-cfn')
    def test_cloudformation_version_document(self):
        """heat-api-cfn answers its version document."""
        self._check_version_document(self.cfn, 'heat-api-cfn')

    @decorators.attr(type='smoke')
    @decorators.idempotent_id('8090ec9a-d978-47f9-8fb9-fde7436d24ce')
    @recording.checks('heat:heat-engine')
    def test_list_engine_services(self):
        """heat-engine workers are up and reporting (admin service list)."""
        opts = CONF.consolidated_heat
        binary = opts.engine_binary
        try:
            services = self.admin_heat.list_services()['services']
        except Exception as exc:
            # NOTE: heat-api asks the engine over RPC; a stopped engine
            # shows up as this call failing after the RPC timeout.
            self.fail('%s did not answer the service list at %s/services: '
                      '%s: %s' % (binary, self.admin_heat.base_url,
                                  type(exc).__name__, exc))
        engines = [s for s in services if s.get('binary') == binary]
        up = [s for s in engines if s.get('status') == 'up'
              and s.get('updated_at')]
        seen = ['%s on %s: %s (updated %s, reports every %s s)' % (
            s.get('engine_id'), s.get('host'), s.get('status'),
            s.get('updated_at'), s.get('report_interval'))
            for s in engines]
        self.assertGreaterEqual(
            len(up), opts.min_engines,
            '%s: %d of %d workers up and reporting, wanted at least %d, '
            'at %s/services: %s' % (binary, len(up), len(engines),
                                    opts.min_engines,
                                    self.admin_heat.base_url,
                                    '; '.join(seen) or 'none listed'))

    @decorators.idempotent_id('e77a7223-d872-4636-bbc4-d1f6608660ba')
    @recording.checks('heat:heat-api', 'heat:heat-engine')
    def test_create_delete_minimal_stack(self):
        """A stack of resources needing no other service comes and goes."""
        template = {
            'heat_template_version': base.TEMPLATE_VERSION,
            'resources': {'secret': {
                'type': 'OS::Heat::RandomString',
                'properties': {'length': SECRET_LENGTH}}},
            'outputs': {'secret': {'value': {
                'get_attr': ['secret', 'value']}}}}
        name, stack_id = self.create_stack(template, 'heat-minimal')
        stack = self.wait_for_stack(name, stack_id, 'CREATE_COMPLETE')
        outputs = {o['output_key']: o.get('output_value')
                   for o in stack.get('outputs') or []}
        self.assertEqual(SECRET_LENGTH, len(outputs.get('secret') or ''),
                         'stack %s (%s): output secret is %r' % (
                             name, stack_id, outputs.get('secret')))
        self.heat.delete_stack(name, stack_id)
        self.wait_for_stack(name, stack_id, 'DELETE_COMPLETE', gone_ok=True)
