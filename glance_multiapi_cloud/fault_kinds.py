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

"""The faults of the embedded cloud, one small class each.

Glance, the catalog, routes, stores, TLS, the Kubernetes API and heat.
Each is registered with @fault and overrides the one hook of
fault_hooks.Fault it breaks; faults.py applies the ones a cloud records.
Faults are named on the command line as NAME or NAME=ARG (ARG is usually
an API).
"""

import os

from glance_multiapi_cloud import errors
from glance_multiapi_cloud import fault_hooks
from glance_multiapi_cloud.kubeapi.embedded import heat as kubeheat


@fault_hooks.fault
class UnresolvableEndpoint(fault_hooks.Fault):
    name = 'unresolvable-endpoint'
    help = ("API's public URL uses a host under .invalid, which never "
            "resolves (discovery then fails with 'Name or service not "
            "known')")

    def url(self, api, interface, url):
        if api != self._api() or interface != 'public':
            return url
        scheme, _sep, rest = url.partition('://')
        port = rest.rsplit(':', 1)[1]
        return '%s://glance-%s-public.openstack.invalid:%s' % (scheme, api,
                                                               port)


@fault_hooks.fault
class CatalogWrongApi(fault_hooks.Fault):
    name = 'catalog-wrong-api'
    help = 'the catalog holds another API than keystoneEndpoint names'

    def catalog(self, entries):
        wrong = self.arg or self._other_api()
        return [(service, wrong) for service, _api in entries]


@fault_hooks.fault
class DuplicateImageService(fault_hooks.Fault):
    name = 'duplicate-image-service'
    help = 'a second image service (another API) is in the catalog'

    def catalog(self, entries):
        other = self.arg or self._other_api()
        return entries + [('glance-' + other, other)]


@fault_hooks.fault
class WrongDefaultStore(fault_hooks.Fault):
    name = 'wrong-default-store'
    help = "API writes new images to another store than its spec's"

    def default_store(self, api, store, stores):
        if api != self._api():
            return store
        others = [s for s in stores if s != store]
        if not others:
            raise errors.Invalid('fault %s: %s has no other store to use' %
                                 (self.name, api))
        return others[0]


@fault_hooks.fault
class PatchNotReconciled(fault_hooks.Fault):
    name = 'patch-not-reconciled'
    help = ('patches are accepted into the spec but never acted upon (the '
            "controller's status says it observed them)")

    def reconciles(self):
        return False


class _Seconds(fault_hooks.Fault):
    """A fault whose ARG is SECONDS, above 0 and at most most."""

    arg_kind = 'seconds'
    most = 600

    def check_arg(self):
        try:
            seconds = float(self.arg)
        except (TypeError, ValueError):
            seconds = -1
        if not 0 < seconds <= self.most:
            raise errors.Invalid('fault %s needs SECONDS, above 0 and at '
                                 'most %d, e.g. %s=6, got %r' % (
                                     self.name, self.most, self.name,
                                     self.arg))


@fault_hooks.fault
class SlowReconcile(_Seconds):
    name = 'slow-reconcile'
    help = ('every patch is acted upon SECONDS late, as by an operator '
            'slow to reconcile: a switchover or grow/shrink converges '
            'that much later (e.g. slow-reconcile=6)')

    def reconcile_delay(self):
        return float(self.arg)


@fault_hooks.fault
class ObservedGenerationLag(_Seconds):
    name = 'observed-generation-lag'
    # NOTE: long enough to outlast a whole test-operator stage (a
    # status that does not catch up while the suite runs).
    most = 3600
    help = ('after each reconcile the Glance and GlanceAPI CRs\' '
            'status.observedGeneration stays at the generation before '
            'for SECONDS more, though the APIs are up and the catalog '
            'moved, as when the controllers write their pass late (e.g. '
            'observed-generation-lag=6): a just-patched Glance then shows '
            'the Ready of the pass before')

    def status_lag(self):
        return float(self.arg)


