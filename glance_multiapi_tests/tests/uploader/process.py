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

"""The uploader under test as a real process, and what one run of it did.

UploaderRun starts the command template of [image_uploader] with the
Sylva environment, in an empty working directory, and reads the UUID map
back from where [image_uploader] uuid_output says; RunResult is what the
scenarios assert on.
"""

import dataclasses
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
import uuid

import fixtures
import psutil
import yaml

from glance_multiapi_tests.common import commands
from glance_multiapi_tests.common import trust
from glance_multiapi_tests.tests.uploader import gate_tls


def last_line(*texts):
    """The last non-empty line of the first text that has one."""
    for text in texts:
        lines = [ln for ln in (text or '').splitlines() if ln.strip()]
        if lines:
            return lines[-1].strip()
    return '-'


@dataclasses.dataclass
class RunResult:
    """What one uploader run did."""

    command: str
    code: int
    stdout: str
    stderr: str
    duration: float
    # NOTE: the UUID map as the uploader reported it (uuid_output) and
    # where it was read; None when nothing was there.
    uuid_text: str = None
    uuid_where: str = 'stdout'

    def describe(self):
        tail = ' | '.join(self.stderr.strip().splitlines()[-3:])
        return ('%s exited %s after %.1f s; stderr tail: %s'
                % (self.command, self.code, self.duration, tail or '-'))

    def output(self):
        """Everything the uploader printed."""
        return self.stdout + '\n' + self.stderr

    def uuids(self):
        """The os_images UUID map the uploader reported ({name: uuid})."""
        if self.uuid_text is None:
            raise AssertionError('the uploader wrote no UUID map to %s: %s'
                                 % (self.uuid_where, self.describe()))
        try:
            document = yaml.safe_load(self.uuid_text) or {}
            return {name: entry['openstack_glance_uuid']
                    for name, entry in document['os_images'].items()}
        except (yaml.YAMLError, KeyError, TypeError, AttributeError):
            raise AssertionError('%s is not an os_images UUID map: %r'
                                 % (self.uuid_where, self.uuid_text[:300]))


