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

"""Keep an embedded cloud's configuration and logs, secrets masked.

Usage: collect_artifacts.py --state-dir DIR --exit-code N
                            [--keep always|failure] [--only-on-failure] DEST
       collect_artifacts.py --state-dir DIR --mask FILE [--mask FILE ...]

Run before the cloud is torn down. Always copies tempest.conf, clouds.yaml
and the cloud's "status -o json" (status.json, kept when the command
exits non-zero too; its exit code and stderr are then in
status-error.txt, as "status_exit_code: N") into DEST; when the run
failed (N is not 0) or --keep is always, also tempest.log, every service
log, the Kubernetes API audit log and the services' configuration. With
--only-on-failure nothing is kept from a run that passed (unless --keep
always). Secrets are masked (selftests.artifacts).
--mask masks files written elsewhere (the doctor's reports) in place,
with the same secrets: the cloud's own and those its configuration holds.
Exit status: 0 kept (masked), 1 could not write DEST (or a FILE), 2 bad
arguments.
"""

import argparse
import json
import os
import subprocess
import sys

import checkout_path  # noqa: F401 (selftests/ on sys.path)
from selftests import artifacts

BIN = os.path.dirname(sys.executable)
STATUS_TIMEOUT = 60


class Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, '%s: %s\n' % (self.prog, message))


def write_status(state_dir, dest):
    """The cloud's status document and, if it failed, why; names written.

    "status" prints its JSON document and exits 1 when a service is not
    ready, the case the document is needed most: it is kept whenever it
    parses, and a non-zero exit is told in status-error.txt.
    """
    try:
        proc = subprocess.run(
            [os.path.join(BIN, 'glance-multiapi-cloud'), '--state-dir',
             state_dir, 'status', '-o', 'json'],
            capture_output=True, text=True, timeout=STATUS_TIMEOUT)
        text, rc = proc.stdout, proc.returncode
        why = 'exit %d: %s' % (rc, proc.stderr.strip())
    except (OSError, subprocess.TimeoutExpired) as exc:
        text, rc, why = '', None, str(exc)
    try:
        json.loads(text)
    except ValueError:
        text = None
    secrets = artifacts.state_secrets(state_dir)
    written = []
    if text is not None:
        written.append('status.json')
        with open(os.path.join(dest, 'status.json'), 'w') as f:
            f.write(artifacts.mask_text(text, secrets))
    if rc != 0 or text is None:
        written.append('status-error.txt')
        with open(os.path.join(dest, 'status-error.txt'), 'w') as f:
            f.write(artifacts.mask_text(
                'status of %s failed: %s\nstatus_exit_code: %s\n' % (
                    state_dir, why, 'none' if rc is None else rc),
                secrets))
    return written


def cloud_secrets(state_dir):
    """The cloud's secrets and those of the configuration collect keeps."""
    secrets = artifacts.state_secrets(state_dir)
    for source, _target in artifacts.plan(state_dir, False):
        with open(source, errors='surrogateescape') as f:
            secrets |= artifacts.mask_settings(f.read())[1]
    return secrets


def mask_files(state_dir, paths):
    """Mask each file in place; 0, or 1 when one could not be."""
    try:
        secrets = cloud_secrets(state_dir)
    except OSError as exc:
        print('collect_artifacts.py: cannot read the configuration of %s: '
              '%s' % (state_dir, exc), file=sys.stderr)
        return 1
    rc = 0
    for path in paths:
        try:
            with open(path, errors='surrogateescape') as f:
                text = artifacts.mask_settings(f.read())[0]
            with open(path, 'w', errors='surrogateescape') as f:
                f.write(artifacts.mask_text(text, secrets))
        except OSError as exc:
            print('collect_artifacts.py: cannot mask %s: %s' % (path, exc),
                  file=sys.stderr)
            rc = 1
    return rc


def main(argv):
    parser = Parser(prog='collect_artifacts.py', description=__doc__.split(
        '\n')[0])
    parser.add_argument('--state-dir', required=True)
    parser.add_argument('--exit-code', type=int)
    parser.add_argument('--keep', choices=('always', 'failure'),
                        default='failure')
    parser.add_argument('--only-on-failure', action='store_true')
    parser.add_argument('--mask', action='append', metavar='FILE')
    parser.add_argument('dest', nargs='?')
    args = parser.parse_args(argv)
    if args.mask:
        if args.dest is not None or args.exit_code is not None:
            parser.error('--mask takes no DEST nor --exit-code')
        return mask_files(args.state_dir, args.mask)
    if args.dest is None or args.exit_code is None:
        parser.error('DEST and --exit-code are required')
    logs = args.exit_code != 0 or args.keep == 'always'
    if args.only_on_failure and not logs:
        return 0
    try:
        os.makedirs(args.dest, exist_ok=True)
        written = artifacts.collect(args.state_dir, args.dest, logs)
        if os.path.isdir(os.path.join(args.state_dir, 'run')):
            written += write_status(args.state_dir, args.dest)
    except OSError as exc:
        print('collect_artifacts.py: cannot keep the artifacts of %s in '
              '%s: %s' % (args.state_dir, args.dest, exc), file=sys.stderr)
        return 1
    print('artifacts: kept %d files of the cloud in %s (%s)' % (
        len(written), args.dest,
        'logs included' if logs else 'configuration only: the run passed; '
        'KEEP_ARTIFACTS=always keeps the logs too'))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
