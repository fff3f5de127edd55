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

"""Debian's docker-registry, the OCI registry the image uploader pulls
from (``up --no-registry`` leaves it out).

Two docker-registry processes share one storage root: ``registry`` on
plain HTTP (kept for the benchmark and older configurations) and
``registry-tls`` on HTTPS with a certificate of the cloud's CA
(certs.py; docker-registry's ``http.tls.certificate``/``key``), the one
production uploaders talk to and the one the uploader scenarios use.
"""

import requests

from glance_multiapi_kernel import polling
from glance_multiapi_cloud import certs
from glance_multiapi_cloud import errors
from glance_multiapi_cloud import lifecycle
from glance_multiapi_cloud import processes

NAME = 'registry'
TLS_NAME = 'registry-tls'
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

TLS_CONF = """  tls:
    certificate: {cert}
    key: {key}
"""


def url(state):
    """Its URL, or None on a cloud without a registry."""
    port = state.record.ports.get(NAME)
    return 'http://127.0.0.1:%d' % port if port else None


def tls_url(state):
    """Its HTTPS URL, or None on a cloud without one."""
    port = state.record.ports.get(TLS_NAME)
    return 'https://127.0.0.1:%d' % port if port else None


def _tls_answers(state):
    """(answers /v2/ under the cloud's CA, what was seen)."""
    try:
        resp = requests.get(tls_url(state) + '/v2/', timeout=2,
                            verify=certs.ca_path(state))
    except requests.RequestException as exc:
        return False, type(exc).__name__
    return resp.status_code == 200, 'HTTP %d' % resp.status_code


ENTRIES = ('registry',)


# -- verbs (see components/__init__.py) ----------------------------------
def enabled(state):
    return bool(state.record.options.registry)


def binaries_needed(state):
    processes.find_binary('docker-registry', HINT)


def prepare(state):
    return None


def _start_one(state, name):
    binary = processes.find_binary('docker-registry', HINT)
    port = state.port(name)
    root = state.makedirs('registry', 'data')
    text = REGISTRY_CONF.format(root=root, port=port)
    conf = state.path('registry', 'config.yml')
    if name == TLS_NAME:
        cert, key = certs.issue(state, TLS_NAME)
        text += TLS_CONF.format(cert=cert, key=key)
        conf = state.path('registry', 'config-tls.yml')
    with open(conf, 'w') as f:
        f.write(text)
    processes.start(state, name, [binary, 'serve', conf], ports=[port])


def start(state, only=None):
    names = [only] if only else [NAME, TLS_NAME]
    for name in names:
        _start_one(state, name)
    return names


def _wait_tls(state, timeout=60):
    def check():
        if not processes.pid_of(state, TLS_NAME):
            raise processes.exit_error(state, TLS_NAME, 'answering /v2/')
        return _tls_answers(state)

    try:
        polling.poll(check, timeout=timeout, interval=0.1, max_interval=0.5,
                     what='%s to answer %s/v2/ under the cloud CA'
                     % (TLS_NAME, tls_url(state)), describe=str)
    except polling.PollTimeout as exc:
        raise errors.CloudError('%s (see %s)' % (exc, processes.log_path(
            state, TLS_NAME)))


def wait_ready(state, started):
    if NAME in started:
        processes.wait_http(state, NAME, url(state) + '/v2/')
    if TLS_NAME in started:
        _wait_tls(state)


def register(state, admin):
    pass


def reconcile(state):
    pass


def stop(state):
    return processes.stop_many(state, [NAME, TLS_NAME])


def status(state):
    if not url(state):
        return {}
    found = lifecycle.report(state, NAME, url(state), url(state) + '/v2/')
    if tls_url(state):
        running = bool(processes.pid_of(state, TLS_NAME))
        found[TLS_NAME] = {'url': tls_url(state), 'running': running,
                           'ready': running and _tls_answers(state)[0]}
    return found


def tempest_options(state, sections, cli):
    """The scenarios push to and pull from the HTTPS registry."""
    if tls_url(state):
        sections.setdefault('image_uploader', {}).update({
            'registry': tls_url(state).split('://', 1)[1],
            'registry_ca_file': certs.ca_path(state)})


def restartable(state):
    return [NAME, TLS_NAME] if enabled(state) else []


def restart(state, name):
    return lifecycle.restart_own(
        state, name, restartable(state),
        lambda s, **kw: start(s, only=name), wait_ready)
