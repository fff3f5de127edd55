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

"""Run a console script on bad input and check how it refuses it.

Each row of a bad-input table (selftests/unit/test_cli_bad_input_*.py)
names the arguments, with placeholders for the bad files BadInputCase
makes, the documented exit code and words the one line on stderr must
hold. The script runs as a real subprocess of the venv's console script,
in a folder of its own (HOME, TMPDIR and the working directory in it),
and the case checks that it left nothing behind: no file changed or
added there, no process still running that names that folder.

"Unreadable" rows: root reads a file of mode 000 all the same, through
its capabilities CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH. When the tests
run as root, those rows drop both from the child's capability bounding
set before it executes the script: it is still root, owns the file, and
is refused it like any owner of a mode-000 file. (Running it as another
user instead is no option: the venv's interpreter may live under root's
home, which nobody else may enter.)
"""

import configparser
import ctypes
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

import testtools

from selftests import trickle

BIN = os.path.dirname(sys.executable)
REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), '..'))
TIMEOUT = 60
# NOTE: max_seconds is of CPU; the wall clock may take this many times
# that, less the time the kernel kept the script waiting for a CPU
# (run_measured): a FIFO waited on would take TIMEOUT.
WALL_FACTOR = 4
# NOTE: linux/prctl.h and linux/capability.h.
PR_CAPBSET_DROP = 24
CAP_DAC_OVERRIDE = 1
CAP_DAC_READ_SEARCH = 2
BINARY = b'\x7fELF\x02\x01\x01\x00' + bytes(range(256)) * 2
# NOTE: 1,001 levels: past what libyaml (1,000), PyYAML and json nest.
NESTED = '[' * 1001 + '\n'
# NOTE: "billion laughs": nine anchors of nine aliases each, 10^9 nodes
# once expanded, under a key a parser does not look into.
ALIAS_BOMB = 'lol0: &a0 [%s]\n%s' % (', '.join(['lol'] * 9), ''.join(
    'lol%d: &a%d [%s]\n' % (level, level, ', '.join(
        ['*a%d' % (level - 1)] * 9)) for level in range(1, 9)))
DUPLICATE_KEYS = 'a: 1\nb: 2\na: 3\n'
# NOTE: bigger than any input may be; sparse, so it costs no disk.
HUGE = 50 * 1024 * 1024
# NOTE: what every row may point at, made fresh for each test ({zero}
# is /dev/zero; {fifo} a FIFO nobody writes to; {huge} a file of HUGE
# bytes).
FILES = {
    'binary': BINARY, 'empty': b'', 'nested': NESTED.encode(),
    'afile': b'not a folder\n', 'unreadable': b'x: 1\n',
    'bomb': ALIAS_BOMB.encode(), 'dupkeys': DUPLICATE_KEYS.encode(),
}


class Fifo(object):
    """A files entry: make a FIFO there (nobody ever writes to it)."""


class Sparse(object):
    """A files entry: a sparse file of size bytes."""

    def __init__(self, size):
        self.size = size


def _drop_file_capabilities():
    """In the child: root keeps no way around file permissions."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), 'prctl(PR_CAPBSET_DROP)')


def children_cpu():
    """CPU seconds (user + system) of the children waited for so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_delay(pid):
    """Seconds the process pid has waited on a run queue; 0 if unknown.

    The second field of /proc/PID/schedstat (Linux, CONFIG_SCHED_INFO),
    in nanoseconds: time it was ready to run while other tasks held the
    CPUs. Of its main thread only, so a script's other threads add none:
    what is left of the wall clock is, if anything, too much.
    """
    try:
        with open('/proc/%d/schedstat' % pid) as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


def run_measured(argv, timeout, **popen_args):
    """subprocess.run(argv, capture_output, text); (proc, run_delay).

    As subprocess.run with a timeout (TimeoutExpired when it passes, the
    script killed), and how long the script waited for a CPU
    (run_delay()), read between its exit and its reaping: the time a
    loaded machine adds to its wall clock, which a wait on a FIFO or a
    sleep is not.
    """
    with subprocess.Popen(argv, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True,
                          errors='replace', **popen_args) as proc:
        deadline = time.monotonic() + timeout
        output = {}
        readers = [threading.Thread(
            target=lambda name, stream: output.update({name: stream.read()}),
            args=item, daemon=True) for item in (('stdout', proc.stdout),
                                                 ('stderr', proc.stderr))]
        for reader in readers:
            reader.start()
        expired = threading.Event()
        killer = threading.Timer(timeout, lambda: (expired.set(),
                                                   proc.kill()))
        killer.start()
        try:
            # NOTE: WNOWAIT leaves it a zombie: its pid and schedstat
            # stay until proc.wait() reaps it.
            os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
            delay = run_delay(proc.pid)
        finally:
            killer.cancel()
            proc.wait()
        for reader in readers:
            reader.join(max(0.0, deadline - time.monotonic()))
        if expired.is_set() or any(r.is_alive() for r in readers):
            # NOTE: a child of the script may still hold the pipes.
            raise subprocess.TimeoutExpired(argv, timeout,
                                            output.get('stdout'),
                                            output.get('stderr'))
    return (subprocess.CompletedProcess(argv, proc.returncode,
                                        output['stdout'], output['stderr']),
            delay)


