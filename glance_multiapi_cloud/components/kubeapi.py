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

A loopback HTTP server (kubeapi/embedded/server.py) serving the Glance CR,
its OpenStackControlPlane, the OpenStackVersion and the heat Deployments
as a cluster would, so that kubectl, the ``kubernetes`` client and the
plugin's Kubernetes way work unchanged. ``up`` writes the kubeconfig
(random bearer token, namespace openstack) and, with heat, the
image-mappings.yaml and known image names the consolidated image checks
read.
"""

import base64
import os
import secrets as secrets_mod
import sys
import uuid

import requests
import yaml

from glance_multiapi_kernel import documents
from glance_multiapi_kernel import input_files
from glance_multiapi_kernel import polling
from glance_multiapi_kernel import redaction
from glance_multiapi_kernel import image_mappings as s2i_mappings
from glance_multiapi_kernel import certmint
from glance_multiapi_cloud.kubeapi import objectmeta
from glance_multiapi_cloud.kubeapi.embedded import heat as kubeheat
from glance_multiapi_cloud.kubeapi.embedded import objects as kubeobjects
from glance_multiapi_cloud.kubeapi.embedded import heatpods
from glance_multiapi_cloud.kubeapi.embedded import pods as kubepods
from glance_multiapi_cloud.kubeapi.embedded import rbac as kuberbac
from glance_multiapi_cloud.kubeapi.embedded import server as kubeapi_server
from glance_multiapi_cloud import lifecycle
from glance_multiapi_cloud import processes
from glance_multiapi_cloud import record as record_mod

NAME = 'kubeapi'
KUBECONFIG = 'kubeconfig'
MAPPINGS = 'image-mappings.yaml'
KNOWN_NAMES = 'known-image-names.txt'
# NOTE: the manager env of the cloud's openstack-operator (its
# RELATED_IMAGE defaults and OPENSTACK_RELEASE_VERSION).
MANAGER_ENV = 'related-images.env'
CONTEXT = 'glance-multiapi-cloud'
USER = 'glance-multiapi-tests'
# NOTE: its CA, serving certificate and key (certmint.py says why TLS).
TLS_DIR = 'kubeapi'
# NOTE: and what the stand-in keeps in the state dir: the RBAC manifests,
# the audit log, the stored Pods and ConfigMaps, heat's deleted pods.
ENTRIES = (KUBECONFIG, MAPPINGS, KNOWN_NAMES, MANAGER_ENV, TLS_DIR,
           kuberbac.ROLE_FILE,
           kuberbac.AUDIT_LOG, kubepods.FILE, kubeapi_server.CONFIGMAPS_DIR,
           heatpods.STORE)


def url(state):
    return 'https://127.0.0.1:%d' % state.port(NAME)


def ca_path(state):
    return state.path(TLS_DIR, 'ca.crt')


def _write_private(path, text):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, 'w') as f:
        f.write(text)


def kubeconfig(state, ca_pem):
    """The kubeconfig document: this API, its token and namespace."""
    return {'apiVersion': 'v1', 'kind': 'Config', 'preferences': {},
            'clusters': [{'name': CONTEXT, 'cluster': {
                'server': url(state),
                'certificate-authority-data': base64.b64encode(
                    ca_pem).decode()}}],
            'users': [{'name': USER, 'user': {
                'token': state.record.kube.token}}],
            'contexts': [{'name': CONTEXT, 'context': {
                'cluster': CONTEXT, 'user': USER,
                'namespace': kubeobjects.namespace_of(
                    state.record.kube)}}],
            'current-context': CONTEXT}


def check_rbac(paths, namespace, account=None):
    """(texts, account) of the RBAC files of ``up --kube-role``.

    account is the service account the kubeconfig acts as. RoleError (one
    line) when the files cannot be used.
    """
    texts = []
    for path in paths:
        try:
            texts.append((input_files.read_text(path, 'RBAC file'), path))
        except input_files.InputFileError as exc:
            raise kuberbac.RoleError(str(exc)) from None
    rbac = kuberbac.parse_rbac(texts, namespace)
    if account is None:
        account = kuberbac.default_account(rbac)
    elif rbac.bindings and account not in {
            a for _role, bound in rbac.bindings for a in bound}:
        raise kuberbac.RoleError('service account %s is bound to no Role '
                                 'by %s' % (account, ', '.join(paths)))
    return texts, account or kubeobjects.ACCOUNT


def install_rbac(state, texts):
    """Make every request be authorised by these manifests from now on.

    Their text is kept in the state dir (one file, for the artifacts);
    prepare() resolves who may do what from it. NOTE: without the values
    of secret keys (a token Secret's data): each token Secret gets a
    token of the cloud's own, and the artifacts must not carry the one a
    user wrote there.
    """
    _write_private(state.path(kuberbac.ROLE_FILE), '\n---\n'.join(
        '# %s\n%s' % (where, yaml.safe_dump_all(
            redaction.value(documents.load_yaml_all(text)),
            default_flow_style=False)) for text, where in texts))


def _identities(state, account, namespace):
    """(kubeconfig token, token -> account, Secret -> token, rules).

    Every token Secret of the manifests gets a token of its own, as the
    token controller fills one in; the kubeconfig carries the token of
    its account's Secret. rules is None (all allowed) without manifests.
    """
    try:
        with open(state.path(kuberbac.ROLE_FILE), encoding='utf-8') as f:
            rbac = kuberbac.parse_rbac([(f.read(), kuberbac.ROLE_FILE)],
                                       namespace)
    except FileNotFoundError:
        rbac = None
    tokens, secrets = {}, {}
    for secret, owner in sorted((rbac.token_secrets if rbac else {}).items()):
        token = secrets[secret] = secrets_mod.token_urlsafe(32)
        tokens[token] = owner
    mine = [token for token, owner in tokens.items() if owner == account]
    own = mine[0] if mine else secrets_mod.token_urlsafe(32)
    tokens[own] = account
    rules = None
    if rbac is not None:
        rules = {name: kuberbac.account_rules(rbac, name)
                 for name in set(tokens.values())}
    return own, tokens, secrets, rules


def image_mappings(images):
    """s2i's image-mappings.yaml for heat's images as the cloud deploys them.

    One build target per image status deploys, named heat/<image dir> as
    s2i names its targets (s2i's own heat entries in state s2i).
    """
    targets = {}
    prefix = s2i_mappings.IMAGE_NAME_PREFIX
    for name, fields in kubeheat.by_image(kubeheat.deployed(images)):
        target = 'heat/' + (name[len(prefix):] if name.startswith(prefix)
                            else name)
        targets[target] = list(fields)
    return {'openstack_version': {'custom_container_images': targets}}


# -- verbs (see components/__init__.py) ----------------------------------
def enabled(state):
    return True


def binaries_needed(state):
    pass


def prepare(state):
    """Fresh tokens, uid seed and kubeconfig; heat's image digest."""
    options = state.record.options
    account = options.kube_account or kubeobjects.ACCOUNT
    namespace = options.kube_namespace or kubeobjects.NAMESPACE
    token, tokens, secrets, rules = _identities(state, account, namespace)
    state.record.kube = record_mod.Kube(
        namespace=namespace, token=token, tokens=tokens, secrets=secrets,
        rules=rules, account=account, uid_seed=str(uuid.uuid4()),
        created=objectmeta.timestamp(),
        heat_digest=kubeheat.record_digest() if options.heat else None)
    state.makedirs(TLS_DIR)
    ca_pem, cert_pem, key_pem = certmint.make()
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
        'glance_multiapi_cloud.kubeapi.embedded.server',
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
    """With heat: its image mapping, known names and manager env."""
    if not state.record.options.heat:
        return
    images = kubeheat.images_of(state.record)
    _write_private(state.path(MAPPINGS), yaml.safe_dump(
        image_mappings(images), default_flow_style=False))
    _write_private(state.path(KNOWN_NAMES), ''.join(
        name + '\n' for name, _fields in kubeheat.by_image(
            kubeheat.deployed(images))))
    _write_private(state.path(MANAGER_ENV), ''.join(
        '%s=%s\n' % pair for pair in kubeheat.manager_env(images)))


def stop(state):
    return processes.stop_many(state, [NAME])


def status(state):
    running = bool(processes.pid_of(state, NAME))
    return {NAME: {'url': url(state), 'running': running,
                   'ready': running and _healthy(state)[0]}}


def tempest_options(state, sections, cli):
    """The plugin learns and patches the deployment the Kubernetes way."""
    # NOTE: no namespace: the plugin takes the kubeconfig context's, as
    # a pod takes its own.
    sections['glance_multiapi'].update({
        'kubernetes_api': 'True', 'kubeconfig': state.path(KUBECONFIG),
        'patch_object': 'openstackcontrolplane'})
    # NOTE: where the uploader scenarios in uuid_output = configmap mode
    # let the uploader write its ConfigMap (each in its own namespace).
    sections.setdefault('image_uploader', {})['kubeconfig'] = state.path(
        KUBECONFIG)
    if state.record.options.heat:
        sections['consolidated_images'] = {
            'kubernetes_api': 'True', 'mappings_file': state.path(MAPPINGS),
            'known_image_names_file': state.path(KNOWN_NAMES)}


def restartable(state):
    return [NAME]


def restart(state, name):
    return lifecycle.restart_own(state, name, restartable(state), start,
                                 wait_ready)
