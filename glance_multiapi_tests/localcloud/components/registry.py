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

"""Debian's docker-registry (plain HTTP), the OCI registry the image
uploader pushes to (``up --no-registry`` leaves it out)."""

from glance_multiapi_tests.localcloud import lifecycle
from glance_multiapi_tests.localcloud import processes

NAME = 'registry'
HINT = 'apt-get install docker-registry, or up --no-registry'

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


def url(state):
    """Its URL, or None on a cloud without a registry."""
    port = state.data.get('ports', {}).get(NAME)
    return 'http://127.0.0.1:%d' % port if port else None


# -- verbs (see components/__init__.py) ----------------------------------
def enabled(state):
    return bool(state.data.get('options', {}).get(NAME))


def binaries_needed(state):
    processes.find_binary('docker-registry', HINT)


def prepare(state):
    return None


def start(state):
    port = state.port(NAME)
    binary = processes.find_binary('docker-registry', HINT)
    root = state.makedirs('registry', 'data')
    conf = state.path('registry', 'config.yml')
    with open(conf, 'w') as f:
        f.write(REGISTRY_CONF.format(root=root, port=port))
    processes.start(state, NAME, [binary, 'serve', conf], ports=[port])
    return [NAME]


def wait_ready(state, started):
    if NAME in started:
        processes.wait_http(state, NAME, url(state) + '/v2/')


def register(state, admin):
    pass


def reconcile(state):
    pass


def stop(state):
    return processes.stop_many(state, [NAME])


def status(state):
    if not url(state):
        return {}
    return lifecycle.report(state, NAME, url(state), url(state) + '/v2/')


def tempest_options(state, sections, cli):
    if url(state):
        sections['image_uploader'] = {'registry': url(state).split('://',
                                                                   1)[1]}


def restartable(state):
    return [NAME] if enabled(state) else []


def restart(state, name):
    return lifecycle.restart_own(state, name, restartable(state), start,
                                 wait_ready)