@fault_hooks.fault
class StatefulSetNotObserved(fault_hooks.Fault):
    name = 'statefulset-not-observed'
    help = ("API's GlanceAPI CRs leave DeploymentReady Unknown, as "
            "glance-operator does while its StatefulSet's generation is "
            "not observed (default API: keystoneEndpoint)")

    def statefulset_observed(self, api):
        return api != self._api()


@fault_hooks.fault
class ApiDown(fault_hooks.Fault):
    name = 'api-down'
    help = "API's process is not running though the catalog names it"

    def starts(self, api):
        return api != self._api()


@fault_hooks.fault
class KubeForbid(fault_hooks.Fault):
    name = 'kube-forbid'
    arg_kind = 'verb:resource'
    help = ('the Kubernetes API answers 403 Forbidden to VERB on RESOURCE '
            '(e.g. patch:openstackcontrolplanes), whatever the Role grants')

    def check_arg(self):
        verb, _sep, resource = (self.arg or '').partition(':')
        if not verb or not resource:
            raise errors.Invalid('fault %s needs VERB:RESOURCE, e.g. %s='
                                 'patch:openstackcontrolplanes' % (
                                     self.name, self.name))

    def kube_allows(self, verb, resource):
        want_verb, _sep, want_resource = self.arg.partition(':')
        return not (want_verb in ('*', verb) and
                    want_resource in ('*', resource))


@fault_hooks.fault
class UntrustedCert(fault_hooks.Fault):
    name = 'untrusted-cert'
    needs_tls = True
    help = ("API's listeners (public, internal, route) serve a "
            "certificate the cloud's CA did not sign (up --tls); API may "
            "be one a later patch adds")

    def check_arg(self):
        # NOTE: an API the spec does not hold yet is accepted, so that a
        # grown API (the grow/shrink scenario's) can be the broken one.
        if self.arg is not None and not self.arg.strip():
            raise errors.Invalid('fault %s=API needs an API name'
                                 % self.name)

    def untrusted_cert(self, listener):
        # NOTE: listeners are named by their port key, glance-<api>-<what>.
        return listener.startswith('glance-%s-' % self._api())


# -- routes (issue #12): the route and status.apiEndpoint ------------------
@fault_hooks.fault
class RouteNotMoved(fault_hooks.Fault):
    name = 'route-not-moved'
    arg_kind = None
    help = ("a switchover leaves the route on the old API: its URL stays "
            "the old API's status.apiEndpoint and the catalog's public URL")

    def route_moves(self):
        return False


@fault_hooks.fault
class ShrinkLeavesStatus(fault_hooks.Fault):
    name = 'shrink-leaves-status'
    help = ("a removed API (ARG, else any) keeps its status.apiEndpoint "
            "keys, though its processes stop and the catalog is untouched")

    def check_arg(self):
        # NOTE: ARG names an API that is about to be removed, or was.
        pass

    def keeps_removed_status(self, api):
        return self.arg in (None, api)


# -- stores: where the bytes are (issue #12, placement by location) --------
@fault_hooks.fault
class SharedStore(fault_hooks.Fault):
    name = 'shared-store'
    arg_kind = 'store:store'
    help = ('the second store name is backed by the first one\'s directory '
            '(e.g. ceph0:ceph1): two names, one place, as two Ceph store '
            'sections pointing at the same cluster and pool')

    def check_arg(self):
        first, _sep, second = (self.arg or '').partition(':')
        if not first or not second or first == second:
            raise errors.Invalid('fault %s needs STORE:OTHER_STORE, two '
                                 'different store names, e.g. %s=ceph0:ceph1'
                                 % (self.name, self.name))

    def store_dir(self, store, path):
        first, _sep, second = self.arg.partition(':')
        if store != second:
            return path
        return os.path.join(os.path.dirname(path), first)


@fault_hooks.fault
class EveryStore(fault_hooks.Fault):
    name = 'every-store'
    help = ('API (every API when none is named) is configured with every '
            'store of the spec, not only its own: it reads images it could '
            'not read on a cluster (a stand-in kinder than a cluster)')

    def served_stores(self, api, stores, every):
        if self.arg and api != self.arg:
            return stores
        return stores + [s for s in every if s not in stores]


