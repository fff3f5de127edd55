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

"""One deadline per network exchange, from connect to the last byte.

The libraries the project talks HTTP through (urllib3 under the
Kubernetes client and the report's baseline, requests under the
uploader's sources, keystoneauth for keystone and Glance, oslo.config's
remote ``config_source``) apply their timeouts to each socket read: a
server that sends one byte every two seconds is never cut off by a
timeout of five. ``exchange()`` bounds all of it, whichever library
runs inside the block:

* every socket the calling thread connects while the block runs belongs
  to the exchange (they are seen through the interpreter's audit event
  ``socket.connect``, sys.addaudithook: the one hook that sees every
  connection whichever library makes it, without patching any);
* when the deadline passes, a watchdog thread shuts those sockets down,
  which ends at once whatever read or write the library is blocked in,
  and a connection tried after it fails before it is made; the block
  then raises DeadlineExceeded, whatever the library made of it (an
  error, or a body it took as complete), naming what, the URL without
  its credentials, the deadline and how many bytes came in;
* when the block ends, its sockets are shut down too: a keep-alive
  connection left in a pool would otherwise carry a later exchange that
  never saw it connect (urllib3 finds it closed and opens a new one).

A block inside another belongs to both: the socket of an image source
read while Glance receives it ends with whichever deadline comes first.
Nothing here imports a product, an HTTP library or tempest.
"""

import contextlib
import heapq
import itertools
import os
import socket
import stat
import struct
import sys
import threading
import time

from glance_multiapi_kernel import errors
from glance_multiapi_kernel import redaction

# NOTE: linux/tcp.h: struct tcp_info's tcpi_bytes_received (Linux 4.1+),
# a __u64 after 8 bytes of flags, 24 __u32 fields and 3 __u64 ones.
_TCP_INFO = getattr(socket, 'TCP_INFO', 11)
_BYTES_RECEIVED_AT = 128


class DeadlineExceeded(errors.OneLineError, TimeoutError):
    """An exchange did not end within its deadline; str() is one line.

    A TimeoutError, so a caller that reports a timed-out connection
    reports this one too; ``url`` (without credentials), ``seconds`` and
    ``received`` (bytes that came in, None when unknown) say more.
    """

    def __init__(self, what, url, seconds, received):
        self.url = url
        self.seconds = seconds
        self.received = received
        # NOTE: for a caller whose message names the URL its own way.
        self.problem = '%s within %s s (%s)' % (
            'no complete answer' if received else 'no answer',
            seconds_text(seconds), received_text(received))
        super().__init__('%s %s: %s' % (what, url, self.problem))


def seconds_text(seconds):
    """5.0 -> '5', 0.25 -> '0.25': a deadline as messages show it."""
    return '%g' % seconds


def received_text(received):
    if received is None:
        return 'no connection was made'
    if not received:
        return 'nothing received'
    return 'received %d byte%s' % (received, '' if received == 1 else 's')


def _inode(fd):
    try:
        info = os.fstat(fd)
    except OSError:
        return None
    return info.st_ino if stat.S_ISSOCK(info.st_mode) else None


def _on_socket(fd, inode, action):
    """action(socket) on fd if it is still that socket, else None.

    NOTE: by descriptor: a TLS socket is a new object on the descriptor
    the connected one had, and the descriptor of a socket the library
    closed meanwhile may be another file's now: the inode says.
    """
    if _inode(fd) != inode:
        return None
    try:
        # NOTE: the library may close fd between the check and here.
        sock = socket.socket(fileno=fd)
    except OSError:
        return None
    try:
        return action(sock)
    except OSError:
        return None
    finally:
        sock.detach()


def _bytes_received(sock):
    info = sock.getsockopt(socket.IPPROTO_TCP, _TCP_INFO, 256)
    if len(info) < _BYTES_RECEIVED_AT + 8:
        return None
    return struct.unpack_from('Q', info, _BYTES_RECEIVED_AT)[0]


def _shut_down(sock):
    sock.shutdown(socket.SHUT_RDWR)


