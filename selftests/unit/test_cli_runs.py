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

"""What the bad-input harness measures of a run (selftests/cli_runs.py).

The wall-clock bound of a bad-input row leaves out the time the script
waited for a CPU; these show that time is really the kernel's run-queue
wait (a busy loop sharing one CPU with another) and that a sleep, which
is what the bound is there to catch, is not taken for it.
"""

import os
import subprocess
import sys
import time

import testtools

from selftests import cli_runs

# NOTE: CPU seconds the measured loop burns; the hog beside it ends on
# its own after HOG_SECONDS whatever happens to this test.
BUSY = 0.5
HOG_SECONDS = 60
BUSY_LOOP = ('import time\nend = time.process_time() + %s\n'
             'while time.process_time() < end:\n    pass\n' % BUSY)


def _one_cpu():
    cpu = min(os.sched_getaffinity(0))
    return lambda: os.sched_setaffinity(0, {cpu})


class RunMeasuredTest(testtools.TestCase):

    def test_waiting_for_a_cpu_is_counted(self):
        pin = _one_cpu()
        hog = subprocess.Popen(
            [sys.executable, '-c', 'import time\nend = time.monotonic() + '
             '%d\nwhile time.monotonic() < end:\n    pass\n' % HOG_SECONDS],
            preexec_fn=pin)
        self.addCleanup(hog.wait)
        self.addCleanup(hog.kill)
        started = time.monotonic()
        proc, delay = cli_runs.run_measured(
            [sys.executable, '-c', BUSY_LOOP], 30, preexec_fn=pin)
        took = time.monotonic() - started
        self.assertEqual(0, proc.returncode, proc.stderr)
        # NOTE: sharing one CPU with a busy loop, it waits about as long
        # as it runs; what is left is about its own CPU time.
        self.assertGreater(delay, BUSY / 4, (took, delay))
        self.assertLess(delay, took, (took, delay))

    def test_a_sleep_is_not_taken_for_a_wait_on_a_cpu(self):
        started = time.monotonic()
        proc, delay = cli_runs.run_measured(
            [sys.executable, '-c', 'import sys, time\ntime.sleep(1)\n'
             'print("out")\nprint("err", file=sys.stderr)'], 30)
        took = time.monotonic() - started
        self.assertEqual((0, 'out\n', 'err\n'),
                         (proc.returncode, proc.stdout, proc.stderr))
        self.assertGreaterEqual(took - delay, 1.0, (took, delay))

    def test_timeout_kills_and_says_so(self):
        started = time.monotonic()
        self.assertRaises(subprocess.TimeoutExpired, cli_runs.run_measured,
                          [sys.executable, '-c', 'import time\n'
                           'time.sleep(60)'], 0.5)
        self.assertLess(time.monotonic() - started, 30)

    def test_run_delay_of_no_process_is_none_known(self):
        self.assertEqual(0.0, cli_runs.run_delay(2 ** 22 + 1))