@fault_hooks.fault
class HideLocations(fault_hooks.Fault):
    name = 'hide-locations'
    help = ('API (every API when none is named) hides image locations '
            '(show_image_direct_url and show_multiple_locations False), as '
            'a split API\'s external GlanceAPI does')

    def shows_locations(self, api):
        return bool(self.arg) and api != self.arg


# -- heat (up --with-heat): heat-engine and its Deployments --------------
@fault_hooks.fault
class HeatEngineDown(fault_hooks.Fault):
    name = 'heat-engine-down'
    needs_heat = True
    arg_kind = None
    help = ('heat-engine is not running (up --with-heat); heat-api still '
            'answers but nothing processes stacks')

    def starts_service(self, name):
        return name != 'heat-engine'


class _HeatDeployment(fault_hooks.Fault):
    needs_heat = True
    arg_kind = 'deployment'

    def check_arg(self):
        if self.arg not in kubeheat.DEPLOYMENTS:
            raise errors.Invalid('fault %s needs one of %s, got %r' % (
                self.name, ', '.join(kubeheat.DEPLOYMENTS), self.arg))


@fault_hooks.fault
class HeatImageDrift(_HeatDeployment):
    name = 'heat-image-drift'
    help = ('that heat Deployment (heat-api, heat-cfnapi or heat-engine) '
            'runs another image digest than OpenStackVersion\'s status '
            'names for its field')

    def image_drifts(self, deployment):
        return deployment == self.arg


# -- the OpenStackVersion and heat's pods (issue #30) ----------------------
# NOTE: the OpenStackVersion fields of heat's Deployments.
HEAT_FIELDS = tuple(heat.field for heat in kubeheat.DEPLOYMENTS.values())


class _VersionField(fault_hooks.Fault):
    needs_heat = True
    arg_kind = 'field'

    def check_arg(self):
        if self.arg not in HEAT_FIELDS:
            raise errors.Invalid('fault %s needs one of %s, got %r' % (
                self.name, ', '.join(HEAT_FIELDS), self.arg))


@fault_hooks.fault
class VersionFieldMissing(_VersionField):
    name = 'version-field-missing'
    help = ('status.containerImages of the OpenStackVersion lacks FIELD '
            '(heatAPIImage, heatCfnapiImage or heatEngineImage), as an '
            'operator that no longer knows the field would report')

    def version_image(self, field, reference):
        return None if field == self.arg else reference


@fault_hooks.fault
class VersionDigestDrift(_VersionField):
    name = 'version-digest-drift'
    help = ('status.containerImages.FIELD of the OpenStackVersion pins '
            'another digest of its image than the operator deploys (the '
            'Deployments keep running that one)')

    def version_image(self, field, reference):
        if field != self.arg or reference is None:
            return reference
        return kubeheat.redigested(reference, field)


@fault_hooks.fault
class VersionPartialOverride(_VersionField):
    name = 'version-partial-override'
    help = ('spec.customContainerImages of the OpenStackVersion overrides '
            'FIELD alone with another digest of its image, as a user who '
            'overrides one field of a consolidated image would; status and '
            'the Deployment of FIELD follow it, the image\'s other fields '
            'keep the default')

    def custom_image(self, field, default, deployed):
        if field != self.arg:
            return None
        return kubeheat.redigested(default, 'override of %s' % field)


@fault_hooks.fault
class SecondBuild(_VersionField):
    name = 'second-build'
    help = ('spec.customContainerImages overrides FIELD with the image '
            'heatAPIImage is deployed from, but from another registry path '
            'and at another digest: a second build of a shared image '
            '(e.g. second-build=heatCfnapiImage: heat-api-cfn on '
            'openstack-heat-api, off heatAPIImage\'s pin)')

    def check_arg(self):
        super().check_arg()
        if self.arg == kubeheat.API:
            raise errors.Invalid('fault %s needs a field other than %s, '
                                 'whose image it copies' % (self.name,
                                                            kubeheat.API))

    def custom_image(self, field, default, deployed):
        if field != self.arg:
            return None
        api = deployed[kubeheat.API]
        host, _sep, path = api.partition('/')
        name = path.rsplit('/', 1)[-1].split('@')[0].split(':')[0]
        return kubeheat.redigested('%s/second-build/%s' % (host, name),
                                   'a second build of %s' % name)


