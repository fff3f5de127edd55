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

    def keeps_rpc_queues(self):
        """Whether heat's RPC connections keep their queues on close."""
        return True


@fault
class UnresolvableEndpoint(Fault):
    name = 'unresolvable-endpoint'
    help = ("API's public URL uses a host under .invalid, which never "
            "resolves (the seed CI's 'Name or service not known')")

    def url(self, api, interface, url):
        if api != self._api() or interface != 'public':
            return url
        port = url.rsplit(':', 1)[1]
        return 'http://glance-%s-public.openstack.invalid:%s' % (api, port)


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
    help = ('heat-engine is not running (up --with-heat); heat-api still '
            'answers but nothing processes stacks')

    def starts_service(self, name):
        return name != 'heat-engine'


@fault
class HeatLossyEngineStop(Fault):
    name = 'heat-lossy-engine-stop'
    needs_heat = True
    help = ("heat runs with oslo.messaging's default queue handling (as the "
            "heat-operator ships it): a stopping heat-engine acks and drops "
            "the stack work sent to it, so a restart strands stacks")

    def keeps_rpc_queues(self):
        return False


def parse(text):
    """'NAME' or 'NAME=ARG' -> [name, arg]; Invalid for unknown names."""
    name, _sep, arg = text.partition('=')
    if name not in FAULTS:
        raise errors.Invalid('unknown fault %r; known: %s' % (
            name, ', '.join(sorted(FAULTS))))
    return [name, arg or None]


class Faults(object):
    """The active faults of a cloud, applied hook by hook in order."""

    def __init__(self, records, spec, with_heat=True):
        self.active = [FAULTS[name](arg, spec) for name, arg in records]
        for item in self.active:
            if item.needs_heat and not with_heat:
                raise errors.Invalid('fault %s needs heat (up --with-heat)'
                                     % item.name)
            if item.needs_heat and item.arg:
                raise errors.Invalid('fault %s takes no argument' %
                                     item.name)
            if item.arg and item.arg not in spec['glanceAPIs']:
                raise errors.Invalid('fault %s=%s: no API named %s' % (
                    item.name, item.arg, item.arg))

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

    def keeps_rpc_queues(self):
        return all(item.keeps_rpc_queues() for item in self.active)


def describe():
    """Help text listing every fault."""
    return '\n'.join('  %-24s %s' % (name, cls.help)
                     for name, cls in sorted(FAULTS.items()))
