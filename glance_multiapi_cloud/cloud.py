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
down. The verbs of the CLI are thin wrappers around these functions,
which drive the services (components/) through their common verbs."""

from concurrent import futures
import contextlib
import dataclasses
import fcntl
import os
import shutil
import time
import typing

from glance_multiapi_cloud import certs
from glance_multiapi_cloud import components
from glance_multiapi_cloud.components import heat
from glance_multiapi_cloud.components import keystone
from glance_multiapi_cloud.components import kubeapi
from glance_multiapi_cloud import deployed
from glance_multiapi_cloud import errors
from glance_multiapi_cloud import faults as faults_mod
from glance_multiapi_cloud import heatconf
from glance_multiapi_cloud.kubeapi.embedded import heat as kubeheat
from glance_multiapi_cloud.kubeapi.embedded import objects as kubeobjects
from glance_multiapi_cloud.kubeapi.embedded import rbac as kuberbac
from glance_multiapi_cloud import lifecycle
from glance_multiapi_cloud import ports
from glance_multiapi_cloud import processes
from glance_multiapi_cloud import record as record_mod
from glance_multiapi_cloud import spec as spec_mod
from glance_multiapi_cloud import speed
from glance_multiapi_cloud import tempestconf
from glance_multiapi_cloud import tlsmode

# NOTE: the state dir's entries of the cloud itself; each component
# declares its own (ENTRIES).
CLOUD_ENTRIES = ('state.json', 'logs', 'run', 'tempest', 'clouds.yaml',
                 '.lock', certs.TLS_DIR)


def own_entries():
    """Every entry of a state dir a cloud writes (up clears them)."""
    return CLOUD_ENTRIES + tuple(entry for comp in components.modules()
                                 for entry in comp.ENTRIES)


@contextlib.contextmanager
def locked(state):
    """One verb that changes a cloud at a time."""
    try:
        os.makedirs(state.root, mode=0o700, exist_ok=True)
    except OSError as exc:
        raise errors.Invalid('cannot make state dir %s: %s' % (
            state.root, exc.strerror or exc)) from None
    # NOTE: the state dir holds passwords and keys (confs, clouds.yaml,
    # state.json, fernet keys): nobody else may enter it.
    os.chmod(state.root, 0o700)
    with open(state.path('.lock'), 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _check_empty_or_cloud(state):
    """Invalid unless the state dir is new, empty or holds a cloud."""
    entries = [e for e in (os.listdir(state.root) if os.path.isdir(
        state.root) else []) if e != '.lock']
    if entries and not state.exists:
        raise errors.Invalid('%s is not empty and holds no cloud; give an '
                             'empty or new --state-dir' % state.root)
    return entries


def _wipe(state):
    own = own_entries()
    for entry in _check_empty_or_cloud(state):
        if entry in own and entry != '.lock':
            path = state.path(entry)
            if os.path.isdir(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)


@dataclasses.dataclass
class UpRequest:
    """What ``up`` is asked to start: the spec and every choice."""

    spec_text: str
    spec_source: str
    options: record_mod.Options = dataclasses.field(
        default_factory=record_mod.Options)
    # NOTE: NAME or NAME=ARG each (faults.parse).
    fault_args: tuple = ()
    # NOTE: the first of the cloud's ports, else a claimed block.
    base_port: typing.Optional[int] = None
    # NOTE: RBAC manifest files (ServiceAccounts, token Secrets, Roles,
    # RoleBindings) every Kubernetes API request is then authorised by.
    kube_roles: tuple = ()


def up(state, request, log=print):
    """Start a whole cloud in state.root; stop everything on failure.

    Every component prepares and starts in turn without waiting, so they
    all boot at once; keystone is awaited first, as everything registers
    with it; then the others; then the cloud is reconciled to its spec
    like after a patch (the catalog, tempest.conf). request: an
    UpRequest; its options say which components run and how (heat's
    profile (heatconf.py), images' state (kubeheat.STATES) and RPC timeout,
    https (tlsmode.py), the control plane's namespace and the service
    account the kubeconfig acts as (default: the one kube_roles bind)).
    """
    options = dataclasses.replace(request.options)
    spec, annotations = spec_mod.load_cr(request.spec_text,
                                         request.spec_source)
    state.check_root()
    # NOTE: before locked() makes .lock and the folder's mode 0700: a
    # refused up leaves a folder that is not its own as it found it.
    _check_empty_or_cloud(state)
    rbac_texts = None
    options.kube_namespace = (options.kube_namespace or
                              kubeobjects.NAMESPACE)
    if not kubeobjects.valid_name(options.kube_namespace):
        raise errors.Invalid('--kube-namespace %r is not a namespace name '
                             '(lower-case letters, digits and "-", at most '
                             '63)' % options.kube_namespace)
    if request.kube_roles:
        try:
            rbac_texts, options.kube_account = kubeapi.check_rbac(
                request.kube_roles, options.kube_namespace,
                options.kube_account)
        except kuberbac.RoleError as exc:
            raise errors.Invalid(str(exc))
    records = [faults_mod.parse(f) for f in request.fault_args]
    faults_mod.Faults(records, spec, with_heat=options.heat,
                      with_tls=options.tls)
    if options.heat_profile not in heatconf.PROFILES:
        raise errors.Invalid('unknown heat profile %r; known: %s' % (
            options.heat_profile, ', '.join(sorted(heatconf.PROFILES))))
    _check_heat_state(options.heat_state)
    if request.base_port is not None:
        ports.check_base_port(request.base_port)
    # NOTE: speed: the scenarios' holds in tempest.conf (speed.py).
    state.record = record_mod.Record(
        spec=spec, options=options, faults=records,
        annotations=annotations, base_port=request.base_port,
        speed=speed.measure())
    enabled = components.enabled(state)
    for comp in enabled:
        comp.binaries_needed(state)
    made_root = not os.path.isdir(state.root)
    with locked(state):
        if state.exists and processes.running(state):
            raise errors.AlreadyUp('a cloud is already up in %s (run '
                                   '"down" first)' % state.root)
        _wipe(state)
        if rbac_texts is not None:
            kubeapi.install_rbac(state, rbac_texts)
        began = time.monotonic()
        started = []
        steps = _Steps()
        try:
            for comp in enabled:
                with steps.timed('%s start' % _name(comp)):
                    note = comp.prepare(state)
                    if note:
                        log(note)
                    started += comp.start(state)
                    state.save()
            with steps.timed('keystone ready'):
                keystone.wait_ready(state, started)
                admin = keystone.admin(state)
            for comp in enabled:
                with steps.timed('%s register' % _name(comp)):
                    comp.register(state, admin)
            for comp in enabled:
                if comp is not keystone:
                    with steps.timed('%s ready' % _name(comp)):
                        comp.wait_ready(state, started)
            with steps.timed('reconcile'):
                reconcile(state)
            state.record.startup_seconds = round(
                time.monotonic() - began, 1)
            state.record.startup_steps = steps.seconds
            state.save()
        except BaseException:
            _stop_all(state)
            if made_root and not started:
                # NOTE: nothing ran, so there is no log to read: leave no
                # state dir behind. Once a service ran, its log stays.
                shutil.rmtree(state.root, ignore_errors=True)
            raise
    return state


def _name(comp):
    return comp.__name__.rsplit('.', 1)[-1]


class _Steps(object):
    """Seconds of each step of ``up``, in order (``status -o json``).

    Components start at once and are awaited in turn, so a "ready" step
    is what was still left to wait for; an ``up`` that was slow says
    where (e.g. a keystone that took 30 s to answer).
    """

    def __init__(self):
        self.seconds = {}

    @contextlib.contextmanager
    def timed(self, step):
        began = time.monotonic()
        try:
            yield
        finally:
            self.seconds[step] = round(time.monotonic() - began, 2)


# NOTE: how long "down" lets a service stop after SIGTERM: heat-engine's
# graceful shutdown and uwsgi's take seconds that nobody waits on.
DOWN_GRACE = 1.0


def _stop_all(state, quick=False):
    """Stop the components, wave by wave; their process names.

    quick: one wave, and SIGKILL after DOWN_GRACE seconds (down: nothing
    a service would still finish is kept).
    """
    if quick:
        with processes.short_grace(DOWN_GRACE):
            return _stop_waves(state, [[
                comp for wave in components.stop_waves() for comp in wave]])
    return _stop_waves(state, components.stop_waves())


def _stop_waves(state, waves):
    names = []
    for wave in waves:
        with futures.ThreadPoolExecutor(len(wave)) as pool:
            for stopped in pool.map(lambda comp: comp.stop(state), wave):
                names += stopped
    # NOTE: and whatever else left a pidfile here (nothing, normally).
    names += processes.stop_many(state, lifecycle.recorded(state))
    state.release_ports()
    return sorted(names)


def down(state):
    """Stop every process this state dir started; return their names."""
    state.load()
    with locked(state):
        return _stop_all(state, quick=True)


def reconcile(state):
    """Make processes, stores and the catalog match the spec (+faults)."""
    for comp in components.enabled(state):
        comp.reconcile(state)
    tempestconf.write_all(state)


def _check_heat_state(heat_state):
    if heat_state not in kubeheat.STATES:
        raise errors.Invalid('unknown heat state %r; known: %s' % (
            heat_state, ', '.join(kubeheat.STATES)))


def patch(state, *, patch_text=None, fault_args=(), clear_faults=False,
          heat_state=None):
    """Apply a merge patch (and fault or heat state changes), reconcile."""
    state.load()
    with locked(state):
        if not processes.pid_of(state, 'keystone'):
            raise errors.NotUp('the cloud in %s is not running' %
                               state.root)
        record = state.record
        spec = record.spec
        if patch_text is not None:
            try:
                spec = spec_mod.apply_patch(spec, patch_text)
                spec_mod.check_stand_in(spec, record.annotations, 'patch')
            except spec_mod.SpecError as exc:
                raise errors.Invalid(str(exc))
        records = [] if clear_faults else list(record.faults)
        records += [faults_mod.parse(f) for f in fault_args]
        faults = faults_mod.Faults(records, spec,
                                   with_heat=heat.enabled(state),
                                   with_tls=tlsmode.enabled(state))
        if spec != record.spec:
            # NOTE: metadata.generation of the Kubernetes objects.
            record.kube.generation += 1
        if heat_state is not None:
            if not heat.enabled(state):
                raise errors.Invalid('--heat-state needs heat (up '
                                     '--with-heat)')
            _check_heat_state(heat_state)
            record.options.heat_state = heat_state
        record.spec = spec
        record.faults = records
        if not faults.reconciles():
            # NOTE: the controller still writes a pass (its
            # observedGeneration catches up) that changes nothing: what
            # the fault breaks is acting on the spec, not the status.
            deployed.observe(record, time.time(), faults.status_lag())
            state.save()
            return False
        state.save()
        delay = faults.reconcile_delay()
        if delay > 0:
            # NOTE: the fault itself (slow-reconcile: an operator late to
            # act on a patch), not a wait for any state.
            time.sleep(delay)
        reconcile(state)
        return True


def restartable(state):
    """Names ``restart`` takes on this cloud (services that can run)."""
    names = []
    for comp in components.enabled(state):
        names += comp.restartable(state)
    return names


def restart(state, name):
    """Stop one service and start it again on its own ports.

    Returns (seconds to stop, seconds until the new one is ready).
    """
    for comp in components.modules():
        took = comp.restart(state, name)
        if took is not None:
            return took
    raise errors.Invalid('cannot restart %r; this cloud restarts: %s' % (
        name, ', '.join(restartable(state))))


def status(state):
    """{service: {url, running, ready}} of every component."""
    report = {}
    for comp in components.enabled(state):
        report.update(comp.status(state))
    return report
