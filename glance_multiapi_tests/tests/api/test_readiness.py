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

import time

from oslo_log import log as logging
from tempest import config
from tempest.lib import decorators
import testtools

from glance_multiapi_kernel import polling
from glance_multiapi_kernel import redaction
from glance_multiapi_tests.multiapi import discovery
from glance_multiapi_tests.multiapi import readiness
from glance_multiapi_tests.tests import base
from glance_multiapi_tests.tests import waiters

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
        """Glance CR and each API's GlanceAPI CRs have Ready True.

        Ready as glance-operator writes it: of the latest spec
        (status.observedGeneration has reached metadata.generation). A CR
        the operator has not decided about yet (behind, or Ready
        Unknown) is waited for up to [glance_multiapi]
        convergence_timeout, then judged.
        """
        report = self._read()
        LOG.info('read the conditions of the %s', report.describe_sources())
        waited = None
        if readiness.settling(report):
            report, waited = self._wait_settled(report)
        problems = readiness.problems(report)
        self._record(report, problems)
        if problems:
            self.fail('the operator does not report every CR Ready '
                      '(%s)%s:\n%s' % (report.describe_sources(),
                                       waited or '', '\n'.join(problems)))

    def _read(self):
        try:
            return self.access.report()
        except discovery.DiscoveryError as exc:
            problem = str(exc)
        self.fail('the operator\'s CRs could not be read: %s' % problem)

    def _wait_settled(self, report):
        """(report, '' or why it is judged unsettled) after waiting.

        NOTE: the polling helper's timeout is not a failure here: the
        CRs as last read are judged, their lines naming what is behind.
        """
        opts = CONF.glance_multiapi
        seen = {'report': report}
        first = ', '.join(readiness.settling(report))

        def check():
            seen['report'] = self._read()
            still = readiness.settling(seen['report'])
            return not still, ', '.join(still)

        started = time.monotonic()
        try:
            waiters.wait_for(
                check, what='the operator to decide about every CR '
                '(status.observedGeneration at metadata.generation, Ready '
                'not Unknown)', timeout=opts.convergence_timeout,
                interval=opts.convergence_interval)
        except polling.PollTimeout as exc:
            LOG.info('%s', exc)
            return seen['report'], (
                '; still settling after %d s ([glance_multiapi] '
                'convergence_timeout): %s' % (
                    opts.convergence_timeout,
                    ', '.join(readiness.settling(seen['report']))))
        took = time.monotonic() - started
        LOG.info('the operator decided about every CR after %.1f s', took)
        self.addDetail('settling', testtools.content.text_content(
            'waited %.1f s for the operator to decide about: %s' % (
                took, first)))
        return seen['report'], ''

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
