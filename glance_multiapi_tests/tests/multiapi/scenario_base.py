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

"""Base class of the multi-API scenarios that patch the deployment.

``MultiApiScenarioTest`` adds to ``base.MultiApiTest`` the spec
patch (by command or through the Kubernetes API), the re-reading of the
Glance CR, the catalog waiter and the endpoint waiter. The catalog
waiter also records a switchover for the results map: the catalog as it
ended and, per interface, how long its entry took to show the target's
URL (``switchover_convergence_seconds``), held to its optional bound.
Every waiter that re-reads the Glance CR after a patch also waits for
the operator to have written a pass over the patched spec
(``generation_behind``): until its status.observedGeneration reaches
its metadata.generation, what its status says is of an earlier spec.
"""

import dataclasses
import time

from oslo_log import log as logging
from tempest import config

from glance_multiapi_kernel import conditions
from glance_multiapi_kernel import polling
from glance_multiapi_kernel import redaction
from glance_multiapi_tests.multiapi import catalog
from glance_multiapi_tests.multiapi import discovery
from glance_multiapi_tests.multiapi import patching
from glance_multiapi_tests.multiapi import probes
from glance_multiapi_tests.tests.multiapi import base
from glance_multiapi_tests.tests import waiters

CONF = config.CONF
LOG = redaction.logger(logging.getLogger(__name__))


