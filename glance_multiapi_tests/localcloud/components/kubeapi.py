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

"""The Kubernetes-style API of the embedded cloud (always on).

A loopback HTTP server (runtime/kubeapi_server.py) serving the Glance CR,
its OpenStackControlPlane, the OpenStackVersion and the heat Deployments
as a cluster would, so that kubectl, the ``kubernetes`` client and the
plugin's Kubernetes way work unchanged. ``up`` writes the kubeconfig
(random bearer token, namespace openstack) and, with heat, the
image-mappings.yaml and known image names the consolidated image checks
read.
"""

import base64
import datetime
import os
import secrets
import sys
import uuid

import requests
import yaml

from glance_multiapi_tests.common import documents
from glance_multiapi_tests.common import polling
from glance_multiapi_tests.localcloud import kubecerts
from glance_multiapi_tests.localcloud import kubeobjects
from glance_multiapi_tests.localcloud import kuberbac
from glance_multiapi_tests.localcloud import lifecycle
from glance_multiapi_tests.localcloud import processes

NAME = 'kubeapi'
KUBECONFIG = 'kubeconfig'
MAPPINGS = 'image-mappings.yaml'
KNOWN_NAMES = 'known-image-names.txt'
ROLE_FILE = kuberbac.ROLE_FILE
AUDIT_LOG = kuberbac.AUDIT_LOG
CONTEXT = 'glance-multiapi-cloud'
USER = 'glance-multiapi-tests'
# NOTE: its CA, serving certificate and key (kubecerts.py says why TLS).
TLS_DIR = 'kubeapi'


def url(state):
    return 'https://127.0.0.1:%d' % state.port(NAME)


def ca_path(state):
    return state.path(TLS_DIR, 'ca.crt')


def _write_private(path, text):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, 'w') as f:
        f.write(text)


def kubeconfig(state, ca_pem):
    """The kubeconfig document: this API, its token, namespace openstack."""
    return {'apiVersion': 'v1', 'kind': 'Config', 'preferences': {},
            'clusters': [{'name': CONTEXT, 'cluster': {
                'server': url(state),
                'certificate-authority-data': base64.b64encode(
                    ca_pem).decode()}}],
            'users': [{'name': USER, 'user': {
                'token': state.data['kube']['token']}}],
            'contexts': [{'name': CONTEXT, 'context': {
                'cluster': CONTEXT, 'user': USER,
                'namespace': kubeobjects.NAMESPACE}}],
            'current-context': CONTEXT}


def check_role(path):
    """The text of a Role file for ``up --kube-role``; RoleError if bad."""
    try:
        with open(path, 'rb') as f:
            text = documents.decode(f.read(), 'Role file %s' % path)
    except OSError as exc:
        raise kuberbac.RoleError('cannot read Role file %s: %s' % (
            path, exc.strerror or exc))
    except documents.DocumentError as exc:
        raise kuberbac.RoleError(str(exc))
    kuberbac.parse_role(text, path)
    return text


def install_role(state, text):
    """Make every request be authorised against this Role from now on."""
    _write_private(state.path(ROLE_FILE), text)


def image_mappings():
    """s2i's image-mappings.yaml for the one heat image of this cloud."""
    return {'openstack_version': {'custom_container_images': {
        kubeobjects.HEAT_TARGET: [
            field for _proc, field in kubeobjects.HEAT_DEPLOYMENTS.values()]
    }}}


# -- verbs (see components/__init__.py) ----------------------------------
def enabled(state):
    return True


def binaries_needed(state):
    pass


def prepare(state):
    """A fresh token, uid seed and kubeconfig; heat's image digest."""
    kube = {'token': secrets.token_urlsafe(32),
            'uid_seed': str(uuid.uuid4()),
            'created': datetime.datetime.now(datetime.timezone.utc).strftime(
                '%Y-%m-%dT%H:%M:%SZ'),
            'generation': 1}
    if state.data.get('options', {}).get('heat'):
        kube['heat_digest'] = kubeobjects.heat_record_digest()
    state.data['kube'] = kube
    state.makedirs(TLS_DIR)
    ca_pem, cert_pem, key_pem = kubecerts.make()
    for name, pem in (('ca.crt', ca_pem), ('tls.crt', cert_pem),
                      ('tls.key', key_pem)):
        _write_private(state.path(TLS_DIR, name), pem.decode())
    _write_private(state.path(KUBECONFIG), yaml.safe_dump(
        kubeconfig(state, ca_pem), default_flow_style=False))
    return None


def start(state):
    port = state.port(NAME)
    processes.start(state, NAME, [
        sys.executable, '-m',
        'glance_multiapi_tests.localcloud.runtime.kubeapi_server',
        '--state-dir', state.root, '--port', str(port),
        '--cert', state.path(TLS_DIR, 'tls.crt'),
        '--key', state.path(TLS_DIR, 'tls.key')], ports=[port])
    return [NAME]


def _healthy(state):
    """(answers /healthz, what was seen) under the cloud's CA."""
    try:
        resp = requests.get(url(state) + '/healthz', verify=ca_path(state),
                            timeout=2)
    except requests.RequestException as exc:
        return False, type(exc).__name__
    return resp.status_code == 200, 'HTTP %d' % resp.status_code


def wait_ready(state, started, timeout=60):
    if NAME not in started:
        return

    def check():
        if not processes.pid_of(state, NAME):
            raise processes.exit_error(state, NAME, 'answering /healthz')
        return _healthy(state)

    polling.poll(check, timeout=timeout, interval=0.1, max_interval=0.5,
                 what='%s to answer %s/healthz' % (NAME, url(state)),
                 describe=str)


def register(state, admin):
    pass


def reconcile(state):
    """With heat: the image mapping and known names of its one image."""
    if not state.data.get('options', {}).get('heat'):
        return
    _write_private(state.path(MAPPINGS), yaml.safe_dump(
        image_mappings(), default_flow_style=False))
    _write_private(state.path(KNOWN_NAMES), kubeobjects.HEAT_IMAGE_NAME +
                   '\n')


def stop(state):
    return processes.stop_many(state, [NAME])


def status(state):
    running = bool(processes.pid_of(state, NAME))
    return {NAME: {'url': url(state), 'running': running,
                   'ready': running and _healthy(state)[0]}}


def tempest_options(state, sections, cli):
    """The plugin learns and patches the deployment the Kubernetes way."""
    sections['glance_multiapi'].update({
        'kubernetes_api': 'True', 'kubeconfig': state.path(KUBECONFIG),
        'namespace': kubeobjects.NAMESPACE,
        'patch_object': 'openstackcontrolplane'})
    # NOTE: where the uploader scenarios in uuid_output = configmap mode
    # let the uploader write its ConfigMap (each in its own namespace).
    sections.setdefault('image_uploader', {})['kubeconfig'] = state.path(
        KUBECONFIG)
    if state.data.get('options', {}).get('heat'):
        sections['consolidated_images'] = {
            'kubernetes_api': 'True', 'mappings_file': state.path(MAPPINGS),
            'known_image_names_file': state.path(KNOWN_NAMES)}


def restartable(state):
    return [NAME]


def restart(state, name):
    return lifecycle.restart_own(state, name, restartable(state), start,
                                 wait_ready)
