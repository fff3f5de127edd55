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

"""Port blocks outside the ephemeral range, their claims, and who holds
a port, from psutil's view of the machine's sockets."""

import collections
import json
import os
import random
import shutil
import socket

import fixtures
import psutil
import testtools

from glance_multiapi_cloud import errors
from glance_multiapi_cloud import ports
from glance_multiapi_cloud import record as record_mod
from glance_multiapi_cloud import state as state_mod

# NOTE: what holders() reads of psutil's sconn and addr tuples.
Conn = collections.namedtuple('Conn', 'laddr raddr status pid')
Addr = collections.namedtuple('Addr', 'ip port')


class RangeTest(testtools.TestCase):

    def test_blocks_avoid_the_ephemeral_range(self):
        starts = ports.block_starts((32768, 60999))
        self.assertIn(ports.LOWEST, starts)
        for start in starts:
            last = start + ports.BLOCK - 1
            self.assertTrue(last < 32768 or start > 60999, start)
            self.assertLessEqual(last, ports.HIGHEST)

    def test_a_range_covering_everything_leaves_no_block(self):
        self.assertEqual([], ports.block_starts((1024, 65535)))

    def test_base_port_is_checked_against_the_range(self):
        ports.check_base_port(20000, (32768, 60999))
        ports.check_base_port(61000, (32768, 60999))
        for base in (32768 - ports.BLOCK + 1, 40000, 60999, 65500, 0):
            exc = self.assertRaises(errors.Invalid, ports.check_base_port,
                                    base, (32768, 60999))
            self.assertIn('--base-port %d' % base, str(exc))

    def test_range_file_read_or_defaulted(self):
        path = self.useFixture(fixtures.TempDir()).join('range')
        with open(path, 'w') as f:
            f.write('1024\t30000\n')
        self.assertEqual((1024, 30000), ports.ephemeral_range(path))
        self.assertEqual(ports.DEFAULT_EPHEMERAL,
                         ports.ephemeral_range(path + '.missing'))


class ClaimTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        tmp = self.useFixture(fixtures.TempDir()).path
        self.useFixture(fixtures.MonkeyPatch('tempfile.tempdir', tmp))
        self.useFixture(fixtures.MonkeyPatch(
            'glance_multiapi_cloud.ports.untouched',
            lambda port, host='127.0.0.1': True))
        self.tmp = tmp
        # NOTE: room for exactly two blocks, below the range.
        self.ephemeral = (ports.LOWEST + ports.BLOCK * 2, 65535)

    def cloud_dir(self, name, block=None):
        root = os.path.join(self.tmp, name)
        os.makedirs(root)
        if block is not None:
            with open(os.path.join(root, 'state.json'), 'w') as f:
                json.dump({'port_block': block}, f)
        return root

    def claim(self, root):
        return ports.claim_block(root, 'state.json', self.ephemeral,
                                 rng=random.Random(0))

    def test_two_clouds_get_two_blocks(self):
        one = self.claim(self.cloud_dir('one'))
        two = self.claim(self.cloud_dir('two'))
        self.assertNotEqual(one, two)

    def test_a_cloud_keeps_its_block(self):
        root = self.cloud_dir('one')
        self.assertEqual(self.claim(root), self.claim(root))

    def test_all_blocks_claimed_is_an_error(self):
        self.claim(self.cloud_dir('one'))
        self.claim(self.cloud_dir('two'))
        exc = self.assertRaises(errors.PortBusy, self.claim,
                                self.cloud_dir('three'))
        self.assertIn('claimed', str(exc))

    def test_stale_claims_are_taken_over(self):
        gone = self.cloud_dir('gone')
        first = self.claim(gone)
        shutil.rmtree(gone)
        moved = self.cloud_dir('moved', block=-1)
        second = self.claim(moved)
        # NOTE: both blocks were free again: one of a removed folder, one
        # of a cloud whose state.json names another block.
        self.assertIn(self.claim(self.cloud_dir('new')), (first, second))

    def test_release_frees_the_block(self):
        root = self.cloud_dir('one')
        block = self.claim(root)
        self.claim(self.cloud_dir('two'))
        ports.release_block(root, block)
        self.assertEqual(block, self.claim(self.cloud_dir('three')))

    def test_state_allocates_from_its_block(self):
        root = self.cloud_dir('one')
        state = state_mod.State(root)
        state.record = record_mod.Record.from_json({'spec': {}})
        self.useFixture(fixtures.MonkeyPatch(
            'glance_multiapi_cloud.ports.ephemeral_range',
            lambda path=None: self.ephemeral))
        first = state.port('keystone')
        self.assertEqual(state.record.port_block, first)
        self.assertEqual(first + 1, state.port('glance'))
        self.assertEqual(first, state.port('keystone'))


def _conn(local, remote, status, pid):
    """A socket as psutil.net_connections gives it."""
    return Conn(Addr(*local), Addr(*remote) if remote else (), status, pid)


class HoldersTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.connections = [
            _conn(('127.0.0.1', 8080), None, psutil.CONN_LISTEN,
                  os.getpid()),
            _conn(('127.0.0.1', 40000), ('127.0.0.1', 8080),
                  psutil.CONN_ESTABLISHED, None)]

    def test_listener_is_named_with_its_process(self):
        command = ' '.join(psutil.Process().cmdline())[:80]
        self.assertEqual('a listener of pid %d (%s) on 127.0.0.1:8080' % (
            os.getpid(), command), ports.holders(8080, self.connections))

    def test_connection_is_named_even_without_its_process(self):
        self.assertEqual('a connection 127.0.0.1:40000 -> 127.0.0.1:8080 '
                         '(ESTABLISHED) of no process we can see',
                         ports.holders(40000, self.connections))

    def test_unused_port_has_no_holder(self):
        self.assertEqual('', ports.holders(9999, self.connections))

    def test_real_listener_is_found(self):
        sock = socket.socket()
        self.addCleanup(sock.close)
        sock.bind(('127.0.0.1', 0))
        sock.listen(1)
        port = sock.getsockname()[1]
        self.assertFalse(ports.bindable(port))
        self.assertIn('listener of pid %d' % os.getpid(),
                      ports.busy_error('svc', port).args[0])
        self.assertEqual(errors.EXIT_PORT_BUSY,
                         ports.busy_error('svc', port).exit_code)
        sock.close()
        self.assertTrue(ports.bindable(port))
