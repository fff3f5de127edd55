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

"""Start, watch and stop the processes of one cloud, by pidfile.

Each service runs in its own session (process group) so that stopping it
also stops whatever it forked (uwsgi workers). Only pids recorded in this
state dir are ever signalled, and only while their start (clock ticks
since boot, which a step of the wall clock leaves alone) still matches
the recorded one, so a recycled pid is never hit.

A name's record is written, moved and removed only under that name's
lock (run/NAME.lock), taken across processes, and only while it names no
live process but the one meant: the CLI and the Kubernetes API server (a
heat-engine pod's replacement) start and stop the same names.
"""

import contextlib
import fcntl
import json
import os
import shutil
import signal
import subprocess
import time
import warnings

import psutil
import requests
import urllib3

from glance_multiapi_cloud import errors
from glance_multiapi_cloud import ports as ports_mod
from glance_multiapi_cloud import speed
from glance_multiapi_kernel import documents
from glance_multiapi_kernel import input_files
from glance_multiapi_kernel import interrupts
from glance_multiapi_kernel import polling

STOP_TIMEOUT = 10.0
_default_grace = [STOP_TIMEOUT]
# NOTE: a stopped server's listener is gone when its process is; this
# only covers the kernel finishing the close.
BIND_TIMEOUT = 5.0
# NOTE: a file stop_many appends to, when this names one: a JSON line per
# service it stops, with the CPU seconds its processes used and how long
# it ran (tools/run-functional.sh sets it; tools/suite_times.py profile
# adds the lines up per kind of service).
CPU_LOG_ENV = 'GLANCE_MULTIAPI_SERVICE_CPU_LOG'


def _pidfile(state, name):
    return state.path('run', name + '.pid')


@contextlib.contextmanager
def _locked(state, *names):
    """Hold the lock of each name: one changer of their records at a time.

    NOTE: an flock, not a threading lock: the CLI and the Kubernetes API
    server change the records from different processes. Taken in sorted
    order, so two holders of two names never deadlock; held only while a
    record is read and written (never while a process drains), and not
    inherited by what is started under it (Python's files are close-on-
    exec). The lock files stay: one unlinked while held would let a
    second holder lock a new file of the same name.
    """
    state.makedirs('run')
    with contextlib.ExitStack() as stack:
        for name in sorted(set(names)):
            lock = stack.enter_context(open(state.path(
                'run', name + '.lock'), 'a'))
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def log_path(state, name):
    return state.path('logs', name + '.log')


def find_binary(name, hint):
    """Absolute path of a program: the venv's first, then PATH."""
    import sys
    candidate = os.path.join(os.path.dirname(sys.executable), name)
    if os.access(candidate, os.X_OK):
        return candidate
    found = shutil.which(name)
    if not found:
        raise errors.MissingBinary('%s not found (%s)' % (name, hint))
    return found


def _tls_env(state):
    """Make the cloud's services trust its CA when it serves https.

    Like the operators' combined-ca-bundle in each pod's trust store:
    keystonemiddleware and keystoneauth (glance, heat) verify with
    requests' default, which REQUESTS_CA_BUNDLE replaces.
    """
    if not state.record.options.tls:
        return {}
    # NOTE: certs.ca_path() by its contract, without importing certs
    # (and its crypto) into every process of the cloud.
    return {'REQUESTS_CA_BUNDLE': state.path('tls', 'ca.crt')}


def start(state, name, argv, env=None, cwd=None, ports=()):
    """Start argv detached, logging to logs/NAME.log; record its pid.

    ports are the loopback ports it will listen on: each must be free to
    bind first (a restart waits briefly for its old socket to go), else
    PortBusy names the service, the port and who holds it.

    AlreadyRunning when a process of that name still runs.
    """
    with _locked(state, name):
        pid = pid_of(state, name)
        if pid:
            # NOTE: its record is never overwritten: nothing would stop
            # that process then, not even "down" (a heat-engine outlived
            # its cloud that way when two callers started it at once).
            raise errors.AlreadyRunning(
                '%s already runs (pid %d); not started again' % (name, pid))
        return _start(state, name, argv, env, cwd, ports)


def start_unless_running(state, name, argv, env=None, cwd=None, ports=()):
    """start, unless a process of that name runs: then None.

    NOTE: "start it if it does not run" from callers that may do it at
    once from two processes (heat's reconcile and restart in the CLI, a
    deleted pod's replacement in the Kubernetes API server): the check
    and the start are one step under the name's lock.
    """
    with _locked(state, name):
        if pid_of(state, name):
            return None
        return _start(state, name, argv, env, cwd, ports)


