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
import stat

from glance_multiapi_tests.localcloud import ports

Listener = collections.namedtuple('Listener', 'command family host port')


def cloud_pids(state_dir):
    """Every live process a cloud started, and whatever those forked.

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
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % entry) as f:
                head, _sep, fields = f.read().rpartition(')')
        except OSError:
            continue
        fields = fields.split()
        if fields[0] != 'Z' and int(fields[3]) in leaders:
            pids[int(entry)] = head.partition('(')[2]
    return pids


def listeners(pids):
    """The listening TCP and bound UDP sockets of the given pids."""
    owners = ports.socket_owners()
    found = set()
    for sock in ports.sockets():
        pid = owners.get(sock['inode'])
        if pid in pids and sock['state'] in ('LISTEN', 'BOUND'):
            found.add(Listener(pids[pid], sock['family'], *sock['local']))
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
