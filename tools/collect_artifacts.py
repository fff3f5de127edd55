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

Run before the cloud is torn down. Always copies tempest.conf, clouds.yaml
and the cloud's "status -o json" (status.json) into DEST; when the run
failed (N is not 0) or --keep is always, also tempest.log, every service
log, the Kubernetes API audit log and the services' configuration. With
--only-on-failure nothing is kept from a run that passed (unless --keep
always). Secrets are masked (glance_multiapi_tests.selftests.artifacts).
Exit status: 0 kept, 1 could not write DEST, 2 bad arguments.
"""

import argparse
import os
import subprocess
import sys

from glance_multiapi_tests.selftests import artifacts

BIN = os.path.dirname(sys.executable)
STATUS_TIMEOUT = 60


class Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, '%s: %s\n' % (self.prog, message))


def write_status(state_dir, dest):
    """The cloud's status document as status.json (or why not)."""
    try:
        proc = subprocess.run(
            [os.path.join(BIN, 'glance-multiapi-cloud'), '--state-dir',
             state_dir, 'status', '-o', 'json'],
            capture_output=True, text=True, timeout=STATUS_TIMEOUT)
        text, ok = proc.stdout, proc.returncode == 0 and proc.stdout
        why = 'exit %d: %s' % (proc.returncode, proc.stderr.strip())
    except (OSError, subprocess.TimeoutExpired) as exc:
        text, ok, why = '', False, str(exc)
    name = 'status.json' if ok else 'status-error.txt'
    with open(os.path.join(dest, name), 'w') as f:
        f.write(artifacts.mask_text(
            text if ok else 'status of %s failed: %s\n' % (state_dir, why),
            artifacts.state_secrets(state_dir)))
    return name


def main(argv):
    parser = Parser(prog='collect_artifacts.py', description=__doc__.split(
        '\n')[0])
    parser.add_argument('--state-dir', required=True)
    parser.add_argument('--exit-code', type=int, required=True)
    parser.add_argument('--keep', choices=('always', 'failure'),
                        default='failure')
    parser.add_argument('--only-on-failure', action='store_true')
    parser.add_argument('dest')
    args = parser.parse_args(argv)
    logs = args.exit_code != 0 or args.keep == 'always'
    if args.only_on_failure and not logs:
        return 0
    try:
        os.makedirs(args.dest, exist_ok=True)
        written = artifacts.collect(args.state_dir, args.dest, logs)
        if os.path.isdir(os.path.join(args.state_dir, 'run')):
            written.append(write_status(args.state_dir, args.dest))
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