class MultiApiScenarioTest(base.MultiApiTest):
    """Scenarios that patch the deployment and wait for it to follow."""

    @classmethod
    def skip_checks(cls):
        """Skip without a way to patch (kubernetes_api or a command)."""
        super().skip_checks()
        why = cls.access.patch_problem()
        if why:
            raise cls.skipException(why)

    def patch_spec(self, spec_patch):
        """Apply a merge patch of the Glance spec; fail naming why not."""
        LOG.info('patching the Glance spec: %s', spec_patch)
        try:
            patched = self.access.patch_spec(spec_patch)
        except patching.PatchError as exc:
            problem = str(exc)
        else:
            LOG.info('patched %s', patched)
            return
        # NOTE: failed outside the except block, so that the report shows
        # the one line and not a chained traceback of the patch code.
        self.fail('patching the Glance spec with %s failed: %s' % (
            spec_patch, problem))

    def rediscover(self):
        """The deployment as the Glance CR says now (fresh status).

        NOTE: on OpenShift the public URL of the keystoneEndpoint API is
        its Route's, and the Route moves with keystoneEndpoint: after a
        patch only a fresh status.apiEndpoint tells the URLs apart.
        """
        try:
            return self.access.discover()
        except discovery.DiscoveryError as exc:
            problem = str(exc)
        self.fail('re-reading the deployment failed: %s' % problem)

    # NOTE: the end of each waiter's "what" after a patch.
    OBSERVED = (', and the Glance CR\'s status.observedGeneration at its '
                'metadata.generation')

    def generation_behind(self):
        """What is behind in the Glance CR last read, else None.

        Its status.observedGeneration below its metadata.generation: the
        operator has not written a pass over the latest spec (a CR read
        without metadata.generation, or none read, has nothing to say).
        """
        read = self.access.last_glance
        lag = conditions.generation_lag(read.obj) if read else None
        if lag is None:
            return None
        return 'the Glance CR\'s %s' % conditions.describe_lag(lag)

    def catalog_problems(self, owner, deployment, fresh=True):
        """What is wrong if owner should hold the catalog ([] if nothing).

        Judged against deployment, which the caller has just re-read.
        """
        if owner not in deployment.apis:
            return (['%s names no API %s' % (deployment.describe(),
                                             owner)],
                    self.fetch_catalog(fresh=fresh))
        expected = dataclasses.replace(deployment, keystone_endpoint=owner)
        found = self.fetch_catalog(fresh=fresh)
        return catalog.ownership_problems(found, expected, self.interfaces(),
                                          self.region()), found

    def wait_for_catalog_owner(self, owner, *, since=None,
                               switched_from=None, judge=True):
        """Poll until owner alone holds the image service.

        Each round re-reads the Glance CR and takes a fresh token, and
        judges the catalog against owner's URLs in the FRESH
        status.apiEndpoint. During a switchover the catalog can briefly
        hold zero or two image services, and the status can lag the
        catalog. Returns (seconds since since, that deployment, the
        bound problems for assertWithinBounds).

        switched_from: the API the catalog was on before the patch (a
        switchover). Then, per interface, the seconds from since (taken
        before the patch) until that interface's entry first showed
        owner's URL are recorded (switchover_convergence_seconds), and the
        catalog as it ended; with judge, each interface's catalog entry
        is marked passed or failed on the map (one left behind fails) and
        its figure is held to [glance_multiapi] max_switchover_seconds.
        """
        opts = CONF.glance_multiapi
        start = time.monotonic() if since is None else since
        seen = {}
        converged = {}

        def check():
            try:
                fresh = self.access.discover()
            except discovery.DiscoveryError as exc:
                return False, 'the Glance CR could not be read: %s' % exc
            problems, found = self.catalog_problems(owner, fresh)
            seen.update(deployment=fresh, catalog=found)
            api = fresh.apis.get(owner)
            for interface in self.interfaces():
                if api is not None and interface not in converged and \
                        catalog.interface_verdict(found, api, interface,
                                                  fresh, self.region())[0]:
                    converged[interface] = time.monotonic() - start
            behind = self.generation_behind()
            return not problems and behind is None, (
                '%s [%s]; status.apiEndpoint of %s: %s%s' % (
                    catalog.summary(found, self.region()),
                    '; '.join(problems), owner, ', '.join(
                        '%s=%s' % item for item in sorted(
                            api.endpoints.items())) if api else 'none',
                    '; %s' % behind if behind else ''))

        try:
            waiters.wait_for(
                check, what='the catalog to hold exactly one image service, '
                'owned by %s, with its URLs as the Glance CR\'s status now '
                'gives them%s' % (owner, self.OBSERVED),
                timeout=opts.convergence_timeout,
                interval=opts.convergence_interval)
        except polling.PollTimeout as exc:
            self._record_switch(owner, switched_from, seen, converged,
                                judge, timed_out=True)
            self.fail(str(exc))
        problems = self._record_switch(owner, switched_from, seen,
                                       converged, judge)
        return time.monotonic() - start, seen['deployment'], problems

    def _record_switch(self, owner, switched_from, seen, converged, judge,
                       timed_out=False):
        """Record a switchover's catalog and figures; the bound problems."""
        if switched_from is None:
            return []
        fresh, found = seen.get('deployment'), seen.get('catalog')
        api = fresh.apis.get(owner) if fresh is not None else None
        verdicts, problems = {}, []
        for interface in self.interfaces():
            if api is None or interface not in api.endpoints:
                continue
            if interface in converged:
                took = converged[interface]
                verdict = {'status': 'passed', 'message': (
                    'showed %s\'s URL %.2f s after the patch' % (
                        owner, took))}
            else:
                text = catalog.interface_verdict(
                    found, api, interface, fresh, self.region())[1] \
                    if found is not None else 'the catalog was never read'
                verdict = {'status': 'failed', 'message': (
                    'did not show %s\'s URL within %d s (convergence_'
                    'timeout) of the patch %s -> %s: %s' % (
                        owner, CONF.glance_multiapi.convergence_timeout,
                        switched_from, owner, text))}
            if judge:
                self.record_verdict('catalog:%s' % interface,
                                    verdict['status'], verdict['message'])
            if interface in converged:
                problem = self.record_figure(
                    'switchover_convergence_seconds', converged[interface],
                    check_bound=judge, from_api=switched_from, to_api=owner,
                    interface=interface)
                if problem:
                    problems.append(problem)
                    verdict = {'status': 'failed', 'message': problem}
            verdicts[interface] = verdict
        if found is not None:
            self.record_catalog(
                found, fresh, 'after keystoneEndpoint %s -> %s%s' % (
                    switched_from, owner,
                    ' (did not converge)' if timed_out else ''),
                verdicts=verdicts if judge else None, test=self.id(),
                region=self.region())
        return problems

    def wait_for_answers(self, api, up):
        """Poll until every endpoint of api answers (up) or none does.

        A TLS failure fails at once, named: the endpoint is there (it
        answered the handshake) and waiting does not mend a certificate,
        so it must not pass for an API that stopped answering.
        """
        opts = CONF.glance_multiapi
        context = self.ssl_context()

        def check():
            failed = {url: probes.failure(url, opts.probe_timeout, context)
                      for url in api.endpoints.values()}
            tls = ['%s TLS: %s' % (url, exc.error)
                   for url, exc in sorted(failed.items())
                   if exc is not None and exc.stage == 'TLS']
            if tls:
                raise probes.TlsError('; '.join(tls))
            ready = all((exc is None) == up for exc in failed.values())
            return ready, ', '.join(
                '%s %s' % (url, 'answers' if exc is None else
                           '%s: %s' % (exc.stage, exc.error))
                for url, exc in sorted(failed.items()))

        what = 'every endpoint of %s to %s' % (
            api.name, 'answer' if up else 'stop answering')
        try:
            waiters.wait_for(check, what=what,
                             timeout=opts.convergence_timeout,
                             interval=opts.convergence_interval)
        except polling.PollTimeout as exc:
            self.fail(str(exc))
        except probes.TlsError as exc:
            self.fail('waiting for %s: %s (a certificate problem, not an '
                      'endpoint that is down)' % (what, exc))
