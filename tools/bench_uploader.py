#!/usr/bin/env python3
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

"""Benchmark glance-image-uploader against the obvious shell pipelines.

Both sides run in the same invocation, one after the other, against the
same Glance API of an embedded cloud (glance-multiapi-cloud --state-dir):

* http: ours vs. "curl -o FILE URL && openstack image create --file FILE";
* oci:  ours vs. "pull (oras) -> tar x -> gunzip -> openstack image
  create --file" on an artifact holding a tar.gz with a .raw.gz inside.

It prints wall times side by side with their ratio and the targets of
the uploader issue (http <= 0.9x, oci <= 0.5x, median of the runs), the
uploader's peak RSS (target < 150 MiB) and its temp disk: the peak of
the bytes under its TMPDIR and working directory, and the bytes the
process wrote to storage (/proc/PID/io write_bytes); target 0 for both.
The load average before and after is printed: the machine may be shared.
Every step has a timeout; every image and file it makes is removed.

  tools/bench_uploader.py --state-dir STATE_DIR --size-mib 1024 --repeat 3
"""

import argparse
import gzip
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import uuid

import yaml

BIN = os.path.dirname(sys.executable)
MIB = 1 << 20


def make_image(path, size_mib):
    """A disk-like image: random blocks among zero blocks (compressible)."""
    digest = hashlib.md5(usedforsecurity=False)
    zero = b'\0' * MIB
    with open(path, 'wb') as out:
        for index in range(size_mib):
            block = os.urandom(MIB) if index % 4 == 0 else zero
            digest.update(block)
            out.write(block)
    return digest.hexdigest()


def _high_water_mib(pid):
    # NOTE: not ru_maxrss: Linux carries the parent's RSS high-water mark
    # across fork+exec into it. VmHWM belongs to the exec'd image only.
    try:
        with open('/proc/%d/status' % pid) as status:
            for line in status:
                if line.startswith('VmHWM:'):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


def _write_bytes(pid):
    try:
        with open('/proc/%d/io' % pid) as stats:
            for line in stats:
                if line.startswith('write_bytes:'):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run_timed(argv, timeout, env=None, cwd=None, io=None):
    """Run argv; return (seconds, peak RSS MiB of that process, stderr).

    io, a dict, gets the last write_bytes seen of the process.
    """
    start = time.monotonic()
    peak = 0.0
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                                stderr=err, env=env, cwd=cwd)
        deadline = start + timeout
        while True:
            peak = max(peak, _high_water_mib(proc.pid))
            if io is not None:
                io['write_bytes'] = max(io.get('write_bytes', 0),
                                        _write_bytes(proc.pid))
            pid, status, _ = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                proc.kill()
                os.wait4(proc.pid, 0)
                raise SystemExit('bench: %s timed out after %d s'
                                 % (argv[0], timeout))
            time.sleep(0.02)
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode(errors='replace')
    if proc.returncode:
        raise SystemExit('bench: %s failed (%d): %s'
                         % (' '.join(argv[:3]), proc.returncode,
                            text.strip().splitlines()[-1:]))
    return time.monotonic() - start, peak, text


class DiskPeak(object):
    """Samples the bytes under some directories while a step runs."""

    def __init__(self, *paths):
        self.paths = paths
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _size(self):
        total = 0
        for root, _, files in (walked for path in self.paths
                               for walked in os.walk(path)):
            for name in files:
                try:
                    total += os.stat(os.path.join(root, name)).st_blocks
                except OSError:
                    pass
        return total * 512

    def _watch(self):
        while not self._stop.wait(0.05):
            self.peak = max(self.peak, self._size())

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(5)


