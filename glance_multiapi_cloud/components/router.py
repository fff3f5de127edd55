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

"""The OpenShift Route of the keystoneEndpoint API's public Service.

On OpenShift only that Service gets a Route: glance-operator
(``internal/controller/glanceapi_controller.go``) annotates it
``AnnotationIngressCreateKey: "true"`` and every other Service "false";
openstack-operator (``internal/openstack/common.go``,
``EnsureEndpointConfig``/``ensureRoute``/``CreateRoute``) creates a Route
named like the Service, deletes it when the annotation turns "false"
(and the endpoint URL override with it), and feeds ``<proto>://<route
host>`` back as the API's public endpoint, so the API's
``status.apiEndpoint`` and the catalog's public URL are the Route's.
Here a Route is a listener process (``runtime/route_proxy.py``) named
and keyed like it, ``route-glance-<api>-public``, on a port of its own
kept for the cloud's life (a Route's host is fixed by its name), that
forwards to the API's public Service port. A switchover stops the old
API's route and starts the new one's.
"""

import sys
import time

import requests

from glance_multiapi_kernel import polling
from glance_multiapi_cloud import deployed
from glance_multiapi_cloud import errors
from glance_multiapi_cloud import lifecycle
from glance_multiapi_cloud import processes
from glance_multiapi_cloud import tlsmode
from glance_multiapi_kernel import glance_cr

PREFIX = 'route-'
MODULE = 'glance_multiapi_cloud.runtime.route_proxy'
READY_TIMEOUT = 30


def name_of(api):
    """The route's (and its process's and port key's) name."""
    return '%sglance-%s-public' % (PREFIX, api)


def cert_name(api):
    # NOTE: named like the API's other listeners (glance-<api>-...), so
    # a fault that breaks the API's certificates breaks its route's too.
    return 'glance-%s-route' % api


def service_port(state, api):
    """The port of the API's public Service (what the route forwards to)."""
    return state.port('glance-%s-public' % api)


def url(state, api):
    """The route's URL: '<scheme>://127.0.0.1:<route port>'."""
    return tlsmode.url(state, state.port(name_of(api)))


def routed_api(state):
    """The API whose public Service has the route now, or None."""
    return (state.record.route or {}).get('api')


def wanted_api(state):
    """The API that should hold the route after this reconcile, or None.

    The catalog API (the one whose GlanceAPI carries the keystoneEndpoint
    annotation, deployed.catalog_api), None when no deployed API does;
    under the route-not-moved fault the API that held it before, as long
    as its public Service still exists.
    """
    wanted = deployed.catalog_api(state)
    held = routed_api(state)
    faults = state.faults
    api = deployed.apis(state).get(held)
    if (held and held != wanted and not faults.route_moves() and api and
            'public' in glance_cr.interfaces(api['type'])):
        return held
    return wanted


def _argv(state, api):
    argv = [sys.executable, '-m', MODULE,
            '--listen', '127.0.0.1:%d' % state.port(name_of(api)),
            '--backend', tlsmode.url(state, service_port(state, api))]
    if tlsmode.enabled(state):
        cert, key = tlsmode.cert_for(state, cert_name(api))
        argv += ['--cert', cert, '--key', key,
                 '--backend-ca', tlsmode.verify(state)]
    return argv


def _start_route(state, api):
    name = name_of(api)
    processes.start(state, name, _argv(state, api),
                    ports=[state.port(name)])
    return name


def _wait_route(state, api, timeout=READY_TIMEOUT):
    """Wait until the route answers at all (503 while its API is down)."""
    name = name_of(api)
    target = url(state, api) + '/'
    verify = tlsmode.verify(state)
    if state.faults.untrusted_cert(cert_name(api)):
        # NOTE: as _wait_api: the checks, not the cloud, judge it.
        verify = False

    def check():
        if not processes.pid_of(state, name):
            raise processes.exit_error(state, name, 'answering %s' % target)
        try:
            resp = requests.get(target, timeout=2, verify=verify,
                                allow_redirects=False)
        except requests.RequestException as exc:
            return False, type(exc).__name__
        return True, 'HTTP %d' % resp.status_code

    began = time.monotonic()
    try:
        polling.poll(check, what='%s to answer %s' % (name, target),
                     timeout=timeout, interval=0.05, max_interval=0.5,
                     describe=str)
    except polling.PollTimeout as exc:
        raise errors.CloudError('%s (see %s)' % (
            exc, processes.log_path(state, name)))
    return time.monotonic() - began


def _running_routes(state):
    return [n for n in processes.running(state) if n.startswith(PREFIX)]


ENTRIES = ()


# -- verbs (see components/__init__.py) ----------------------------------
def enabled(state):
    return True


def binaries_needed(state):
    pass


def prepare(state):
    return None


def start(state):
    """Move the route where wanted_api() says; don't wait."""
    api = wanted_api(state)
    name = name_of(api) if api else None
    processes.stop_many(state, [n for n in lifecycle.recorded(
        state, PREFIX) if n != name])
    state.record.route = {'api': api}
    state.save()
    if not api or processes.pid_of(state, name):
        return []
    return [_start_route(state, api)]


def wait_ready(state, started):
    for name in started:
        if name.startswith(PREFIX):
            _wait_route(state, routed_api(state))


def register(state, admin):
    pass


def reconcile(state):
    """Before glance publishes: the route is where the catalog will say."""
    wait_ready(state, start(state))


def stop(state):
    return processes.stop_many(state, lifecycle.recorded(state, PREFIX))


def status(state):
    api = routed_api(state)
    if not api:
        return {}
    return lifecycle.report(state, name_of(api), url(state, api),
                            url(state, api) + '/')


def tempest_options(state, sections, cli):
    pass


def restartable(state):
    api = routed_api(state)
    return [name_of(api)] if api else []


def restart(state, name):
    api = routed_api(state)
    if not api or name != name_of(api):
        return None

    def start_and_wait():
        _start_route(state, api)
        _wait_route(state, api)
    return lifecycle.restart(state, name, start_and_wait)
