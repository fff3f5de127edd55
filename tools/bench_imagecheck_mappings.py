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

"""Benchmark glance-multiapi-image-check --mappings on a large mapping.

Makes, in a temporary folder it removes, a mappings file of --targets
build targets (20,000 by default) in which every field is listed under
two targets, so that the check finds one disagreement per target and
judges two rows per target; and a second run of the same mapping made
consistent, with an OpenStackVersion naming as many of its fields as a
2 MiB input holds. Runs the console script of this venv on each and
prints its wall and CPU seconds, the load average before and after (the
machine may be shared), and exits 1 when a run took longer than
--limit seconds (20) or did not give the exit code it should.

  tools/bench_imagecheck_mappings.py [--targets 20000] [--limit 20]
"""

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

BIN = os.path.dirname(sys.executable)
SCRIPT = os.path.join(BIN, 'glance-multiapi-image-check')
TIMEOUT = 600
# NOTE: the digest of one reference; the references differ by path.
DIGEST = 'sha256:' + 'ab' * 32


def ring(folder, targets):
    """A mapping whose every field is listed under two targets."""
    path = os.path.join(folder, 'ring.yaml')
    with open(path, 'w') as f:
        for i in range(targets):
            f.write('s%d/s%d-api: [f%dImage, f%dImage]\n' % (
                i, i, i, (i + 1) % targets))
    return path


def consistent(folder, targets):
    """(mapping, OpenStackVersion) of targets of one field each."""
    mapping = os.path.join(folder, 'one.yaml')
    with open(mapping, 'w') as f:
        for i in range(targets):
            f.write('s%d/s%d-api: [f%dImage]\n' % (i, i, i))
    images, size = {}, 0
    for i in range(targets):
        reference = 'quay.io/ns/openstack-s%d-api@%s' % (i, DIGEST)
        size += len(reference) + 20
        # NOTE: a version file holds at most 2 MiB; the rest of the
        # mapping's fields are then only in the mapping.
        if size > 1900 * 1024:
            break
        images['f%dImage' % i] = reference
    version = os.path.join(folder, 'version.json')
    with open(version, 'w') as f:
        json.dump({'apiVersion': 'core.openstack.org/v1beta1',
                   'kind': 'OpenStackVersion',
                   'metadata': {'name': 'openstack'},
                   'spec': {}, 'status': {'containerImages': images}}, f)
    return mapping, version, len(images)


def timed(argv):
    """(wall seconds, CPU seconds, exit code) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    proc = subprocess.run([SCRIPT] + argv, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True,
                          timeout=TIMEOUT)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime -
           before.ru_utime - before.ru_stime)
    return wall, cpu, proc.returncode, proc.stderr.strip()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--targets', type=int, default=20000)
    parser.add_argument('--limit', type=float, default=20.0)
    args = parser.parse_args(argv)
    folder = tempfile.mkdtemp(prefix='gmt-bench-mappings-')
    failed = False
    try:
        print('load average before: %.2f %.2f %.2f' % os.getloadavg())
        mapping, version, named = consistent(folder, args.targets)
        runs = (
            ('%d targets, every field doubly assigned' % args.targets,
             ['--mappings', ring(folder, args.targets)], 1),
            ('%d targets, %d fields in status.containerImages' % (
                args.targets, named),
             ['--mappings', mapping, '--version-file', version], 1),
        )
        for title, argv_, code in runs:
            wall, cpu, got, err = timed(argv_)
            ok = got == code and wall <= args.limit
            failed = failed or not ok
            print('%-60s %6.1f s wall %6.1f s CPU  exit %d%s' % (
                title, wall, cpu, got, '' if ok else '  FAILED (limit '
                '%g s, exit %d wanted) %s' % (args.limit, code, err)))
        print('load average after: %.2f %.2f %.2f' % os.getloadavg())
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
