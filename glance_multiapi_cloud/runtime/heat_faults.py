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

"""heat-api's side of the heat-rpc-timeout fault (../fault_kinds.py).

install() wraps heat's EngineClient.call, through which heat-api relays
every API call to heat-engine over RPC: while the cloud's faults say so
(Faults.rpc_timeout, asked on every call with the seconds since the last
``restart heat-engine`` began), the call raises oslo.messaging's
MessagingTimeout, exactly what it raises when heat-engine does not answer
within rpc_response_timeout, so heat's own FaultWrapper renders the 500
and its body. The cloud's own probes (PROBE_HEADER: ``restart`` waiting
for the new engine, ``status``) are spared.
"""

import os
import threading
import time

from glance_multiapi_cloud import state as state_mod

PROBE_HEADER = 'X-Glance-Multiapi-Cloud-Probe'
_PROBE_ENVIRON = 'HTTP_' + PROBE_HEADER.upper().replace('-', '_')
# NOTE: in the heat folder of the state dir; holds time.time() of the
# moment the last "restart heat-engine" began.
RESTART_MARKER = 'engine-restart-began'
# NOTE: written when heat-api relays the call that ends a fault's failing
# calls (heat-rpc-timeout=delete: the first stack delete); it counts for
# the restart marked before it only.
LIFTED_MARKER = 'engine-rpc-fault-lifted'
_request = threading.local()


def marker_path(state_dir):
    return os.path.join(state_dir, 'heat', RESTART_MARKER)


def _mark(path):
    with open(path, 'w') as f:
        f.write('%.6f\n' % time.time())


def _marked(path):
    try:
        with open(path) as f:
            return float(f.read())
    except (OSError, ValueError):
        return None


def mark_restart(state_dir):
    """Record that a heat-engine restart begins now."""
    _mark(marker_path(state_dir))


def _lifted_path(state_dir):
    return os.path.join(state_dir, 'heat', LIFTED_MARKER)


def _lifted_since(state_dir, began):
    done = _marked(_lifted_path(state_dir))
    return began is not None and done is not None and done >= began


def lifted(state_dir):
    """Whether a lifting call was relayed since the last restart began."""
    return _lifted_since(state_dir, _marked(marker_path(state_dir)))


def rpc_delay(state_dir, method=None):
    """None, or the seconds before a relayed call fails (fault active).

    method: the RPC method heat-api relays; one that ends the fault's
    failing calls (Faults.lifted_by) goes through, and so does every
    call after it until the next restart.
    """
    state = state_mod.State(state_dir).load()
    faults = state.faults
    began = _marked(marker_path(state_dir))
    if began is None:
        return faults.rpc_timeout(None)
    # NOTE: never below 0: the mark is rounded, and may be read in the
    # same microsecond it was written.
    since = max(0.0, time.time() - began)
    if method and faults.lifted_by(method):
        _mark(_lifted_path(state_dir))
        return None
    return faults.rpc_timeout(since, _lifted_since(state_dir, began))


def install(application, state_dir):
    """Wrap heat's RPC client; the WSGI app that marks probes."""
    import oslo_messaging
    from heat.rpc import client as rpc_client

    original = rpc_client.EngineClient.call

    def call(self, ctxt, msg, version=None, timeout=None):
        if not getattr(_request, 'probe', False):
            delay = rpc_delay(state_dir, msg[0])
            if delay is not None:
                # NOTE: a slow failure, as heat-api waits out its RPC
                # timeout; bounded by the fault's DELAY.
                time.sleep(delay)
                raise oslo_messaging.MessagingTimeout(
                    'Timed out waiting for a reply to %s (fault '
                    'heat-rpc-timeout of the embedded cloud)' % msg[0])
        return original(self, ctxt, msg, version=version, timeout=timeout)

    rpc_client.EngineClient.call = call

    def app(environ, start_response):
        _request.probe = _PROBE_ENVIRON in environ
        try:
            return application(environ, start_response)
        finally:
            _request.probe = False
    return app