@fault_hooks.fault
class PodDigestDrift(_HeatDeployment):
    name = 'pod-digest-drift'
    help = ('that heat Deployment\'s pod runs another digest of its image '
            'than the image\'s other pods: its tag (:current-podified, '
            'master-latest) resolved to another build when it was pulled '
            '(with a pinned reference: a digest the pin does not name)')

    def pod_digest_drifts(self, deployment):
        return deployment == self.arg


@fault_hooks.fault
class HeatRolloutStuck(_HeatDeployment):
    name = 'heat-rollout-stuck'
    help = ('that heat Deployment\'s rollout never progresses: its template '
            'names what status names (generation 2, observed), but its pod '
            'is still the previous ReplicaSet\'s, on another digest '
            '(updatedReplicas 0)')

    def rollout_stuck(self, deployment):
        return deployment == self.arg


@fault_hooks.fault
class PodNotReplaced(_HeatDeployment):
    name = 'pod-not-replaced'
    help = ('a deleted pod of that heat Deployment stops, and its '
            'replacement stays Pending (ImagePullBackOff): the service '
            'never comes back')

    def replaces_pod(self, deployment):
        return deployment != self.arg


@fault_hooks.fault
class PodDeleteIgnored(_HeatDeployment):
    name = 'pod-delete-ignored'
    help = ('a pod deletion of that heat Deployment is accepted and the pod '
            'marked, but nothing acts on it: the process runs on, no '
            'replacement starts (a restart that restarts nothing); '
            'clearing the fault forgets the deletion')

    def acts_on_delete(self, deployment):
        return deployment != self.arg


@fault_hooks.fault
class HeatRpcTimeout(fault_hooks.Fault):
    name = 'heat-rpc-timeout'
    needs_heat = True
    arg_kind = 'seconds[:delay]'
    # NOTE: the window that never ends on its own: it lasts until heat-api
    # relays the first stack delete after the restart began, so a test's
    # own cleanup ends it instead of waiting out a window long enough to
    # outlast any restart.
    UNTIL_DELETE = 'delete'
    help = ('for SECONDS after a "restart heat-engine" began (SECONDS '
            '"delete": until heat-api relays its first stack delete after '
            'it, which goes through), every call heat-api relays to '
            'heat-engine fails (after DELAY s, default 0) with '
            'MessagingTimeout, which heat-api answers with its own 500 body '
            '(an "error" without "message"), as when the engine does not '
            'answer within rpc_response_timeout; the cloud\'s own probes are '
            'spared; e.g. heat-rpc-timeout=20:2, heat-rpc-timeout=delete')

    def _numbers(self):
        seconds, _sep, delay = (self.arg or '').partition(':')
        if seconds == self.UNTIL_DELETE:
            return float('inf'), float(delay or 0)
        seconds = float(seconds)
        if seconds == float('inf'):
            raise ValueError(seconds)
        return seconds, float(delay or 0)

    def check_arg(self):
        try:
            seconds, delay = self._numbers()
        except ValueError:
            seconds = delay = -1
        if not seconds > 0 or not 0 <= delay < float('inf'):
            raise errors.Invalid('fault %s needs SECONDS[:DELAY], SECONDS '
                                 'above 0 or "%s", e.g. %s=20, %s=20:2 or '
                                 '%s=%s, got %r' % (
                                     self.name, self.UNTIL_DELETE, self.name,
                                     self.name, self.name, self.UNTIL_DELETE,
                                     self.arg))

    def _until_delete(self):
        return self._numbers()[0] == float('inf')

    def rpc_timeout(self, since_restart, lifted=False):
        seconds, delay = self._numbers()
        if since_restart is None or not 0 <= since_restart < seconds:
            return None
        if lifted and self._until_delete():
            return None
        return delay

    def lifted_by(self, method):
        return self._until_delete() and method == 'delete_stack'
