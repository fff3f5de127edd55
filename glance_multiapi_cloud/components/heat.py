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

"""Optional real Heat of the embedded cloud (``up --with-heat``).

heat-api, heat-api-cfn and heat-engine all run from the one installed
openstack-heat package, the local analogue of the one consolidated
container image; RabbitMQ (components/rabbitmq.py) carries their RPC. The
APIs run under uwsgi like keystone and glance; the engine is a plain
process. Their heat.conf is heatconf.py's.
"""

import os
import shutil
import sqlite3
import sys
import time

import requests

from glance_multiapi_cloud import bootstrap
from glance_multiapi_cloud.components import keystone
from glance_multiapi_cloud.components import rabbitmq
from glance_multiapi_cloud import errors
from glance_multiapi_cloud import heatconf
from glance_multiapi_cloud import lifecycle
from glance_multiapi_cloud import manage
from glance_multiapi_cloud import processes
from glance_multiapi_cloud import speed
from glance_multiapi_cloud.runtime import heat_faults
from glance_multiapi_cloud import tlsmode
from glance_multiapi_cloud import uwsgi
from glance_multiapi_kernel import polling

API_SERVICES = ('heat-api', 'heat-api-cfn')
ENGINE = 'heat-engine'
# NOTE: the process of a heat-engine pod being deleted is tracked as
# heat-engine~<pod name> while its replacement runs as heat-engine.
TERMINATING_PREFIX = ENGINE + '~'
RESTARTABLE = (ENGINE,) + API_SERVICES
# NOTE: heat-engine waits for in-progress stack work on SIGTERM for up to
# graceful_shutdown_timeout; give it that and a margin before SIGKILL.
ENGINE_STOP_TIMEOUT = heatconf.ENGINE_GRACE + 30


def api_url(state, name):
    return tlsmode.url(state, state.port(name))


def catalog_urls(state):
    """{service type: (name, URL)} heat registers in keystone."""
    return {'orchestration': ('heat', api_url(state, 'heat-api') +
                              '/v1/%(tenant_id)s'),
            'cloudformation': ('heat-cfn', api_url(state, 'heat-api-cfn') +
                               '/v1')}


def _build_db(work):
    """Migrate an empty heat database (once per heat version)."""
    conf = os.path.join(work, 'heat.conf')
    with open(conf, 'w') as f:
        f.write('[database]\nconnection = sqlite:///%s/heat.db\n' % work)
    manage.run([processes.find_binary('heat-manage', heatconf.HEAT_HINT),
                '--config-file', conf, 'db_sync'], 'heat-manage db_sync')
    os.unlink(conf)


def _conf_text(state):
    return heatconf.render(state,
                           transport_url=rabbitmq.transport_url(state),
                           keystone_url=keystone.url(state))


def _write_conf(state):
    """Write heat.conf as the profile says; whether it changed."""
    return heatconf.write(state, _conf_text(state))


def start_engine(state, unless_running=False):
    """Start a heat-engine (also a replacement pod's, embedded/heatpods).

    unless_running: start none, and return None, when one runs already.
    """
    start = processes.start_unless_running if unless_running else (
        processes.start)
    return start(state, ENGINE, [
        sys.executable, '-m',
        'glance_multiapi_cloud.runtime.heat_engine',
        '--config-file', heatconf.conf_path(state)])


def _start_api(state, name):
    argv = uwsgi.argv(
        'glance_multiapi_cloud.runtime.wsgi_heat:application',
        [uwsgi.socket(state, state.port(name), name)], name)
    processes.start(state, name, argv, env={
        'GMT_HEAT_CONF': heatconf.conf_path(state), 'GMT_HEAT_APP': name,
        'GMT_STATE_DIR': state.root}, ports=[state.port(name)])


def _wait_api(state, name):
    processes.wait_http(state, name, api_url(state, name) + '/',
                        ok_status=(200, 300), verify=tlsmode.verify(state))


def _engine_wanted(state):
    return state.faults.starts_service(ENGINE)


def engines(state):
    """The heat-engine rows of GET /services, as the admin sees them.

    A probe of the cloud's own: the heat-rpc-timeout fault spares it.
    """
    login = keystone.admin(state).login()
    resp = login.session.get(
        '%s/v1/%s/services' % (api_url(state, 'heat-api'), login.project_id),
        headers={heat_faults.PROBE_HEADER: '1'}, timeout=45, raise_exc=False,
        verify=tlsmode.verify(state))
    resp.raise_for_status()
    return [s for s in resp.json()['services'] if s['binary'] == ENGINE]


