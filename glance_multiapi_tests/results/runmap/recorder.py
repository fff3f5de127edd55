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

"""The recorder the tests write to while they run: JSON lines per worker.

Each worker process appends to a file of its own,
``<results dir>/glance-multiapi-records/<pid>-<start ms>.jsonl``: one
``os.write`` of one whole line per record on an ``O_APPEND`` descriptor,
no buffer in between. Two stestr workers therefore never share a file,
nothing is lost when a worker is killed (what was written is in the page
cache), and a reader sees at worst an unfinished last line, which
``records.read`` leaves out.

Recording never fails a test: the first error is logged with what could
not be written, later ones are counted and dropped.
"""

import json
import os
import threading
import time

import psutil

from glance_multiapi_kernel import redaction

LOG = redaction.logger(__name__)
RECORDS_SUBDIR = 'glance-multiapi-records'
SCHEMA = 1
# NOTE: a record is one line of one write; a message is cut so that a
# huge failure text cannot make one.
MAX_TEXT = 4000
_SHELLS = ('sh', 'bash', 'dash', 'zsh', 'ksh')


def _process(pid):
    """(parent pid, name, start time) of pid, or None when it is gone."""
    try:
        proc = psutil.Process(pid)
        with proc.oneshot():
            return proc.ppid(), proc.name(), proc.create_time()
    except psutil.Error:
        return None


def run_key(pid=None):
    """A key naming the ``tempest run`` (or ``stestr run``) of a worker.

    stestr starts each worker through ``/bin/sh -c``, so the worker's
    parent is a shell and its grandparent the runner, which every worker
    of one run shares. The key is that runner's pid and start time (so
    a reused pid is another run); when it cannot be read, this process's
    own.
    """
    pid = os.getpid() if pid is None else pid
    current = pid
    for _ in range(3):
        found = _process(current)
        if not found:
            break
        parent = found[0]
        if parent <= 1:
            break
        current = parent
        named = _process(current)
        if not named or named[1] not in _SHELLS:
            break
    found = _process(current)
    start = '%.2f' % found[2] if found else '0'
    return '%d-%s' % (current, start)


def load_list(argv):
    """The test ids of a ``--load-list FILE`` in argv (stestr's), or None.

    A worker runs exactly these, so a test listed and never started is
    one the run did not reach.
    """
    path = None
    for index, arg in enumerate(argv):
        if arg == '--load-list' and index + 1 < len(argv):
            path = argv[index + 1]
        elif arg.startswith('--load-list='):
            path = arg.split('=', 1)[1]
    if not path:
        return None
    try:
        with open(path) as f:
            return [line.strip() for line in f if line.strip()]
    except OSError:
        return None


def cut(text, limit=MAX_TEXT):
    """text as a str of at most limit characters."""
    text = '' if text is None else str(text)
    return text if len(text) <= limit else text[:limit - 3] + '...'


class Recorder(object):
    """Appends records of one worker process to its own JSON-lines file."""

    def __init__(self, results_dir, *, run=None, label=None, pid=None,
                 clock=time.time):
        self.results_dir = results_dir
        self.folder = os.path.join(results_dir, RECORDS_SUBDIR)
        self.pid = os.getpid() if pid is None else pid
        self.clock = clock
        self.run = run or run_key(self.pid)
        self.label = label or os.path.basename(os.getcwd()) or 'run'
        self.path = os.path.join(self.folder, '%d-%d.jsonl' % (
            self.pid, int(clock() * 1000)))
        self.dropped = 0
        self._fd = None
        self._seq = 0
        self._broken = False
        self._lock = threading.Lock()

    def _open(self):
        os.makedirs(self.folder, exist_ok=True)
        return os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT |
                       getattr(os, 'O_CLOEXEC', 0), 0o644)

    def write(self, kind, **fields):
        """Append one record; True when written. Never raises."""
        with self._lock:
            if self._broken:
                self.dropped += 1
                return False
            self._seq += 1
            record = dict(fields, v=SCHEMA, kind=kind, t=self.clock(),
                          pid=self.pid, seq=self._seq, run=self.run,
                          run_label=self.label)
            try:
                # NOTE: a message may quote a URL with its userinfo or a
                # config line with a password.
                record = redaction.value(record)
                line = (json.dumps(record, sort_keys=True, default=lambda o:
                                   redaction.text(str(o))) +
                        '\n').encode('utf-8')
                if self._fd is None:
                    self._fd = self._open()
                view = memoryview(line)
                while view:
                    written = os.write(self._fd, view)
                    view = view[written:]
            except Exception as exc:  # noqa: B902 - never fail a test
                self._broken = True
                self.dropped += 1
                LOG.warning('glance-multiapi results: cannot write %s '
                            'records to %s (%s: %s); nothing more is '
                            'recorded by this worker', kind, self.path,
                            type(exc).__name__, exc)
                return False
            return True

    def close(self):
        with self._lock:
            if self._fd is not None:
                try:
                    os.close(self._fd)
                except OSError:
                    pass
                self._fd = None
