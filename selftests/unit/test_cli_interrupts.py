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

"""SIGINT and SIGTERM end each of the five console scripts cleanly.

One row per script and signal: the real console script runs until it
waits on something that never comes (a loopback server that never
answers, a discovery or version command that sleeps, the state dir's
lock another process holds), then gets the signal. It must exit 130
(SIGINT) or 143 (SIGTERM) with one line on stderr and no traceback,
leave no file (no OUT_DIR, no half-written report) and no process behind
(the command it ran is killed with its process group).
"""

import fcntl
import json
import os
import shutil
import signal
import subprocess
import tempfile

import testscenarios
import testtools

from glance_multiapi_kernel import polling
from selftests import cli_runs
from selftests import trickle
from selftests.unit import cloud_records
from selftests.unit import test_cli_bad_input_tools as tools

load_tests = testscenarios.load_tests_apply_scenarios

# NOTE: how long a script may take to reach its wait (imports included,
# on a shared machine), and to end once signalled.
READY_TIMEOUT = 60
END_TIMEOUT = 20
MARKER = 'gmt-interrupt-marker'
SIGNALS = (('sigint', signal.SIGINT, 130, 'interrupted'),
           ('sigterm', signal.SIGTERM, 143, 'terminated'))
SCRIPTS = ('report', 'image_check', 'doctor', 'uploader', 'cloud')