def registered_engines(state):
    """engine_ids of the heat-engine rows of heat's service table.

    heat-engine writes its row (service_manage_report) only after its RPC
    server started consuming (heat/engine/service.py EngineService.start),
    so an RPC call sent then finds the engine's queue. One sent before
    the queue exists is dropped by the broker, and heat-api waits
    rpc_response_timeout for it: ``up`` took 30 s longer one time in
    four (and two in three of the main job's runs) that way.
    """
    path = state.path('heat', 'heat.db')
    try:
        con = sqlite3.connect('file:%s?mode=ro' % path, uri=True,
                              timeout=5)
        try:
            rows = con.execute('SELECT engine_id FROM service WHERE '
                               'binary = ? AND deleted_at IS NULL',
                               (ENGINE,)).fetchall()
        finally:
            con.close()
    except sqlite3.Error:
        return []
    return [row[0] for row in rows]


def wait_engine(state, exclude=(), timeout=120):
    """Wait until a heat-engine not in exclude reports up; its id."""
    def check():
        if not processes.pid_of(state, ENGINE):
            raise errors.CloudError('heat-engine exited; last log line: %s'
                                    % processes.last_log_line(state, ENGINE))
        # NOTE: the row is awaited only where one engine worker runs (the
        # embedded profile). With the operator profile's four, up returning
        # that much sooner was followed, in two CI runs out of two, by a
        # first stack create that timed out (all four workers silent for
        # 35 s), and never without the row wait. Why is not known, so that
        # profile keeps the wait its tests were proven with.
        if (heatconf.engine_workers(state) == 1 and
                not set(registered_engines(state)) - set(exclude)):
            return False, 'no new heat-engine row in heat\'s service table'
        try:
            rows = engines(state)
        except (requests.RequestException, errors.CloudError) as exc:
            return False, type(exc).__name__
        fresh = [r['engine_id'] for r in rows if r['status'] == 'up'
                 and r['engine_id'] not in exclude]
        return bool(fresh), fresh[0] if fresh else rows

    return polling.poll(check, timeout=timeout, interval=0.5,
                        max_interval=2, what='heat-engine to report up',
                        describe=str)


ENTRIES = ('heat',)


# -- verbs (see components/__init__.py) ----------------------------------
def enabled(state):
    return bool(state.record.options.heat)


def binaries_needed(state):
    """Fail before anything starts when a heat program is missing."""
    processes.find_binary('heat-manage', heatconf.HEAT_HINT)
    heatconf.heat_etc()


def prepare(state):
    """Fresh heat dir, database and heat.conf."""
    shutil.rmtree(state.path('heat'), ignore_errors=True)
    state.makedirs('heat')
    state.makedirs('heat', 'locks')
    template, _built = bootstrap.ensure(
        bootstrap.template_dir('openstack-heat'), _build_db)
    bootstrap.copy(template, 'heat.db', state.path('heat', 'heat.db'))
    _write_conf(state)
    return None


def start(state):
    """Start APIs and engine; they connect as the broker comes."""
    for name in API_SERVICES:
        _start_api(state, name)
    if not _engine_wanted(state):
        return list(API_SERVICES)
    start_engine(state)
    return list(API_SERVICES) + [ENGINE]


def wait_ready(state, started):
    for name in API_SERVICES:
        if name in started:
            _wait_api(state, name)
    if ENGINE in started:
        wait_engine(state)


def register(state, admin):
    """Service user, stack domain and its admin, roles, catalog."""
    admin.ensure_user('heat', state.password('heat'), 'service', 'admin')
    admin.ensure_user('heat', state.password('heat'), 'service', 'service')
    for role in ('heat_stack_owner', 'heat_stack_user'):
        admin.ensure('roles', role, {})
    domain = admin.ensure('domains', 'heat', {
        'description': 'users and projects heat creates for stacks'})
    user = admin.ensure('users', 'heat_domain_admin', {
        'domain_id': domain['id'],
        'password': state.password('heat_domain_admin')},
        domain_id=domain['id'])
    role = admin.ensure('roles', 'admin', {})
    admin.call('PUT', '/domains/%s/users/%s/roles/%s' % (
        domain['id'], user['id'], role['id']))
    for service_type, (name, url) in catalog_urls(state).items():
        admin.set_service(service_type, name, {
            iface: url for iface in ('public', 'internal', 'admin')})


