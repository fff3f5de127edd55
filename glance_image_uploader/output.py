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

"""The UUID map the uploader reports, to a stream, a file or a ConfigMap.

The map has the shape Sylva stores in its ConfigMap:
``os_images: {<name>: {openstack_glance_uuid: <uuid>}}``.
"""

import os

import yaml

from glance_image_uploader import exitcodes
from glance_multiapi_kernel import errors
from glance_multiapi_kernel import input_files
from glance_multiapi_kernel import interrupts
from glance_multiapi_kernel import kube
from glance_multiapi_kernel import values

# NOTE: the names Sylva's uploader job writes and its consumers read.
CONFIGMAP_NAME = 'openstack-images-uuids'
CONFIGMAP_KEY = 'values.yaml'
UUID_OUTPUTS = ('stdout', 'configmap')
CONFLICT_RETRIES = 5
# NOTE: seconds to connect to the Kubernetes API, and a request's whole
# exchange, from connect to its last byte (REQUEST_TIMEOUT).
CONNECT_TIMEOUT = 10.0
READ_TIMEOUT = 30.0


def uuid_map(uuids):
    """uuids: {image key: glance UUID} -> the os_images document."""
    return {'os_images': {key: {'openstack_glance_uuid': uuid}
                          for key, uuid in uuids.items()}}


def render(uuids):
    return yaml.safe_dump(uuid_map(uuids), default_flow_style=False,
                          sort_keys=True)


def check_output_file(path):
    """Code 22 unless path may be replaced by the UUID map's file.

    NOTE: the map is written by a rename over path, which would put a
    file in place of a FIFO, a device or a socket (or fail on a folder)
    after every upload: one that exists must be a regular file. Checked
    before any work.
    """
    if path in (None, '-'):
        return
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise exitcodes.UploaderError(
            exitcodes.BAD_CONFIG, '--output %s cannot be used: %s' % (
                path, exc.strerror or exc))
    kind = input_files.kind_of(mode)
    if kind:
        raise exitcodes.UploaderError(
            exitcodes.BAD_CONFIG, '--output %s is %s, not a regular file '
            '(give - for stdout)' % (path, kind))


def write_file(path, text):
    """Write atomically so a reader never sees half a map."""
    try:
        interrupts.write_replacing(path, text)
    except OSError as exc:
        raise exitcodes.UploaderError(
            exitcodes.OUTPUT_ERROR,
            'cannot write the UUID map to %s: %s' % (
                path, exc.strerror or exc))


def configmap_target(configmap, namespace, key, environ):
    """(name, namespace, key) of the ConfigMap to write, or None.

    The map goes to a ConfigMap when --configmap names one or when
    UUID_OUTPUT=configmap (then named openstack-images-uuids, as Sylva's
    uploader does); its namespace is --configmap-namespace or
    TARGET_NAMESPACE, and without either the run stops before any work
    with exit 22.
    """
    mode = (environ.get('UUID_OUTPUT') or 'stdout').strip().lower()
    if mode not in UUID_OUTPUTS:
        raise exitcodes.UploaderError(
            exitcodes.BAD_CONFIG, 'UUID_OUTPUT=%s: expected one of %s'
            % (environ.get('UUID_OUTPUT'), ', '.join(UUID_OUTPUTS)))
    name = configmap or (CONFIGMAP_NAME if mode == 'configmap' else None)
    if not name:
        return None
    namespace = (namespace or environ.get('TARGET_NAMESPACE') or '').strip()
    if not namespace:
        raise exitcodes.UploaderError(
            exitcodes.BAD_CONFIG, 'the UUID map goes to ConfigMap %s but '
            'TARGET_NAMESPACE is not set' % name)
    problem = values.namespace_problem(namespace)
    if problem:
        raise exitcodes.UploaderError(
            exitcodes.BAD_CONFIG, 'TARGET_NAMESPACE: %s' % problem)
    return name, namespace, key or CONFIGMAP_KEY


def merged(existing_text, text):
    """The os_images of existing_text updated with those of text.

    NOTE: several uploader jobs may share one ConfigMap; each adds its
    images and keeps the others'.
    """
    try:
        current = yaml.safe_load(existing_text or '') or {}
    except yaml.YAMLError:
        current = {}
    if not isinstance(current, dict) or not isinstance(
            current.get('os_images'), dict):
        current = {'os_images': {}}
    current['os_images'].update(yaml.safe_load(text)['os_images'])
    return yaml.safe_dump(current, default_flow_style=False,
                          sort_keys=True)


def write_configmap(name, namespace, key, text, timeout=READ_TIMEOUT):
    """Create ConfigMap name with data {key: text}, or merge into it.

    The Kubernetes API is the pod's service account's, else $KUBECONFIG's
    (Sylva's order, kube.Settings.pod_account_first). The kubernetes
    client is optional: it is imported only here, and its absence is a
    clear error, not an import failure at start-up.
    """
    try:
        import kubernetes.config  # noqa: F401 - only whether it is there
    except ImportError:
        raise exitcodes.UploaderError(
            exitcodes.OUTPUT_ERROR,
            '--configmap needs the kubernetes python package, which is not '
            'installed')
    settings = kube.Settings(namespace=namespace, pod_account_first=True,
                             kubeconfig_option='$KUBECONFIG',
                             connect_timeout=min(CONNECT_TIMEOUT, timeout),
                             timeout=timeout)
    try:
        with kube.connect(settings) as api:
            _write(api, name, key, text)
    except exitcodes.UploaderError:
        raise
    except Exception as exc:  # noqa: B902 - one line whatever went wrong
        # NOTE: a KubeError's line names the server, the call and what the
        # answer means.
        raise exitcodes.UploaderError(
            exitcodes.OUTPUT_ERROR, 'cannot write ConfigMap %s/%s: %s' % (
                namespace, name, errors.one_line(exc))) from None


def _write(api, name, key, text):
    for _attempt in range(CONFLICT_RETRIES):
        try:
            api.create(kube.CONFIGMAP, {
                'apiVersion': 'v1', 'kind': 'ConfigMap',
                'metadata': {'name': name}, 'data': {key: text}})
            return
        except kube.KubeError as exc:
            if exc.status != 409:
                raise
        current = api.get(kube.CONFIGMAP, name)
        data = dict(current.get('data') or {})
        data[key] = merged(data.get(key), text)
        current['data'] = data
        try:
            # NOTE: conditional on the resourceVersion just read, so a
            # concurrent writer's images are not lost.
            api.replace(kube.CONFIGMAP, current)
            return
        except kube.KubeError as exc:
            if exc.status not in (404, 409):
                raise
    raise exitcodes.UploaderError(
        exitcodes.OUTPUT_ERROR,
        'cannot write ConfigMap %s/%s: still conflicting after %d attempts'
        % (api.namespace, name, CONFLICT_RETRIES))
