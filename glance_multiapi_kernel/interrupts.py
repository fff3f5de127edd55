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

"""SIGINT and SIGTERM end every command with one line, leaving nothing.

Both signals raise (KeyboardInterrupt, Terminated) so that ``finally``
blocks run: a command's children are killed with their process group
(commands.run), a half-written file is removed, the uploader's
unfinished image is deleted; the command's main() then prints one line
(``describe``) and exits 130 or 143 (``exit_code``), as a shell reports
a process killed by that signal. Without a handler SIGTERM ends the
process where it stands, orphaning what it started.

One kind of place cannot take an exception: between making something
(Glance creating our image, a temporary file) and its name reaching a
variable a ``finally`` reads, an exception would leave it behind with
nobody knowing it. Code there runs inside ``deferred()``: the first
signal is held and raised as the block ends; a second one is raised at
once (the user insists, e.g. a request that hangs).
"""

import contextlib
import os
import signal
import sys
import tempfile
import threading


class Terminated(BaseException):
    """SIGTERM arrived; unwinds like KeyboardInterrupt so cleanups run."""


# NOTE: what a main() catches to end with one line; exit codes as a shell
# gives a process ended by the signal (128 + its number).
INTERRUPTS = (KeyboardInterrupt, Terminated)
EXIT_INTERRUPTED = 128 + signal.SIGINT
EXIT_TERMINATED = 128 + signal.SIGTERM


_held = {'depth': 0, 'signum': None}


def _raise(signum):
    if signum == signal.SIGTERM:
        raise Terminated()
    raise KeyboardInterrupt()


def _handler(signum, frame):
    if _held['depth'] and _held['signum'] is None:
        _held['signum'] = signum
        return
    # NOTE: a second signal replaces the held one.
    _held['signum'] = None
    _raise(signum)


def install():
    """Install the handlers; returns what restore() puts back."""
    return {signum: signal.signal(signum, _handler)
            for signum in (signal.SIGINT, signal.SIGTERM)}


def restore(previous):
    for signum, handler in previous.items():
        signal.signal(signum, handler)
    _held.update(depth=0, signum=None)


@contextlib.contextmanager
def deferred():
    """Hold the first SIGINT/SIGTERM until the block ends, then raise it.

    NOTE: put the block inside the ``try`` whose ``finally`` cleans up,
    so that the signal raised at its end is still inside that ``try``.
    An exception of the block's own gives way to a held signal: the run
    was asked to stop.

    In any other thread than the main one it does nothing: Python runs
    signal handlers, so raises, only in the main thread, and the depth
    is not shared with threads (the embedded Kubernetes API server
    starts pods' processes from its request threads).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _held['depth'] += 1
    try:
        yield
    finally:
        _held['depth'] -= 1
        signum = _held['signum'] if not _held['depth'] else None
        if signum is not None:
            _held['signum'] = None
            _raise(signum)


def write_replacing(path, text):
    """Write text to path through a temporary file beside it and a rename.

    A reader, an interrupt, a full disk or a closed pipe finds the file
    as it was before (or none), never half of it; the temporary file is
    removed on any failure (OSError for the caller to word).
    """
    folder = os.path.dirname(os.path.abspath(path))
    temp = None
    try:
        # NOTE: a signal between making the file and knowing its name
        # would leave it behind: it is raised once temp is set.
        with deferred():
            fd, temp = tempfile.mkstemp(
                prefix='.%s.' % os.path.basename(path), dir=folder)
        with os.fdopen(fd, 'w', encoding='utf-8') as f:
            f.write(text)
        os.chmod(temp, 0o644)
        os.replace(temp, path)
    except BaseException:
        if temp is not None:
            try:
                os.unlink(temp)
            except OSError:
                pass
        raise


def exit_code(exc):
    """130 for SIGINT (KeyboardInterrupt), 143 for SIGTERM."""
    return EXIT_TERMINATED if isinstance(exc, Terminated) else \
        EXIT_INTERRUPTED


def describe(exc):
    """The one line's words for an interrupt."""
    return 'terminated (SIGTERM)' if isinstance(exc, Terminated) else \
        'interrupted (SIGINT)'


@contextlib.contextmanager
def ending_cleanly(prog, stderr=None):
    """Run a command's body; an interrupt ends it in one line.

    Installs the handlers for the block and restores the previous ones
    after; yields a dict whose 'code' is set to 130 or 143 when a signal
    ended the block (its line is written to stderr, "PROG: interrupted
    (SIGINT)"), else left None.
    """
    previous = install()
    outcome = {'code': None}
    try:
        yield outcome
    except INTERRUPTS as exc:
        try:
            (stderr or sys.stderr).write('%s: %s\n' % (prog, describe(exc)))
            (stderr or sys.stderr).flush()
        except (OSError, ValueError):
            pass
        outcome['code'] = exit_code(exc)
    finally:
        restore(previous)
