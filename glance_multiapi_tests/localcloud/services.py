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

"""How each process of the embedded cloud is started and awaited."""

import os
import sys

from glance_multiapi_tests.localcloud import processes
from glance_multiapi_tests.localcloud import uwsgi

REGISTRY_HINT = 'apt-get install docker-registry, or up --no-registry'

REGISTRY_CONF = """version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: {root}
  delete:
    enabled: true
http:
  addr: 127.0.0.1:{port}
"""


def start_keystone(state):
    port = state.port('keystone')
    conf = state.path('keystone', 'keystone.conf')
    argv = uwsgi.argv(
        'glance_multiapi_tests.localcloud.runtime.wsgi_keystone:application',
        ['127.0.0.1:%d' % port], 'keystone')
    processes.start(state, 'keystone', argv,
                    env={'OS_KEYSTONE_CONFIG_FILES': conf}, ports=[port])
    return 'http://127.0.0.1:%d' % port


def start_glance_api(state, api, public_port, internal_port):
    sockets = ['127.0.0.1:%d' % p for p in (public_port, internal_port) if p]
    argv = uwsgi.argv(
        'glance_multiapi_tests.localcloud.runtime.wsgi_glance:application',
        sockets, 'glance-' + api)
    processes.start(state, 'glance-' + api, argv,
                    env={'OS_GLANCE_CONFIG_DIR':
                         state.path('glance', 'apis', api)},
                    ports=[p for p in (public_port, internal_port) if p])


def start_registry(state):
    port = state.port('registry')
    binary = processes.find_binary('docker-registry', REGISTRY_HINT)
    root = state.makedirs('registry', 'data')
    conf = state.path('registry', 'config.yml')
    with open(conf, 'w') as f:
        f.write(REGISTRY_CONF.format(root=root, port=port))
    processes.start(state, 'registry', [binary, 'serve', conf],
                    ports=[port])
    return 'http://127.0.0.1:%d' % port


def start_fileserver(state):
    port = state.port('fileserver')
    root = state.makedirs('files')
    processes.start(state, 'fileserver', [
        sys.executable, '-m', 'http.server', '--bind', '127.0.0.1',
        '--directory', root, str(port)], ports=[port])
    return 'http://127.0.0.1:%d' % port


def binaries_needed(with_registry):
    """Fail before anything starts when a program is missing."""
    uwsgi.binary()
    processes.find_binary('keystone-manage', 'install cloud-requirements.txt')
    processes.find_binary('glance-manage', 'install cloud-requirements.txt')
    if with_registry:
        processes.find_binary('docker-registry', REGISTRY_HINT)


def registry_url(state):
    port = state.data.get('ports', {}).get('registry')
    return 'http://127.0.0.1:%d' % port if port else None


def fileserver_url(state):
    port = state.data.get('ports', {}).get('fileserver')
    return 'http://127.0.0.1:%d' % port if port else None


def keystone_url(state):
    return 'http://127.0.0.1:%d' % state.data['ports']['keystone']


def all_names(state):
    """Every service name this state dir may have started."""
    names = ['keystone', 'registry', 'fileserver']
    run_dir = state.path('run')
    if os.path.isdir(run_dir):
        names += [n[:-4] for n in os.listdir(run_dir)
                  if n.endswith('.pid') and n[:-4] not in names]
    return names
