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

"""What a fault of the embedded cloud can break: the hooks, each declared
with how the active faults combine, and their registry.

A fault is one small class registered with @fault (fault_kinds.py holds
them); it overrides the one Fault hook it breaks, and every hook's
default here is the healthy behaviour. A hook is a Fault method declared
with @hook and its combiner; faults.Faults is made of these
declarations, so a new hook is one method here and the call of the cloud
that asks it.
"""

from glance_multiapi_cloud import errors
from glance_multiapi_kernel import glance_cr

FAULTS = {}


# -- combiners: the cloud's one answer from the answers of its faults ------
# NOTE: a combiner gets the answers in order, the healthy default's first,
# so a cloud without faults answers as Fault does; all, any and max are
# the builtins.
def first_given(answers):
    """The first answer that is not None, else None."""
    return next((answer for answer in answers if answer is not None), None)


def last_given(answers):
    """The last answer that is not None, else None."""
    found = None
    for answer in answers:
        if answer is not None:
            found = answer
    return found


def hook(combine=None, *, fold=None):
    """Declare a Fault method a hook, and how the active faults combine.

    combine(answers) makes the cloud's answer from every answer, the
    healthy default's first (all, any, max, first_given, last_given);
    fold names an argument instead: each active fault's answer is that
    argument of the next fault's call, and the last answer the cloud's.
    """
    if (combine is None) == (fold is None):
        raise TypeError('a hook is declared with combine or with fold')

    def declare(method):
        method.combine = combine
        method.fold = fold
        return method
    return declare


def hooks():
    """{name: the declared Fault method} of every hook."""
    return {name: method for name, method in vars(Fault).items()
            if callable(method) and hasattr(method, 'fold')}


def fault(cls):
    """Register a Fault subclass under its name."""
    FAULTS[cls.name] = cls
    return cls


class Fault(object):
    name = None
    help = None
    # NOTE: a fault that breaks heat would do nothing on a heat-less cloud.
    needs_heat = False
    # NOTE: a fault that breaks a certificate does nothing over plain http.
    needs_tls = False
    # NOTE: what ARG names: 'api' (an API of the spec, optional), None (no
    # ARG), or something check_arg() knows.
    arg_kind = 'api'

    def __init__(self, arg, spec):
        self.arg = arg
        self.spec = spec

    def _api(self, default=None):
        """The API named by ARG, else default, else keystoneEndpoint."""
        return self.arg or default or self.spec['keystoneEndpoint']

    def _other_api(self):
        """A non-edge API that is not the keystoneEndpoint one."""
        current = self.spec['keystoneEndpoint']
        for name, api in sorted(self.spec['glanceAPIs'].items()):
            if name != current and glance_cr.in_catalog_possible(
                    api['type']):
                return name
        raise errors.Invalid('fault %s needs a second non-edge API' %
                             self.name)

    def check_arg(self):
        """Invalid unless ARG suits this fault."""
        if self.arg_kind is None and self.arg:
            raise errors.Invalid('fault %s takes no argument' % self.name)
        if (self.arg_kind == 'api' and self.arg and
                self.arg not in self.spec['glanceAPIs']):
            raise errors.Invalid('fault %s=%s: no API named %s' % (
                self.name, self.arg, self.arg))

    # -- hooks (healthy defaults) -----------------------------------------
    @hook(fold='url')
    def url(self, api, interface, url):
        """The URL published for api/interface (catalog and status)."""
        return url

    @hook(fold='entries')
    def catalog(self, entries):
        """[(service name, api)] registered as image services."""
        return entries

    @hook(fold='store')
    def default_store(self, api, store, stores):
        """The store api really writes new images to."""
        return store

    @hook(all)
    def starts(self, api):
        """Whether api's process is started at all."""
        return True

    @hook(all)
    def reconciles(self):
        """Whether a patch is acted upon."""
        return True

    @hook(max)
    def reconcile_delay(self):
        """Seconds a patch that is acted upon waits before it is."""
        return 0

    @hook(max)
    def status_lag(self):
        """Seconds the controllers' written status stays behind.

        After a reconcile (the APIs up, the catalog written), the CRs'
        status.observedGeneration says what it said before for this long.
        """
        return 0

    @hook(all)
    def statefulset_observed(self, api):
        """Whether api's GlanceAPI CRs see their StatefulSet's generation.

        Else their DeploymentReady stays Unknown.
        """
        return True

    @hook(all)
    def starts_service(self, name):
        """Whether a non-glance service (e.g. heat-engine) is started."""
        return True

    @hook(all)
    def kube_allows(self, verb, resource):
        """Whether the Kubernetes API lets verb on resource through."""
        return True

    @hook(any)
    def image_drifts(self, deployment):
        """Whether a heat Deployment runs another image than the rest."""
        return False

    @hook(fold='path')
    def store_dir(self, store, path):
        """The directory the file store behind store name writes to."""
        return path

    @hook(fold='stores')
    def served_stores(self, api, stores, every):
        """The stores api is configured with (every: all of the spec)."""
        return stores

    @hook(all)
    def shows_locations(self, api):
        """Whether api sets show_image_direct_url/show_multiple_locations."""
        return True

    @hook(any)
    def untrusted_cert(self, listener):
        """Whether listener serves a certificate the CA did not sign."""
        return False

    @hook(all)
    def route_moves(self):
        """Whether the route follows keystoneEndpoint to another API."""
        return True

    @hook(any)
    def keeps_removed_status(self, api):
        """Whether a removed API's status.apiEndpoint keys stay."""
        return False

    @hook(fold='reference')
    def version_image(self, field, reference):
        """The OpenStackVersion's status reference of field (None: none).

        reference may be None already: a fault before took it away.
        """
        return reference

    @hook(last_given)
    def custom_image(self, field, default, deployed):
        """spec.customContainerImages' override of field (None: none).

        default: what the heat state deploys for field; deployed: that of
        every heat field.
        """
        return None

    @hook(any)
    def pod_digest_drifts(self, deployment):
        """Whether the heat Deployment's pod resolved another digest."""
        return False

    @hook(any)
    def rollout_stuck(self, deployment):
        """Whether the heat Deployment's rollout never progresses."""
        return False

    @hook(all)
    def replaces_pod(self, deployment):
        """Whether a deleted pod of that Deployment gets a working one."""
        return True

    @hook(all)
    def acts_on_delete(self, deployment):
        """Whether a pod deletion of that Deployment is acted upon."""
        return True

    @hook(first_given)
    def rpc_timeout(self, since_restart, lifted=False):
        """None when heat-api's RPC call to heat-engine goes through.

        Else the seconds heat-api waits before the call fails with
        MessagingTimeout. since_restart: seconds since the last
        ``restart heat-engine`` began (None: never restarted); lifted:
        a call that lifted_by() names was relayed since then.
        """
        return None

    @hook(any)
    def lifted_by(self, method):
        """Whether relaying RPC method ends this fault's failing calls."""
        return False
