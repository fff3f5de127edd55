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

"""heat.conf of the embedded cloud's Heat (components/heat.py).

One file read by heat-api, heat-api-cfn and heat-engine alike, rendered
as the profile the cloud was brought up with says (``up --heat-profile``:
``embedded``, or ``operator`` as heat-operator renders it), and the
queue manager's counter files it leaves in /dev/shm. The URLs of the
other services come from their components, through components/heat.py.
"""

import os
import sys

from glance_multiapi_cloud import errors
from glance_multiapi_cloud import tlsmode

HEAT_HINT = 'install heat-requirements.txt (openstack-heat) into this venv'
# NOTE: graceful_shutdown_timeout: how long heat-engine waits for
# in-progress stack work on SIGTERM (components/heat.py gives it a margin
# more before SIGKILL).
ENGINE_GRACE = 60
# NOTE: rpc_response_timeout unless up --heat-rpc-timeout says otherwise.
RPC_TIMEOUT = 30
PERIODIC_INTERVAL = 10

HEAT_CONF = """[DEFAULT]
debug = False
transport_url = {transport_url}
num_engine_workers = {engine_workers}
# NOTE: engines report every periodic_interval and count as up for twice
# that; 10 s makes a dead engine show as down within 20 s.
periodic_interval = {periodic}
graceful_shutdown_timeout = {grace}
# NOTE: API calls wait this long for the engine; a stopped engine must
# fail them quickly, not after the default 60 s (up --heat-rpc-timeout).
rpc_response_timeout = {rpc_timeout}
heat_metadata_server_url = {cfn_url}
heat_waitcondition_server_url = {cfn_url}/v1/waitcondition
stack_user_domain_name = heat
stack_domain_admin = heat_domain_admin
stack_domain_admin_password = {domain_admin_password}
environment_dir = {heat_etc}/environment.d
template_dir = {heat_etc}/templates
[database]
connection = sqlite:///{root}/heat.db
[paste_deploy]
api_paste_config = {heat_etc}/api-paste.ini
[oslo_concurrency]
lock_path = {root}/locks
[keystone_authtoken]
www_authenticate_uri = {keystone_url}/v3
auth_url = {keystone_url}
auth_type = password
username = heat
password = {heat_password}
user_domain_id = default
project_name = service
project_domain_id = default
[trustee]
auth_type = password
auth_url = {keystone_url}
username = heat
password = {heat_password}
user_domain_id = default
[clients_keystone]
auth_uri = {keystone_url}
[ec2authtoken]
auth_uri = {keystone_url}/v3
[oslo_messaging_rabbit]
# NOTE: heat-api runs under uwsgi, where oslo.messaging's heartbeat thread
# is known to misbehave; on loopback a dead broker shows as a closed socket.
heartbeat_timeout_threshold = 0
{rpc_queue_options}"""

# NOTE: with oslo.messaging's defaults a stopping heat-engine loses stack
# work. Its worker's RPC server stops polling but keeps its broker
# consumer until the in-flight check_resource returns; the check_resource
# that one casts for the next resource is delivered back to it, and while
# closing the connection oslo.messaging deletes the fanout queue, waits
# for the broker, and so runs the consumer callback, which acks the
# message and drops it. The new engine never sees it and, as heat only
# resets non-convergence stacks at start-up, the stack stays
# IN_PROGRESS. With consistent queue names (use_queue_manager) nothing is
# deleted on close; the delivery is ignored while the channel closes, the
# broker requeues it and the restarted engine carries on. The counter
# files of the queue manager live in /dev/shm, named after hostname and
# process name (heat-api, heat-api-cfn, heat-engine), so each cloud gets
# its own hostname and "down" removes them.
QUEUE_MANAGER_OPTIONS = """use_queue_manager = true
hostname = {hostname}
"""
# NOTE: what heat-operator's templates/heat/config/00-default.conf renders
# when the RabbitMQ of its transport URL has quorum queues (RabbitMQ >= 3.8;
# Debian's is 3.10); it sets no use_queue_manager nor hostname.
OPERATOR_QUEUE_OPTIONS = """rabbit_quorum_queue = true
rabbit_transient_quorum_queue = true
amqp_durable_queues = true
"""
# NOTE: "embedded" keeps one engine worker and the queue manager, a
# deliberate deviation from the operator (doc/source/consolidated-images
# .rst, "heat-engine restart"); "operator" is heat-operator's heat.conf as
# it renders it.
PROFILES = {
    'embedded': {'engine_workers': 1, 'queue_manager': True,
                 'queue_options': ''},
    'operator': {'engine_workers': 4, 'queue_manager': False,
                 'queue_options': OPERATOR_QUEUE_OPTIONS},
}
DEFAULT_PROFILE = 'embedded'
SHM_DIR = '/dev/shm'


def heat_etc():
    """The etc/heat (paste ini, environment.d) of the installed heat."""
    for base in (sys.prefix, '/usr/local', '/usr'):
        path = os.path.join(base, 'etc', 'heat')
        if os.path.exists(os.path.join(path, 'api-paste.ini')):
            return path
    raise errors.MissingBinary('heat api-paste.ini not found (%s)' %
                               HEAT_HINT)


def conf_path(state):
    return state.path('heat', 'heat.conf')


def _rpc_hostname(state):
    return 'glance-multiapi-cloud-%d' % state.port('rabbitmq')


def profile(state):
    """The heat profile the cloud was brought up with."""
    return state.record.options.heat_profile or DEFAULT_PROFILE


def engine_workers(state):
    """How many heat-engine workers (num_engine_workers) the cloud runs."""
    return PROFILES[profile(state)]['engine_workers']


def render(state, *, transport_url, keystone_url):
    """The heat.conf text of this cloud, as its profile says.

    transport_url: the broker's (components/rabbitmq.py); keystone_url:
    keystone's (components/keystone.py).
    """
    settings = PROFILES[profile(state)]
    rpc_queue_options = settings['queue_options']
    if settings['queue_manager']:
        rpc_queue_options += QUEUE_MANAGER_OPTIONS.format(
            hostname=_rpc_hostname(state))
    return HEAT_CONF.format(
        transport_url=transport_url,
        engine_workers=settings['engine_workers'],
        root=state.path('heat'), periodic=PERIODIC_INTERVAL,
        grace=ENGINE_GRACE,
        cfn_url=tlsmode.url(state, state.port('heat-api-cfn')),
        heat_etc=heat_etc(), keystone_url=keystone_url,
        heat_password=state.password('heat'),
        domain_admin_password=state.password('heat_domain_admin'),
        rpc_queue_options=rpc_queue_options,
        rpc_timeout=state.record.options.heat_rpc_timeout or RPC_TIMEOUT)


def write(state, text):
    """Write heat.conf (0600) with text; whether it changed."""
    try:
        with open(conf_path(state)) as f:
            if f.read() == text:
                return False
    except FileNotFoundError:
        pass
    fd = os.open(conf_path(state), os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                 0o600)
    with os.fdopen(fd, 'w') as f:
        f.write(text)
    return True


def remove_shm_files(state):
    """Remove this cloud's queue manager files from SHM_DIR."""
    if 'rabbitmq' not in state.record.ports:
        return
    prefix = _rpc_hostname(state) + '_'
    try:
        names = os.listdir(SHM_DIR)
    except OSError:
        return
    for name in names:
        if name.startswith(prefix) and name.endswith('_qmanager'):
            try:
                os.unlink(os.path.join(SHM_DIR, name))
            except OSError:
                pass
