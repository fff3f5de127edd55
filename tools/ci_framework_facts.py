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

"""Write the fact list of the ci-framework the podified Zuul jobs use.

Usage: ci_framework_facts.py --git-dir DIR [--rev REV] [--name NAME]
                             [-o OUT]

CI cannot reach openstack-k8s-operators/ci-framework, so its job names,
the cifmw_* variables its roles read, its hook steps and the hooks of its
scenarios are committed as etc/zuul/ci-framework-facts.txt (the default
OUT; "-" prints), and tools/check_zuul_jobs.py checks zuul.d/podified.yaml
against them. Regenerate from a clone (bare or not) of the ci-framework
when the jobs change or the ci-framework moves on. Exit status: 0
written, 2 bad arguments or an unreadable repository.
"""

import argparse
import os
import subprocess
import sys

import checkout_path  # noqa: F401 (selftests/ on sys.path)
from selftests.manifests import cifmw_facts

DEFAULT_OUT = os.path.normpath(os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..', 'etc', 'zuul',
    'ci-framework-facts.txt'))


def _git(git_dir, *args, stdin=None):
    return subprocess.run(['git', '--git-dir', git_dir] + list(args),
                          input=stdin, capture_output=True, check=True).stdout


def read_tree(git_dir, rev):
    """(commit, {path: text}) of the tree at rev."""
    commit = _git(git_dir, 'rev-parse', rev + '^{commit}').decode().strip()
    paths = [p for p in _git(git_dir, 'ls-tree', '-r', '--name-only',
                             commit).decode().splitlines()
             if cifmw_facts._is_source(p)]
    wanted = ''.join('%s:%s\n' % (commit, p) for p in paths).encode()
    out = _git(git_dir, 'cat-file', '--batch', stdin=wanted)
    files, pos = {}, 0
    for path in paths:
        end = out.index(b'\n', pos)
        header = out[pos:end].split()
        size = int(header[2])
        files[path] = out[end + 1:end + 1 + size].decode('utf-8', 'replace')
        pos = end + 1 + size + 1
    return commit, files


def main(argv=None):
    parser = argparse.ArgumentParser(
        description='Write the facts of the ci-framework that the '
                    'podified Zuul jobs use.')
    parser.add_argument('--git-dir', required=True,
                        help='the ci-framework repository (its .git or a '
                             'bare clone)')
    parser.add_argument('--rev', default='HEAD', help='revision (HEAD)')
    parser.add_argument('--name', default='openstack-k8s-operators/'
                        'ci-framework', help='repository name, for the '
                        'header')
    parser.add_argument('-o', '--output', default=DEFAULT_OUT,
                        help='where to write ("-" prints; default '
                             'etc/zuul/ci-framework-facts.txt)')
    args = parser.parse_args(argv)
    try:
        commit, files = read_tree(args.git_dir, args.rev)
    except (OSError, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, 'stderr', b'') or b''
        print('ci_framework_facts: %s: cannot read %s (%s)'
              % (args.git_dir, args.rev,
                 detail.decode().strip() or exc), file=sys.stderr)
        return 2
    text = cifmw_facts.format_facts(
        cifmw_facts.collect(files), '%s@%s' % (args.name, commit),
        'tools/ci_framework_facts.py')
    if args.output == '-':
        sys.stdout.write(text)
    else:
        with open(args.output, 'w') as stream:
            stream.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
