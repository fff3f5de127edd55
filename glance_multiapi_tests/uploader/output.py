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
import tempfile

import yaml

from glance_multiapi_tests.uploader import exitcodes


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


def write_configmap(name, namespace, key, text):
    """Create or replace ConfigMap name with data {key: text}.

    The kubernetes client is optional: it is imported only here, and its
    absence is a clear error, not an import failure at start-up.
    """
    try:
        import kubernetes
    except ImportError:
        raise exitcodes.UploaderError(
            exitcodes.OUTPUT_ERROR,
            '--configmap needs the kubernetes python package, which is not '
            'installed')
    try:
        try:
            kubernetes.config.load_incluster_config()
        except kubernetes.config.ConfigException:
            kubernetes.config.load_kube_config()
        api = kubernetes.client.CoreV1Api()
        body = kubernetes.client.V1ConfigMap(
            metadata=kubernetes.client.V1ObjectMeta(name=name),
            data={key: text})
        try:
            api.replace_namespaced_config_map(name, namespace, body)
        except kubernetes.client.exceptions.ApiException as exc:
            if exc.status != 404:
                raise
            api.create_namespaced_config_map(namespace, body)
    except Exception as exc:
        raise exitcodes.UploaderError(
            exitcodes.OUTPUT_ERROR,
            'cannot write ConfigMap %s/%s: %s'
            % (namespace, name, str(exc).splitlines()[0] if str(exc)
               else exc.__class__.__name__))
