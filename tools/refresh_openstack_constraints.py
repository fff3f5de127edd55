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

"""Refresh a stand-in for one series' OpenStack upper-constraints.

Usage: refresh_openstack_constraints.py GIT_DIR [--series NAME]
           [--rev REV] [--check] [--file FILE]

GIT_DIR is a clone of openstack/requirements (a bare one will do; for a
work tree give its .git folder). NAME is a series tcib's run_tempest.sh
installs plugins under: 2023.1 (the default; tcib's antelope branch,
test-operator's default image) or master (tcib's main branch). Its
upper-constraints.txt at REV (default: the series' branch,
unmaintained/2023.1 or master) is written to FILE (default
tools/constraints/openstack-<NAME>.txt) under a header naming the
series, the commit and its date, then the pins that changed are listed,
with every requirement of the plugin (requirements.txt and
test-requirements.txt) the new pins exclude.
--check writes nothing: it only tells whether FILE is REV's.
Exit status: 0 written (or, with --check, FILE is REV's) and no
requirement excluded; 1 a requirement is excluded, or FILE is not REV's;
2 bad arguments, or a clone or file that cannot be read.
"""

import argparse
import os
import subprocess
import sys

import checkout_path  # noqa: F401 (selftests/ on sys.path)

from selftests.manifests import constraints
from selftests.manifests import upstream

LIST_AT_MOST = 60
ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), '..'))


def _git(git_dir, *args):
    proc = subprocess.run(['git', '--git-dir', git_dir] + list(args),
                          capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        raise LookupError(lines[-1] if lines else
                          'git %s failed' % ' '.join(args))
    return proc.stdout


def _fail(message):
    print('refresh_openstack_constraints: %s' % message, file=sys.stderr)
    return 2


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('git_dir', metavar='GIT_DIR')
    parser.add_argument('--series', default=constraints.DEFAULT_SERIES,
                        choices=list(constraints.SERIES))
    parser.add_argument('--rev')
    parser.add_argument('--check', action='store_true')
    parser.add_argument('--file')
    parser.add_argument('--requirements', action='append',
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    series = constraints.SERIES[args.series]
    args.rev = args.rev or series.branch
    args.file = args.file or os.path.join(ROOT, series.path)
    args.requirements = args.requirements or [
        os.path.join(ROOT, name) for name in constraints.INSTALLED_UNDER]
    try:
        commit, date = _git(args.git_dir, 'show', '-s', '--format=%H %cs',
                            args.rev + '^{commit}').split()
        text = _git(args.git_dir, 'show', '%s:%s' % (
            commit, constraints.UPSTREAM_PATH))
    except LookupError as exc:
        return _fail('%s at %s: %s' % (args.git_dir, args.rev, exc))
    try:
        new_text = constraints.stand_in_text(text, commit, date,
                                             args.series)
        new = constraints.pins(text, constraints.UPSTREAM_PATH)
        reqs = []
        for path in args.requirements:
            with open(path) as stream:
                reqs += [(os.path.basename(path), req) for req in
                         constraints.requirement_lines(stream.read())]
    except (OSError, ValueError) as exc:
        return _fail(str(exc))
    old_text = ''
    if os.path.exists(args.file):
        with open(args.file) as stream:
            old_text = stream.read()
    try:
        old_commit, _old_date = constraints.stand_in_origin(old_text)
        old = constraints.pins(constraints.upstream_part(old_text),
                               args.file)
    except ValueError:
        old_commit, old = None, {}
    changes = constraints.changed_pins(old, new)
    print('%s %s at %s (%s): %d pins, %d changed since %s' % (
        constraints.UPSTREAM_REPO, constraints.UPSTREAM_PATH, commit[:12],
        date, len(new), len(changes),
        old_commit[:12] if old_commit else 'nothing'))
    # NOTE: against no earlier file every pin is new; a list says nothing.
    shown = changes[:LIST_AT_MOST] if old else []
    for name, before, after in shown:
        print('  %s: %s -> %s' % (name, before or '-', after or '-'))
    if old and len(changes) > len(shown):
        print('  ... and %d more' % (len(changes) - len(shown)))
    conflicts = []
    for where, req in reqs:
        for conflict in constraints.requirements_against([req], new):
            conflicts.append(conflict)
            print('EXCLUDED: %s %s, but the file pins %s'
                  % (where, conflict.requirement, conflict.pin.line.strip()))
    if args.check:
        same = old_text == new_text
        print('%s is %s' % (os.path.relpath(args.file),
                            'that commit\'s' if same else
                            'NOT that commit\'s (run without --check)'))
        return 0 if same and not conflicts else 1
    with open(args.file, 'w') as out:
        out.write(new_text)
    print('wrote %s; now set COMMITS[%r] in %s to %s and its date (%s) in '
          'doc/source/supported-versions.rst, then run the test-operator '
          'stage' % (os.path.relpath(args.file), series.upstream,
                     upstream.__name__, commit, date))
    return 1 if conflicts else 0


if __name__ == '__main__':
    sys.exit(main())
