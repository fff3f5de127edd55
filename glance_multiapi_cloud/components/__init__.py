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

"""The services of the embedded cloud, one module each, devstack-style.

Every component module offers the same module-level verbs, so that
cloud.py drives them all alike; a verb with nothing to do for a service
is a no-op there:

``enabled(state)``
    Whether this cloud runs the component (``up`` options).
``binaries_needed(state)``
    Raise MissingBinary before anything starts if a program is missing.
``prepare(state)``
    Its files and databases in the state dir (copied from a bootstrap
    template); a line to tell the user (a template was built) or None.
``start(state)``
    Start its processes without waiting; the names started.
``wait_ready(state, started)``
    Wait until those of the started names that are its own answer.
``register(state, admin)``
    Its users, services and endpoints in keystone (admin.Admin).
``reconcile(state)``
    Make it match the spec and faults again (after ``patch``, and at the
    end of ``up``).
``stop(state)``
    Stop its processes; the names that were running. The components of
    one of the STOP_WAVES stop at once, in threads.
``status(state)``
    ``{service: {'url', 'running', 'ready'}}`` for ``status``.
``tempest_options(state, sections, cli)``
    Add to the tempest.conf ``sections`` ({group: {option: value}}); cli
    is how tempest calls this cloud's CLI.
``restartable(state)``
    The names ``restart`` takes for it on this cloud.
``restart(state, name)``
    Restart name on its own ports; (seconds to stop, seconds until ready
    again), or None when name is not one of its services.

A new service is one more module here with these verbs, listed in
COMPONENTS and STOP_WAVES (the unit tests check both).
"""

from glance_multiapi_cloud.components import fileserver
from glance_multiapi_cloud.components import glance
from glance_multiapi_cloud.components import heat
from glance_multiapi_cloud.components import keystone
from glance_multiapi_cloud.components import kubeapi
from glance_multiapi_cloud.components import rabbitmq
from glance_multiapi_cloud.components import registry
from glance_multiapi_cloud.components import router

VERBS = ('enabled', 'binaries_needed', 'prepare', 'start', 'wait_ready',
         'register', 'reconcile', 'stop', 'status', 'tempest_options',
         'restartable', 'restart')

# NOTE: start order. Keystone first: everything registers with it. The
# broker takes ~16 s to boot; start it next. The Glance APIs need
# keystone only once requests come, so they load while keystone does;
# this halves the start-up time. (The others start in milliseconds;
# their order is that of the lines of "status" and of tempest.conf.) The
# route after glance: it forwards to an API's Service (glance's reconcile
# places it before it publishes). The Kubernetes API last: it serves what
# the others are.
COMPONENTS = (keystone, rabbitmq, registry, fileserver, heat, glance,
              router, kubeapi)

# NOTE: heat first: its engine drains over RPC before the broker goes
# (and may still call the other services while it does). The others
# then stop together, as fast as the slowest of them.
STOP_WAVES = ((heat,),
              (rabbitmq, glance, router, fileserver, registry, keystone,
               kubeapi))


def enabled(state):
    """The components this cloud runs, in start order."""
    return [comp for comp in COMPONENTS if comp.enabled(state)]
