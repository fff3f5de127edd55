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

"""What a fault of the embedded cloud can break: the hooks, and their
registry.

A fault is one small class registered with @fault (fault_kinds.py and
fault_kinds_heat.py hold them); it overrides the one Fault hook it
breaks, and every hook's default here is the healthy behaviour. A new
hook also needs its rule for combining the active faults, in
faults.Faults.
"""

from glance_multiapi_cloud import errors
from glance_multiapi_kernel import glance_cr

FAULTS = {}


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
    def url(self, api, interface, url):
        """The URL published for api/interface (catalog and status)."""
        return url

    def catalog(self, entries):
        """[(service name, api)] registered as image services."""
        return entries

    def default_store(self, api, store, stores):
        """The store api really writes new images to."""
        return store

    def starts(self, api):
        """Whether api's process is started at all."""
        return True

    def reconciles(self):
        """Whether a patch is acted upon."""
        return True

    def reconcile_delay(self):
        """Seconds a patch that is acted upon waits before it is."""
        return 0

    def starts_service(self, name):
        """Whether a non-glance service (e.g. heat-engine) is started."""
        return True

    def kube_allows(self, verb, resource):
        """Whether the Kubernetes API lets verb on resource through."""
        return True

    def image_drifts(self, deployment):
        """Whether a heat Deployment runs another image than the rest."""
        return False

    def store_dir(self, store, path):
        """The directory the file store behind store name writes to."""
        return path

    def served_stores(self, api, stores, every):
        """The stores api is configured with (every: all of the spec)."""
        return stores

    def shows_locations(self, api):
        """Whether api sets show_image_direct_url/show_multiple_locations."""
        return True

    def untrusted_cert(self, listener):
        """Whether listener serves a certificate the CA did not sign."""
        return False

    def route_moves(self):
        """Whether the route follows keystoneEndpoint to another API."""
        return True

    def keeps_removed_status(self, api):
        """Whether a removed API's status.apiEndpoint keys stay."""
        return False

    def version_image(self, field, reference):
        """The OpenStackVersion's status reference of field (None: none)."""
        return reference

    def custom_image(self, field, default):
        """spec.customContainerImages' override of field (None: none)."""
        return None

    def replaces_pod(self, deployment):
        """Whether a deleted pod of that Deployment gets a working one."""
        return True

    def acts_on_delete(self, deployment):
        """Whether a pod deletion of that Deployment is acted upon."""
        return True

    def rpc_timeout(self, since_restart, lifted=False):
        """None when heat-api's RPC call to heat-engine goes through.

        Else the seconds heat-api waits before the call fails with
        MessagingTimeout. since_restart: seconds since the last
        ``restart heat-engine`` began (None: never restarted); lifted:
        a call that lifted_by() names was relayed since then.
        """
        return None

    def lifted_by(self, method):
        """Whether relaying RPC method ends this fault's failing calls."""
        return False
