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

"""What the scenarios see of an uploader from outside: its connections."""

import socket
import subprocess
import sys
import types

import testtools

from glance_multiapi_kernel import polling
from glance_multiapi_tests.tests.uploader import process

# NOTE: a child of a shell, as a wrapper script starts a real uploader;
# it connects only when told to on stdin.
CHILD = ('import socket, sys; sys.stdin.readline(); '
         's = socket.create_connection(("127.0.0.1", %d)); '
         'sys.stdin.readline()')


class ReachedNetworkTest(testtools.TestCase):

    def test_seen_once_a_child_connects_and_kept(self):
        server = socket.socket()
        self.addCleanup(server.close)
        server.bind(('127.0.0.1', 0))
        server.listen(1)
        proc = subprocess.Popen(
            ['sh', '-c', '"$0" -c "$1"', sys.executable,
             CHILD % server.getsockname()[1]],
            stdin=subprocess.PIPE, text=True)
        self.addCleanup(proc.wait, 10)
        self.addCleanup(proc.stdin.close)
        run = types.SimpleNamespace(process=proc)
        seen = process.UploaderRun.reached_network
        self.assertFalse(seen(run))
        proc.stdin.write('connect\n')
        proc.stdin.flush()
        polling.poll(lambda: seen(run), what='the child\'s connection',
                     timeout=30, interval=0.05)
        proc.stdin.write('exit\n')
        proc.stdin.flush()
        proc.wait(10)
        # NOTE: once seen, a run that has closed it still counts.
        self.assertTrue(seen(run))
