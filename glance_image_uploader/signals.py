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

"""SIGINT and SIGTERM unwind the uploader, but never lose an image id.

Both signals raise (KeyboardInterrupt, Terminated) so that ``finally``
blocks delete what is unfinished. One place cannot take that: between
Glance creating our image and the id reaching a variable a ``finally``
reads, an exception would leave the image behind with nobody knowing
it. Code there runs inside ``deferred()``: the first signal is held and
raised as the block ends; a second one is raised at once (the user
insists, e.g. a request that hangs).
"""

import contextlib
import signal


class Terminated(BaseException):
    """SIGTERM arrived; unwinds like KeyboardInterrupt so cleanups run."""


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
    """
    _held['depth'] += 1
    try:
        yield
    finally:
        _held['depth'] -= 1
        signum = _held['signum'] if not _held['depth'] else None
        if signum is not None:
            _held['signum'] = None
            _raise(signum)
