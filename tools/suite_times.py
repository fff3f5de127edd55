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

"""How long each suite test takes, for stestr's scheduler.

Usage:
  suite_times.py seed TIMES.json OUT.subunit
      a subunit stream of successes with those durations; ``stestr load``
      it into a fresh tempest workspace and ``tempest run`` balances its
      workers by them (tcib's run_tempest.sh does the same with
      TEMPEST_TIMING_DATA_URL). Tests it does not know are dealt round
      robin, so a new test is never lost, only not yet balanced.
  suite_times.py refresh TIMES.json RUN.subunit [RUN.subunit ...]
      record the durations of the passed tests of real runs (where two
      runs hold a test, the longer); a test the runs hold but did not
      pass keeps its old figure, a test they do not hold is dropped.
  suite_times.py slowest N RUN.subunit [RUN.subunit ...]
      the N slowest tests of the runs, one a line: seconds, the stream's
      name (the file's, without .subunit) and the test id without its
      [attributes]; missing runs are left out (a stage that never ran).
Ids are whole, [attributes] included, since stestr matches them so.
Exit status: 0 done, 2 usage or unreadable input (one line on stderr).
"""

import datetime
import json
import os
import sys

import subunit

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from glance_multiapi_tests.results.gate import subunit_stream  # noqa: E402


def seed(times, out):
    """Write a subunit v2 stream of one success per test, timed."""
    stream = subunit.StreamResultToBytes(out)
    start = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    for test_id, seconds in sorted(times.items()):
        stop = start + datetime.timedelta(seconds=float(seconds))
        stream.status(test_id=test_id, test_status='inprogress',
                      timestamp=start)
        stream.status(test_id=test_id, test_status='success',
                      timestamp=stop)
        start = stop


def refresh(times, paths):
    """times for the tests of the runs, from their passed durations."""
    seen, passed = set(), {}
    for path in paths:
        for test in subunit_stream.read_tests(path):
            if test.id.startswith(('setUpClass', 'tearDownClass')):
                continue
            seen.add(test.id)
            if test.outcome == 'pass' and test.duration > 0:
                passed[test.id] = max(passed.get(test.id, 0),
                                      round(test.duration, 1))
    updated = {k: v for k, v in times.items() if k in seen}
    updated.update(passed)
    return updated


def slowest(count, paths):
    """[(seconds, stream, test id)] of the count slowest tests."""
    found = []
    for path in paths:
        if not os.path.isfile(path):
            continue
        stream = os.path.basename(path)[:-len('.subunit')] if path.endswith(
            '.subunit') else os.path.basename(path)
        for test in subunit_stream.read_tests(path):
            if test.duration > 0:
                found.append((test.duration, stream,
                              test.id.split('[', 1)[0]))
    return sorted(found, reverse=True)[:count]


def _load(path):
    try:
        with open(path) as f:
            times = json.load(f)
    except (OSError, ValueError) as exc:
        raise SystemExit('suite_times: cannot read %s: %s' % (path, exc))
    if not isinstance(times, dict):
        raise SystemExit('suite_times: %s is not a {test id: seconds} '
                         'object' % path)
    return times


def main(argv):
    if argv[:1] == ['slowest'] and len(argv) >= 3 and argv[1].isdigit():
        for seconds, stream, test_id in slowest(int(argv[1]), argv[2:]):
            print('%8.1f  %-24s %s' % (seconds, stream, test_id))
        return 0
    if len(argv) < 3 or argv[0] not in ('seed', 'refresh') or (
            argv[0] == 'seed' and len(argv) != 3):
        sys.stderr.write(__doc__.split('Exit status')[0])
        return 2
    try:
        times = _load(argv[1])
        if argv[0] == 'seed':
            with open(argv[2], 'wb') as out:
                seed(times, out)
            return 0
        missing = [p for p in argv[2:] if not os.path.isfile(p)]
        if missing:
            raise SystemExit('suite_times: no such run: %s'
                             % ', '.join(missing))
        with open(argv[1], 'w') as f:
            json.dump(refresh(times, argv[2:]), f, indent=1, sort_keys=True)
            f.write('\n')
    except SystemExit as exc:
        sys.stderr.write('%s\n' % exc)
        return 2
    except OSError as exc:
        sys.stderr.write('suite_times: %s\n' % exc)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
