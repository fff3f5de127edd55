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

"""Deliberately broken clouds, so each check can be shown to fail.

A fault is one small class registered with @fault. It overrides the one
hook it breaks; every hook's default is the healthy behaviour. Faults are
named on the command line as NAME or NAME=ARG (ARG is usually an API).
"""

import os

from glance_multiapi_tests.localcloud import errors
from glance_multiapi_tests.multiapi import glance_cr

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


@fault
class UnresolvableEndpoint(Fault):
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


@fault
class CatalogWrongApi(Fault):
    name = 'catalog-wrong-api'
    help = 'the catalog holds another API than keystoneEndpoint names'

    def catalog(self, entries):
        wrong = self.arg or self._other_api()
        return [(service, wrong) for service, _api in entries]


@fault
class DuplicateImageService(Fault):
    name = 'duplicate-image-service'
    help = 'a second image service (another API) is in the catalog'

    def catalog(self, entries):
        other = self.arg or self._other_api()
        return entries + [('glance-' + other, other)]


@fault
class WrongDefaultStore(Fault):
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


@fault
class PatchNotReconciled(Fault):
    name = 'patch-not-reconciled'
    help = 'patches are accepted into the spec but never acted upon'

    def reconciles(self):
        return False


@fault
class ApiDown(Fault):
    name = 'api-down'
    help = "API's process is not running though the catalog names it"

    def starts(self, api):
        return api != self._api()


@fault
class HeatEngineDown(Fault):
    name = 'heat-engine-down'
    needs_heat = True
    arg_kind = None
    help = ('heat-engine is not running (up --with-heat); heat-api still '
            'answers but nothing processes stacks')

    def starts_service(self, name):
        return name != 'heat-engine'


@fault
class KubeForbid(Fault):
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


@fault
class HeatImageDrift(Fault):
    name = 'heat-image-drift'
    needs_heat = True
    arg_kind = 'deployment'
    help = ('that heat Deployment (heat-api, heat-cfnapi or heat-engine) '
            'runs another image digest than the other two and '
            'OpenStackVersion')
    DEPLOYMENTS = ('heat-api', 'heat-cfnapi', 'heat-engine')

    def check_arg(self):
        if self.arg not in self.DEPLOYMENTS:
            raise errors.Invalid('fault %s needs one of %s, got %r' % (
                self.name, ', '.join(self.DEPLOYMENTS), self.arg))

    def image_drifts(self, deployment):
        return deployment == self.arg


@fault
class UntrustedCert(Fault):
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
@fault
class RouteNotMoved(Fault):
    name = 'route-not-moved'
    arg_kind = None
    help = ("a switchover leaves the route on the old API: its URL stays "
            "the old API's status.apiEndpoint and the catalog's public URL")

    def route_moves(self):
        return False


@fault
class ShrinkLeavesStatus(Fault):
    name = 'shrink-leaves-status'
    help = ("a removed API (ARG, else any) keeps its status.apiEndpoint "
            "keys, though its processes stop and the catalog is untouched")

    def check_arg(self):
        # NOTE: ARG names an API that is about to be removed, or was.
        pass

    def keeps_removed_status(self, api):
        return self.arg in (None, api)


def parse(text):
    """'NAME' or 'NAME=ARG' -> [name, arg]; Invalid for unknown names."""
    name, _sep, arg = text.partition('=')
    if name not in FAULTS:
        raise errors.Invalid('unknown fault %r; known: %s' % (
            name, ', '.join(sorted(FAULTS))))
    return [name, arg or None]


class Faults(object):
    """The active faults of a cloud, applied hook by hook in order."""

    def __init__(self, records, spec, with_heat=True, with_tls=True):
        self.active = [FAULTS[name](arg, spec) for name, arg in records]
        for item in self.active:
            if item.needs_heat and not with_heat:
                raise errors.Invalid('fault %s needs heat (up --with-heat)'
                                     % item.name)
            if item.needs_tls and not with_tls:
                raise errors.Invalid('fault %s needs https (up --tls)'
                                     % item.name)
            item.check_arg()

    @classmethod
    def of_state(cls, state):
        """The faults a cloud's state records, against its spec."""
        return cls(state.data.get('faults', []), state.data['spec'])

    def url(self, api, interface, url):
        for item in self.active:
            url = item.url(api, interface, url)
        return url

    def catalog(self, entries):
        for item in self.active:
            entries = item.catalog(entries)
        return entries

    def default_store(self, api, store, stores):
        for item in self.active:
            store = item.default_store(api, store, stores)
        return store

    def starts(self, api):
        return all(item.starts(api) for item in self.active)

    def reconciles(self):
        return all(item.reconciles() for item in self.active)

    def starts_service(self, name):
        return all(item.starts_service(name) for item in self.active)

    def kube_allows(self, verb, resource):
        return all(item.kube_allows(verb, resource) for item in self.active)

    def image_drifts(self, deployment):
        return any(item.image_drifts(deployment) for item in self.active)

    def store_dir(self, store, path):
        for item in self.active:
            path = item.store_dir(store, path)
        return path

    def served_stores(self, api, stores, every):
        for item in self.active:
            stores = item.served_stores(api, stores, every)
        return stores

    def shows_locations(self, api):
        return all(item.shows_locations(api) for item in self.active)

    def untrusted_cert(self, listener):
        return any(item.untrusted_cert(listener) for item in self.active)

    def route_moves(self):
        return all(item.route_moves() for item in self.active)

    def keeps_removed_status(self, api):
        return any(item.keeps_removed_status(api) for item in self.active)


def describe():
    """Help text listing every fault."""
    lines = []
    for name, cls in sorted(FAULTS.items()):
        if cls.arg_kind not in (None, 'api'):
            name += '=' + cls.arg_kind.upper()
        lines.append('  %-27s %s' % (name, cls.help))
    return '\n'.join(lines)


# -- stores: where the bytes are (issue #12, placement by location) --------
@fault
class SharedStore(Fault):
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


@fault
class EveryStore(Fault):
    name = 'every-store'
    help = ('API (every API when none is named) is configured with every '
            'store of the spec, not only its own: it reads images it could '
            'not read on a cluster (a stand-in kinder than a cluster)')

    def served_stores(self, api, stores, every):
        if self.arg and api != self.arg:
            return stores
        return stores + [s for s in every if s not in stores]


@fault
class HideLocations(Fault):
    name = 'hide-locations'
    help = ('API (every API when none is named) hides image locations '
            '(show_image_direct_url and show_multiple_locations False), as '
            'a split API\'s external GlanceAPI does')

    def shows_locations(self, api):
        return bool(self.arg) and api != self.arg
