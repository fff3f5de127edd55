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

"""The Kubernetes client bounded in time: requests, plugins, files.

A request ends within Settings.timeout however slowly a real loopback
server trickles its answer; a kubeconfig's user.exec plugin runs within
it too, its process group killed past it; the files a kubeconfig names
(tokenFile, certificates) are read once, by the bounded reader, so a
FIFO is refused at once rather than blocking the package.
"""

import json
import os
import stat
import time

import fixtures
import testtools

from glance_multiapi_kernel import kube
from selftests import cli_runs
from selftests import trickle
from selftests.unit import kube_stub

TIMEOUT = 1.0
SLACK = 3.0


def _kubeconfig(test, server, user):
    folder = test.useFixture(fixtures.TempDir()).path
    path = os.path.join(folder, 'kubeconfig')
    with open(path, 'w') as f:
        json.dump({
            'apiVersion': 'v1', 'kind': 'Config',
            'clusters': [{'name': 'c', 'cluster': {'server': server}}],
            'users': [{'name': 'u', 'user': user}],
            'contexts': [{'name': 'c', 'context': {
                'cluster': 'c', 'user': 'u',
                'namespace': kube_stub.NAMESPACE}}],
            'current-context': 'c'}, f)
    return folder, path


def _script(folder, name, text):
    path = os.path.join(folder, name)
    with open(path, 'w') as f:
        f.write('#!/bin/sh\n' + text)
    os.chmod(path, stat.S_IRWXU)
    return path


class BoundedCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.EnvironmentVariable(kube.IN_CLUSTER_ENV))
        self.useFixture(fixtures.EnvironmentVariable('KUBECONFIG'))

    def assertQuick(self, started, error):
        self.assertLess(time.monotonic() - started, TIMEOUT + SLACK,
                        str(error))
        self.assertEqual(1, len(str(error).splitlines()))


class TestRequestDeadline(BoundedCase):

    def _get(self, mode):
        server = trickle.serve(self, mode)
        _, config = _kubeconfig(self, server.url, {'token': 't'})
        started = time.monotonic()
        with kube.connect(kube.Settings(kubeconfig=config,
                                        timeout=TIMEOUT)) as client:
            error = self.assertRaises(kube.KubeError, client.get,
                                      kube.GLANCE, 'glance')
        self.assertQuick(started, error)
        self.assertEqual(0, error.status)
        return str(error)

    def test_trickled_answer_ends_at_the_timeout(self):
        text = self._get('trickle')
        self.assertIn('get glances.glance.openstack.org "glance"', text)
        self.assertIn('no complete answer within 1 s (received ', text)

    def test_trickled_headers_end_at_the_timeout(self):
        self.assertIn('within 1 s (received ', self._get('slow-headers'))


class TestExecPlugin(BoundedCase):

    def _settings(self, user, server=None):
        stub = kube_stub.KubeStub(self)
        folder, config = _kubeconfig(self, server or stub.server, user)
        return stub, folder, kube.Settings(kubeconfig=config,
                                           timeout=TIMEOUT)

    def test_token_of_the_plugin_is_sent(self):
        credential = json.dumps({
            'apiVersion': 'client.authentication.k8s.io/v1',
            'kind': 'ExecCredential', 'status': {'token': kube_stub.TOKEN}})
        stub = kube_stub.KubeStub(self)
        folder, config = _kubeconfig(self, stub.server, {})
        script = _script(folder, 'cred', "printf '%%s' '%s'\n" % credential)
        with open(config) as f:
            doc = json.load(f)
        doc['users'][0]['user'] = {'exec': {
            'apiVersion': 'client.authentication.k8s.io/v1',
            'command': script, 'args': []}}
        with open(config, 'w') as f:
            json.dump(doc, f)
        with kube.connect(kube.Settings(kubeconfig=config)) as client:
            self.assertEqual([], client.list(kube.GLANCE))

    def test_plugin_that_never_ends_is_killed_with_its_group(self):
        marker = 'gmt-exec-plugin-%d' % os.getpid()
        folder = self.useFixture(fixtures.TempDir()).path
        script = _script(folder, 'hang', 'sleep 600 & sleep 600 # %s\n'
                         'wait\n' % marker)
        _, _, settings = self._settings({'exec': {
            'apiVersion': 'client.authentication.k8s.io/v1',
            'command': script}})
        started = time.monotonic()
        error = self.assertRaises(kube.KubeError, kube.connect, settings)
        self.assertQuick(started, error)
        self.assertIn('user u exec command', str(error))
        self.assertIn('did not finish within 1.0 s', str(error))
        self.assertEqual([], cli_runs.processes_naming(script))

    def test_plugin_without_a_credential_is_one_line(self):
        folder = self.useFixture(fixtures.TempDir()).path
        script = _script(folder, 'bad', 'echo "{}"\n')
        _, _, settings = self._settings({'exec': {
            'apiVersion': 'client.authentication.k8s.io/v1',
            'command': script}})
        error = self.assertRaises(kube.KubeError, kube.connect, settings)
        self.assertIn('printed no ExecCredential', str(error))


class TestFilesReadOnce(BoundedCase):

    def test_token_file_fifo_is_refused_at_once(self):
        folder = self.useFixture(fixtures.TempDir()).path
        os.mkfifo(os.path.join(folder, 'token'))
        _, config = _kubeconfig(self, 'http://127.0.0.1:9',
                                {'tokenFile': os.path.join(folder, 'token')})
        started = time.monotonic()
        error = self.assertRaises(kube.KubeError, kube.connect,
                                  kube.Settings(kubeconfig=config))
        self.assertQuick(started, error)
        self.assertIn('user u tokenFile', str(error))
        self.assertIn('is a FIFO', str(error))

    def test_token_file_relative_to_the_kubeconfig_is_sent(self):
        stub = kube_stub.KubeStub(self)
        folder, config = _kubeconfig(self, stub.server,
                                     {'tokenFile': 'token'})
        with open(os.path.join(folder, 'token'), 'w') as f:
            f.write(kube_stub.TOKEN + '\n')
        with kube.connect(kube.Settings(kubeconfig=config)) as client:
            self.assertEqual([], client.list(kube.GLANCE))

    def test_certificate_authority_fifo_is_refused(self):
        folder = self.useFixture(fixtures.TempDir()).path
        os.mkfifo(os.path.join(folder, 'ca.crt'))
        _, config = _kubeconfig(self, 'https://127.0.0.1:9', {'token': 't'})
        with open(config) as f:
            doc = json.load(f)
        doc['clusters'][0]['cluster']['certificate-authority'] = (
            os.path.join(folder, 'ca.crt'))
        with open(config, 'w') as f:
            json.dump(doc, f)
        error = self.assertRaises(kube.KubeError, kube.connect,
                                  kube.Settings(kubeconfig=config))
        self.assertIn('cluster c certificate-authority', str(error))
        self.assertIn('is a FIFO', str(error))
