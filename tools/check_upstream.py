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

"""Tell whether the upstream facts this project follows still hold.

Usage: check_upstream.py NAME=GIT_DIR [NAME=GIT_DIR ...]
           [--rev REV]

NAME is one of test-operator, tcib, openstack-operator, glance-operator,
heat-operator, s2i-openstack-containers (openstack-k8s-operators) and
requirements (openstack/requirements), or a release branch of one:
tcib-antelope, requirements-2023.1; GIT_DIR a clone of it (a bare one
will do). Each fact of selftests/manifests/upstream.py
is read at REV (default HEAD, for a release branch that branch) with
"git show"; every fact that is gone is
printed with the rule built on it, then how far REV is from the commit
this project read. Exit status: 0 every fact holds, 1 some moved, 2 bad
arguments or a repository that cannot be read.
"""

import argparse
import subprocess
import sys

import checkout_path  # noqa: F401 (selftests/ on sys.path)
from selftests.manifests import upstream


def _reader(git_dir, rev):
    def read(path):
        proc = subprocess.run(
            ['git', '--git-dir', git_dir, 'show', '%s:%s' % (rev, path)],
            capture_output=True, text=True, timeout=60)
        if proc.returncode != 0:
            raise KeyError(path)
        return proc.stdout
    return read


def _distance(git_dir, rev, commit):
    proc = subprocess.run(
        ['git', '--git-dir', git_dir, 'rev-list', '--count',
         '%s..%s' % (commit, rev)], capture_output=True, text=True,
        timeout=60)
    if proc.returncode != 0:
        return 'the commit read (%s) is not in this clone' % commit[:12]
    return '%s commit(s) after the one read (%s)' % (proc.stdout.strip(),
                                                     commit[:12])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('repos', nargs='+', metavar='NAME=GIT_DIR')
    parser.add_argument('--rev')
    args = parser.parse_args(argv)
    moved = 0
    for item in args.repos:
        name, sep, git_dir = item.partition('=')
        if not sep or name not in upstream.COMMITS:
            print('check_upstream: %r: want NAME=GIT_DIR, NAME one of %s'
                  % (item, ', '.join(sorted(upstream.COMMITS))),
                  file=sys.stderr)
            return 2
        rev = args.rev or upstream.BRANCHES.get(name, (name, 'HEAD'))[1]
        head = subprocess.run(['git', '--git-dir', git_dir, 'rev-parse',
                               rev], capture_output=True, text=True,
                              timeout=60)
        if head.returncode != 0:
            print('check_upstream: %s: cannot read %s in %s' % (
                name, rev, git_dir), file=sys.stderr)
            return 2
        gone = upstream.check(name, _reader(git_dir, rev))
        count = sum(1 for f in upstream.FACTS if f.repo == name)
        print('%s at %s (%s): %d of %d facts hold' % (
            name, head.stdout.strip()[:12], _distance(
                git_dir, rev, upstream.COMMITS[name]),
            count - len(gone), count))
        for fact, problem in gone:
            print('  MOVED: %s; rule: %s' % (problem, fact.rule))
        moved += len(gone)
    return 1 if moved else 0


if __name__ == '__main__':
    sys.exit(main())
