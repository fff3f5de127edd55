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

"""RabbitMQ (Debian's rabbitmq-server) for the RPC of the optional heat
(``up --with-heat``).

It runs as whoever runs the cloud, without systemd, on loopback, with its
own epmd on a private port: epmd outlives "rabbitmqctl stop", so this
cloud starts it itself (tracked by pidfile, stopped by "down") instead of
letting the broker daemonize one that nobody would stop.
"""

import os
import shutil
import socket

from glance_multiapi_cloud import errors
from glance_multiapi_cloud import processes
from glance_multiapi_kernel import polling

SERVER = '/usr/lib/rabbitmq/bin/rabbitmq-server'
HINT = 'apt-get install rabbitmq-server'
NAMES = ('rabbitmq', 'epmd')


def transport_url(state):
    return 'rabbit://guest:guest@127.0.0.1:%d/' % state.port('rabbitmq')


def _env(state):
    root = state.makedirs('rabbitmq')
    with open(os.path.join(root, 'rabbitmq.conf'), 'w') as f:
        f.write('loopback_users.guest = true\n')
    with open(os.path.join(root, 'enabled_plugins'), 'w') as f:
        f.write('[].\n')
    return {'HOME': root, 'RABBITMQ_MNESIA_BASE': os.path.join(root, 'db'),
            'RABBITMQ_LOG_BASE': os.path.join(root, 'log'),
            'RABBITMQ_CONFIG_FILE': os.path.join(root, 'rabbitmq'),
            'RABBITMQ_ENABLED_PLUGINS_FILE': os.path.join(root,
                                                          'enabled_plugins'),
            'RABBITMQ_NODE_IP_ADDRESS': '127.0.0.1',
            'RABBITMQ_NODE_PORT': str(state.port('rabbitmq')),
            'RABBITMQ_DIST_PORT': str(state.port('rabbitmq-dist')),
            # NOTE: without this the Erlang distribution port (the node's
            # cookie-guarded remote control) listens on every address.
            'RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS':
                '-kernel inet_dist_use_interface {127,0,0,1}',
            'RABBITMQ_NODENAME': 'gmt%d@localhost' % state.port('rabbitmq'),
            'ERL_EPMD_ADDRESS': '127.0.0.1',
            'ERL_EPMD_PORT': str(state.port('epmd'))}


def listening(state):
    try:
        socket.create_connection(('127.0.0.1', state.port('rabbitmq')),
                                 timeout=1).close()
    except OSError as exc:
        return False, exc.strerror or str(exc)
    return True, 'open'


def wait(state, timeout=90):
    """Wait for the AMQP port; fail fast if the broker died."""
    port = state.port('rabbitmq')

    def check():
        if not processes.pid_of(state, 'rabbitmq'):
            raise processes.exit_error(state, 'rabbitmq',
                                       'listening on 127.0.0.1:%d' % port)
        return listening(state)

    try:
        polling.poll(check, timeout=timeout, interval=0.2, max_interval=1,
                     what='rabbitmq to listen on 127.0.0.1:%d' % port,
                     describe=str)
    except polling.PollTimeout as exc:
        raise errors.CloudError('%s (see %s)' % (exc, os.path.relpath(
            processes.log_path(state, 'rabbitmq'))))


ENTRIES = ('rabbitmq',)


# -- verbs (see components/__init__.py) ----------------------------------
def enabled(state):
    """Only heat uses the broker."""
    return bool(state.record.options.heat)


def binaries_needed(state):
    for path in (SERVER, shutil.which('epmd')):
        if not path or not os.access(path, os.X_OK):
            raise errors.MissingBinary('rabbitmq-server not found (%s)' %
                                       HINT)


def prepare(state):
    """A fresh broker dir (mnesia, logs) for each cloud."""
    shutil.rmtree(state.path('rabbitmq'), ignore_errors=True)
    return None


def start(state):
    """Start epmd, then the broker; don't wait."""
    env = _env(state)
    processes.start(state, 'epmd', [
        shutil.which('epmd'), '-address', '127.0.0.1',
        '-port', env['ERL_EPMD_PORT']], env=env,
        ports=[state.port('epmd')])
    processes.start(state, 'rabbitmq', [SERVER], env=env,
                    ports=[state.port('rabbitmq'),
                           state.port('rabbitmq-dist')])
    return list(NAMES)


def wait_ready(state, started):
    if 'rabbitmq' in started:
        wait(state)


def register(state, admin):
    pass


def reconcile(state):
    pass


def stop(state):
    return processes.stop_many(state, list(NAMES))


def status(state):
    pid = processes.pid_of(state, 'rabbitmq')
    return {'rabbitmq': {
        'url': 'amqp://127.0.0.1:%d' % state.port('rabbitmq'),
        'running': bool(pid), 'ready': bool(pid) and listening(state)[0]}}


def tempest_options(state, sections, cli):
    pass


def restartable(state):
    return []


def restart(state, name):
    return None