def _start(state, name, argv, env, cwd, ports):
    """start's work; the caller holds the name's lock."""
    for port in ports:
        _wait_bindable(name, port)
    state.makedirs('logs')
    full_env = dict(os.environ)
    full_env.update(_tls_env(state))
    full_env.update(env or {})
    # NOTE: a SIGINT/SIGTERM of the CLI between the fork and the pidfile
    # would leave a service that "down" cannot find: it is held until
    # the record is in place.
    with interrupts.deferred():
        with open(log_path(state, name), 'ab') as log:
            proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=log,
                stderr=subprocess.STDOUT, env=full_env,
                cwd=cwd or state.root, start_new_session=True)
        # NOTE: written whole, then put in place: a reader that holds no
        # lock (status) never reads half a record.
        path = _pidfile(state, name)
        with open(path + '.new', 'w') as f:
            json.dump({'pid': proc.pid, 'start': _start_time(proc.pid),
                       'ports': list(ports), 'wall': time.time()}, f)
        os.replace(path + '.new', path)
    return proc


def rename(state, name, new_name):
    """Track the running service name as new_name from now on.

    NOTE: how a pod that is being deleted keeps its process while its
    replacement starts under the old name (kubeapi/embedded/heatpods.py).

    Returns the pid renamed, or None when no process of name runs (then
    nothing is). AlreadyRunning when a process of new_name runs.
    """
    with _locked(state, name, new_name):
        pid = pid_of(state, new_name)
        if pid:
            raise errors.AlreadyRunning(
                '%s already runs (pid %d); %s not renamed to it' % (
                    new_name, pid, name))
        pid = pid_of(state, name)
        if pid:
            os.replace(_pidfile(state, name), _pidfile(state, new_name))
        return pid


def started_at(state, name):
    """time.time() when the service was started, else None."""
    record = _read_pidfile(state, name)
    if not record:
        return None
    if 'wall' in record:
        return record['wall']
    try:
        return os.path.getmtime(_pidfile(state, name))
    except OSError:
        return None


def _wait_bindable(name, port, timeout=BIND_TIMEOUT):
    try:
        polling.poll(lambda: (ports_mod.bindable(port), 'busy'),
                     timeout=timeout, interval=0.05, max_interval=0.5,
                     what='127.0.0.1:%d to be free for %s' % (port, name))
    except polling.PollTimeout:
        raise ports_mod.busy_error(name, port)


def exit_error(state, name, waited_for):
    """The error for a service that died while we waited for it.

    A failed bind (the wording of uwsgi, Python, Go and Erlang) becomes
    PortBusy naming the port and who holds it.
    """
    record = _read_pidfile(state, name) or {}
    line = last_log_line(state, name)
    busy_line = last_log_line(state, name, 'ddress already in use') or ''
    if 'ddress already in use' not in busy_line:
        busy_line = last_log_line(state, name, 'eaddrinuse') or ''
    if 'ddress already in use' in busy_line or 'eaddrinuse' in busy_line:
        for port in record.get('ports', ()):
            if not ports_mod.bindable(port):
                return ports_mod.busy_error(name, port)
        return errors.PortBusy('%s could not bind one of 127.0.0.1:%s: %s'
                               % (name, ','.join(map(str, record.get(
                                   'ports', ()))), busy_line[:300]))
    return errors.CloudError(
        '%s exited before %s; last log line: %s (see %s)' % (
            name, waited_for, line, os.path.relpath(log_path(state, name))))


# NOTE: a pidfile is {"pid": N, "start": ..., "argv": [...]}: small.
PIDFILE_LIMIT = 64 * 1024


def _read_pidfile(state, name):
    """{pid, start, ...} of a service's pidfile; None if it has none.

    A pidfile that is no regular file (a FIFO would block, a link to
    /dev/zero be read without end), is larger than any pidfile, or holds
    no object with a pid (a list, a string) names no process of ours:
    the service is taken as not running, as one without a pidfile.
    """
    try:
        data = input_files.read_bytes(_pidfile(state, name), 'pidfile',
                                      PIDFILE_LIMIT)
        record = documents.load_json(data)
    except (input_files.InputFileError, documents.DocumentError):
        return None
    pid = record.get('pid') if isinstance(record, dict) else None
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return None
    record.setdefault('start', None)
    return record