class UploaderRun(fixtures.Fixture):
    """One run of the uploader under test, as a real process.

    It runs in cwd (an empty directory it must leave empty), with TMPDIR
    temp_dir, and reports its UUID map as opts.uuid_output says; a
    ConfigMapNamespace (configmaps) is where configmap mode reads it.
    extra_ca: a CA (PEM) it trusts besides the registry's (a gate's).
    """

    def __init__(self, opts, *, workdir, images, clouds_yaml, cloud,
                 temp_dir, cwd, configmaps=None, env=None, extra_ca=None):
        super().__init__()
        self.opts = opts
        self.workdir = workdir
        self.images = images
        self.clouds_yaml = clouds_yaml
        self.cloud = cloud
        self.temp_dir = temp_dir
        self.cwd = cwd
        self.configmaps = configmaps
        self.extra = env or {}
        self.extra_ca = extra_ca
        self.process = None

    def _setUp(self):
        tag = uuid.uuid4().hex[:8]
        self.info = os.path.join(self.workdir, 'os-images-info-%s.yaml' % tag)
        with open(self.info, 'w') as out:
            yaml.safe_dump({'os_images': self.images}, out)
        self.output_file = os.path.join(self.workdir, 'uuids-%s.yaml' % tag)
        values = {'python': sys.executable, 'info': self.info,
                  'clouds': self.clouds_yaml, 'cloud': self.cloud,
                  'temp_dir': self.temp_dir, 'output': self.output_file}
        self.argv = shlex.split(commands.render(
            self.opts.command, option='[image_uploader] command', **values))
        self.env = dict(os.environ)
        for name in ('OS_AUTH_URL', 'OS_USERNAME', 'OS_PASSWORD',
                     'OS_PROJECT_NAME', 'OS_TOKEN', 'KUBECONFIG',
                     'TARGET_NAMESPACE', 'INSECURE_CLIENT', 'SSL_CERT_FILE',
                     'REQUESTS_CA_BUNDLE', 'UUID_OUTPUT',
                     self.opts.namespace_env):
            self.env.pop(name, None)
        self.env.update({
            'OS_IMAGES_INFO_PATH': self.info, 'OS_CLOUD': self.cloud,
            'OS_CLIENT_CONFIG_FILE': self.clouds_yaml,
            'TMPDIR': self.temp_dir,
            'WAIT_QUEUED_IMAGE': str(self.opts.wait_queued_image),
            'IMAGE_IN_PROGRESS_TIMEOUT': str(self.opts.in_progress_timeout),
            'IMAGE_IN_PROGRESS_INTERVAL':
                str(self.opts.in_progress_interval),
            'FOREIGN_QUEUED_POLICY': self.opts.foreign_queued_policy})
        if self.opts.insecure_client:
            self.env['INSECURE_CLIENT'] = 'true'
        else:
            # NOTE: unset registry_ca_file means the system CAs; the
            # uploader's requests would otherwise trust certifi's only.
            ca_file = self.opts.registry_ca_file or trust.system_ca()
            if self.extra_ca:
                ca_file = gate_tls.bundle(
                    os.path.join(self.workdir, 'ca-bundle-%s.pem' % tag),
                    ca_file, self.extra_ca)
            if ca_file and os.path.isfile(ca_file):
                self.env['SSL_CERT_FILE'] = ca_file
                self.env['REQUESTS_CA_BUNDLE'] = ca_file
        if self.configmaps is not None:
            # NOTE: UUID_OUTPUT tells the bundled uploader; others ignore it.
            self.env['UUID_OUTPUT'] = 'configmap'
            self.env['KUBECONFIG'] = self.configmaps.kubeconfig
            self.env[self.opts.namespace_env] = self.configmaps.namespace
        self.env.update(self.opts.extra_env or {})
        self.env.update(self.extra)
        self.addCleanup(self._kill)

    def start(self):
        self._stdout = tempfile.TemporaryFile(dir=self.workdir)
        self._stderr = tempfile.TemporaryFile(dir=self.workdir)
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            self.argv, env=self.env, stdout=self._stdout,
            stderr=self._stderr, stdin=subprocess.DEVNULL, cwd=self.cwd,
            start_new_session=True)
        return self

    def finished(self):
        return self.process.poll() is not None

    def reached_network(self):
        """Whether the run's processes have opened a TCP connection yet.

        What any uploader does first, whatever it is written in: get a
        token from keystone, then ask Glance. Seen from outside (psutil,
        the process and its children), so the uploader stays unmodified;
        once seen, it stays true for the run.
        """
        if getattr(self, '_reached', False):
            return True
        try:
            top = psutil.Process(self.process.pid)
            tree = [top] + top.children(recursive=True)
        except psutil.Error:
            return False
        for proc in tree:
            # NOTE: net_connections since psutil 6; connections before (a
            # stock image may carry an older one).
            listing = getattr(proc, 'net_connections', None) or getattr(
                proc, 'connections')
            try:
                conns = listing(kind='tcp')
            except psutil.Error:
                continue
            if any(c.raddr for c in conns):
                self._reached = True
                return True
        return False

    def _read(self, stream):
        stream.seek(0)
        return stream.read().decode('utf-8', 'replace')

    def wait(self):
        """Wait up to run_timeout; return a RunResult.

        A run still going then is killed and reported as hung, with the
        last line it printed (what it was doing when it stopped moving).
        """
        try:
            self.process.wait(timeout=self.opts.run_timeout)
        except subprocess.TimeoutExpired:
            self._kill()
            raise AssertionError(
                'uploader hung: %s still running after %d s (run_timeout), '
                'killed; last output line: %s'
                % (' '.join(self.argv[:3]), self.opts.run_timeout,
                   last_line(self._read(self._stderr),
                             self._read(self._stdout))))
        duration = time.monotonic() - self.started
        result = RunResult(command=os.path.basename(self.argv[0]) + ' ' +
                           ' '.join(self.argv[1:3]),
                           code=self.process.returncode,
                           stdout=self._read(self._stdout),
                           stderr=self._read(self._stderr),
                           duration=duration)
        self._collect_uuids(result)
        return result

    def _collect_uuids(self, result):
        mode = self.opts.uuid_output
        if mode == 'stdout':
            result.uuid_text = result.stdout
        elif mode == 'file':
            result.uuid_where = 'file %s ({output})' % self.output_file
            if os.path.exists(self.output_file):
                with open(self.output_file) as f:
                    result.uuid_text = f.read()
        elif mode == 'configmap':
            data, where = self.configmaps.read()
            result.uuid_where = '%s, key %s' % (where,
                                                self.opts.configmap_key)
            if data is not None:
                result.uuid_text = data.get(self.opts.configmap_key)

    def run(self):
        return self.start().wait()

    def _kill(self):
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)
