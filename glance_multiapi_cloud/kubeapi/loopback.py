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

"""A loopback Kubernetes API of ConfigMaps alone, run as a command.

``python -m glance_multiapi_cloud.kubeapi.loopback --dir DIR`` serves
namespaced ConfigMaps (kept under DIR/configmaps) on 127.0.0.1, for one
bearer token of its own, until SIGTERM or SIGINT; once it listens it
writes DIR/kubeconfig (namespace ``default``), which is how its caller
knows it is ready. The uploader scenarios run it, through
``[image_uploader] configmap_api_command``, where no Kubernetes API is
configured: the plugin reaches a stand-in as it reaches a cluster, over
HTTP, and never imports the cloud.
"""

import argparse
import os
import secrets
import signal
import sys
import threading

import yaml

from glance_multiapi_cloud.kubeapi import configmaps
from glance_multiapi_cloud.kubeapi import request as kube_request
from glance_multiapi_cloud.kubeapi import resources
from glance_multiapi_cloud.kubeapi import server
from glance_multiapi_cloud.kubeapi import status

KUBECONFIG = 'kubeconfig'
CONTEXT = 'uploader-scenarios'


class ConfigMapApi(server.Api):
    """The stand-in with ConfigMaps alone, for one bearer token."""

    def __init__(self, root, token):
        super().__init__(resources.Resources([configmaps.RESOURCE]))
        self.store = configmaps.Store(root)
        self.token = token

    def authenticate(self, context, headers):
        if not server.token_matches(headers, self.token):
            raise kube_request.Response(401, status.unauthorized())
        return 'uploader'

    def serve(self, context, request, headers, body):
        return configmaps.answer(self.store, request, headers, body)


def kubeconfig(url, token):
    """The kubeconfig document of a loopback API at url."""
    return {
        'apiVersion': 'v1', 'kind': 'Config',
        'clusters': [{'name': CONTEXT, 'cluster': {'server': url}}],
        'users': [{'name': CONTEXT, 'user': {'token': token}}],
        'contexts': [{'name': CONTEXT, 'context': {
            'cluster': CONTEXT, 'user': CONTEXT, 'namespace': 'default'}}],
        'current-context': CONTEXT}


def _write_private(path, document):
    # NOTE: written under another name and renamed, so the caller that
    # polls for the file never reads half of it.
    tmp = path + '.tmp'
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, 'w') as out:
        yaml.safe_dump(document, out)
    os.replace(tmp, path)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='python -m glance_multiapi_cloud.kubeapi.loopback',
        description=__doc__.splitlines()[0])
    parser.add_argument('--dir', required=True,
                        help='where the ConfigMaps and the kubeconfig go')
    args = parser.parse_args(argv)
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_args: stop.set())
    token = secrets.token_urlsafe(24)
    try:
        running = server.Running(ConfigMapApi(
            os.path.join(args.dir, 'configmaps'), token))
    except OSError as exc:
        sys.stderr.write('%s: cannot serve: %s\n' % (parser.prog, exc))
        return 1
    try:
        _write_private(os.path.join(args.dir, KUBECONFIG),
                       kubeconfig(running.url, token))
        stop.wait()
    finally:
        running.stop()
    return 0


if __name__ == '__main__':
    sys.exit(main())
