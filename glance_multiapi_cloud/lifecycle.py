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

"""What the components share about their processes: the pidfiles they
left, the readiness probe of ``status`` and the timed stop-and-start of
``restart``."""

import os
import time
import warnings

import requests
import urllib3

from glance_multiapi_cloud import processes
from glance_multiapi_cloud import tlsmode


def recorded(state, prefix=''):
    """Names with a pidfile in this state dir (running or not)."""
    run_dir = state.path('run')
    if not os.path.isdir(run_dir):
        return []
    return sorted(n[:-4] for n in os.listdir(run_dir)
                  if n.endswith('.pid') and n.startswith(prefix))


def answers(url, ok=(200, 300), verify=False):
    """Whether url answers one of the ok statuses right now."""
    try:
        with warnings.catch_warnings():
            # NOTE: verify=False is the caller's decision, not news.
            warnings.simplefilter(
                'ignore', urllib3.exceptions.InsecureRequestWarning)
            return requests.get(url, timeout=2,
                                verify=verify).status_code in ok
    except requests.RequestException:
        return False


def report(state, name, url, probe_url=None, ok=(200, 300)):
    """{name: {url, running, ready}}: ready when probe_url answers."""
    pid = processes.pid_of(state, name)
    return {name: {'url': url, 'running': bool(pid),
                   'ready': bool(pid) and answers(probe_url or url, ok,
                                                  tlsmode.verify(state))}}


def restart(state, name, start_and_wait, timeout=processes.STOP_TIMEOUT):
    """Stop name, then start_and_wait().

    Returns (seconds to stop, seconds until the new one is ready).
    """
    # NOTE: a service that died is started again, like a pod's restart.
    began = time.monotonic()
    processes.stop(state, name, timeout)
    stopped = time.monotonic()
    start_and_wait()
    return stopped - began, time.monotonic() - stopped


def restart_own(state, name, own, start, wait_ready):
    """The ``restart`` verb of a component whose services start together.

    None when name is not one of own (the names its ``restartable``
    gives); otherwise restart it with the component's start and
    wait_ready verbs, as ``restart`` returns.
    """
    if name not in own:
        return None
    return restart(state, name, lambda: wait_ready(state, start(state)))