def reconcile(state):
    """Rewrite heat.conf, start, stop or restart heat as the faults say."""
    # NOTE: a fault timed from a heat-engine restart (heat-rpc-timeout)
    # counts only restarts begun after the faults were last set.
    try:
        os.unlink(heat_faults.marker_path(state.root))
    except FileNotFoundError:
        pass
    if _write_conf(state):
        # NOTE: every heat service reads heat.conf; the engine drains its
        # stacks as on any restart.
        processes.stop(state, ENGINE, timeout=ENGINE_STOP_TIMEOUT)
        for name in API_SERVICES:
            processes.stop(state, name)
            _start_api(state, name)
        for name in API_SERVICES:
            _wait_api(state, name)
    if not _engine_wanted(state):
        processes.stop(state, ENGINE, timeout=ENGINE_STOP_TIMEOUT)
    # NOTE: checked and started under the engine's lock: a deleted pod's
    # replacement (the Kubernetes API server) may start one at once.
    elif start_engine(state, unless_running=True):
        wait_engine(state)


def terminating_engines(state):
    """Names of the engines of pods being deleted (still draining)."""
    return [name for name in processes.running(state)
            if name.startswith(TERMINATING_PREFIX)]


def stop(state):
    """Stop heat, engines first; the names that ran."""
    # NOTE: on "down" nobody waits for stacks: the default timeout, not
    # the engine's graceful one, before SIGKILL.
    # NOTE: together: the engine's drain needs the broker, not heat-api.
    names = processes.stop_many(
        state, [ENGINE] + terminating_engines(state) + list(API_SERVICES))
    heatconf.remove_shm_files(state)
    return names


def status(state):
    """heat-api, heat-api-cfn and whether an engine reports up."""
    report = {}
    for name in API_SERVICES:
        url = api_url(state, name)
        report.update(lifecycle.report(state, name, url, url + '/'))
    pid = processes.pid_of(state, ENGINE)
    try:
        up = pid and any(r['status'] == 'up' for r in engines(state))
    except (requests.RequestException, errors.CloudError):
        up = False
    report[ENGINE] = {'url': api_url(state, 'heat-api') + ' (services)',
                      'running': bool(pid), 'ready': bool(up)}
    return report


def tempest_options(state, sections, cli):
    """Turn heat on in tempest.conf sections ({group: {opt: value}})."""
    sections['service_available']['heat'] = 'True'
    # NOTE: no restart_command: heat-engine is restarted through the
    # Kubernetes API, by deleting its pods, as in a test-operator pod
    # (kubeapi/embedded/heatpods.py plays them).
    sections['consolidated_heat'] = {'run_heat_engine_restart': 'True'}
    if state.record.speed:
        sections['consolidated_heat']['in_progress_seconds'] = str(
            speed.in_progress_seconds(state.record.speed))


def restartable(state):
    return list(RESTARTABLE) if enabled(state) else []


def restart(state, name):
    """Stop (gracefully) and start one heat service."""
    if name not in RESTARTABLE:
        return None
    if not enabled(state):
        raise errors.Invalid('this cloud has no heat (up --with-heat)')
    if name != ENGINE:
        def start_and_wait():
            _start_api(state, name)
            _wait_api(state, name)
        return lifecycle.restart(state, name, start_and_wait)
    if not _engine_wanted(state):
        raise errors.Invalid('heat-engine is held down by fault '
                             'heat-engine-down (patch --clear-faults)')
    started = time.monotonic()
    old = [r['engine_id'] for r in engines(state)]
    heat_faults.mark_restart(state.root)
    processes.stop(state, ENGINE, timeout=ENGINE_STOP_TIMEOUT)
    stopped = time.monotonic()
    # NOTE: a pod deleted meanwhile may have had its replacement started
    # (by the Kubernetes API server): that new engine is the restarted one.
    start_engine(state, unless_running=True)
    wait_engine(state, exclude=old)
    return stopped - started, time.monotonic() - stopped
