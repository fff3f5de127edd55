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

"""The loopback ports of the embedded clouds, and who holds a busy one.

Every outgoing TCP connection on the machine takes its local port from the
kernel's ephemeral range (``ip_local_port_range``). A service port taken
from that range can be handed to some client while the service restarts,
and the restart then fails to bind. So each cloud gets a block of BLOCK
ports outside that range, claimed in a per-user folder so that two clouds
on one machine never get the same block, and keeps it until ``down``.
Who holds a busy port comes from psutil's view of the machine's sockets.
"""

import fcntl
import json
import os
import random
import socket
import tempfile

import psutil

from glance_multiapi_cloud import errors

RANGE_FILE = '/proc/sys/net/ipv4/ip_local_port_range'
# NOTE: the Linux default, used when /proc cannot be read.
DEFAULT_EPHEMERAL = (32768, 60999)
BLOCK = 64
# NOTE: below this sit the well-known and most registered service ports.
LOWEST = 10000
HIGHEST = 65535


def ephemeral_range(path=RANGE_FILE):
    """(low, high) of the kernel's ephemeral port range."""
    try:
        with open(path) as f:
            low, high = (int(v) for v in f.read().split()[:2])
    except (OSError, ValueError):
        return DEFAULT_EPHEMERAL
    return low, high


def block_starts(ephemeral):
    """Every block start whose BLOCK ports all lie outside ephemeral."""
    low, high = ephemeral
    starts = list(range(LOWEST, low - BLOCK + 1, BLOCK))
    first_above = max(LOWEST, high + 1)
    starts += range(first_above, HIGHEST - BLOCK + 2, BLOCK)
    return starts


def check_base_port(base, ephemeral=None):
    """Invalid unless base..base+BLOCK-1 avoids the ephemeral range."""
    low, high = ephemeral or ephemeral_range()
    last = base + BLOCK - 1
    if base < 1 or last > HIGHEST:
        raise errors.Invalid('--base-port %d: the cloud needs ports %d-%d, '
                             'which must lie within 1-%d' % (
                                 base, base, last, HIGHEST))
    if base <= high and last >= low:
        raise errors.Invalid(
            '--base-port %d: ports %d-%d overlap the kernel\'s ephemeral '
            'range %d-%d (%s), from which client connections take their '
            'ports; pick a base below %d or above %d' % (
                base, base, last, low, high, RANGE_FILE,
                max(1, low - BLOCK), high))


def _binds(port, host, reuse):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if reuse:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        return True
    except OSError:
        return False
    finally:
        sock.close()


def bindable(port, host='127.0.0.1'):
    """Whether a server could listen on host:port now.

    NOTE: servers set SO_REUSEADDR (uwsgi, Go, Erlang, Python's
    http.server), so a connection of an earlier run in TIME_WAIT does not
    stop them; this check sets it too, to judge as they do.
    """
    return _binds(port, host, reuse=True)


def untouched(port, host='127.0.0.1'):
    """Whether no socket at all uses host:port (for a new allocation)."""
    return _binds(port, host, reuse=False)


# -- claims -----------------------------------------------------------------
def claims_dir():
    path = os.path.join(tempfile.gettempdir(),
                        'glance-multiapi-cloud-ports-%d' % os.getuid())
    os.makedirs(path, mode=0o700, exist_ok=True)
    return path


def _claim_holder(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def _claim_is_live(start, root, state_file):
    """A claim stands while its cloud's folder exists and still uses it.

    NOTE: a cloud claims its block before it first writes state.json, so
    a folder without one still holds its claim.
    """
    if not root or not os.path.isdir(root):
        return False
    try:
        with open(os.path.join(root, state_file)) as f:
            return json.load(f).get('port_block') == start
    except FileNotFoundError:
        return True
    except (OSError, ValueError):
        return False


def claim_block(root, state_file, ephemeral=None, rng=random):
    """Claim a free block for the cloud in root; its first port."""
    starts = block_starts(ephemeral or ephemeral_range())
    if not starts:
        low, high = ephemeral or ephemeral_range()
        raise errors.PortBusy(
            'no room for the cloud\'s ports: the kernel\'s ephemeral range '
            '%d-%d (%s) leaves no block of %d ports between %d and %d; '
            'narrow it or give --base-port' % (low, high, RANGE_FILE, BLOCK,
                                               LOWEST, HIGHEST))
    folder = claims_dir()
    offset = rng.randrange(len(starts))
    with open(os.path.join(folder, '.lock'), 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for start in starts[offset:] + starts[:offset]:
            path = os.path.join(folder, str(start))
            holder = _claim_holder(path)
            if holder == root:
                return start
            if holder and _claim_is_live(start, holder, state_file):
                continue
            if not all(untouched(p) for p in range(start, start + 4)):
                # NOTE: something else serves here; try another block.
                continue
            with open(path, 'w') as f:
                f.write(root)
            return start
    raise errors.PortBusy('every block of %d loopback ports outside the '
                          'ephemeral range is claimed by a cloud (see %s)'
                          % (BLOCK, folder))


def release_block(root, start):
    """Drop the claim of root on the block at start, if it still holds."""
    if not start:
        return
    path = os.path.join(claims_dir(), str(start))
    if _claim_holder(path) == root:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


# -- who holds a port ---------------------------------------------------------
def tcp_connections():
    """Every TCP socket of the machine (psutil's sconn), [] if hidden."""
    try:
        return psutil.net_connections(kind='tcp')
    except psutil.Error:
        return []


def _command(pid):
    try:
        argv = psutil.Process(pid).cmdline()
    except psutil.Error:
        return '?'
    return ' '.join(a for a in argv if a)[:80] or '?'


def holders(port, connections=None):
    """One line naming who uses local TCP port `port`, or ''.

    connections: psutil's sconn tuples to look in; the machine's now
    when None.
    """
    if connections is None:
        connections = tcp_connections()
    parts = []
    for conn in connections:
        if not conn.laddr or conn.laddr.port != port:
            continue
        who = ('pid %d (%s)' % (conn.pid, _command(conn.pid)) if conn.pid
               else 'no process we can see')
        if conn.status == psutil.CONN_LISTEN:
            parts.append('a listener of %s on %s:%d' % (
                who, conn.laddr.ip, port))
        else:
            parts.append('a connection %s:%d -> %s:%d (%s) of %s' % (
                conn.laddr.ip, port, conn.raddr.ip, conn.raddr.port,
                conn.status, who))
    if len(parts) > 3:
        parts = parts[:3] + ['%d more' % (len(parts) - 3)]
    return '; '.join(parts)


def busy_error(service, port):
    """PortBusy naming the service, the port and who holds it."""
    who = holders(port) or 'nobody visible any more'
    return errors.PortBusy('%s cannot bind 127.0.0.1:%d: held by %s' % (
        service, port, who))
