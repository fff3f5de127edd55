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

from oslo_log import log as logging
from tempest import config
from tempest.lib import decorators

from glance_multiapi_kernel import redaction
from glance_multiapi_tests.multiapi import discovery
from glance_multiapi_tests.multiapi import readiness
from glance_multiapi_tests.tests import base

CONF = config.CONF
LOG = redaction.logger(logging.getLogger(__name__))


class OperatorReadinessTest(base.BasePluginTest):
    """The operator reports the Glance CR and every API's CRs Ready.

    It reads the CRs itself instead of learning the deployment first, so
    that an API the operator did not deploy (no status.apiEndpoint, which
    fails every other multi-API class in its set-up) is reported here in
    the operator's own words.
    """

    required_services = ('glance',)
    enabled_group = 'glance_multiapi'
    result_checks = ('glance',)

    @classmethod
    def skip_checks(cls):
        """Skip when nothing says how to read the Glance CR."""
        super().skip_checks()
        if not cls.access.reads_glance:
            raise cls.skipException(
                '[glance_multiapi] sets neither kubernetes_api nor '
                'discovery_command, so the Glance CR and its GlanceAPI CRs '
                'cannot be read')

    @decorators.idempotent_id('756ecab8-e052-43c5-8951-75f78ffa418b')
    def test_glance_and_its_apis_report_ready(self):
        """Glance CR and each API's GlanceAPI CRs have Ready True."""
        try:
            report = self.access.report()
        except discovery.DiscoveryError as exc:
            self.fail('the operator\'s CRs could not be read: %s' % exc)
        LOG.info('read the conditions of the %s', report.describe_sources())
        problems = readiness.problems(report)
        self._record(report, problems)
        if problems:
            self.fail('the operator does not report every CR Ready (%s):\n'
                      '%s' % (report.describe_sources(),
                              '\n'.join(problems)))

    def _record(self, report, problems):
        """The Glance CR's verdict, and each API's whose CRs were read."""
        if problems:
            self.record_verdict('glance', 'failed', problems[0])
        else:
            self.record_verdict('glance', 'passed', 'Ready (%s)' % (
                report.describe_sources()))
        for api, lines in sorted(readiness.api_problems(report).items()):
            self.record_verdict('api:%s' % api,
                                'failed' if lines else 'passed',
                                lines[0] if lines else 'its GlanceAPI CRs '
                                'report Ready')
