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

"""kill -9 the bundled uploader at seeded random points, then rerun it.

Whatever the kill interrupted (claiming, settling, streaming, verifying,
tagging), the rerun must end with exactly one active image of that name
and tag, the UUID it reports, no other image of that name (no queued
leftover older than the grace) and no file in TMPDIR or the working
directory. GLANCE_MULTIAPI_CHAOS_SEED picks the kill points (default
1410); GLANCE_MULTIAPI_CHAOS_REPORT names a file for the table of runs.
"""

import os
import random
import signal
import subprocess
import time
import uuid

from testtools import content
import yaml

from glance_multiapi_kernel import polling
from selftests.functional import uploader_runs
from glance_image_uploader import glance
from glance_image_uploader import inputs

UPLOADER = uploader_runs.UPLOADER
# NOTE: in PARTS parts (tests of their own, so that two workers share
# them and none runs for two minutes), each with its own random sequence:
# part N takes runs N, N + PARTS, ...
RUNS = 10
PARTS = 4
IMAGE_SIZE = 96 << 20
# NOTE: the stderr line after which the kill timer starts, and how long
# after it the kill may land: every phase of the protocol gets hit.
STAGES = (('glance endpoint', 1.0),
          ('claiming the upload', 2.5),
          (': upload:', 1.0),
          (': upload: 100%', 0.15))
RUN_TIMEOUT = 120
GRACE = 2
# NOTE: how the rerun dealt with what the kill left, from its log.
PATHS = (('stale queued', 'deleted a stale queued claim'),
         ('failed (queued again)', 'deleted an upload cut off'),
         ('publishing it', 'published the verified leftover'),
         ('already active', 'reused the published image'),
         ('claiming the upload', 'uploaded afresh'))


