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

"""The state dir of one embedded cloud: its files, ports and JSON record."""

import json
import os
import secrets
import socket
import tempfile

from glance_multiapi_tests.localcloud import errors

STATE_FILE = 'state.json'


class State(object):
    """Everything one cloud knows about itself, kept in DIR/state.json."""

    def __init__(self, root):
        self.root = os.path.abspath(root)
        self.data = {}

    def path(self, *parts):
        return os.path.join(self.root, *parts)

    def makedirs(self, *parts):
        path = self.path(*parts)
        os.makedirs(path, exist_ok=True)
        return path

    @property
    def exists(self):
        return os.path.exists(self.path(STATE_FILE))

    def load(self):
        try:
            with open(self.path(STATE_FILE)) as f:
                self.data = json.load(f)
        except FileNotFoundError:
            raise errors.NotUp('no cloud in %s (run "up" first)' % self.root)
        except ValueError as exc:
            raise errors.CloudError('%s is corrupt: %s' %
                                    (self.path(STATE_FILE), exc))
        return self

    def save(self):
        # NOTE: write then rename, so a reader never sees half a file.
        fd, tmp = tempfile.mkstemp(dir=self.root, prefix='.state-')
        with os.fdopen(fd, 'w') as f:
            json.dump(self.data, f, indent=2, sort_keys=True)
        os.replace(tmp, self.path(STATE_FILE))

    # -- ports -------------------------------------------------------------
    def port(self, key):
        """The loopback port of key, allocated once and then kept.

        With a base port (``up --base-port N``) ports are N, N+1, ... in
        the order they are asked for, and a busy one is an error; without
        one, any free port is taken.
        """
        ports = self.data.setdefault('ports', {})
        if key not in ports:
            base = self.data.get('base_port')
            taken = set(ports.values())
            if base:
                port = base + len(ports)
                if port in taken or not port_is_free(port):
                    raise errors.PortBusy(
                        'port 127.0.0.1:%d (wanted for %s) is busy' %
                        (port, key))
            else:
                port = free_port(taken)
            ports[key] = port
        return ports[key]

    def password(self, user):
        passwords = self.data.setdefault('passwords', {})
        if user not in passwords:
            passwords[user] = secrets.token_urlsafe(12)
        return passwords[user]


def port_is_free(port, host='127.0.0.1'):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((host, port))
        return True
    except OSError:
        return False
    finally:
        sock.close()


def free_port(taken=()):
    """Any free loopback port not in taken."""
    for _ in range(50):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(('127.0.0.1', 0))
        port = sock.getsockname()[1]
        sock.close()
        if port not in taken:
            return port
    raise errors.PortBusy('could not find a free loopback port')
