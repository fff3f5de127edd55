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

"""What a running embedded cloud holds on this machine, for the
functional self-tests' checks of it: the processes it started (and what
they forked), the sockets they listen on, and the files of its state
dir that others could read.
"""

import collections
import json
import os
import socket
import stat

import psutil

Listener = collections.namedtuple('Listener', 'command family host port')
FAMILIES = {(socket.AF_INET, socket.SOCK_STREAM): 'tcp',
            (socket.AF_INET6, socket.SOCK_STREAM): 'tcp6',
            (socket.AF_INET, socket.SOCK_DGRAM): 'udp',
            (socket.AF_INET6, socket.SOCK_DGRAM): 'udp6'}


def cloud_pids(state_dir):
    """{pid: name} of every live process a cloud started, and their forks.

    Each service runs in a session of its own, led by the pid in its
    pidfile, so its children (uwsgi workers, the Erlang VM) share it.
    """
    leaders = set()
    run_dir = os.path.join(state_dir, 'run')
    for name in os.listdir(run_dir):
        if name.endswith('.pid'):
            with open(os.path.join(run_dir, name)) as f:
                leaders.add(json.load(f)['pid'])
    pids = {}
    for proc in psutil.process_iter(['name', 'status']):
        try:
            if (proc.info['status'] != psutil.STATUS_ZOMBIE and
                    os.getsid(proc.pid) in leaders):
                pids[proc.pid] = proc.info['name']
        except (OSError, psutil.Error):
            continue
    return pids


def listeners(pids):
    """The listening TCP and bound UDP sockets of the given pids."""
    found = set()
    for conn in psutil.net_connections(kind='inet'):
        if conn.pid not in pids:
            continue
        family = FAMILIES.get((conn.family, conn.type))
        listening = (conn.status == psutil.CONN_LISTEN or
                     (conn.type == socket.SOCK_DGRAM and not conn.raddr))
        if family and listening:
            found.add(Listener(pids[conn.pid], family, conn.laddr.ip,
                               conn.laddr.port))
    return sorted(found)


def loose_paths(root, skip=()):
    """Files and folders under root that group or others may use.

    skip: folders (relative to root) written by others than the cloud.
    """
    loose = []
    for folder, dirs, files in os.walk(root):
        if os.path.relpath(folder, root) in skip:
            dirs[:] = []
            continue
        for name in [''] + dirs + files:
            path = os.path.join(folder, name)
            if os.path.relpath(path, root) in skip:
                continue
            try:
                mode = os.lstat(path).st_mode
            except FileNotFoundError:
                continue
            if (stat.S_ISREG(mode) or stat.S_ISDIR(mode)) and mode & 0o077:
                loose.append('%s %o' % (os.path.relpath(path, root),
                                        stat.S_IMODE(mode)))
    return sorted(set(loose))
