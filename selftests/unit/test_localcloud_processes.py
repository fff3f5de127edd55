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

"""A pidfile's start survives a step of the wall clock; one process per
service name, whoever starts, renames and stops it, from any process."""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import uuid

import fixtures
import psutil
import testtools

from glance_multiapi_cloud import errors
from glance_multiapi_cloud import processes
from glance_multiapi_cloud import record as record_mod
from glance_multiapi_cloud import state as state_mod
from glance_multiapi_kernel import interrupts
from glance_multiapi_kernel import polling

# NOTE: a service that does nothing, for at most ten minutes should a
# test fail to stop it; the marker after it finds it among all processes.
SLEEPER = 'import time\nfor _ in range(600):\n    time.sleep(1)'
# NOTE: a service whose child burns BURN CPU-seconds and is reaped, then
# says so (the file argv[1]) and sleeps.
BURN = 0.3
BURNER = """
import subprocess, sys, time
subprocess.run([sys.executable, '-c', 'import time\\n'
                'end = time.process_time() + %s\\n'
                'while time.process_time() < end:\\n    pass'])
open(sys.argv[1], 'w').close()
for _ in range(600):
    time.sleep(1)
""" % BURN
# NOTE: starts a sleeper as "svc" once the go file exists: two of them
# start at once. Exit 3: refused as already running.
RACER = """
import os, sys
from glance_multiapi_cloud import errors, processes
from glance_multiapi_cloud import record, state
from glance_multiapi_kernel import polling
root, go, marker, sleeper = sys.argv[1:5]
st = state.State(root)
st.record = record.Record.from_json({'spec': {}})
open('%s.ready%d' % (go, os.getpid()), 'w').close()
polling.poll(lambda: os.path.exists(go), what='the go file', timeout=30,
             interval=0.002, max_interval=0.002)
try:
    processes.start(st, 'svc', [sys.executable, '-c', sleeper, marker])
except errors.AlreadyRunning:
    sys.exit(3)
"""
REPO = os.path.dirname(os.path.dirname(os.path.abspath(
    processes.__file__)))


class StartTimeTest(testtools.TestCase):

    def _step_wall_clock(self, seconds):
        # NOTE: what a step does to psutil: the boot time it reads from
        # /proc/stat moves, and every create_time with it. psutil before
        # 6 (5.9.2 in the OpenStack 2023.1 pins) builds create_time on the
        # boot time it read last, kept in _psplatform.BOOT_TIME.
        real = psutil._psplatform.boot_time
        platform = psutil._psplatform

        def stepped():
            value = real() + seconds
            if hasattr(platform, 'BOOT_TIME'):
                platform.BOOT_TIME = value
            return value
        if hasattr(platform, 'BOOT_TIME'):
            self.useFixture(fixtures.MonkeyPatch(
                'psutil._psplatform.BOOT_TIME', platform.BOOT_TIME))
        self.useFixture(fixtures.MonkeyPatch(
            'psutil._psplatform.boot_time', stepped))

    def test_start_is_ticks_since_boot(self):
        start = processes._start_time(os.getpid())
        self.assertTrue(start.isdigit(), start)
        self.assertTrue(processes._alive(os.getpid(), start))

    def test_own_process_still_alive_after_a_clock_step(self):
        start = processes._start_time(os.getpid())
        epoch = psutil.Process(os.getpid()).create_time()
        self._step_wall_clock(3600)
        self.assertTrue(processes._alive(os.getpid(), start))
        # NOTE: a start kept in seconds since the epoch no longer matches:
        # every cloud looked stopped after a VM was resumed.
        self.assertFalse(processes._alive(os.getpid(), epoch))

    def test_other_start_is_not_this_process(self):
        start = int(processes._start_time(os.getpid()))
        self.assertFalse(processes._alive(os.getpid(), str(start + 100)))
        self.assertIsNone(processes._start_time(2 ** 22 + 12345))


