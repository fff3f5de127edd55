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

"""Running the commands the tools are configured with, bounded.

The discovery, patch, restart, version and uploader commands are shell
command lines (``oc get glance glance -o json``, ``oc patch ... -p
{patch}``), so they run through the shell; a kubeconfig's ``user.exec``
credential plugin is an argv. Each runs in its own process group,
killed as a group when it outlives its deadline, prints more than any
real answer (input_files.COMMAND_OUTPUT_LIMIT) or when the run is
interrupted (SIGINT, SIGTERM: the exception unwinds through here, so no
child is orphaned); what it prints must be UTF-8. Used by the plugin,
the doctor, the image check and the Kubernetes client alike; the
plugin's ``common/commands.py`` renders the templates.
"""

import os
import selectors
import signal
import subprocess
import time

from glance_multiapi_kernel import documents
from glance_multiapi_kernel import input_files
from glance_multiapi_kernel import interrupts


class CommandError(Exception):
    """A command failed; the message names it, its exit and its stderr."""


# NOTE: of stderr only the end is shown (_tail); keep no more than that.
_STDERR_KEPT = 64 * 1024
_CHUNK = 64 * 1024


def _tail(text, lines=3):
    kept = [line for line in (text or '').strip().splitlines() if line]
    return ' | '.join(kept[-lines:]) or 'no output on stderr'


def _kill(proc):
    # NOTE: the shell's children share its session; kill them all so
    # that a hung "oc" does not outlive the test run.
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _collect(proc, deadline, limit):
    """(stdout, stderr tail, None or 'timeout' or 'too much')."""
    out, err = bytearray(), bytearray()
    streams = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}
    with selectors.DefaultSelector() as selector:
        for fd in streams:
            selector.register(fd, selectors.EVENT_READ)
        while streams:
            left = deadline - time.monotonic()
            if left <= 0:
                return out, err, 'timeout'
            for key, _ in selector.select(left):
                chunk = os.read(key.fd, _CHUNK)
                if not chunk:
                    selector.unregister(key.fd)
                    del streams[key.fd]
                    continue
                buf = streams[key.fd]
                buf += chunk
                if buf is out and len(out) > limit:
                    return out, err, 'too much'
                if buf is err and len(err) > _STDERR_KEPT:
                    del err[:-_STDERR_KEPT]
    return out, err, None


def _start(command, what, env, cwd):
    try:
        return subprocess.Popen(
            command, shell=isinstance(command, str),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True, env=env,
            cwd=cwd or None)
    except OSError as exc:
        raise CommandError('%s %r could not start: %s' %
                           (what, command, exc.strerror or exc))


def run(command, *, timeout, what, limit=input_files.COMMAND_OUTPUT_LIMIT,
        env=None, cwd=None):
    """Run a command; return its stdout (UTF-8 text).

    :param command: a shell command line (str), or an argv (list) run
        without a shell.
    :param what: what the command is for, e.g. "discovery command".
    :param limit: the most bytes it may print (the rest is never read).
    :param env: its environment (default: ours); cwd: its folder.
    :raises CommandError: when it cannot start, exits non-zero, runs
        longer than timeout seconds, prints more than limit bytes or
        text that is not UTF-8.
    """
    proc = None
    try:
        # NOTE: a signal that lands inside Popen, after the fork, would
        # leave the command running with nobody holding it: it is raised
        # once proc is set, inside the try whose finally kills it.
        with interrupts.deferred():
            proc = _start(command, what, env, cwd)
        deadline = time.monotonic() + timeout
        out, err, problem = _collect(proc, deadline, limit)
        if problem is None:
            try:
                proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                problem = 'timeout'
    finally:
        if proc is not None:
            with proc:
                if proc.returncode is None:
                    _kill(proc)
    if problem == 'timeout':
        raise CommandError('%s %r did not finish within %s s' %
                           (what, command, timeout))
    if problem:
        raise CommandError('%s %r printed more than %s; no real answer '
                           'is that long' % (what, command,
                                             input_files.size_text(limit)))
    if proc.returncode != 0:
        raise CommandError('%s %r exited %d: %s' % (
            what, command, proc.returncode,
            _tail(bytes(err).decode('utf-8', 'replace'))))
    wrong = documents.utf8_problem(bytes(out))
    if wrong:
        raise CommandError('%s %r printed text that is %s' % (
            what, command, wrong))
    return bytes(out).decode('utf-8')
