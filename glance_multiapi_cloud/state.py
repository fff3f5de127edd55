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

"""The state dir of one embedded cloud: its files, ports and JSON record.

``State.record`` is the cloud's record (record.Record), read from and
written to DIR/state.json here and nowhere else; ``State.faults`` the
faults it records, built once.
"""

import copy
import errno
import json
import os
import secrets
import stat
import tempfile

from glance_multiapi_kernel import documents
from glance_multiapi_kernel import input_files
from glance_multiapi_cloud import errors
from glance_multiapi_cloud import faults as faults_mod
from glance_multiapi_cloud import ports as ports_mod
from glance_multiapi_cloud import record as record_mod

STATE_FILE = 'state.json'


class State(object):
    """Everything one cloud knows about itself, kept in DIR/state.json."""

    def __init__(self, root, read_only=False):
        self.root = os.path.abspath(root)
        # NOTE: a verb that only reads the cloud (status, get) writes
        # nothing: no port claimed for what state.json does not record,
        # no state.json saved.
        self.read_only = read_only
        # NOTE: None until up makes one or load reads one.
        self.record = None
        # NOTE: (faults, spec) the Faults of _faults were built from.
        self._faults_of = None
        self._faults = None

    def path(self, *parts):
        return os.path.join(self.root, *parts)

    def makedirs(self, *parts):
        path = self.path(*parts)
        os.makedirs(path, exist_ok=True)
        return path

    @property
    def faults(self):
        """The faults.Faults of the record's faults against its spec.

        Built once, and again only when a patch changed either.
        """
        built_of = (self.record.faults, self.record.spec)
        if self._faults_of != built_of:
            self._faults = faults_mod.Faults(*built_of)
            self._faults_of = copy.deepcopy(built_of)
        return self._faults

    @property
    def exists(self):
        return os.path.exists(self.path(STATE_FILE))

    def check_root(self):
        """Invalid unless the state dir is a folder or can be made one."""
        try:
            info = os.stat(self.root)
        except FileNotFoundError:
            # NOTE: made by up, with any missing parent; an ancestor that
            # is a file or a loop answers ENOTDIR or ELOOP, not ENOENT.
            return
        except OSError as exc:
            raise errors.Invalid('state dir %s cannot be used: %s' % (
                self.root, exc.strerror or exc)) from None
        if not stat.S_ISDIR(info.st_mode):
            raise errors.Invalid('state dir %s is not a folder' % self.root)

    def load(self):
        path = self.path(STATE_FILE)
        try:
            data = input_files.read_bytes(path, 'state file',
                                          input_files.STATE_LIMIT)
        except input_files.InputFileError as exc:
            if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                raise errors.NotUp('no cloud in %s (run "up" first)' %
                                   self.root) from None
            if exc.errno == errno.ELOOP:
                raise errors.NotUp('no cloud in %s: %s' % (
                    self.root, os.strerror(exc.errno))) from None
            raise errors.CloudError(str(exc)) from None
        try:
            document = documents.load_json(data)
        except documents.DocumentError as exc:
            raise errors.CloudError('%s is corrupt: %s' % (path, exc)) \
                from None
        # NOTE: written by up as a record; anything else was written by
        # something else, or by a release that records other fields.
        try:
            self.record = record_mod.Record.from_json(document, path)
        except record_mod.RecordError as exc:
            self.record = None
            raise errors.CloudError('%s is corrupt: %s' % (path, exc)) \
                from None
        return self

    def save(self):
        if self.read_only:
            raise errors.CloudError('%s is read here, never written' %
                                    self.path(STATE_FILE))
        # NOTE: write then rename, so a reader never sees half a file.
        fd, tmp = tempfile.mkstemp(dir=self.root, prefix='.state-')
        with os.fdopen(fd, 'w') as f:
            json.dump(self.record.to_json(), f, indent=2, sort_keys=True)
        os.replace(tmp, self.path(STATE_FILE))

    # -- ports -------------------------------------------------------------
    def port(self, key):
        """The loopback port of key, allocated once and then kept.

        Ports come from one block of ports.BLOCK outside the kernel's
        ephemeral range: from ``up --base-port N`` (N, N+1, ... in the
        order they are asked for; a busy one is an error), else from a
        block claimed for this cloud (busy ports in it are skipped).
        """
        ports = self.record.ports
        if key not in ports:
            if self.read_only:
                raise errors.CloudError(
                    '%s records no port for %s: not the record of a cloud '
                    'that "up" brought up (run "down", then "up")' % (
                        self.path(STATE_FILE), key))
            ports[key] = self._next_port(key, set(ports.values()))
        return ports[key]

    def _next_port(self, key, taken):
        base = self.record.base_port
        if base:
            port = base + len(taken)
            if port >= base + ports_mod.BLOCK:
                raise errors.PortBusy('the cloud needs more than %d ports '
                                      'from --base-port %d (wanted for %s)'
                                      % (ports_mod.BLOCK, base, key))
            if port in taken or not ports_mod.untouched(port):
                raise errors.PortBusy(
                    'port 127.0.0.1:%d (wanted for %s) is busy: held by %s'
                    % (port, key, ports_mod.holders(port) or 'a socket '
                       'that is gone now'))
            return port
        if not self.record.port_block:
            self.record.port_block = ports_mod.claim_block(self.root,
                                                           STATE_FILE)
        start = self.record.port_block
        for port in range(start, start + ports_mod.BLOCK):
            if port not in taken and ports_mod.untouched(port):
                return port
        raise errors.PortBusy('no free port left for %s in this cloud\'s '
                              'block 127.0.0.1:%d-%d' % (
                                  key, start, start + ports_mod.BLOCK - 1))

    def release_ports(self):
        """Give this cloud's block of ports back (on down)."""
        ports_mod.release_block(self.root, self.record and
                                self.record.port_block)

    def password(self, user):
        passwords = self.record.passwords
        if user not in passwords:
            # NOTE: never a leading "-", which a command line would
            # read as an option (1 in 64 of token_urlsafe's).
            passwords[user] = 'p' + secrets.token_urlsafe(12)
        return passwords[user]
