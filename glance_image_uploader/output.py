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
import re
import tempfile

import yaml

# NOTE: plain JSON requests for the ConfigMap, not the kubernetes
# client's CoreV1Api: see the module.
from glance_multiapi_kernel import kube_rest
from glance_image_uploader import exitcodes

# NOTE: the names Sylva's uploader job writes and its consumers read.
CONFIGMAP_NAME = 'openstack-images-uuids'
CONFIGMAP_KEY = 'values.yaml'
UUID_OUTPUTS = ('stdout', 'configmap')
CONFLICT_RETRIES = 5
_LABEL = re.compile(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')


def uuid_map(uuids):
    """uuids: {image key: glance UUID} -> the os_images document."""
    return {'os_images': {key: {'openstack_glance_uuid': uuid}
                          for key, uuid in uuids.items()}}


def render(uuids):
    return yaml.safe_dump(uuid_map(uuids), default_flow_style=False,
                          sort_keys=True)


def write_file(path, text):
    """Write atomically so a reader never sees half a map."""
    directory = os.path.dirname(os.path.abspath(path))
    try:
        handle, temp = tempfile.mkstemp(prefix='.uuids-', dir=directory)
    except OSError as exc:
        raise exitcodes.UploaderError(
            exitcodes.OUTPUT_ERROR,
            'cannot write the UUID map to %s: %s' % (path, exc.strerror))
    try:
        with os.fdopen(handle, 'w', encoding='utf-8') as out:
            out.write(text)
        os.replace(temp, path)
    except OSError as exc:
        os.unlink(temp)
        raise exitcodes.UploaderError(
            exitcodes.OUTPUT_ERROR,
            'cannot write the UUID map to %s: %s' % (path, exc.strerror))


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
    if len(namespace) > 63 or not _LABEL.match(namespace):
        raise exitcodes.UploaderError(
            exitcodes.BAD_CONFIG, 'TARGET_NAMESPACE=%s is not a valid '
            'namespace (a lowercase RFC 1123 label)' % namespace)
    return name, namespace, key or CONFIGMAP_KEY


def _load_client(kube_config):
    """A kube_rest.Client from the pod's service account, else KUBECONFIG."""
    try:
        config = kube_rest.configuration(in_cluster=True)
    except kube_config.ConfigException:
        # NOTE: load_kube_config reads $KUBECONFIG (a path list too),
        # falling back to ~/.kube/config.
        config = kube_rest.configuration(
            kubeconfig=os.environ.get('KUBECONFIG') or None)
    return kube_rest.Client(config)


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


def write_configmap(name, namespace, key, text):
    """Create ConfigMap name with data {key: text}, or merge into it.

    The kubernetes client is optional: it is imported only here, and its
    absence is a clear error, not an import failure at start-up.
    """
    try:
        import kubernetes.config
    except ImportError:
        raise exitcodes.UploaderError(
            exitcodes.OUTPUT_ERROR,
            '--configmap needs the kubernetes python package, which is not '
            'installed')
    try:
        api = _load_client(kubernetes.config)
        collection = '/api/v1/namespaces/%s/configmaps' % namespace
        for _attempt in range(CONFLICT_RETRIES):
            body = {'apiVersion': 'v1', 'kind': 'ConfigMap',
                    'metadata': {'name': name}, 'data': {key: text}}
            try:
                api.request('POST', collection, body)
                return
            except kube_rest.ApiError as exc:
                if exc.status != 409:
                    raise
            current = api.request('GET', '%s/%s' % (collection, name))
            data = dict(current.get('data') or {})
            data[key] = merged(data.get(key), text)
            current['data'] = data
            try:
                # NOTE: conditional on the resourceVersion just read, so
                # a concurrent writer's images are not lost.
                api.request('PUT', '%s/%s' % (collection, name), current)
                return
            except kube_rest.ApiError as exc:
                if exc.status not in (404, 409):
                    raise
        raise exitcodes.UploaderError(
            exitcodes.OUTPUT_ERROR,
            'cannot write ConfigMap %s/%s: still conflicting after %d '
            'attempts' % (namespace, name, CONFLICT_RETRIES))
    except exitcodes.UploaderError:
        raise
    except Exception as exc:
        raise exitcodes.UploaderError(
            exitcodes.OUTPUT_ERROR,
            'cannot write ConfigMap %s/%s: %s'
            % (namespace, name, _one_line(exc)))


def _one_line(exc):
    if isinstance(exc, kube_rest.ApiError):
        # NOTE: kube_rest's own line: the request, the status and the
        # API server's message.
        return str(exc)
    status = getattr(exc, 'status', None)
    reason = getattr(exc, 'reason', None)
    if status and reason:
        return 'HTTP %s %s' % (status, reason)
    text = str(exc).strip()
    return text.splitlines()[0] if text else exc.__class__.__name__
