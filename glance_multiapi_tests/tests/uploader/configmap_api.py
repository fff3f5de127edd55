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
embedded cloud's), else a loopback ConfigMap API that
``configmap_api_command`` serves for the scenario (by default the
project's Kubernetes API stand-in, the one the embedded cloud serves
too). The plugin reaches either over HTTP alone, as it reaches a
cluster: it runs the stand-in as a command and never imports it.
"""

import os
import shlex
import signal
import subprocess
import sys
import uuid

import fixtures

from glance_multiapi_kernel import kube
from glance_multiapi_kernel import polling
from glance_multiapi_tests.common import commands
from glance_multiapi_tests import deployment_access

# NOTE: the stand-in starts in well under a second; a loaded CI machine
# gets the margin.
START_TIMEOUT = 60
STOP_TIMEOUT = 10


class LoopbackConfigMapApi(fixtures.Fixture):
    """The command's API on loopback for this test; .kubeconfig names it."""

    def __init__(self, command, workdir):
        super().__init__()
        self.command = command
        self.workdir = workdir

    def _setUp(self):
        folder = os.path.join(self.workdir, 'configmap-api')
        os.makedirs(folder, exist_ok=True)
        self.kubeconfig = os.path.join(folder, 'kubeconfig')
        line = commands.render(
            self.command, option='[image_uploader] configmap_api_command',
            required=('dir',), python=sys.executable, dir=folder)
        log = open(os.path.join(folder, 'stand-in.log'), 'wb')
        self.addCleanup(log.close)
        proc = subprocess.Popen(shlex.split(line), stdin=subprocess.DEVNULL,
                                stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        self.addCleanup(self._stop, proc)

        def ready():
            if proc.poll() is not None:
                raise RuntimeError('%s exited %d before it served: %s' % (
                    line, proc.returncode, self._log_tail(folder)))
            return os.path.exists(self.kubeconfig), 'no %s yet' % (
                self.kubeconfig)

        polling.poll(ready, what='the loopback ConfigMap API (%s) to '
                     'serve' % line, timeout=START_TIMEOUT, interval=0.1,
                     describe=str)

    @staticmethod
    def _log_tail(folder):
        with open(os.path.join(folder, 'stand-in.log'), 'rb') as f:
            text = f.read()[-2000:].decode(errors='replace').strip()
        return text or 'nothing on its output'

    @staticmethod
    def _stop(proc):
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


class ConfigMapNamespace(fixtures.Fixture):
    """A namespace of this scenario alone; its ConfigMap goes at the end."""

    def __init__(self, opts, workdir):
        super().__init__()
        self.opts = opts
        self.workdir = workdir

    def _setUp(self):
        self.kubeconfig = self.opts.kubeconfig
        if not self.kubeconfig:
            self.kubeconfig = self.useFixture(LoopbackConfigMapApi(
                self.opts.configmap_api_command, self.workdir)).kubeconfig
        self.api = deployment_access.KubernetesAccess(kube.Settings(
            kubeconfig=self.kubeconfig,
            kubeconfig_option='[image_uploader] kubeconfig'))
        self.addCleanup(self.api.close)
        self.home = self.api.home_namespace()
        self.namespace = 'upl-' + uuid.uuid4().hex[:12]
        # NOTE: on a cluster the namespace must exist: made here, dropped
        # after; the stand-in takes ConfigMaps in any.
        if self.api.create_namespace(self.namespace):
            self.addCleanup(self.api.delete, kube.NAMESPACE, self.namespace)
        self.addCleanup(self.api.delete, kube.CONFIGMAP,
                        self.opts.configmap_name, self.namespace)

    def read(self, namespace=None):
        """(data of the ConfigMap or None, where it was looked for)."""
        namespace = namespace or self.namespace
        return (self.api.read_configmap(self.opts.configmap_name, namespace),
                'ConfigMap %s/%s' % (namespace, self.opts.configmap_name))
