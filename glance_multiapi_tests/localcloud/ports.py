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
"""

import fcntl
import json
import os
import random
import socket
import tempfile

from glance_multiapi_tests.localcloud import errors

RANGE_FILE = '/proc/sys/net/ipv4/ip_local_port_range'
# NOTE: the Linux default, used when /proc cannot be read.
DEFAULT_EPHEMERAL = (32768, 60999)
BLOCK = 64
# NOTE: below this sit the well-known and most registered service ports.
LOWEST = 10000
HIGHEST = 65535
TCP_STATES = {'01': 'ESTABLISHED', '02': 'SYN_SENT', '03': 'SYN_RECV',
              '04': 'FIN_WAIT1', '05': 'FIN_WAIT2', '06': 'TIME_WAIT',
              '07': 'CLOSE', '08': 'CLOSE_WAIT', '09': 'LAST_ACK',
              '0A': 'LISTEN', '0B': 'CLOSING'}


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
def _hex_addr(text):
    """'0100007F:1F90' -> ('127.0.0.1', 8080); IPv6 shown as hex."""
    host, port = text.split(':')
    if len(host) == 8:
        host = socket.inet_ntoa(bytes.fromhex(host)[::-1])
    else:
        words = [bytes.fromhex(host[i:i + 8])[::-1] for i in range(0, 32, 8)]
        host = socket.inet_ntop(socket.AF_INET6, b''.join(words))
    return host, int(port, 16)


def sockets(proc_root='/proc'):
    """Every TCP and UDP socket of the machine, as dicts.

    Keys: family (tcp, tcp6, udp, udp6), local and remote ((host, port)),
    state (LISTEN, ESTABLISHED, ...; BOUND for an unconnected UDP socket)
    and inode.
    """
    found = []
    for family in ('tcp', 'tcp6', 'udp', 'udp6'):
        try:
            with open(os.path.join(proc_root, 'net', family)) as f:
                lines = f.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) < 10:
                continue
            state = fields[3]
            if family.startswith('udp'):
                state = 'BOUND' if state == '07' else state
            else:
                state = TCP_STATES.get(state, state)
            found.append({'family': family, 'local': _hex_addr(fields[1]),
                          'remote': _hex_addr(fields[2]), 'state': state,
                          'inode': int(fields[9])})
    return found


def socket_owners(proc_root='/proc'):
    """{socket inode: pid} of every process we may look into."""
    owners = {}
    for entry in os.listdir(proc_root):
        if not entry.isdigit():
            continue
        fd_dir = os.path.join(proc_root, entry, 'fd')
        try:
            fds = os.listdir(fd_dir)
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(os.path.join(fd_dir, fd))
            except OSError:
                continue
            if target.startswith('socket:['):
                owners[int(target[8:-1])] = int(entry)
    return owners


def _command(pid, proc_root='/proc'):
    try:
        with open(os.path.join(proc_root, str(pid), 'cmdline'), 'rb') as f:
            argv = f.read().split(b'\0')
    except OSError:
        return '?'
    text = b' '.join(a for a in argv if a).decode(errors='replace')
    return text[:80] or '?'


def holders(port, proc_root='/proc'):
    """One line naming who uses local TCP port `port`, or ''."""
    owners = None
    parts = []
    for sock in sockets(proc_root):
        if sock['local'][1] != port or not sock['family'].startswith('tcp'):
            continue
        if owners is None:
            owners = socket_owners(proc_root)
        pid = owners.get(sock['inode'])
        who = ('pid %d (%s)' % (pid, _command(pid, proc_root)) if pid
               else 'no process we can see')
        if sock['state'] == 'LISTEN':
            parts.append('a listener of %s on %s:%d' % (
                who, sock['local'][0], port))
        else:
            parts.append('a connection %s:%d -> %s:%d (%s) of %s' % (
                sock['local'][0], port, sock['remote'][0],
                sock['remote'][1], sock['state'], who))
    if len(parts) > 3:
        parts = parts[:3] + ['%d more' % (len(parts) - 3)]
    return '; '.join(parts)


def busy_error(service, port):
    """PortBusy naming the service, the port and who holds it."""
    who = holders(port) or 'nobody visible any more'
    return errors.PortBusy('%s cannot bind 127.0.0.1:%d: held by %s' % (
        service, port, who))
