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

"""Human-readable log lines: rate-limited progress, and no secrets.

Every line goes to stderr so that stdout stays the UUID map. A source
URL is logged as it is stored on the image (the kernel redaction's
stored_url: no user info, no query string, since either may hold a
token), and every line goes through the kernel redaction.
"""

import sys
import time

from glance_multiapi_kernel import redaction

MIB = float(1 << 20)


def redact_url(url):
    """Return url without credentials or query string (stored_url)."""
    return redaction.stored_url(url)


class Log(object):
    """Writes info lines unless quiet; errors always."""

    def __init__(self, *, quiet=False, stream=None, progress_interval=5.0,
                 clock=time.monotonic):
        self.quiet = quiet
        self.stream = stream or sys.stderr
        self.progress_interval = progress_interval
        self.clock = clock

    def info(self, message):
        if not self.quiet:
            self._write(message)

    def error(self, message):
        self._write('error: ' + message)

    def _write(self, line):
        self.stream.write(redaction.text(line.rstrip('\n')) + '\n')
        self.stream.flush()

    def progress(self, label, total=None):
        return Progress(self, label, total)


class Progress(object):
    """Counts bytes; logs percent and MB/s at most once per interval."""

    def __init__(self, log, label, total=None):
        self.log = log
        self.label = label
        self.total = total or None
        self.done = 0
        self.start = log.clock()
        self.last_line = self.start

    def update(self, count):
        self.done += count
        now = self.log.clock()
        if now - self.last_line >= self.log.progress_interval:
            self.last_line = now
            self.log.info(self.line(now))

    def finish(self):
        self.log.info(self.line(self.log.clock(), final=True))

    def line(self, now, final=False):
        elapsed = max(now - self.start, 1e-6)
        rate = self.done / MIB / elapsed
        if self.total:
            amount = '%3d%% %.1f/%.1f MiB' % (
                min(100, self.done * 100 // self.total),
                self.done / MIB, self.total / MIB)
        else:
            amount = '%.1f MiB' % (self.done / MIB)
        suffix = ' in %.1f s' % elapsed if final else ''
        return '%s: %s %.1f MiB/s%s' % (self.label, amount, rate, suffix)
