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

"""Benchmark what starting each console script costs before it works.

The tests start the project's console scripts some thousands of times a
run (bad-input and interrupt cases, the harness's patch and status
calls, the command way's get); what each start imports is paid every
time. Each script of setup.cfg runs ``--version`` (every module-level
import, no work), in turn with the others and with ``python -c pass``
(the interpreter's own floor), --repeat times; the figures are the
median CPU seconds (user + system) and wall seconds of a start. With
--imports, one ``-X importtime`` run of each names the top-level
modules it spends most on. --save keeps the medians as JSON, --against
prints them beside a saved run with the ratio now / then.

  tools/bench_cli_start.py --repeat 15 --save /tmp/before.json
  tools/bench_cli_start.py --repeat 15 --against /tmp/before.json
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), '..'))
sys.path.insert(0, REPO)
from selftests import cli_runs  # noqa

BIN = os.path.dirname(sys.executable)
TIMEOUT = 60
# NOTE: the scripts import this tree, not the one the venv was installed
# from (a worktree beside it measures its own change).
ENV = dict(os.environ, PYTHONPATH=REPO)
FLOOR = 'python -c pass'
# NOTE: a line of -X importtime: self microseconds | cumulative | name.
_IMPORT_RE = re.compile(r'import time:\s+(\d+) \|\s+\d+ \| *(\S+)')


def argv_of(name):
    if name == FLOOR:
        return [sys.executable, '-c', 'pass']
    return [os.path.join(BIN, name), '--version']


def one_start(name):
    """(CPU s, wall s) of one start of NAME."""
    cpu, wall = cli_runs.children_cpu(), time.monotonic()
    subprocess.run(argv_of(name), stdout=subprocess.DEVNULL, check=True,
                   timeout=TIMEOUT, cwd=REPO, env=ENV)
    return cli_runs.children_cpu() - cpu, time.monotonic() - wall


def measure(names, repeat):
    samples = {name: [] for name in names}
    for _ in range(repeat):
        for name in names:
            samples[name].append(one_start(name))
    return {name: {'cpu': statistics.median(s[0] for s in runs),
                   'wall': statistics.median(s[1] for s in runs)}
            for name, runs in samples.items()}


def top_imports(module, count=5):
    """The top-level imports of MODULE that cost most: [(ms, name)]."""
    proc = subprocess.run(
        [sys.executable, '-X', 'importtime', '-c', 'import ' + module],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        check=True, timeout=TIMEOUT, cwd=REPO, env=ENV)
    costs = {}
    for line in proc.stderr.splitlines():
        found = _IMPORT_RE.match(line)
        if found:
            top = found.group(2).split('.')[0]
            costs[top] = costs.get(top, 0) + int(found.group(1))
    ranked = sorted(costs.items(), key=lambda kv: -kv[1])[:count]
    return [(micro / 1000.0, name) for name, micro in ranked]


def _ratio(now, then):
    return '%5.2f' % (now / then) if then else '    -'


def report(result, against, out):
    out.write('%-30s %8s %8s' % ('median of a start', 'CPU s', 'wall s'))
    out.write('   %8s %8s %6s\n' % ('then CPU', 'wall', 'CPU x')
              if against else '\n')
    for name, now in result.items():
        out.write('%-30s %8.3f %8.3f' % (name, now['cpu'], now['wall']))
        then = against.get(name)
        if then:
            out.write('   %8.3f %8.3f %6s' % (
                then['cpu'], then['wall'], _ratio(now['cpu'], then['cpu'])))
        out.write('\n')


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=10,
                        help='starts of each script (default: 10)')
    parser.add_argument('--imports', action='store_true',
                        help='name the top-level imports each pays most')
    parser.add_argument('--save', help='write the medians here (JSON)')
    parser.add_argument('--against', help='a --save file to compare with')
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error('--repeat must be at least 1')
    against = {}
    if args.against:
        try:
            with open(args.against) as f:
                against = json.load(f)
        except (OSError, ValueError) as exc:
            parser.error('--against %s: %s' % (args.against, exc))
    modules = {name: target.split(':')[0] for name, target in
               cli_runs.console_scripts().items()}
    try:
        result = measure([FLOOR] + sorted(modules), args.repeat)
    except (OSError, subprocess.SubprocessError) as exc:
        sys.stderr.write('bench_cli_start: a start failed: %s\n' % exc)
        return 1
    report(result, against, sys.stdout)
    if args.imports:
        for name, module in sorted(modules.items()):
            sys.stdout.write('%s imports: %s\n' % (name, ', '.join(
                '%s %.0f ms' % (top, ms) for ms, top in
                top_imports(module))))
    if args.save:
        with open(args.save, 'w') as f:
            json.dump(result, f, indent=2, sort_keys=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
