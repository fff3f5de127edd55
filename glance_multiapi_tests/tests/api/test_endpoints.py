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

from tempest import config
from tempest.lib import decorators

from glance_multiapi_tests.multiapi import catalog
from glance_multiapi_tests.multiapi import probes
from glance_multiapi_tests.tests.multiapi import base

CONF = config.CONF


class ImageEndpointsTest(base.MultiApiTest):
    """Every image endpoint resolves, accepts and serves a v2 document."""

    result_checks = ('endpoint:*', 'catalog:*')

    @decorators.attr(type='smoke')
    @decorators.idempotent_id('cbbda0b4-77fa-4bc8-9a0b-56396f881d53')
    def test_image_endpoints_answer(self):
        """Probe catalog and API endpoints: DNS, TCP, TLS, version doc."""
        targets = [probes.Target(owner, interface, url)
                   for owner, interface, url in catalog.image_targets(
                       self.fetch_catalog(), self.deployment,
                       self.interfaces(), self.region())]
        elements = ['catalog:%s' % t.interface for t in targets]
        for api in self.deployment.apis.values():
            for interface, url in sorted(api.endpoints.items()):
                targets.append(probes.Target(api.name, interface, url))
                elements.append('endpoint:%s:%s' % (api.name, interface))
        failures = probes.probe_all(
            targets, CONF.glance_multiapi.probe_timeout, self.ssl_context())
        self._record_probes(targets, elements, failures)
        if failures:
            # NOTE: "fail the probe", not "do not answer": a TLS failure
            # is an endpoint that answers and is not trusted.
            self.fail('%d of %d image endpoints fail the probe (probe '
                      'timeout %.1f s per stage):\n%s%s' % (
                          len(failures), len(targets),
                          CONF.glance_multiapi.probe_timeout,
                          '\n'.join(str(f) for f in failures),
                          self.operator_note(*self._owners(failures))))

    def _owners(self, failures):
        """The APIs the failed URLs are of (a catalog URL's owner too)."""
        return sorted({catalog.owner_of(f.target.url, self.deployment) or
                       f.target.owner for f in failures} &
                      set(self.deployment.apis))

    def _record_probes(self, targets, elements, failures):
        """One verdict per element: failed when one of its URLs failed."""
        failed = {}
        for failure in failures:
            element = elements[targets.index(failure.target)]
            failed.setdefault(element, []).append(str(failure))
        for element in dict.fromkeys(elements):
            if element in failed:
                self.record_verdict(element, 'failed',
                                    '; '.join(failed[element]))
            else:
                self.record_verdict(element, 'passed', 'DNS, TCP, TLS and '
                                    'a v2 version document')
