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

"""The Glance APIs of the embedded cloud: one uwsgi process per API the
Glance controller deployed (deployed.py: the spec's, but for those a
stopped pass did not reconcile), their configs, the one database they
share, whether they answer and the image service they publish in the
catalog. Their glance-api.conf is glanceconf.py's."""

import json
import os
import time
import warnings

import requests
import urllib3

from glance_multiapi_cloud import bootstrap
from glance_multiapi_cloud import deployed
from glance_multiapi_cloud.components import keystone
from glance_multiapi_cloud.components import router
from glance_multiapi_cloud import errors
from glance_multiapi_cloud import glanceconf
from glance_multiapi_cloud import lifecycle
from glance_multiapi_cloud import manage
from glance_multiapi_cloud import processes
from glance_multiapi_cloud import tlsmode
from glance_multiapi_cloud import uwsgi
from glance_multiapi_kernel import glance_cr

HINT = 'install cloud-requirements.txt'
# NOTE: glance-operator's least readiness probe timeout (api_ready).
PROBE_TIMEOUT = 5


def _build_database(work):
    """Create work/glance.db with glance-manage db_sync and metadefs."""
    conf = os.path.join(work, 'glance-manage.conf')
    with open(conf, 'w') as f:
        f.write('[database]\nconnection = sqlite:///%s/glance.db\n' % work)
    manage_bin = processes.find_binary('glance-manage', HINT)
    steps = [['db_sync']]
    if glanceconf.metadefs_dir():
        # NOTE: tempest's metadefs tests need the shipped resource types.
        steps.append(['db_load_metadefs', glanceconf.metadefs_dir()])
    try:
        for step in steps:
            manage.run([manage_bin, '--config-file', conf] + step,
                       'glance-manage %s' % step[0], work)
    finally:
        os.unlink(conf)


def api_service(api):
    return 'glance-' + api


def api_ports(state, api):
    """(public port or None, internal port) of an API."""
    api_type = deployed.entry(state, api)['type']
    internal = state.port('glance-%s-internal' % api)
    public = None
    if 'public' in glance_cr.interfaces(api_type):
        public = state.port('glance-%s-public' % api)
    return public, internal


def service_urls(state, api):
    """{interface: URL} of an API's Services (what answers in-cluster)."""
    public, internal = api_ports(state, api)
    ports = {'public': public, 'internal': internal}
    api_type = deployed.entry(state, api)['type']
    return {iface: tlsmode.url(state, ports[iface])
            for iface in glance_cr.interfaces(api_type)}


def api_urls(state, api, faults):
    """{interface: URL} of an API's status.apiEndpoint, after faults.

    The API whose public Service has the route publishes the route's URL
    as its public one (openstack-operator's endpoint URL override); the
    others publish their Services' URLs.
    """
    urls = service_urls(state, api)
    if 'public' in urls and router.routed_api(state) == api:
        urls['public'] = router.url(state, api)
    return {iface: faults.url(api, iface, url)
            for iface, url in urls.items()}


def catalog_urls(state, api, faults):
    """{interface: URL} the image service of api registers.

    The catalog API's public URL is the route's, wherever the route is
    (the route-not-moved fault leaves it on another API).
    """
    urls = api_urls(state, api, faults)
    routed = router.routed_api(state)
    if (routed and 'public' in urls and
            api == deployed.catalog_api(state)):
        urls['public'] = faults.url(api, 'public', router.url(state, routed))
    return urls


def status_endpoints(state, faults):
    """status.apiEndpoint: each deployed API's URLs, mirrored.

    As the operator mirrors its GlanceAPIs' (apiDeployment). A removed
    API's keys go (glance_controller.go glanceAPICleanup), unless a fault
    keeps them; an API the controller did not deploy has none.
    """
    running = deployed.apis(state)
    endpoints = {'%s-%s' % (api, iface): url
                 for api in running
                 for iface, url in api_urls(state, api, faults).items()}
    previous = state.record.status.get('apiEndpoint', {})
    for key, url in previous.items():
        api = key.rsplit('-', 1)[0]
        if (api not in running and api not in state.record.spec[
                'glanceAPIs'] and faults.keeps_removed_status(api)):
            endpoints[key] = url
    return endpoints