class OneProcessPerNameTest(testtools.TestCase):
    """A name's record is never overwritten or removed while it runs.

    Real processes: a heat-engine outlived its cloud after two starts of
    the name at once, one from the CLI and one from the Kubernetes API
    server, and "down" knew only the one recorded last.
    """

    def setUp(self):
        super().setUp()
        root = tempfile.mkdtemp(prefix='gmt-unit-processes-')
        self.addCleanup(shutil.rmtree, root, ignore_errors=True)
        self.state = state_mod.State(root)
        self.state.record = record_mod.Record.from_json({'spec': {}})
        self.marker = 'gmt-unit-sleeper-%s' % uuid.uuid4()
        self.addCleanup(self._kill_left)

    def _argv(self):
        return [sys.executable, '-c', SLEEPER, self.marker]

    def _start(self, name, unless_running=False):
        start = (processes.start_unless_running if unless_running
                 else processes.start)
        proc = start(self.state, name, self._argv())
        if proc:
            # NOTE: our child: reap it once it is stopped.
            self.addCleanup(proc.wait, 10)
            self._wait_listed(proc.pid)
        return proc

    def _wait_listed(self, pid):
        """Wait until pid shows this test's command line.

        NOTE: Popen returns at the exec's point of no return, when the
        close-on-exec pipe closes; Linux fills /proc/PID/cmdline only
        later, once the new program's stack is laid out. Read at once it
        is empty in most runs on this machine, and a loaded CI machine
        can stretch the gap past _mine()'s scan: the sleeper is missed.
        """
        def listed():
            try:
                argv = psutil.Process(pid).cmdline()
            except psutil.NoSuchProcess:
                argv = 'gone'
            return self.marker in argv, argv
        polling.poll(listed, timeout=10, interval=0.005,
                     what='sleeper %d to show its command line' % pid)

    def _mine(self):
        """pids of the live (not zombie) sleepers of this test."""
        pids = []
        for proc in psutil.process_iter(['cmdline', 'status']):
            if (proc.info['status'] != psutil.STATUS_ZOMBIE and
                    self.marker in (proc.info['cmdline'] or ())):
                pids.append(proc.pid)
        return sorted(pids)

    def _kill_left(self):
        for pid in self._mine():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def _assert_none_left(self):
        polling.poll(lambda: (not self._mine(), self._mine()), timeout=10,
                     interval=0.05, what='no sleeper of the test left')

    def test_second_start_of_a_running_name_is_refused(self):
        first = self._start('svc')
        exc = self.assertRaises(errors.AlreadyRunning, self._start, 'svc')
        self.assertIn('svc already runs (pid %d)' % first.pid, str(exc))
        self.assertEqual([first.pid], self._mine())
        self.assertEqual(first.pid, processes.pid_of(self.state, 'svc'))
        self.assertEqual(['svc'], processes.stop_many(self.state, ['svc']))
        self._assert_none_left()

    def test_stop_logs_the_cpu_of_the_service_and_what_it_reaped(self):
        log = os.path.join(self.state.root, 'cpu.jsonl')
        burnt = os.path.join(self.state.root, 'burnt')
        self.useFixture(fixtures.EnvironmentVariable(processes.CPU_LOG_ENV,
                                                     log))
        proc = processes.start(self.state, 'svc', [
            sys.executable, '-c', BURNER, burnt, self.marker])
        self.addCleanup(proc.wait, 10)
        polling.poll(lambda: (os.path.exists(burnt), None), timeout=60,
                     interval=0.05, what='the service to burn its CPU')
        self.assertEqual(['svc'], processes.stop_many(self.state, ['svc']))
        with open(log) as f:
            lines = [json.loads(line) for line in f]
        self.assertEqual(['svc'], [line['service'] for line in lines])
        self.assertGreaterEqual(lines[0]['cpu'], BURN)
        self.assertGreaterEqual(lines[0]['seconds'], 0)
        # NOTE: unset, nothing is written.
        self.useFixture(fixtures.EnvironmentVariable(processes.CPU_LOG_ENV))
        again = self._start('svc')
        processes.stop_many(self.state, ['svc'])
        again.wait(10)
        with open(log) as f:
            self.assertEqual(1, len(f.readlines()))
        self._assert_none_left()

    def test_signal_inside_the_start_leaves_a_record_down_can_stop(self):
        # NOTE: SIGTERM lands while Popen returns, after the fork: it is
        # raised once the pidfile names the service.
        self.addCleanup(interrupts.restore, interrupts.install())
        real_init = subprocess.Popen.__init__

        def init(popen, *args, **kwargs):
            real_init(popen, *args, **kwargs)
            self.addCleanup(popen.wait, 10)
            os.kill(os.getpid(), signal.SIGTERM)
        self.useFixture(fixtures.MonkeyPatch('subprocess.Popen.__init__',
                                             init))
        self.assertRaises(interrupts.Terminated, self._start, 'svc')
        started = processes.pid_of(self.state, 'svc')
        self._wait_listed(started)
        self.assertEqual([started], self._mine())
        self.assertEqual(['svc'], processes.stop_many(self.state, ['svc']))
        self._assert_none_left()

    def test_a_sleeper_is_listed_once_waited_for(self):
        # NOTE: what _start waits for, after a bare Popen, where a read of
        # /proc right away often finds no argv (without the wait, this
        # test failed 6 runs out of 6 on a quiet machine).
        for _ in range(10):
            proc = subprocess.Popen(self._argv(), start_new_session=True)
            self.addCleanup(proc.wait, 10)
            self.addCleanup(proc.kill)
            self._wait_listed(proc.pid)
            with open('/proc/%d/cmdline' % proc.pid, 'rb') as f:
                self.assertIn(self.marker.encode(), f.read())
            self.assertIn(proc.pid, self._mine())

    def test_start_unless_running_starts_one(self):
        first = self._start('svc', unless_running=True)
        self.assertIsNone(self._start('svc', unless_running=True))
        self.assertEqual([first.pid], self._mine())
        processes.stop(self.state, 'svc')
        # NOTE: a record of a process that ended is no obstacle.
        again = self._start('svc', unless_running=True)
        self.assertEqual([again.pid], self._mine())
        processes.stop(self.state, 'svc')
        self._assert_none_left()

    def test_stop_keeps_the_record_of_a_process_started_meanwhile(self):
        old = self._start('svc')
        newer = []
        real_signal = processes._signal_group

        def signal_then_replace(pgid, sig):
            real_signal(pgid, sig)
            if sig == signal.SIGTERM and not newer:
                # NOTE: what the Kubernetes API server does on a pod delete
                # while the CLI stops the engine: rename it, start another.
                processes.rename(self.state, 'svc', 'svc~old')
                newer.append(self._start('svc'))
        self.useFixture(fixtures.MonkeyPatch(
            'glance_multiapi_cloud.processes._signal_group',
            signal_then_replace))
        self.assertEqual(['svc'], processes.stop_many(self.state, ['svc']))
        self.assertEqual(newer[0].pid, processes.pid_of(self.state, 'svc'))
        self.assertEqual([newer[0].pid], self._mine())
        self.assertNotIn(old.pid, self._mine())
        self.useFixture(fixtures.MonkeyPatch(
            'glance_multiapi_cloud.processes._signal_group', real_signal))
        processes.stop_many(self.state, ['svc', 'svc~old'])
        self._assert_none_left()
        self.assertEqual([], processes.running(self.state))

    def test_forget_removes_only_a_record_of_no_live_process(self):
        proc = self._start('svc')
        self.assertFalse(processes._forget(self.state, 'svc'))
        self.assertEqual(proc.pid, processes.pid_of(self.state, 'svc'))
        processes.stop(self.state, 'svc')
        self.assertTrue(processes._forget(self.state, 'svc'))
        self.assertFalse(os.path.exists(processes._pidfile(self.state,
                                                           'svc')))

    def test_stopping_what_never_ran_makes_nothing(self):
        self.assertEqual([], processes.stop_many(self.state, ['a', 'b']))
        self.assertEqual([], os.listdir(self.state.root))

    def test_rename(self):
        proc = self._start('svc')
        other = self._start('other')
        self.assertRaises(errors.AlreadyRunning, processes.rename,
                          self.state, 'svc', 'other')
        self.assertEqual(proc.pid, processes.pid_of(self.state, 'svc'))
        self.assertEqual(proc.pid, processes.rename(self.state, 'svc',
                                                    'svc~old'))
        self.assertIsNone(processes.pid_of(self.state, 'svc'))
        self.assertEqual(proc.pid, processes.pid_of(self.state, 'svc~old'))
        self.assertIsNone(processes.rename(self.state, 'svc', 'svc~again'))
        self.assertEqual(['other', 'svc~old'], processes.running(self.state))
        processes.stop_many(self.state, ['svc~old', 'other'])
        self.assertNotIn(other.pid, self._mine())
        self._assert_none_left()

    def test_starts_from_two_processes_at_once_make_one(self):
        env = dict(os.environ, PYTHONPATH=REPO)
        for round_ in range(3):
            go = os.path.join(self.state.root, 'go%d' % round_)
            racers = [subprocess.Popen(
                [sys.executable, '-c', RACER, self.state.root, go,
                 self.marker, SLEEPER], env=env, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE) for _ in range(2)]
            for racer in racers:
                self.addCleanup(racer.wait, 30)
            # NOTE: go once both wait for it, imports done.
            polling.poll(lambda: all(
                os.path.exists('%s.ready%d' % (go, r.pid)) or r.poll()
                is not None for r in racers), timeout=30, interval=0.02,
                what='both racers to wait for the go file')
            open(go, 'w').close()
            codes = sorted(r.wait(60) for r in racers)
            errs = [r.stderr.read().decode() for r in racers]
            for r in racers:
                r.stdout.close()
                r.stderr.close()
            self.assertEqual([0, 3], codes, errs)
            pid = processes.pid_of(self.state, 'svc')
            self.assertEqual([pid], self._mine())
            self.assertEqual(['svc'], processes.stop_many(self.state,
                                                          ['svc']))
            self._assert_none_left()
