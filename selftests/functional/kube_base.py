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

"""What the Kubernetes API self-tests share: kubectl, the Python client
and the audit log of an embedded cloud."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

from selftests.functional import base

NS = 'openstack'
GLANCE = ('glance.openstack.org', 'v1beta1', NS, 'glances')
OSCP = ('core.openstack.org', 'v1beta1', NS, 'openstackcontrolplanes')
OSV = ('core.openstack.org', 'v1beta1', NS, 'openstackversions')
USER = 'system:serviceaccount:openstack:glance-multiapi-tests'


def kubectl_binary():
    """$KUBECTL, else Debian's kubectl in the venv, else one on PATH."""
    unpacked = os.path.join(sys.prefix, 'debian-kubectl', 'usr', 'bin',
                            'kubectl')
    for candidate in (os.environ.get('KUBECTL'), unpacked):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return shutil.which('kubectl')


class KubeMixin(object):
    """Helpers for a CloudTestCase that talks to the cloud's kube API."""

    def kubeconfig(self):
        return os.path.join(self.state_dir, 'kubeconfig')

    def kubectl(self, *args):
        """Run the real kubectl on this cloud; CompletedProcess."""
        binary = kubectl_binary()
        if not binary:
            self.skipTest('kubectl not installed (tools/setup-env.sh '
                          'unpacks Debian kubernetes-client into the venv)')
        cache = tempfile.mkdtemp(prefix='gmt-kubectl-cache-')
        self.addCleanup(shutil.rmtree, cache, ignore_errors=True)
        return subprocess.run(
            [binary, '--kubeconfig', self.kubeconfig(), '--cache-dir', cache,
             '--request-timeout', '300s', '-n', NS] + list(args),
            capture_output=True, text=True, timeout=600)

    def apis(self, token=None):
        """(CustomObjectsApi, AppsV1Api) from the cloud's kubeconfig.

        token: another bearer token to present (a copy of the kubeconfig
        carries it, as the client re-reads its file before each call).
        """
        from kubernetes import client
        from kubernetes import config
        path = self.kubeconfig()
        if token is not None:
            with open(path) as f:
                doc = yaml.safe_load(f)
            doc['users'][0]['user']['token'] = token
            folder = tempfile.mkdtemp(prefix='gmt-kubeconfig-')
            self.addCleanup(shutil.rmtree, folder, ignore_errors=True)
            path = os.path.join(folder, 'kubeconfig')
            with open(path, 'w') as f:
                yaml.safe_dump(doc, f)
        api = config.new_client_from_config(config_file=path)
        self.addCleanup(api.close)
        return client.CustomObjectsApi(api), client.AppsV1Api(api)

    def audit(self):
        """The audit log's records, oldest first."""
        path = os.path.join(self.state_dir, 'kubeapi-audit.log')
        try:
            with open(path) as f:
                return [json.loads(line) for line in f if line.strip()]
        except FileNotFoundError:
            return []

    def assertApiError(self, code, reason, call, *args, **kwargs):
        """call raises ApiException with code and a Status of reason."""
        from kubernetes.client import exceptions
        try:
            call(*args, **kwargs)
        except exceptions.ApiException as exc:
            self.assertEqual(code, exc.status, exc.body)
            body = json.loads(exc.body)
            self.assertEqual(('Status', 'v1', 'Failure', reason, code), (
                body['kind'], body['apiVersion'], body['status'],
                body['reason'], body['code']), exc.body)
            return body
        self.fail('%s succeeded; wanted %d %s' % (call.__name__, code,
                                                  reason))

    def write_role(self, rules):
        """A Role file (with a ServiceAccount beside it) holding rules."""
        folder = tempfile.mkdtemp(prefix='gmt-role-')
        self.addCleanup(shutil.rmtree, folder, ignore_errors=True)
        return write_role_file(folder, rules)


def write_role_file(folder, rules):
    path = os.path.join(folder, 'role.yaml')
    with open(path, 'w') as f:
        yaml.safe_dump_all([
            {'apiVersion': 'v1', 'kind': 'ServiceAccount',
             'metadata': {'name': 'glance-multiapi-tests',
                          'namespace': NS}},
            {'apiVersion': 'rbac.authorization.k8s.io/v1', 'kind': 'Role',
             'metadata': {'name': 'glance-multiapi-tests', 'namespace': NS},
             'rules': rules}], f)
    return path


class KubeCloudTestCase(KubeMixin, base.CloudTestCase):
    """A CloudTestCase with the Kubernetes helpers."""


class RoleCloudTestCase(KubeCloudTestCase):
    """A cloud of its own whose Kubernetes API enforces a Role.

    Subclasses write the Role with ``write_role(folder)`` (its path) and
    may add ``extra_up_args``; the folder goes away with the cloud.
    """

    extra_up_args = ()
    role = None
    _role_dir = None

    @classmethod
    def write_role(cls, folder):
        raise NotImplementedError

    @classmethod
    def setUpClass(cls):
        cls._role_dir = tempfile.mkdtemp(prefix='gmt-kube-role-')
        try:
            cls.role = cls.write_role(cls._role_dir)
            cls.up_args = tuple(cls.extra_up_args) + ('--kube-role',
                                                      cls.role)
            super().setUpClass()
        except BaseException:
            shutil.rmtree(cls._role_dir, ignore_errors=True)
            raise

    @classmethod
    def tearDownClass(cls):
        try:
            super().tearDownClass()
        finally:
            shutil.rmtree(cls._role_dir, ignore_errors=True)