class Bench(object):

    def __init__(self, args):
        self.args = args
        status = subprocess.run(
            [os.path.join(BIN, 'glance-multiapi-cloud'), '--state-dir',
             args.state_dir, 'status', '-o', 'json'],
            capture_output=True, text=True, timeout=60, check=True)
        services = json.loads(status.stdout)['services']
        self.fileserver = services['fileserver']['url']
        self.registry = services.get('registry', {}).get('url', '')
        self.registry = self.registry.split('://', 1)[-1]
        self.files = os.path.join(args.state_dir, 'files')
        self.clouds = os.path.join(args.state_dir, 'clouds.yaml')
        self.env = dict(os.environ, OS_CLIENT_CONFIG_FILE=self.clouds,
                        OS_CLOUD=args.cloud, OCI_PLAIN_HTTP='true')
        self.work = tempfile.mkdtemp(prefix='bench-uploader-',
                                     dir=args.work_dir)
        self.names = []
        self.rows = []
        self.retries = []

    def name(self, what):
        name = 'bench-%s-%s' % (what, uuid.uuid4().hex[:8])
        self.names.append(name)
        return name

    def ours(self, key, uri, md5):
        info = os.path.join(self.work, key + '.yaml')
        with open(info, 'w') as out:
            yaml.safe_dump({'os_images': {key: {
                'uri': uri, 'md5': md5, 'image-format': 'raw'}}}, out)
        temp = os.path.join(self.work, 'ours-tmp')
        cwd = os.path.join(self.work, 'ours-cwd')
        os.makedirs(temp, exist_ok=True)
        os.makedirs(cwd, exist_ok=True)
        io = {}
        with DiskPeak(temp, cwd) as disk:
            seconds, rss, _ = run_timed(
                [os.path.join(BIN, 'glance-image-uploader'), '--images-info',
                 info, '--temp-dir', temp, '--quiet'],
                self.args.timeout, env=dict(self.env, TMPDIR=temp), cwd=cwd,
                io=io)
        return seconds, rss, max(disk.peak, io.get('write_bytes', 0))

    def osc_create(self, what, path):
        """Time "openstack image create --file"; return seconds.

        A failed attempt (e.g. a server resetting a kept-alive connection)
        is cleaned up and retried, up to 3 attempts; only the successful
        attempt is timed, so the reference is never penalised.
        """
        for attempt in range(3):
            name = self.name(what)
            try:
                seconds, _, _ = run_timed(
                    [os.path.join(BIN, 'openstack'), 'image', 'create',
                     '--disk-format', 'raw', '--container-format', 'bare',
                     '--file', path, name], self.args.timeout, env=self.env)
                return seconds
            except SystemExit as exc:
                self.retries.append('%s attempt %d: %s'
                                    % (what, attempt + 1, exc))
                self.delete(name)
        raise SystemExit('bench: the reference upload failed 3 times: %s'
                         % self.retries[-1])

    def bench_http(self, image, md5, size):
        served = os.path.join(self.files, 'bench-%s.raw' % uuid.uuid4().hex)
        shutil.copyfile(image, served)
        try:
            url = '%s/%s' % (self.fileserver, os.path.basename(served))
            for _ in range(self.args.repeat):
                ours, rss, disk = self.ours(self.name('http-ours'), url,
                                            md5)
                ref_dir = os.path.join(self.work, 'ref-http')
                os.makedirs(ref_dir)
                target = os.path.join(ref_dir, 'image.raw')
                curl, _, _ = run_timed(['curl', '-sSf', '-o', target, url],
                                       self.args.timeout)
                reference = curl + self.osc_create('http-ref', target)
                shutil.rmtree(ref_dir)
                self.rows.append(('http', ours, reference, 0.9, rss, disk,
                                  size))
                self.delete_all()
        finally:
            os.unlink(served)

    def bench_oci(self, image, md5, size):
        import oras.provider

        art_dir = os.path.join(self.work, 'artifact')
        os.makedirs(art_dir)
        inner = os.path.join(art_dir, 'image.raw.gz')
        with open(image, 'rb') as src, gzip.open(inner, 'wb',
                                                 compresslevel=1) as dst:
            shutil.copyfileobj(src, dst, MIB)
        blob = os.path.join(art_dir, 'image.tar.gz')
        with tarfile.open(blob, 'w:gz', compresslevel=1) as archive:
            archive.add(inner, arcname='image.raw.gz')
        os.unlink(inner)
        repo = 'bench/uploader-%s' % uuid.uuid4().hex[:8]
        registry = oras.provider.Registry(hostname=self.registry,
                                          insecure=True)
        registry.push(target='%s/%s:1' % (self.registry, repo),
                      files=[blob], disable_path_validation=True,
                      quiet=True)
        shutil.rmtree(art_dir)
        uri = 'oci://%s/%s:1' % (self.registry, repo)
        for _ in range(self.args.repeat):
            ours, rss, disk = self.ours(self.name('oci-ours'), uri, md5)
            ref_dir = os.path.join(self.work, 'ref-oci')
            os.makedirs(ref_dir)
            pull = ('import oras.provider as p; p.Registry(hostname=%r, '
                    'insecure=True).pull(target=%r, outdir=%r)'
                    % (self.registry, '%s/%s:1' % (self.registry, repo),
                       ref_dir))
            reference = 0.0
            for argv in ([sys.executable, '-c', pull],
                         ['tar', '-xzf',
                          os.path.join(ref_dir, 'image.tar.gz'),
                          '-C', ref_dir],
                         ['gunzip', os.path.join(ref_dir, 'image.raw.gz')]):
                reference += run_timed(argv, self.args.timeout)[0]
            reference += self.osc_create('oci-ref',
                                         os.path.join(ref_dir, 'image.raw'))
            shutil.rmtree(ref_dir)
            self.rows.append(('oci', ours, reference, 0.5, rss, disk, size))
            self.delete_all()

    def delete(self, name):
        # NOTE: a failed reference attempt may have left no image at all;
        # a dropped connection is retried, bounded.
        for _ in range(3):
            proc = subprocess.run(
                [os.path.join(BIN, 'openstack'), 'image', 'delete', name],
                env=self.env, capture_output=True, text=True, timeout=120)
            if proc.returncode == 0 or 'No Image found' in proc.stderr:
                return
        print('bench: could not delete image %s: %s'
              % (name, proc.stderr.strip().splitlines()[-1:]))

    def delete_all(self):
        while self.names:
            self.delete(self.names.pop())

    def cleanup(self):
        self.delete_all()
        shutil.rmtree(self.work, ignore_errors=True)

    def report(self):
        print('%-5s %6s %9s %9s %7s %7s %8s %12s' % (
            'case', 'MiB', 'ours s', 'ref s', 'ratio', 'target', 'RSS MiB',
            'tmp bytes'))
        for case, ours, ref, target, rss, disk, size in self.rows:
            print('%-5s %6d %9.1f %9.1f %6.2fx %6.1fx %8.1f %12d' % (
                case, size // MIB, ours, ref, ours / ref, target, rss,
                disk))
        for case in sorted({row[0] for row in self.rows}):
            rows = [row for row in self.rows if row[0] == case]
            ratios = sorted(row[1] / row[2] for row in rows)
            print('%s: median ratio %.2fx (target %.1fx) over %d '
                  'side-by-side runs; RSS peak %.1f MiB; temp disk peak %d '
                  'bytes' % (case, ratios[len(ratios) // 2], rows[0][3],
                             len(ratios), max(row[4] for row in rows),
                             max(row[5] for row in rows)))
        for line in self.retries:
            print('reference retried: %s' % line)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--state-dir', required=True,
                        help='state dir of a running glance-multiapi-cloud')
    parser.add_argument('--cloud', default='demo')
    parser.add_argument('--size-mib', type=int, default=1024)
    parser.add_argument('--cases', default='http,oci')
    parser.add_argument('--repeat', type=int, default=3,
                        help='side-by-side runs per case (median shown)')
    parser.add_argument('--timeout', type=int, default=1800,
                        help='seconds any one step may take')
    parser.add_argument('--work-dir', help='where the images are staged')
    args = parser.parse_args()
    # NOTE: SIGTERM unwinds like an error, so the cleanup below runs.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    bench = Bench(args)
    print('load average before: %.2f %.2f %.2f' % os.getloadavg())
    try:
        image = os.path.join(bench.work, 'source.raw')
        md5 = make_image(image, args.size_mib)
        size = args.size_mib * MIB
        if 'http' in args.cases:
            bench.bench_http(image, md5, size)
        if 'oci' in args.cases:
            bench.bench_oci(image, md5, size)
    finally:
        bench.cleanup()
    print('load average after: %.2f %.2f %.2f' % os.getloadavg())
    bench.report()
    return 0


if __name__ == '__main__':
    sys.exit(main())
