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

"""The one polling helper every waiter of this project uses.

No caller sleeps a fixed time to "give it time": it polls a condition with
backoff and, when the time is up, raises a TimeoutError whose message says
what was awaited, what was seen last and for how long.
"""

import time


class PollTimeout(TimeoutError):
    """The awaited condition did not hold within the timeout."""

    def __init__(self, message, last=None):
        super().__init__(message)
        self.last = last


def poll(check, *, what, timeout, interval=0.2, max_interval=None,
         describe=repr):
    """Call check() until it returns a truthy value; return that value.

    :param check: callable returning a falsy value while not ready. It may
        return a ``(ready, seen)`` tuple instead, so that the timeout message
        can name what was seen last.
    :param what: what is awaited, for the timeout message (e.g. "image
        1234 active on api1").
    :param timeout: seconds before PollTimeout is raised.
    :param interval: first delay between calls; it doubles up to
        max_interval (default 8 * interval).
    :param describe: turns the last seen value into text for the message.
    :raises PollTimeout: with what, the last seen value and the time waited.
    """
    max_interval = max_interval or interval * 8
    start = time.monotonic()
    deadline = start + timeout
    delay = interval
    last = None
    attempts = 0
    while True:
        attempts += 1
        result = check()
        if isinstance(result, tuple) and len(result) == 2:
            ready, last = result
        else:
            ready, last = result, result
        if ready:
            return last if isinstance(result, tuple) else result
        now = time.monotonic()
        if now >= deadline:
            raise PollTimeout(
                'timed out after %.1f s (%d checks) waiting for %s; last '
                'seen: %s' % (now - start, attempts, what, describe(last)),
                last=last)
        time.sleep(min(delay, max(deadline - now, 0.01)))
        delay = min(delay * 2, max_interval)
