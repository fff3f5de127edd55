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

"""Where an uploader in configmap mode writes its UUID map, and reading it.

ConfigMapNamespace gives one scenario its own namespace on a Kubernetes
API: the one of ``[image_uploader] kubeconfig`` (a cluster, or the
embedded cloud's), else LoopbackConfigMapApi: the project's Kubernetes
API stand-in (glance_multiapi_cloud/kubeapi, the one the embedded cloud serves too)
serving only namespaced ConfigMaps, kept in a temp dir, with its
discovery documents for the kubernetes client and kubectl.
"""

import os
import secrets
import uuid

import fixtures
import yaml

from glance_multiapi_cloud.kubeapi import configmaps
from glance_multiapi_cloud.kubeapi import request as kube_request
from glance_multiapi_cloud.kubeapi import resources
from glance_multiapi_cloud.kubeapi import server
from glance_multiapi_cloud.kubeapi import status


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


class LoopbackConfigMapApi(fixtures.Fixture):
    """ConfigMapApi on loopback for this test; .kubeconfig names it."""

    def __init__(self, workdir):
        super().__init__()
        self.workdir = workdir

    def _setUp(self):
        token = secrets.token_urlsafe(24)
        running = server.Running(ConfigMapApi(
            os.path.join(self.workdir, 'configmaps'), token))
        self.addCleanup(running.stop)
        self.kubeconfig = os.path.join(self.workdir, 'kubeconfig')
        context = 'uploader-scenarios'
        document = {
            'apiVersion': 'v1', 'kind': 'Config',
            'clusters': [{'name': context, 'cluster': {
                'server': running.url}}],
            'users': [{'name': context, 'user': {'token': token}}],
            'contexts': [{'name': context, 'context': {
                'cluster': context, 'user': context,
                'namespace': 'default'}}],
            'current-context': context}
        fd = os.open(self.kubeconfig, os.O_WRONLY | os.O_CREAT, 0o600)
        with os.fdopen(fd, 'w') as out:
            yaml.safe_dump(document, out)


class ConfigMapNamespace(fixtures.Fixture):
    """A namespace of this scenario alone; its ConfigMap goes at the end."""

    def __init__(self, opts, workdir):
        super().__init__()
        self.opts = opts
        self.workdir = workdir

    def _setUp(self):
        import kubernetes.config

        from glance_multiapi_tests.common import kube_rest

        self.kubeconfig = self.opts.kubeconfig
        if not self.kubeconfig:
            self.kubeconfig = self.useFixture(
                LoopbackConfigMapApi(self.workdir)).kubeconfig
        # NOTE: plain JSON requests, not CoreV1Api: see common/kube_rest.
        self.api = kube_rest.Client(kube_rest.configuration(
            kubeconfig=self.kubeconfig))
        self.addCleanup(self.api.close)
        self._exception = kube_rest.ApiError
        _contexts, current = kubernetes.config.list_kube_config_contexts(
            config_file=self.kubeconfig)
        self.home = (current.get('context') or {}).get('namespace',
                                                       'default')
        self.namespace = 'upl-' + uuid.uuid4().hex[:12]
        self._create_namespace()
        self.addCleanup(self._delete, self.opts.configmap_name)

    def _create_namespace(self):
        """On a cluster the namespace must exist; make it, drop it after.

        NOTE: the stand-in refuses to create namespaces (the embedded
        cloud's API with 405, the loopback one, which serves no
        Namespaces, with 404) and accepts ConfigMaps in any.
        """
        try:
            self.api.request('POST', '/api/v1/namespaces', {
                'apiVersion': 'v1', 'kind': 'Namespace',
                'metadata': {'name': self.namespace}})
        except self._exception as exc:
            if exc.status in (404, 405):
                return
            raise
        self.addCleanup(self._ignore_missing,
                        '/api/v1/namespaces/%s' % self.namespace)

    def _ignore_missing(self, path):
        try:
            self.api.request('DELETE', path)
        except self._exception as exc:
            if exc.status != 404:
                raise

    def _path(self, name, namespace=None):
        return '/api/v1/namespaces/%s/configmaps/%s' % (
            namespace or self.namespace, name)

    def _delete(self, name):
        self._ignore_missing(self._path(name))

    def read(self, namespace=None):
        """(data of the ConfigMap or None, where it was looked for)."""
        namespace = namespace or self.namespace
        where = 'ConfigMap %s/%s' % (namespace, self.opts.configmap_name)
        try:
            found = self.api.request(
                'GET', self._path(self.opts.configmap_name, namespace))
        except self._exception as exc:
            if exc.status == 404:
                return None, where
            raise
        return dict(found.get('data') or {}), where
