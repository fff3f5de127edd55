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

"""Benchmark a functional test's tempest run: --regex against --load-list.

The functional tests run tempest some eighty times a stage, each time on
a few of this plugin's tests. ``--regex`` makes stestr list every test
first (one more process importing them all); ``--load-list`` of the same
ids, as selftests/functional/tempest_workspace.selection() gives, does
not. Both run here in turn (A B A B ...), on the same test of the same
embedded cloud (glance-multiapi-cloud --state-dir), each in a workspace
of its own; the figures are wall seconds and CPU seconds of the run and
every process it waited for, with the median of each and of the ratio
load-list / regex pair by pair (the machine may drift). Each run has a
timeout; the workspaces are removed.

  tools/bench_tempest_selection.py --state-dir STATE_DIR --repeat 5
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), '..'))
sys.path.insert(0, REPO)
from selftests import cli_runs  # noqa
from selftests.functional import tempest_workspace  # noqa

TEST = (r'glance_multiapi_tests\.tests\.api\.test_endpoints\.'
        r'ImageEndpointsTest\.test_image_endpoints_answer')


def one_run(state_dir, selection):
    """(wall s, CPU s) of one tempest run selecting TEST so."""
    workspace = tempfile.mkdtemp(prefix='gmt-bench-')
    try:
        conf = tempest_workspace.fill(workspace,
                                      os.path.join(state_dir, 'tempest'))
        args = (['--regex', TEST] if selection == 'regex' else
                tempest_workspace.selection(workspace, TEST))
        cpu0, wall0 = cli_runs.children_cpu(), time.monotonic()
        proc = subprocess.run(
            tempest_workspace.run_argv(conf, args), cwd=workspace,
            capture_output=True, timeout=600, env=tempest_workspace.env())
        wall, cpu = time.monotonic() - wall0, cli_runs.children_cpu() - cpu0
        if proc.returncode:
            sys.exit('bench: the %s run failed (exit %d): %s' % (
                selection, proc.returncode,
                proc.stderr.decode(errors='replace')[-500:]))
        return wall, cpu
    finally:
        shutil.rmtree(workspace, ignore_errors=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--state-dir', required=True,
                        help='state dir of a running embedded cloud')
    parser.add_argument('--repeat', type=int, default=5)
    args = parser.parse_args(argv)
    if not os.path.isfile(os.path.join(args.state_dir, 'tempest', 'etc',
                                       'tempest.conf')):
        sys.exit('bench: no tempest.conf under %s/tempest: not a cloud\'s '
                 'state dir' % args.state_dir)
    # NOTE: the listing is once per process, as in a functional worker;
    # a warm-up of each side pays it and fills the caches.
    one_run(args.state_dir, 'regex')
    one_run(args.state_dir, 'load-list')
    figures = {'regex': [], 'load-list': []}
    for _ in range(args.repeat):
        for side in figures:
            figures[side].append(one_run(args.state_dir, side))
    print('%-10s %12s %12s' % ('', 'wall s', 'CPU s'))
    for side, runs in figures.items():
        print('%-10s %12.2f %12.2f' % (
            side, statistics.median(r[0] for r in runs),
            statistics.median(r[1] for r in runs)))
    pairs = list(zip(figures['load-list'], figures['regex']))
    print('%-10s %12.2f %12.2f  (load-list / regex, median of %d pairs)' % (
        'ratio', statistics.median(a[0] / b[0] for a, b in pairs),
        statistics.median(a[1] / b[1] for a, b in pairs), len(pairs)))


if __name__ == '__main__':
    main()