class TestUploaderChaos(uploader_runs.UploaderRunTestCase):

    def setUp(self):
        super().setUp()
        self.clouds = os.path.join(self.state_dir, 'clouds.yaml')
        settings = inputs.Settings(
            info_path='', cloud='demo', client_config_file=self.clouds,
            in_progress_timeout=1, in_progress_interval=1, wait_queued=0,
            insecure=False, plain_http=False)
        self.conn = glance.connect(settings)[0]

    def _info(self, key, uri, md5):
        path = os.path.join(self.tmp, '%s.yaml' % key)
        with open(path, 'w') as out:
            yaml.safe_dump({'os_images': {key: {
                'uri': uri, 'md5': md5, 'image-format': 'raw'}}}, out)
        self.addCleanup(self._delete_named, key)
        return path

    def _popen(self, info):
        env = dict(os.environ, TMPDIR=self.temp_dir,
                   WAIT_QUEUED_IMAGE=str(GRACE),
                   IMAGE_IN_PROGRESS_TIMEOUT='60',
                   IMAGE_IN_PROGRESS_INTERVAL='0.5')
        return subprocess.Popen(
            [UPLOADER, '--images-info', info, '--os-cloud', 'demo',
             '--os-client-config-file', self.clouds,
             '--progress-interval', '0.05'],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            cwd=self.cwd, env=env, start_new_session=True)

    def _kill_at(self, info, stage, delay):
        """Start a run, kill -9 it delay s after stage; say what happened."""
        proc = self._popen(info)
        self.addCleanup(lambda: proc.poll() is None and proc.kill())
        lines, reader = self.stderr_lines(proc)
        try:
            polling.poll(
                lambda: (proc.poll() is not None or
                         any(stage in line for line in lines)),
                what='uploader stderr to show %r' % stage,
                timeout=RUN_TIMEOUT, interval=0.01, max_interval=0.02)
        except polling.PollTimeout:
            pass
        deadline = time.monotonic() + delay
        polling.poll(lambda: proc.poll() is not None or
                     time.monotonic() >= deadline,
                     what='kill point', timeout=delay + 5, interval=0.01,
                     max_interval=0.02)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            outcome = 'killed'
        else:
            outcome = 'exited %d before the kill' % proc.returncode
        proc.wait(30)
        reader.join(10)
        last = lines[-1].strip() if lines else '-'
        return outcome, last

    def _rerun(self, info):
        started = time.monotonic()
        proc = self._popen(info)
        out, err = proc.communicate(timeout=RUN_TIMEOUT)
        return proc.returncode, out, err, time.monotonic() - started

    def _named(self, key):
        return list(self.conn.image.images(name=key))

    def _delete_named(self, key):
        for image in self._named(key):
            self.conn.image.delete_image(image.id, ignore_missing=True)

    def test_kill_9_then_rerun_leaves_one_image(self):
        """The first part of the kills."""
        self._kill_9_then_rerun(0)

    def _kill_9_then_rerun(self, part):
        seed = int(os.environ.get('GLANCE_MULTIAPI_CHAOS_SEED',
                                  '1410')) + part
        rng = random.Random(seed)
        uri, md5 = self.serve(IMAGE_SIZE, 'uploader-chaos',
                              random_bytes=8 << 20)
        tag = inputs.TAG_PREFIX + md5
        runs = range(RUNS)[part::PARTS]
        rows = ['seed %d, runs %s of %d, %d MiB image, WAIT_QUEUED_IMAGE=%d'
                % (seed, ','.join(map(str, runs)), RUNS, IMAGE_SIZE >> 20,
                   GRACE)]
        started = time.monotonic()
        for index in runs:
            stage, spread = STAGES[rng.randrange(len(STAGES))]
            delay = round(rng.uniform(0, spread), 2)
            key = 'uploader-chaos-%d-%s' % (index, uuid.uuid4().hex[:8])
            info = self._info(key, uri, md5)
            outcome, last = self._kill_at(info, stage, delay)
            left = ['%s:%s%s' % (i.id[:8], i.status,
                                 '+tag' if tag in (i.tags or ()) else '')
                    for i in self._named(key)]
            code, out, err, took = self._rerun(info)
            self.assertEqual(0, code, 'run %d (seed %d, kill %.2f s after '
                             '%r): rerun exited %d: %s'
                             % (index, seed, delay, stage, code, err))
            reported = yaml.safe_load(out)['os_images'][key][
                'openstack_glance_uuid']
            images = self._named(key)
            self.assertEqual(
                [(reported, 'active', True)],
                [(i.id, i.status, tag in (i.tags or ())) for i in images],
                'run %d (seed %d, kill %.2f s after %r, left %s): images '
                'after the rerun' % (index, seed, delay, stage, left))
            self.assertEqual([], os.listdir(self.temp_dir))
            self.assertEqual([], os.listdir(self.cwd))
            verdict = ', '.join(what for line, what in PATHS
                                if line in err) or '-'
            rows.append('%2d kill %.2fs after %-22r %-26s left %-18s '
                        'rerun %4.1fs: %s'
                        % (index, delay, stage, outcome, ','.join(left)
                           or '-', took, verdict))
            self._delete_named(key)
        rows.append('total %.0f s' % (time.monotonic() - started))
        report = '\n'.join(rows) + '\n'
        self.addDetail('chaos', content.text_content(report))
        path = os.environ.get('GLANCE_MULTIAPI_CHAOS_REPORT')
        if path:
            with open(path, 'a' if part else 'w') as out:
                out.write(report)


class TestUploaderChaosB(TestUploaderChaos):
    """The second part, in the fourth worker (run-functional.sh)."""

    def test_kill_9_then_rerun_leaves_one_image(self):
        """The second part of the kills."""
        self._kill_9_then_rerun(1)


class TestUploaderChaosC(TestUploaderChaos):
    """The third part, in the first part's worker."""

    def test_kill_9_then_rerun_leaves_one_image(self):
        """The third part of the kills."""
        self._kill_9_then_rerun(2)


class TestUploaderChaosD(TestUploaderChaos):
    """The fourth part, in the second part's worker."""

    def test_kill_9_then_rerun_leaves_one_image(self):
        """The fourth part of the kills."""
        self._kill_9_then_rerun(3)