class TestInterrupted(testscenarios.WithScenarios, testtools.TestCase):

    scenarios = [
        ('%s_%s' % (script, name), dict(
            which=script, signum=signum, code=code, words=words))
        for script in SCRIPTS for name, signum, code, words in SIGNALS]

    def setUp(self):
        super().setUp()
        self.work = tempfile.mkdtemp(prefix='gmt-interrupt-')
        self.addCleanup(shutil.rmtree, self.work, ignore_errors=True)
        for name in ('home', 'tmp', 'cwd'):
            os.mkdir(os.path.join(self.work, name))
        cli_runs.disable_entry_point_cache(os.path.join(self.work, 'home'))
        self.proc = None
        self.marker = '%s-%d-%s' % (MARKER, os.getpid(), id(self))
        getattr(self, '_setup_' + self.which)()

    # -- each script, up to the point where it waits ----------------------
    def _write_work(self, name, data):
        path = os.path.join(self.work, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as f:
            f.write(data if isinstance(data, bytes) else data.encode())
        return path

    def _silent(self):
        server = trickle.serve(self, 'silent')
        self.ready = lambda: (bool(server.requests), server.requests)
        return server

    def _sleeper(self):
        command = 'sleep 600; echo %s' % self.marker
        self.ready = lambda: self._children()
        return command

    def _children(self):
        found = [pid for pid in cli_runs.processes_naming(self.marker)
                 if self.proc is None or pid != self.proc.pid]
        return bool(found), found

    def _setup_report(self):
        self.script = 'glance-multiapi-report'
        self._write_work(tools.RECORDS, tools.RECORD)
        server = self._silent()
        self.argv = [os.path.join(self.work, 'results'),
                     os.path.join(self.work, 'out'),
                     '--baseline', server.url + '/metrics.json']

    def _setup_image_check(self):
        self.script = 'glance-multiapi-image-check'
        mappings = self._write_work('mappings.yaml', tools.MAPPING)
        self.argv = ['--mappings', mappings, '--version-command',
                     self._sleeper()]

    def _setup_doctor(self):
        self.script = 'glance-multiapi-doctor'
        conf = self._write_work('t.conf', '[glance_multiapi]\n'
                                'discovery_command = %s\n' % self._sleeper())
        self.argv = ['--config-file', conf, '--output-file',
                     os.path.join(self.work, 'report.json'), '-o', 'json']

    def _setup_uploader(self):
        self.script = 'glance-image-uploader'
        server = self._silent()
        images = self._write_work('images.yaml', tools.IMAGES)
        clouds = self._write_work('clouds.yaml', json.dumps({'clouds': {
            'demo': {'auth': {
                'auth_url': server.url + '/v3', 'username': 'u',
                'password': 'p', 'project_name': 'x',
                'user_domain_name': 'Default',
                'project_domain_name': 'Default'},
                'identity_api_version': 3}}}))
        self.argv = ['--images-info', images, '--os-cloud', 'demo',
                     '--os-client-config-file', clouds]

    def _setup_cloud(self):
        self.script = 'glance-multiapi-cloud'
        root = os.path.join(self.work, 'cloud')
        os.mkdir(root, 0o700)
        self._write_work('cloud/state.json',
                         json.dumps(cloud_records.state_json()))
        lock = open(os.path.join(root, '.lock'), 'w')
        self.addCleanup(lock.close)
        fcntl.flock(lock, fcntl.LOCK_EX)
        inode = os.fstat(lock.fileno()).st_ino
        self.ready = lambda: self._waits_on_lock(inode)
        self.argv = ['down', '--state-dir', root]

    @staticmethod
    def _waits_on_lock(inode):
        # NOTE: /proc/locks lists a blocked waiter as "N: -> FLOCK ...",
        # with the device and inode of the file.
        with open('/proc/locks') as f:
            lines = [line for line in f if '->' in line and
                     line.split()[-3].endswith(':%d' % inode)]
        return bool(lines), lines

    # -- the run ----------------------------------------------------------
    def _tree(self):
        # NOTE: the lock file's times change as it is opened.
        return {path: entry for path, entry in cli_runs._tree(
            self.work).items() if not path.endswith('.lock')}

    def test_ends_in_one_line(self):
        """Signalled while it waits: one line, 130 or 143, nothing left."""
        before = self._tree()
        self.proc = subprocess.Popen(
            [os.path.join(cli_runs.BIN, self.script)] + self.argv,
            env={'PATH': os.environ.get('PATH', '/usr/bin:/bin'),
                 'HOME': os.path.join(self.work, 'home'),
                 'TMPDIR': os.path.join(self.work, 'tmp'),
                 'LANG': 'C.UTF-8'},
            cwd=os.path.join(self.work, 'cwd'), stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, errors='replace')
        self.addCleanup(self._kill)
        polling.poll(self._ready_or_ended,
                     what='%s to wait on what never comes' % self.script,
                     timeout=READY_TIMEOUT, interval=0.05)
        self.assertIsNone(self.proc.poll(), 'it ended before the signal')
        self.proc.send_signal(self.signum)
        out, err = self.proc.communicate(timeout=END_TIMEOUT)
        shown = 'exit %d\nstdout: %s\nstderr: %s' % (
            self.proc.returncode, out[-2000:], err[-2000:])
        self.assertNotIn('Traceback', out + err, shown)
        self.assertEqual(self.code, self.proc.returncode, shown)
        lines = err.strip().splitlines()
        self.assertEqual(1, len(lines), shown)
        self.assertIn(self.words, lines[0], shown)
        self.assertEqual(before, self._tree(), 'files left behind')
        polling.poll(lambda: (not self._children()[0],
                              self._children()[1]),
                     what='the processes it started to end',
                     timeout=END_TIMEOUT, interval=0.05)

    def _ready_or_ended(self):
        if self.proc.poll() is not None:
            return True, 'ended with %s' % self.proc.returncode
        return self.ready()

    def _kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate(timeout=END_TIMEOUT)
        for pid in self._children()[1]:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass


# NOTE: the real main() in a process of its own, whose file writes send
# it SIGTERM half way: the signal arrives while the file is half written.
_SIGNAL_IN_WRITE = '''
import builtins, io, os, signal, sys
real_fdopen = os.fdopen


class Writer(io.TextIOWrapper):
    def write(self, text):
        super().write(text[:len(text) // 2])
        self.flush()
        os.kill(os.getpid(), signal.SIGTERM)
        return super().write(text[len(text) // 2:])


def fdopen(fd, mode='r', *args, **kwargs):
    if 'w' in mode:
        return Writer(real_fdopen(fd, 'wb'), encoding='utf-8')
    return real_fdopen(fd, mode, *args, **kwargs)


os.fdopen = fdopen
module = __import__(sys.argv[1], fromlist=['main'])
sys.exit(module.main(sys.argv[2:]))
'''


# NOTE: the real main() again, whose subprocess.Popen sends it SIGTERM
# once the command named sys.argv[2] has started and before Popen has
# returned: under load a signal lands there, after the fork and before
# the caller holds the process to kill.
_SIGNAL_IN_START = '''
import os, signal, subprocess, sys
real_init = subprocess.Popen.__init__


def init(self, args, *more, **kwargs):
    real_init(self, args, *more, **kwargs)
    if sys.argv[2] in str(args):
        os.kill(os.getpid(), signal.SIGTERM)


subprocess.Popen.__init__ = init
module = __import__(sys.argv[1], fromlist=['main'])
sys.exit(module.main(sys.argv[3:]))
'''


class TestSignalDuringWrite(testtools.TestCase):
    """SIGTERM while a report is half written: no file is left half."""

    def setUp(self):
        super().setUp()
        self.work = tempfile.mkdtemp(prefix='gmt-interrupt-')
        self.addCleanup(shutil.rmtree, self.work, ignore_errors=True)

    def _run(self, module, argv, script=_SIGNAL_IN_WRITE):
        proc = subprocess.run(
            [os.path.join(cli_runs.BIN, 'python'), '-c', script,
             module] + argv, capture_output=True, text=True,
            timeout=READY_TIMEOUT, cwd=self.work)
        shown = 'exit %d\nstdout: %s\nstderr: %s' % (
            proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
        self.assertNotIn('Traceback', proc.stdout + proc.stderr, shown)
        self.assertEqual(143, proc.returncode, shown)
        self.assertEqual(1, len(proc.stderr.strip().splitlines()), shown)
        self.assertIn('terminated (SIGTERM)', proc.stderr, shown)

    def test_report_leaves_no_temporary_file(self):
        records = os.path.join(self.work, tools.RECORDS)
        os.makedirs(os.path.dirname(records))
        with open(records, 'wb') as f:
            f.write(tools.RECORD)
        out = os.path.join(self.work, 'out')
        self._run('glance_multiapi_tests.results.cli',
                  [os.path.join(self.work, 'results'), out, '-q'])
        self.assertEqual([], [name for name in os.listdir(out)
                              if name.startswith('.')])

    def test_doctor_output_file_is_never_half_written(self):
        conf = os.path.join(self.work, 't.conf')
        with open(conf, 'w') as f:
            f.write('[glance_multiapi]\n')
        self._run('glance_multiapi_tests.doctor.cli',
                  ['--config-file', conf, '--output-file',
                   os.path.join(self.work, 'out', 'report.json'),
                   '-o', 'json', '--keystone-timeout', '1'])
        self.assertEqual([], os.listdir(os.path.join(self.work, 'out')))

    def test_command_started_as_the_signal_lands_is_killed(self):
        marker = '%s-%d-%s' % (MARKER, os.getpid(), id(self))
        self.addCleanup(_kill_naming, marker)
        mappings = os.path.join(self.work, 'mappings.yaml')
        with open(mappings, 'wb') as f:
            f.write(tools.MAPPING)
        self._run('glance_multiapi_tests.imagecheck.cli',
                  [marker, '--mappings', mappings, '--version-command',
                   'sleep 600; echo %s' % marker], script=_SIGNAL_IN_START)
        polling.poll(lambda: (not cli_runs.processes_naming(marker),
                              cli_runs.processes_naming(marker)),
                     what='the version command to be killed',
                     timeout=END_TIMEOUT, interval=0.05)


def _kill_naming(marker):
    for pid in cli_runs.processes_naming(marker):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
