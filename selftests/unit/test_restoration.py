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

"""The restoration guard: undo once, on a signal, when the parent dies.

The signal cases run a real worker-like process (a child Python that
holds a pending change) and signal it as a CI runner would; the cloud
cases are in selftests/functional/test_restoration.py.
"""

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time

import testtools

from glance_multiapi_kernel import polling
from glance_multiapi_tests.tests import restoration

# NOTE: a stand-in for a worker: one pending change whose undo writes a
# file, then a long wait that only a signal ends.
WORKER = textwrap.dedent('''
    import sys, time
    from glance_multiapi_tests.tests import restoration
    done = sys.argv[1]
    def undo():
        with open(done, 'w') as f:
            f.write('undone')
    restoration._pending.append(restoration.Change(
        'the test change', undo, lambda: 'fix-it-by-hand'))
    restoration._install()
    try:
        # NOTE: inside the try: the signal may come as soon as this says
        # it is ready.
        open(done + '.ready', 'w').close()
        print('ready', flush=True)
        time.sleep(60)
    except restoration.Terminated as exc:
        with open(done + '.msg', 'w') as f:
            f.write(str(exc))
        restoration._exit_if_signalled()
    sys.exit(9)
''')


class ChangeTest(testtools.TestCase):

    def test_undo_runs_once(self):
        calls = []
        change = restoration.Change('x', lambda: calls.append(1),
                                    lambda: 'cmd')
        change.undo()
        change.undo()
        self.assertEqual([1], calls)

    def test_failed_undo_names_the_command_by_hand(self):
        def undo():
            raise AssertionError('patch refused: 403\nForbidden')
        change = restoration.Change('the switch of keystoneEndpoint from '
                                    'api0 to api1', undo,
                                    lambda: "oc patch x -p '{}'")
        exc = self.assertRaises(restoration.RestoreError, change.undo)
        self.assertEqual(
            'undoing the switch of keystoneEndpoint from api0 to api1 '
            'failed: AssertionError: patch refused: 403 Forbidden; the '
            'deployment is still changed: restore it by hand with: oc '
            "patch x -p '{}'", str(exc))
        # NOTE: not retried by a later path (handler, then cleanup).
        change.undo()

    def test_a_broken_by_hand_text_still_gives_a_message(self):
        def undo():
            raise ValueError('down')

        def by_hand():
            raise KeyError('name')
        change = restoration.Change('c', undo, by_hand)
        exc = self.assertRaises(restoration.RestoreError, change.undo)
        self.assertIn("by hand with: unknown (KeyError: 'name')", str(exc))


class AncestorsTest(testtools.TestCase):

    def test_parent_of_this_process(self):
        self.assertEqual(os.getppid(), restoration.parent_of(os.getpid()))

    def test_gone_process_has_no_parent(self):
        proc = subprocess.Popen(['true'])
        proc.wait()
        self.assertIsNone(restoration.parent_of(proc.pid))


class SignalTest(testtools.TestCase):
    """A worker with a pending change, signalled from outside."""

    def setUp(self):
        super().setUp()
        self.folder = tempfile.mkdtemp(prefix='gmt-restore-')
        self.addCleanup(lambda: subprocess.run(['rm', '-rf', self.folder]))
        self.done = os.path.join(self.folder, 'done')

    def start(self, argv_prefix=()):
        proc = subprocess.Popen(
            list(argv_prefix) + [sys.executable, '-c', WORKER, self.done],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            start_new_session=True)
        self.addCleanup(self._kill, proc)
        self.assertEqual('ready', proc.stdout.readline().strip(),
                         proc.stderr.read() if proc.poll() else '')
        return proc

    @staticmethod
    def _kill(proc):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=30)
        proc.stdout.close()
        proc.stderr.close()

    def read(self, suffix=''):
        with open(self.done + suffix) as f:
            return f.read()

    def test_sigterm_undoes_then_ends_with_sigterm(self):
        proc = self.start()
        proc.send_signal(signal.SIGTERM)
        self.assertEqual(-signal.SIGTERM, proc.wait(timeout=30))
        self.assertEqual('undone', self.read())
        self.assertEqual('SIGTERM: undid the test change, then stopped',
                         self.read('.msg'))

    def test_sigint_undoes_too(self):
        proc = self.start()
        proc.send_signal(signal.SIGINT)
        self.assertEqual(-signal.SIGINT, proc.wait(timeout=30))
        self.assertEqual('undone', self.read())

    def test_death_of_the_grandparent_undoes(self):
        # NOTE: as under stestr: runner -> /bin/sh -c -> worker; only the
        # runner dies, the shell and the worker live on.
        runner = subprocess.Popen(
            [sys.executable, '-c', textwrap.dedent('''
                import subprocess, sys, time
                subprocess.Popen(['/bin/sh', '-c', '"$0" -c "$1" "$2"; :',
                                  sys.executable, sys.argv[1],
                                  sys.argv[2]])
                time.sleep(60)
            '''), WORKER, self.done],
            stdout=subprocess.DEVNULL, start_new_session=True)
        self.addCleanup(self._killpg, runner.pid)
        started = time.monotonic()
        polling.poll(lambda: (os.path.exists(self.done + '.ready'), None),
                     timeout=30, interval=0.1, what='the worker under '
                     'runner and shell to hold its change', describe=str)
        os.kill(runner.pid, signal.SIGKILL)
        runner.wait(timeout=30)
        polling.poll(lambda: (os.path.exists(self.done), None),
                     timeout=30, interval=0.1,
                     what='the worker to undo after its runner died',
                     describe=str)
        self.assertEqual('undone', self.read())
        self.assertLess(time.monotonic() - started, 60)

    @staticmethod
    def _killpg(sid):
        try:
            os.killpg(sid, signal.SIGKILL)
        except ProcessLookupError:
            pass