def _start_api(state, api):
    public, internal = api_ports(state, api)
    sockets = [uwsgi.socket(state, port, 'glance-%s-%s' % (api, iface))
               for port, iface in ((public, 'public'),
                                   (internal, 'internal')) if port]
    argv = uwsgi.argv(
        'glance_multiapi_cloud.runtime.wsgi_glance:application',
        sockets, api_service(api))
    processes.start(state, api_service(api), argv,
                    env={'OS_GLANCE_CONFIG_DIR':
                         state.path('glance', 'apis', api)},
                    ports=[p for p in (public, internal) if p])


def _wait_api(state, api):
    _public, internal = api_ports(state, api)
    verify = tlsmode.verify(state)
    if state.faults.untrusted_cert(
            'glance-%s-internal' % api):
        # NOTE: an API serving a certificate the CA did not sign is up all
        # the same; the checks, not the cloud, judge the certificate.
        verify = False
    processes.wait_http(state, api_service(api),
                        tlsmode.url(state, internal, '/'), ok_status=(300,),
                        verify=verify)


def api_ready(state, api):
    """Whether the API's pods count as ready (a GlanceAPI's readyCount).

    The readiness probe glance-operator gives them (internal/glance/
    funcs.go GetDefaultProbesAPI: an HTTP GET, at least 5 s, unready
    after 3 failures in a row), played once on the API's one process:
    ready when it runs and its internal Service answers below 400. NOTE:
    a probe that only times out is one failure, below the threshold: a
    busy API (every uwsgi thread holding an upload) stays ready.
    """
    if not processes.pid_of(state, api_service(api)):
        return False
    _public, internal = api_ports(state, api)
    verify = tlsmode.verify(state)
    if state.faults.untrusted_cert(
            'glance-%s-internal' % api):
        # NOTE: as _wait_api: up all the same.
        verify = False
    try:
        with warnings.catch_warnings():
            # NOTE: verify=False is the fault's, not news.
            warnings.simplefilter(
                'ignore', urllib3.exceptions.InsecureRequestWarning)
            return requests.get(tlsmode.url(state, internal, '/'),
                                timeout=PROBE_TIMEOUT, verify=verify,
                                allow_redirects=False).status_code < 400
    except requests.Timeout:
        return True
    except requests.RequestException:
        return False


def _publish(state):
    """The image service of the catalog, and the status of ``get``.

    keystone-operator's KeystoneService makes the image service before
    any API runs; only the catalog API's endpoints go in (none when the
    controller deployed no API with the keystoneEndpoint annotation).
    """
    spec = state.record.spec
    faults = state.faults
    admin = keystone.admin(state)
    owner = deployed.catalog_api(state)
    entries = faults.catalog([('glance', owner)] if owner else [])
    wanted = {service: catalog_urls(state, api, faults)
              for service, api in entries}
    wanted.setdefault('glance', {})
    for service in admin.services('image'):
        if service['name'] not in wanted:
            admin.delete_service(service)
    for service, urls in sorted(wanted.items()):
        admin.set_service('image', service, urls)
    state.record.status = {'apiEndpoint': status_endpoints(state, faults)}
    state.record.reconciled_spec = spec
    # NOTE: the lastTransitionTime of the conditions (kubeapi/embedded/
    # glance.py), and the pass over the current generations written.
    state.record.reconciled_at = time.time()
    deployed.observe(state.record, state.record.reconciled_at,
                     faults.status_lag())
    state.save()


ENTRIES = ('glance',)


# -- verbs (see components/__init__.py) ----------------------------------
def enabled(state):
    return True


def binaries_needed(state):
    uwsgi.binary()
    processes.find_binary('glance-manage', HINT)