def console_scripts():
    """{script: 'module:function'} of setup.cfg's entry points."""
    parser = configparser.ConfigParser()
    parser.read(os.path.join(REPO, 'setup.cfg'))
    found = {}
    for line in parser['entry_points']['console_scripts'].splitlines():
        name, sep, target = line.partition('=')
        if sep:
            found[name.strip()] = target.strip()
    return found


def _tree(root):
    """{relative path: (mode, size, mtime)} of every entry under root."""
    found = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            found[os.path.relpath(path, root)] = (
                info.st_mode, info.st_size if not os.path.isdir(path)
                else None, info.st_mtime_ns if os.path.isfile(path)
                else None)
    return found


def processes_naming(text):
    """Pids (not ours) whose command line or environment holds text."""
    found = []
    needle = text.encode()
    for entry in os.listdir('/proc'):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        for name in ('cmdline', 'environ'):
            try:
                with open('/proc/%s/%s' % (entry, name), 'rb') as f:
                    if needle in f.read():
                        found.append(int(entry))
                        break
            except OSError:
                pass
    return found


def disable_entry_point_cache(home):
    """No stevedore cache of entry points in home: the run writes none.

    NOTE: openstacksdk and oslo.config load their plugins through
    stevedore, which caches what it scanned in ~/.cache on any run; its
    documented switch is a .disable file in that folder.
    """
    folder = os.path.join(home, '.cache', 'python-entrypoints')
    os.makedirs(folder, exist_ok=True)
    open(os.path.join(folder, '.disable'), 'w').close()