class Exchange(object):
    """One exchange: its deadline and the sockets connected during it."""

    def __init__(self, what, url, seconds):
        self.what = what
        self.url = errors.one_line(redaction.url(str(url)), 200)
        self.seconds = seconds
        self.ends = time.monotonic() + seconds
        self.expired = False
        self.received = None
        self._done = False
        self._sockets = []
        self._lock = threading.Lock()

    def remaining(self):
        """Seconds left, never below a hundredth (a timeout of 0 blocks)."""
        return max(0.01, self.ends - time.monotonic())

    def adopt(self, fd, inode):
        """Take the socket fd; False when the deadline already passed."""
        with self._lock:
            if self.expired:
                return False
            if not self._done:
                self._sockets.append((fd, inode))
            return True

    def expire(self):
        """The deadline passed: end every exchange of its sockets."""
        with self._lock:
            if self._done:
                return
            sockets = list(self._sockets)
            # NOTE: counted before any is shut down: the block raises as
            # soon as one is, and its message reads the count.
            self.received = sum(
                _on_socket(fd, inode, _bytes_received) or 0
                for fd, inode in sockets) if sockets else None
            self.expired = True
        for fd, inode in sockets:
            _on_socket(fd, inode, _shut_down)

    def finish(self):
        with self._lock:
            self._done = True
            sockets, self._sockets = self._sockets, []
        for fd, inode in sockets:
            _on_socket(fd, inode, _shut_down)

    def error(self):
        return DeadlineExceeded(self.what, self.url, self.seconds,
                                self.received)


class _Watchdog(object):
    """One thread that expires exchanges whose deadline passed."""

    def __init__(self):
        self._cond = threading.Condition()
        self._heap = []
        self._order = itertools.count()
        self._thread = None

    def watch(self, exchange):
        with self._cond:
            heapq.heappush(self._heap, (exchange.ends, next(self._order),
                                        exchange))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name='exchange-deadlines',
                    daemon=True)
                self._thread.start()
            self._cond.notify()

    def _next_due(self):
        with self._cond:
            while True:
                if not self._heap:
                    self._cond.wait()
                    continue
                ends, _, exchange = self._heap[0]
                left = ends - time.monotonic()
                if left <= 0:
                    heapq.heappop(self._heap)
                    return exchange
                self._cond.wait(left)

    def _run(self):
        while True:
            self._next_due().expire()


_WATCHDOG = _Watchdog()
_local = threading.local()
_hook = {'installed': False}
_hook_lock = threading.Lock()


def _audit(event, args):
    """sys.addaudithook: a socket connected inside exchanges is theirs."""
    if event != 'socket.connect':
        return
    exchanges = getattr(_local, 'open', None)
    if not exchanges:
        return
    try:
        fd = args[0].fileno()
    except (AttributeError, OSError, IndexError):
        return
    inode = _inode(fd)
    if inode is None:
        return
    for exchange in list(exchanges):
        if not exchange.adopt(fd, inode):
            # NOTE: raised from the hook, it stops the connect: a library
            # retrying after the deadline ends at once.
            raise TimeoutError('the deadline of %s s of %s passed' % (
                seconds_text(exchange.seconds), exchange.url))


def _install():
    with _hook_lock:
        if not _hook['installed']:
            sys.addaudithook(_audit)
            _hook['installed'] = True


def _timed_out(exc):
    """Whether exc, or what it wraps, is a library's timeout."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, TimeoutError) or (
                'timeout' in type(exc).__name__.lower()):
            return True
        exc = (getattr(exc, 'reason', None) or exc.__cause__
               or exc.__context__)
        exc = exc if isinstance(exc, BaseException) else None
        seen += 1
    return False


@contextlib.contextmanager
def exchange(url, seconds, what='GET'):
    """Bound what the block sends and receives to seconds, in all.

    :param url: what the block talks to, for the message (its user and
        password are left out).
    :param what: what the exchange is, e.g. "GET", "baseline".
    :raises DeadlineExceeded: once the deadline passed, instead of
        whatever the library raised or returned.
    Yields the Exchange (``remaining()`` is what a connect timeout may
    still take).
    """
    current = Exchange(what, url, seconds)
    _install()
    exchanges = _local.__dict__.setdefault('open', [])
    exchanges.append(current)
    _WATCHDOG.watch(current)
    try:
        yield current
    except Exception as exc:
        if (not current.expired and time.monotonic() >= current.ends
                and _timed_out(exc)):
            # NOTE: a library's own timeout as long as the deadline may
            # fire a moment before the watchdog does: past the deadline,
            # what ended the exchange is the deadline.
            current.expire()
        if current.expired:
            raise current.error() from None
        raise
    finally:
        for index, item in enumerate(exchanges):
            if item is current:
                del exchanges[index]
                break
        current.finish()
    if current.expired:
        raise current.error()
