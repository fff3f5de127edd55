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

"""Bring a cloud up, reconcile it to its spec like the operator, take it
down. The verbs of the CLI are thin wrappers around these functions."""

import contextlib
import fcntl
import json
import os
import shutil
import time

from glance_multiapi_tests.localcloud import admin as admin_mod
from glance_multiapi_tests.localcloud import errors
from glance_multiapi_tests.localcloud import faults as faults_mod
from glance_multiapi_tests.localcloud import glance_apis
from glance_multiapi_tests.localcloud import heat
from glance_multiapi_tests.localcloud import keystone
from glance_multiapi_tests.localcloud import ports
from glance_multiapi_tests.localcloud import processes
from glance_multiapi_tests.localcloud import services
from glance_multiapi_tests.localcloud import spec as spec_mod
from glance_multiapi_tests.localcloud import tempestconf
from glance_multiapi_tests.multiapi import glance_cr

OWN_ENTRIES = ('state.json', 'keystone', 'glance', 'registry', 'files',
               'logs', 'run', 'tempest', 'clouds.yaml', '.lock')


@contextlib.contextmanager
def locked(state):
    """One verb that changes a cloud at a time."""
    os.makedirs(state.root, mode=0o700, exist_ok=True)
    # NOTE: the state dir holds passwords and keys (confs, clouds.yaml,
    # state.json, fernet keys): nobody else may enter it.
    os.chmod(state.root, 0o700)
    with open(state.path('.lock'), 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def api_service(api):
    return 'glance-' + api


def api_ports(state, api):
    """(public port or None, internal port) of an API."""
    api_type = state.data['spec']['glanceAPIs'][api]['type']
    internal = state.port('glance-%s-internal' % api)
    public = None
    if 'public' in glance_cr.interfaces(api_type):
        public = state.port('glance-%s-public' % api)
    return public, internal


def api_urls(state, api, faults):
    """{interface: URL} an API publishes, after faults."""
    public, internal = api_ports(state, api)
    ports = {'public': public, 'internal': internal}
    api_type = state.data['spec']['glanceAPIs'][api]['type']
    return {iface: faults.url(api, iface, 'http://127.0.0.1:%d' %
                              ports[iface])
            for iface in glance_cr.interfaces(api_type)}


def _wipe(state):
    entries = [e for e in (os.listdir(state.root) if os.path.isdir(
        state.root) else []) if e != '.lock']
    if entries and not state.exists:
        raise errors.Invalid('%s is not empty and holds no cloud; give an '
                             'empty or new --state-dir' % state.root)
    for entry in entries:
        if entry in OWN_ENTRIES and entry != '.lock':
            path = state.path(entry)
            if os.path.isdir(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)


def up(state, *, spec_text, spec_source, fault_args=(), with_registry=True,
       with_fileserver=True, base_port=None, log=print, with_heat=False):
    """Start a whole cloud in state.root; stop everything on failure."""
    spec = spec_mod.load(spec_text, spec_source)
    records = [faults_mod.parse(f) for f in fault_args]
    faults_mod.Faults(records, spec, with_heat=with_heat)
    if base_port is not None:
        ports.check_base_port(base_port)
    services.binaries_needed(with_registry)
    if with_heat:
        heat.binaries_needed()
    with locked(state):
        if state.exists and processes.running(state):
            raise errors.AlreadyUp('a cloud is already up in %s (run '
                                   '"down" first)' % state.root)
        _wipe(state)
        state.data = {'spec': spec, 'faults': records,
                      'base_port': base_port,
                      'options': {'registry': with_registry,
                                  'fileserver': with_fileserver,
                                  'heat': with_heat}}
        started = time.monotonic()
        try:
            built = keystone.install_from_template(state)
            if built:
                log('built the bootstrap template in %s (once per '
                    'keystone/glance version)' % keystone.template_dir())
            url = services.start_keystone(state)
            if with_heat:
                # NOTE: the broker takes ~16 s to boot; start it first.
                heat.start(state)
            if with_registry:
                services.start_registry(state)
            if with_fileserver:
                services.start_fileserver(state)
            state.save()
            # NOTE: the APIs need keystone only once requests come, so they
            # load while keystone does; this halves the start-up time.
            to_wait = start_apis(state)
            processes.wait_http(state, 'keystone', url + '/v3')
            _setup_keystone(state, url)
            if with_heat:
                heat.finish(state, admin_mod.Admin(
                    url, state.password('admin')))
            if with_registry:
                processes.wait_http(state, 'registry',
                                    services.registry_url(state) + '/v2/')
            if with_fileserver:
                processes.wait_http(state, 'fileserver',
                                    services.fileserver_url(state) + '/')
            finish_reconcile(state, to_wait)
            state.data['startup_seconds'] = round(
                time.monotonic() - started, 1)
            state.save()
        except BaseException:
            _stop_all(state)
            raise
    return state


def _setup_keystone(state, url):
    admin = admin_mod.Admin(url, state.password('admin'))
    admin.set_service('identity', 'keystone', {
        iface: url + '/v3' for iface in ('public', 'internal', 'admin')})
    for role in ('member', 'reader', 'service'):
        admin.ensure('roles', role, {})
    admin.ensure_user('demo', state.password('demo'), 'demo', 'member')
    admin.ensure_user('alt_demo', state.password('alt_demo'), 'alt_demo',
                      'member')
    admin.ensure_user('glance', state.password('glance'), 'service',
                      'admin')
    admin.ensure_user('glance', state.password('glance'), 'service',
                      'service')


def _stop_all(state):
    # NOTE: heat first: its engine drains over RPC before the broker goes.
    names = heat.stop(state) + processes.stop_many(
        state, services.all_names(state))
    state.release_ports()
    return names


def down(state):
    """Stop every process this state dir started; return their names."""
    state.load()
    with locked(state):
        return _stop_all(state)


def reconcile(state):
    """Make processes, stores and the catalog match the spec (+faults)."""
    finish_reconcile(state, start_apis(state))
    heat.reconcile(state)


def start_apis(state):
    """Stop removed APIs, (re)start changed or new ones; don't wait."""
    spec = state.data['spec']
    faults = faults_mod.Faults.of_state(state)
    stores = spec_mod.all_stores(spec)
    keystone_url = services.keystone_url(state)
    wanted = sorted(name for name, api in spec['glanceAPIs'].items()
                    if api['replicas'] > 0 and faults.starts(name))
    processes.stop_many(state, [
        name for name in processes.running(state)
        if name.startswith('glance-') and name[7:] not in wanted])
    for api in list(state.data.get('api_keys', {})):
        if api not in wanted:
            del state.data['api_keys'][api]
    to_wait = []
    for api in wanted:
        default, _own = spec_mod.api_stores(spec, api)
        store = faults.default_store(api, default, stores)
        public, internal = api_ports(state, api)
        # NOTE: like the operator, only a change of the API's own spec
        # restarts it; the stores of APIs added later are known to it from
        # its next restart on (a real api0 is not configured for ceph2).
        key = json.dumps([spec['glanceAPIs'][api], store, public, internal],
                         sort_keys=True)
        service = api_service(api)
        keys = state.data.setdefault('api_keys', {})
        if keys.get(api) != key and processes.pid_of(state, service):
            processes.stop(state, service)
        if not processes.pid_of(state, service):
            glance_apis.write_api_config(
                state.path('glance', 'apis', api), glance_apis.render_config(
                    glance_dir=state.path('glance'),
                    api_dir=state.path('glance', 'apis', api),
                    default_store=store, stores=stores,
                    keystone_url=keystone_url,
                    glance_password=state.password('glance')))
            services.start_glance_api(state, api, public, internal)
            to_wait.append((service, internal))
        keys[api] = key
    state.save()
    return to_wait


def finish_reconcile(state, to_wait):
    """Wait for started APIs, then publish catalog and status."""
    spec = state.data['spec']
    faults = faults_mod.Faults.of_state(state)
    for service, port in to_wait:
        processes.wait_http(state, service, 'http://127.0.0.1:%d/' % port,
                            ok_status=(300,))
    _reconcile_catalog(state, faults)
    state.data['status'] = {'apiEndpoint': {
        '%s-%s' % (api, iface): url
        for api in spec['glanceAPIs']
        for iface, url in api_urls(state, api, faults).items()}}
    state.data['reconciled_spec'] = spec
    state.save()
    tempestconf.write_all(state)


def _reconcile_catalog(state, faults):
    spec = state.data['spec']
    admin = admin_mod.Admin(services.keystone_url(state),
                            state.password('admin'))
    entries = faults.catalog([('glance', spec['keystoneEndpoint'])])
    wanted = {service: api_urls(state, api, faults)
              for service, api in entries}
    for service in admin.services('image'):
        if service['name'] not in wanted:
            admin.delete_service(service)
    for service, urls in sorted(wanted.items()):
        admin.set_service('image', service, urls)


def patch(state, *, patch_text=None, fault_args=(), clear_faults=False):
    """Apply a merge patch (and fault changes), then reconcile."""
    state.load()
    with locked(state):
        if not processes.pid_of(state, 'keystone'):
            raise errors.NotUp('the cloud in %s is not running' %
                               state.root)
        spec = state.data['spec']
        if patch_text is not None:
            try:
                spec = spec_mod.apply_patch(spec, patch_text)
            except spec_mod.SpecError as exc:
                raise errors.Invalid(str(exc))
        records = [] if clear_faults else list(state.data.get('faults', []))
        records += [faults_mod.parse(f) for f in fault_args]
        faults = faults_mod.Faults(records, spec,
                                   with_heat=heat.enabled(state))
        state.data['spec'] = spec
        state.data['faults'] = records
        state.save()
        if faults.reconciles():
            reconcile(state)
            return True
        return False


def restartable(state):
    """Names ``restart`` takes on this cloud (services that can run)."""
    options = state.data.get('options', {})
    names = ['keystone'] + [api_service(api) for api in sorted(
        state.data['spec']['glanceAPIs'])]
    names += [name for name in ('registry', 'fileserver')
              if options.get(name)]
    if heat.enabled(state):
        names += list(heat.RESTARTABLE)
    return names


def restart(state, name):
    """Stop one service and start it again on its own ports.

    Returns (seconds to stop, seconds until the new one is ready).
    """
    if name in heat.RESTARTABLE:
        return heat.restart(state, name)
    if name not in restartable(state):
        raise errors.Invalid('cannot restart %r; this cloud restarts: %s' % (
            name, ', '.join(restartable(state))))
    if name.startswith('glance-'):
        api = name[len('glance-'):]
        if (state.data['spec']['glanceAPIs'][api]['replicas'] < 1 or
                not faults_mod.Faults.of_state(state).starts(api)):
            raise errors.Invalid('%s is kept down by the spec (replicas 0) '
                                 'or a fault (api-down)' % name)
    # NOTE: a service that died is started again, like a pod's restart.
    started = time.monotonic()
    processes.stop(state, name)
    stopped = time.monotonic()
    if name == 'keystone':
        processes.wait_http(state, name, services.start_keystone(state) +
                            '/v3')
    elif name == 'registry':
        processes.wait_http(state, name, services.start_registry(state) +
                            '/v2/')
    elif name == 'fileserver':
        processes.wait_http(state, name, services.start_fileserver(state) +
                            '/')
    else:
        public, internal = api_ports(state, api)
        services.start_glance_api(state, api, public, internal)
        processes.wait_http(state, name, 'http://127.0.0.1:%d/' % internal,
                            ok_status=(300,))
    return stopped - started, time.monotonic() - stopped


def document(state):
    """The Glance CR-shaped document of ``get``."""
    state.load()
    status = dict(state.data.get('status', {}))
    status['glanceAPIReadyCounts'] = {
        api: 1 if processes.pid_of(state, api_service(api)) else 0
        for api in state.data['spec']['glanceAPIs']}
    return {'apiVersion': 'glance.openstack.org/v1beta1', 'kind': 'Glance',
            'metadata': {'name': 'glance', 'namespace': 'openstack'},
            'spec': state.data['spec'], 'status': status}
