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

"""The uploader's signals: held while an image id is in flight."""

import os
import signal
import threading

import testtools

from glance_multiapi_kernel import interrupts as signals


class DeferredTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.addCleanup(signals.restore, signals.install())

    def test_outside_a_block_sigterm_raises_at_once(self):
        self.assertRaises(signals.Terminated, os.kill, os.getpid(),
                          signal.SIGTERM)

    def test_sigint_is_a_keyboard_interrupt(self):
        self.assertRaises(KeyboardInterrupt, os.kill, os.getpid(),
                          signal.SIGINT)

    def test_block_finishes_then_the_held_signal_raises(self):
        done = []

        def block():
            with signals.deferred():
                os.kill(os.getpid(), signal.SIGTERM)
                done.append('assigned')
        self.assertRaises(signals.Terminated, block)
        self.assertEqual(['assigned'], done)

    def test_a_second_signal_raises_inside_the_block(self):
        done = []

        def block():
            with signals.deferred():
                os.kill(os.getpid(), signal.SIGTERM)
                done.append('held')
                os.kill(os.getpid(), signal.SIGINT)
                done.append('not reached')
        self.assertRaises(KeyboardInterrupt, block)
        self.assertEqual(['held'], done)

    def test_held_signal_wins_over_the_blocks_error(self):
        def block():
            with signals.deferred():
                os.kill(os.getpid(), signal.SIGTERM)
                raise ValueError('glance said no')
        exc = self.assertRaises(signals.Terminated, block)
        self.assertIsInstance(exc.__context__, ValueError)

    def test_nothing_held_nothing_raised(self):
        with signals.deferred():
            pass

    def test_only_the_outermost_block_raises(self):
        done = []

        def block():
            with signals.deferred():
                with signals.deferred():
                    os.kill(os.getpid(), signal.SIGTERM)
                done.append('after the inner block')
        self.assertRaises(signals.Terminated, block)
        self.assertEqual(['after the inner block'], done)

    def test_a_block_in_another_thread_holds_nothing_here(self):
        inside, leave = threading.Event(), threading.Event()

        def other():
            with signals.deferred():
                inside.set()
                leave.wait(30)
        thread = threading.Thread(target=other)
        thread.start()
        self.addCleanup(thread.join, 30)
        self.addCleanup(leave.set)
        self.assertTrue(inside.wait(30))
        self.assertRaises(signals.Terminated, os.kill, os.getpid(),
                          signal.SIGTERM)
