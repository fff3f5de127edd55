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

"""glance-multiapi-cloud on a real cloud with planted secrets.

A spec whose customServiceConfig holds a database URL with a password
and a password option, and RBAC manifests whose token Secret holds a
token of the user's: up, status (text and JSON), a patch and down show
neither, and no file of the state dir holds them but state.json, where
the cloud keeps the spec it runs (mode 0600, as the API server keeps
the object in etcd). get prints the object as an API server answers
``oc get``: customServiceConfig as given (doc/source/cli.rst). The
token the user gave is never used: each token Secret gets one of the
cloud's.
"""

import json
import os
import stat
import subprocess

import fixtures
import testtools
import yaml

from selftests.functional import base

PASSWORD = 'Pl4nted-Db-Pw'
TOKEN = 'Pl4nted-Token-Of-The-User'
SPEC = {'keystoneEndpoint': 'api0', 'glanceAPIs': {'api0': {
    'type': 'split', 'customServiceConfig': (
        '[DEFAULT]\nenabled_backends = ceph0:rbd\n[glance_store]\n'
        'default_backend = ceph0\n[database]\nconnection = mysql+pymysql'
        '://glance:%s@127.0.0.1/glance\n[keystone_authtoken]\n'
        'password = %s\n' % (PASSWORD, PASSWORD))}}}
RBAC = '''apiVersion: v1
kind: ServiceAccount
metadata:
  name: planted
---
apiVersion: v1
kind: Secret
type: kubernetes.io/service-account-token
metadata:
  name: planted-token
  annotations:
    kubernetes.io/service-account.name: planted
stringData:
  token: %s
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: planted
rules:
- apiGroups: [glance.openstack.org]
  resources: [glances]
  verbs: [get, list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: planted
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: planted
subjects:
- kind: ServiceAccount
  name: planted
''' % TOKEN


class TestCloudKeepsSecrets(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.work = self.useFixture(fixtures.TempDir()).path
        self.state_dir = os.path.join(self.work, 'cloud')
        self.spec = os.path.join(self.work, 'spec.yaml')
        with open(self.spec, 'w') as f:
            yaml.safe_dump(SPEC, f)
        self.rbac = os.path.join(self.work, 'rbac.yaml')
        with open(self.rbac, 'w') as f:
            f.write(RBAC)
        self.shown = []

    def cli(self, *args):
        proc = subprocess.run(base.cli_argv(self.state_dir, *args),
                              capture_output=True, text=True, timeout=600)
        self.shown.append((args, proc))
        return proc

    def assertShowsNoSecret(self, proc, *secrets):
        for secret in secrets or (PASSWORD, TOKEN):
            self.assertNotIn(secret, proc.stdout + proc.stderr,
                             proc.stdout + proc.stderr)
        self.assertNotIn('Traceback', proc.stderr)

    def test_secrets_of_spec_and_manifests_are_never_shown(self):
        self.addCleanup(self.cli, 'down')
        proc = self.cli('up', '--spec', self.spec, '--kube-role', self.rbac,
                        '--no-registry', '--no-fileserver')
        self.assertEqual(0, proc.returncode, proc.stderr)
        self.assertShowsNoSecret(proc)
        for args in (('status',), ('status', '-o', 'json'),
                     ('patch', '-p', json.dumps({'spec': {
                         'keystoneEndpoint': 'api0'}})),
                     ('restart', 'glance-api0')):
            proc = self.cli(*args)
            self.assertEqual(0, proc.returncode, '%s: %s' % (
                args, proc.stderr))
            self.assertShowsNoSecret(proc)
        # NOTE: get answers the object, as oc get does.
        proc = self.cli('get', '-o', 'json')
        self.assertIn(PASSWORD, proc.stdout)
        self.assertShowsNoSecret(proc, TOKEN)
        record = os.path.join(self.state_dir, 'state.json')
        self.assertEqual(0o600, stat.S_IMODE(os.stat(record).st_mode))
        for folder, _dirs, files in os.walk(self.state_dir):
            for name in files:
                path = os.path.join(folder, name)
                if not os.path.isfile(path) or os.path.islink(path):
                    continue
                with open(path, 'rb') as f:
                    data = f.read()
                self.assertNotIn(TOKEN.encode(), data, path)
                if path != record:
                    self.assertNotIn(PASSWORD.encode(), data, path)
        proc = self.cli('down')
        self.assertEqual(0, proc.returncode, proc.stderr)
        self.assertShowsNoSecret(proc)
