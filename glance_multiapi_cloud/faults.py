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

A fault is one small class registered with @fault (fault_kinds.py, and
fault_kinds_heat.py for heat's). It overrides the one hook it breaks;
every hook's default (fault_hooks.py) is the healthy behaviour. Faults
are named on the command line as NAME or NAME=ARG (ARG is usually an
API). Here is what the cloud uses of
them: parse() reads one, Faults applies the active ones hook by hook,
describe() lists them all.
"""

from glance_multiapi_cloud import errors
from glance_multiapi_cloud import fault_hooks
# NOTE: imported for its @fault classes, which register themselves.
from glance_multiapi_cloud import fault_kinds  # noqa: F401
from glance_multiapi_cloud import fault_kinds_heat  # noqa: F401


def parse(text):
    """'NAME' or 'NAME=ARG' -> [name, arg]; Invalid for unknown names."""
    name, _sep, arg = text.partition('=')
    if name not in fault_hooks.FAULTS:
        raise errors.Invalid('unknown fault %r; known: %s' % (
            name, ', '.join(sorted(fault_hooks.FAULTS))))
    return [name, arg or None]


class Faults(object):
    """The active faults of a cloud, applied hook by hook in order."""

    def __init__(self, records, spec, with_heat=True, with_tls=True):
        self.active = [fault_hooks.FAULTS[name](arg, spec)
                       for name, arg in records]
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
        return cls(state.record.faults, state.record.spec)

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
        """Whether a patch is acted upon."""
        return all(item.reconciles() for item in self.active)

    def reconcile_delay(self):
        """Seconds a patch is acted upon late (the longest fault's)."""
        return max([item.reconcile_delay() for item in self.active] or [0])

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

    def version_image(self, field, reference):
        for item in self.active:
            if reference is not None:
                reference = item.version_image(field, reference)
        return reference

    def custom_image(self, field, default):
        found = None
        for item in self.active:
            found = item.custom_image(field, default) or found
        return found

    def replaces_pod(self, deployment):
        return all(item.replaces_pod(deployment) for item in self.active)

    def acts_on_delete(self, deployment):
        return all(item.acts_on_delete(deployment) for item in self.active)

    def rpc_timeout(self, since_restart, lifted=False):
        for item in self.active:
            delay = item.rpc_timeout(since_restart, lifted)
            if delay is not None:
                return delay
        return None

    def lifted_by(self, method):
        return any(item.lifted_by(method) for item in self.active)


def describe():
    """Help text listing every fault."""
    lines = []
    for name, cls in sorted(fault_hooks.FAULTS.items()):
        if cls.arg_kind not in (None, 'api'):
            name += '=' + cls.arg_kind.upper()
        lines.append('  %-27s %s' % (name, cls.help))
    return '\n'.join(lines)
