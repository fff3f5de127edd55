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

"""Check a run's deployment map against its subunit streams.

Usage: check_results_map.py RESULTS_DIR LABEL=SUBUNIT [LABEL=SUBUNIT ...]

RESULTS_DIR holds deployment-map.html/.json and metrics.json/.prom
(glance-multiapi-report's output); each LABEL is the run the stream
belongs to on the map (the tempest workspace's folder name: "tempest"
for the main pass, "oci" for the OCI pass of tools/run-suite.sh). Every
plugin test of a stream must have the same verdict on the map and the
other way round, no run may have stopped early, and metrics.prom must
parse as Prometheus reads it (prometheus_client).
Prints "results map: ok: ..." or one line per disagreement.
Exit status: 0 agree, 1 disagree, 2 bad arguments.
"""

import sys

import checkout_path  # noqa: F401 (selftests/ on sys.path)
from selftests import results_map


def main(argv):
    if len(argv) < 2 or any('=' not in a for a in argv[1:]):
        print('usage: check_results_map.py RESULTS_DIR LABEL=SUBUNIT ...',
              file=sys.stderr)
        return 2
    streams = [tuple(a.split('=', 1)) for a in argv[1:]]
    problems, summary = results_map.check(argv[0], streams)
    if problems:
        for problem in problems:
            print('results map: FAILED: %s' % problem)
        return 1
    print('results map: ok: %s' % summary)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