class ScriptCase(testtools.TestCase):
    """Runs ``script`` as a subprocess in a work folder of its own.

    The folder holds the placeholders' files (see BadInputCase), and
    HOME, TMPDIR and the working directory of the script.
    """

    script = None
    # NOTE: True keeps the real HOME, for the caches the cloud keeps there
    # on purpose (~/.cache/glance-multiapi-cloud, a bootstrapped keystone
    # reused by every cloud): made once per machine, not left behind.
    real_home = False
    extra_files = {}
    env = {}
    files = {}
    modes = {}
    unreadable = False
    server = None
    max_wall = None
    cwd_gone = False
    needles = ()
    stdout_needles = ()
    # NOTE: set on the rows of input that must never be read at length
    # (a FIFO, /dev/zero, a huge file, an alias bomb): answered at once.
    max_seconds = None

    def setUp(self):
        super().setUp()
        self.work = tempfile.mkdtemp(prefix='gmt-bad-input-')
        self.addCleanup(shutil.rmtree, self.work, ignore_errors=True)
        self.paths = {'work': self.work, 'zero': '/dev/zero'}
        for name, data in dict(FILES, fifo=Fifo(), huge=Sparse(HUGE),
                               **self.extra_files).items():
            self.paths[name] = self._write(name, data)
        self.paths['port'] = str(self.hold_port())
        if self.server:
            self.paths['server'] = trickle.serve(self, self.server).url
        for name, data in self.files.items():
            if isinstance(data, str):
                data = data.format(**self.paths).encode()
            self._write(name, data)
        self.paths['dir'] = os.path.join(self.work, 'a-dir')
        os.mkdir(self.paths['dir'])
        self.paths['missing'] = os.path.join(self.work, 'missing')
        self.paths['loop'] = os.path.join(self.work, 'loop')
        os.symlink(self.paths['loop'], self.paths['loop'])
        os.chmod(self.paths['unreadable'], 0)
        for name, mode in self.modes.items():
            os.chmod(os.path.join(self.work, name), mode)
        for name in ('home', 'tmp', 'cwd'):
            os.mkdir(os.path.join(self.work, name))
        disable_entry_point_cache(os.path.join(self.work, 'home'))

    def _write(self, name, data):
        path = os.path.join(self.work, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if isinstance(data, Fifo):
            os.mkfifo(path)
            return path
        with open(path, 'wb') as f:
            if isinstance(data, Sparse):
                f.truncate(data.size)
            else:
                f.write(data)
        return path

    def hold_port(self):
        """A loopback port held by a listener that never answers."""
        sock = socket.socket()
        self.addCleanup(sock.close)
        sock.bind(('127.0.0.1', 0))
        sock.listen(1)
        return sock.getsockname()[1]

    def _preexec(self):
        if self.unreadable and os.geteuid() == 0:
            return _drop_file_capabilities
        if self.cwd_gone:
            # NOTE: in the child, once it entered its working folder.
            return lambda: os.rmdir(os.getcwd())
        return None

    def _cwd(self):
        if not self.cwd_gone:
            return os.path.join(self.work, 'cwd')
        # NOTE: outside the work folder, whose entries are compared.
        gone = tempfile.mkdtemp(prefix='gmt-gone-')
        self.addCleanup(shutil.rmtree, gone, ignore_errors=True)
        return gone

    def run_script(self, argv, env=None):
        """The script's CompletedProcess; run_script_measured's first."""
        return self.run_script_measured(argv, env)[0]

    def run_script_measured(self, argv, env=None):
        """(CompletedProcess, seconds it waited for a CPU): run_measured.

        The script runs in the work folder's HOME, TMPDIR and working
        folder, with only PATH and LANG of this environment, and env.
        """
        env = dict(env or {})
        home = os.path.join(self.work, 'home')
        if self.real_home:
            home = os.path.expanduser('~')
        full_env = {'PATH': os.environ.get('PATH', '/usr/bin:/bin'),
                    'HOME': home,
                    'TMPDIR': os.path.join(self.work, 'tmp'),
                    'LANG': 'C.UTF-8'}
        full_env.update(env)
        return run_measured(
            [os.path.join(BIN, self.script)] + argv, TIMEOUT, env=full_env,
            cwd=self._cwd(), preexec_fn=self._preexec())

    def fill(self, value):
        return value.format(**self.paths)


class BadInputCase(ScriptCase):
    """One row: run the script on bad input; one line, code, no trace.

    Subclasses set ``script`` and ``scenarios`` (testscenarios); a row
    has ``argv`` (placeholders {binary}, {empty}, {nested}, {afile},
    {unreadable}, {bomb}, {dupkeys}, {fifo}, {zero}, {huge}, {dir},
    {missing}, {loop}, {work} and those of ``extra_files``), ``code``,
    ``needles`` and optionally ``env``, ``files`` ({name: bytes, text
    with the placeholders, Fifo() or Sparse(size)} written into the work
    folder first; ``{port}`` is a loopback port held by a listener that
    never answers), ``modes`` ({name: mode} set on them),
    ``unreadable`` (run without root's file capabilities when root),
    ``max_seconds`` (the most CPU seconds the script may take),
    ``server`` (a mode of selftests/trickle.py: ``{server}`` is then the
    base URL of a real loopback server answering that way) and
    ``max_wall`` (the most wall-clock seconds: a deadline the script must
    keep against that server), ``stdout_needles`` (words its stdout
    must hold, e.g. the doctor's row of the check that failed) and
    ``cwd_gone`` (the script starts in a working folder deleted under
    it, as a shell left in a folder another process removed).
    """

    def test_refused_in_one_line(self):
        argv = [self.fill(arg) for arg in self.argv]
        env = {k: self.fill(v) for k, v in self.env.items()}
        before = _tree(self.work)
        started = time.monotonic()
        cpu = children_cpu()
        proc, delay = self.run_script_measured(argv, env)
        took = time.monotonic() - started
        cpu = children_cpu() - cpu
        shown = 'exit %d in %.1f s (%.1f s of them waiting for a CPU, ' \
            '%.1f CPU-s)\nstdout: %s\nstderr: %s' % (
                proc.returncode, took, delay, cpu, proc.stdout[-2000:],
                proc.stderr[-2000:])
        self.assertNotIn('Traceback', proc.stderr + proc.stdout, shown)
        self.assertEqual(self.code, proc.returncode, shown)
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(1, len(lines), shown)
        for needle in self.needles:
            self.assertIn(self.fill(needle), lines[0], shown)
        for needle in self.stdout_needles:
            self.assertIn(self.fill(needle), proc.stdout, shown)
        self.assertEqual(before, _tree(self.work), 'files left behind')
        if self.max_seconds is not None:
            # NOTE: CPU seconds, which a shared machine's load does not
            # stretch: reading /dev/zero or expanding aliases costs them;
            # a wait on a FIFO costs none but the wall clock, which is
            # bounded loosely for the same reason, and without the time
            # other processes kept the script from a CPU (26.9 s of a
            # 1 CPU-s refusal in one run beside the functional stage).
            self.assertLess(cpu, self.max_seconds, shown)
            self.assertLess(took - delay, self.max_seconds * WALL_FACTOR,
                            shown)
        if self.max_wall is not None:
            self.assertLess(took, self.max_wall, shown)
        self.assertEqual([], processes_naming(self.work),
                         'processes left behind')
