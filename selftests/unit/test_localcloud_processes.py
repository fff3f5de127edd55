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

"""A pidfile's start survives a step of the wall clock."""

import os

import fixtures
import psutil
import testtools

from glance_multiapi_cloud import processes


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