def _start_time(pid):
    """When pid started, in clock ticks since boot (a string), else None.

    Ticks since boot, as the kernel keeps them, not seconds since the
    epoch: a step of the wall clock (NTP after a suspend, a VM resumed or
    forked) moves psutil's create_time of every process at once, and every
    cloud then looked stopped (a CI run lost its clouds that way).
    """
    try:
        # NOTE: the boot time first: psutil before 6 keeps the one it read
        # last and builds every create_time on it.
        boot = psutil.boot_time()
        since_boot = psutil.Process(pid).create_time() - boot
    except psutil.Error:
        return None
    return str(int(round(since_boot * os.sysconf('SC_CLK_TCK'))))


def _as_epoch(start_time):
    """A pidfile's start time in seconds since the epoch, else None.

    The start is recorded in clock ticks since boot (a string), and made
    into the epoch with the boot time read now, as psutil's create_time
    is: both move together when the wall clock steps. A number is a
    start recorded by an earlier release, in seconds since the epoch.
    """
    if isinstance(start_time, str) and start_time.isdigit():
        return psutil.boot_time() + int(start_time) / os.sysconf(
            'SC_CLK_TCK')
    if isinstance(start_time, (int, float)):
        return start_time
    return None


def _alive(pid, start_time):
    """Whether pid runs (not a zombie) and is the one started then."""
    start_time = _as_epoch(start_time)
    if start_time is None:
        return False
    try:
        proc = psutil.Process(pid)
        return (proc.status() != psutil.STATUS_ZOMBIE and
                abs(proc.create_time() - start_time) < 0.01)
    except psutil.Error:
        return False


def pid_of(state, name):
    """The pid of a running service of this state dir, else None."""
    record = _read_pidfile(state, name)
    if record and _alive(record['pid'], record['start']):
        return record['pid']
    return None


def running(state):
    """Names of the services of this state dir that are running."""
    run_dir = state.path('run')
    if not os.path.isdir(run_dir):
        return []
    names = [n[:-4] for n in os.listdir(run_dir) if n.endswith('.pid')]
    return sorted(n for n in names if pid_of(state, n))


def _group_gone(pgid):
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    # NOTE: a group of zombies still answers signal 0; look for a live one.
    for proc in psutil.process_iter(['status']):
        try:
            if (proc.info['status'] != psutil.STATUS_ZOMBIE and
                    os.getpgid(proc.pid) == pgid):
                return False
        except (OSError, psutil.Error):
            continue
    return True


def _signal_group(pgid, sig):
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass


@contextlib.contextmanager
def short_grace(seconds):
    """Within it, a stop that names no timeout waits only seconds.

    NOTE: for "down", where nobody waits on what the services would
    finish: what is still running after that gets SIGKILL.
    """
    _default_grace.append(seconds)
    try:
        yield
    finally:
        _default_grace.pop()


def stop_many(state, names, timeout=None):
    """Stop services together: SIGTERM all, then SIGKILL what is left.

    timeout: seconds before SIGKILL (default STOP_TIMEOUT, or a
    short_grace's). Returns the names that were running.

    NOTE: not psutil.wait_procs. A service is its process group (uwsgi's
    workers, RabbitMQ's beam), signalled as one; and wait_procs waits
    until a process that is not our child disappears, which a zombie
    never does while its parent does not reap it (PID 1 of a container
    that is no init, as in some CI pods): the whole grace would be waited
    out and then SIGKILL sent to the dead. _group_gone counts zombies as
    gone.
    """
    if timeout is None:
        timeout = _default_grace[-1]
    records = {}
    for name in names:
        record = _read_pidfile(state, name)
        if record and _alive(record['pid'], record['start']):
            records[name] = record
    _log_cpu(records)
    live = {name: record['pid'] for name, record in records.items()}
    for pgid in live.values():
        _signal_group(pgid, signal.SIGTERM)

    def left():
        remaining = sorted(n for n, pgid in live.items()
                           if not _group_gone(pgid))
        return not remaining, remaining

    try:
        polling.poll(left, timeout=timeout, interval=0.05, max_interval=0.5,
                     what='%s to stop after SIGTERM' % ', '.join(live))
    except polling.PollTimeout as exc:
        for name in exc.last:
            _signal_group(live[name], signal.SIGKILL)
        polling.poll(left, timeout=timeout, interval=0.05,
                     what='%s to die after SIGKILL' % ', '.join(exc.last))
    for name in names:
        _forget(state, name)
    return sorted(live)