def prepare(state):
    """Copy the template's (migrated) database into the state dir."""
    template, built = bootstrap.ensure(bootstrap.template_dir('glance'),
                                       _build_database)
    bootstrap.copy(template, 'glance.db', state.makedirs('glance'),
                   'glance.db')
    if built:
        return ('built the bootstrap template in %s (once per glance '
                'version)' % template)
    return None


def start(state):
    """Play a pass of the controller; (re)start what it deploys.

    The APIs it does not deploy stop, changed or new ones (re)start;
    nothing is awaited.
    """
    deployed.advance(state)
    spec = deployed.as_spec(state)
    faults = state.faults
    wanted = sorted(name for name, api in spec['glanceAPIs'].items()
                    if api['replicas'] > 0 and faults.starts(name))
    processes.stop_many(state, [
        name for name in processes.running(state)
        if name.startswith('glance-') and name[7:] not in wanted])
    for api in list(state.record.api_keys):
        if api not in wanted:
            del state.record.api_keys[api]
    started = []
    for api in wanted:
        store, stores = glanceconf.served_stores(spec, api, faults)
        glance_dir = state.path('glance')
        dirs = {s: faults.store_dir(s, glanceconf.store_path(glance_dir, s))
                for s in stores}
        public, internal = api_ports(state, api)
        # NOTE: like the operator, only a change of the API's own config
        # restarts it: its stores (own customServiceConfig, else the
        # top-level one), where they live, its ports; and a certificate
        # fault added by patch takes effect.
        shows = faults.shows_locations(api)
        untrusted = faults.untrusted_cert('glance-%s-internal' % api)
        key = json.dumps([spec['glanceAPIs'][api], store, stores, dirs,
                          shows, public, internal, untrusted],
                         sort_keys=True)
        service = api_service(api)
        keys = state.record.api_keys
        if keys.get(api) != key and processes.pid_of(state, service):
            processes.stop(state, service)
        if not processes.pid_of(state, service):
            glanceconf.write_api_config(
                state.path('glance', 'apis', api), glanceconf.render_config(
                    glance_dir=state.path('glance'),
                    api_dir=state.path('glance', 'apis', api),
                    default_store=store, stores=stores,
                    keystone_url=keystone.url(state),
                    glance_password=state.password('glance'),
                    store_dir=faults.store_dir, show_locations=shows))
            _start_api(state, api)
            started.append(service)
        keys[api] = key
    state.save()
    return started


def wait_ready(state, started):
    for service in started:
        if service.startswith('glance-'):
            _wait_api(state, service[len('glance-'):])


def register(state, admin):
    """The glance service user."""
    admin.ensure_user('glance', state.password('glance'), 'service',
                      'admin')
    admin.ensure_user('glance', state.password('glance'), 'service',
                      'service')


def reconcile(state):
    """APIs, catalog and status as spec and faults say.

    Like the glance-operator: start what changed, wait for it, then
    publish; the route first, as openstack-operator creates it before
    it gives the API its URL.
    """
    wait_ready(state, start(state))
    router.reconcile(state)
    _publish(state)


def stop(state):
    """Every API this state dir started, those gone from the spec too."""
    return processes.stop_many(state, lifecycle.recorded(state, 'glance-'))


def status(state):
    """Nothing: ``status`` reports each API apart (type, store, URLs)."""
    return {}


def tempest_options(state, sections, cli):
    """Nothing: every tempest.conf is about glance (tempestconf)."""


def restartable(state):
    return [api_service(api) for api in sorted(deployed.apis(state))]


def restart(state, name):
    if name not in restartable(state):
        return None
    api = name[len('glance-'):]
    if (deployed.apis(state)[api]['replicas'] < 1 or
            not state.faults.starts(api)):
        raise errors.Invalid('%s is kept down by the spec (replicas 0) '
                             'or a fault (api-down)' % name)

    def start_and_wait():
        _start_api(state, api)
        _wait_api(state, api)
    return lifecycle.restart(state, name, start_and_wait)