def _group_cpu(pid):
    """CPU seconds of pid and its descendants, and of those they reaped."""
    try:
        leader = psutil.Process(pid)
        members = [leader] + leader.children(recursive=True)
    except psutil.Error:
        return None
    total = 0.0
    for member in members:
        try:
            times = member.cpu_times()
        except psutil.Error:
            continue
        total += (times.user + times.system + times.children_user +
                  times.children_system)
    return total


def _log_cpu(records):
    """Append each service's CPU seconds to CPU_LOG_ENV's file.

    records: {name: its pidfile's record} of the live services.
    """
    path = os.environ.get(CPU_LOG_ENV)
    if not path:
        return
    lines = []
    for name, record in sorted(records.items()):
        cpu = _group_cpu(record['pid'])
        if cpu is None:
            continue
        wall = record.get('wall')
        lines.append(json.dumps({
            'service': name, 'cpu': round(cpu, 2),
            'seconds': round(time.time() - wall, 1)
            if isinstance(wall, (int, float)) else None}) + '\n')
    try:
        with open(path, 'a') as f:
            f.write(''.join(lines))
    except OSError:
        # NOTE: a figure for a benchmark; stopping the service matters.
        pass


def _forget(state, name):
    """Remove name's pidfile unless it names a live process; False then.

    NOTE: stop_many calls it once what the pidfile named is gone. A live
    process there now was started (or renamed there) meanwhile by
    another caller, the Kubernetes API server's replacement of a deleted
    pod: unlinking its record would orphan it, and "down" would leave it.
    """
    if not os.path.lexists(_pidfile(state, name)):
        # NOTE: nothing to remove; and stopping names that never ran (a
        # failed up's) makes no run/ nor lock files.
        return True
    with _locked(state, name):
        if pid_of(state, name):
            return False
        try:
            os.unlink(_pidfile(state, name))
        except (FileNotFoundError, IsADirectoryError):
            # NOTE: a folder where a pidfile goes names no process.
            pass
        return True


def stop(state, name, timeout=None):
    """Stop one service; True when it was running."""
    return bool(stop_many(state, [name], timeout))


def last_log_line(state, name, pattern=None):
    """The last meaningful line of a service's log, for error messages."""
    try:
        with open(log_path(state, name), 'rb') as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 65536))
            lines = f.read().decode(errors='replace').splitlines()
    except OSError:
        return ''
    lines = [ln.strip() for ln in lines if ln.strip()]
    if pattern:
        matching = [ln for ln in lines if pattern in ln]
        if matching:
            return matching[-1]
    for line in reversed(lines):
        if 'error' in line.lower() or 'exception' in line.lower():
            return line[:300]
    return lines[-1][:300] if lines else ''


def wait_http(state, name, url, ok_status=(200,), timeout=None,
              verify=False):
    """Poll url until it answers one of ok_status; fail fast if name died.

    verify: requests' verify= for an https url (a CA file or False).
    timeout: seconds; by default what the machine's measured speed gives
    (speed.ready_timeout).
    """
    if timeout is None:
        timeout = speed.ready_timeout(state.record and state.record.speed)
    record = _read_pidfile(state, name)
    seen = {'last': 'no answer yet'}

    def check():
        if record and not _alive(record['pid'], record['start']):
            raise exit_error(state, name, 'answering %s' % url)
        try:
            with warnings.catch_warnings():
                # NOTE: verify=False is a decision (see the callers), not
                # something to warn about on every poll.
                warnings.simplefilter(
                    'ignore', urllib3.exceptions.InsecureRequestWarning)
                resp = requests.get(url, timeout=2, allow_redirects=False,
                                    verify=verify)
        except requests.RequestException as exc:
            seen['last'] = type(exc).__name__
            if isinstance(exc, requests.exceptions.SSLError):
                # NOTE: a certificate problem never goes away by waiting.
                seen['last'] = 'TLS: %s' % exc
            return False, seen['last']
        seen['last'] = 'HTTP %d' % resp.status_code
        return resp.status_code in ok_status, seen['last']

    start_time = time.monotonic()
    try:
        polling.poll(check, timeout=timeout, interval=0.1, max_interval=0.5,
                     what='%s to answer %s' % (name, url),
                     describe=str)
    except polling.PollTimeout as exc:
        raise errors.CloudError('%s (see %s)' % (
            exc, os.path.relpath(log_path(state, name))))
    return time.monotonic() - start_time
