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

"""Write NAME.junit.xml and NAME.html beside each NAME.subunit given.

Usage: subunit_report.py [--require GROUPS] [--check NAME=RESULT] ...
                         FILE.subunit [...]
The JUnit XML is what Prow, Zuul dashboards and most CI systems read; the
HTML page is self-contained (failures and skip reasons first). A stream
that is missing or holds no result is reported as one failure, so a run
that stopped before its tests still shows up red. --require (as in
subunit_summary.py) adds one failure per required group that did not
run. --check adds a check the runner made outside the stream (the
doctor, the role usage) as one more test, "checks.NAME": RESULT is
"pass", "fail:MESSAGE" or "skip:MESSAGE" (JUnit's failure message is
MESSAGE's last line). Exit status: 0 reports
written, 1 a report could not be written, 2 bad arguments.
"""

import os
import sys

from glance_multiapi_tests.selftests import reports
from glance_multiapi_tests.selftests import required_groups
from glance_multiapi_tests.selftests import subunit_results

USAGE = ('usage: subunit_report.py [--require GROUPS] [--check NAME=RESULT]'
         ' FILE.subunit [...]')
OUTCOMES = ('pass', 'fail', 'skip')


def parse_check(text):
    """A subunit_results.Test of "NAME=pass|fail:MESSAGE|skip:MESSAGE"."""
    name, _eq, result = text.partition('=')
    outcome, _colon, message = result.partition(':')
    if not name or outcome not in OUTCOMES:
        raise ValueError('bad --check %r: want NAME=pass, NAME=fail:MESSAGE'
                         ' or NAME=skip:MESSAGE' % text)
    details = {'message': message} if outcome == 'fail' else {}
    return subunit_results.Test('checks.' + name, outcome,
                                message if outcome == 'skip' else '',
                                details, 0.0)


def write_reports(path, required, checks=()):
    """Write the two reports of one stream; return their paths."""
    stem = path[:-len('.subunit')] if path.endswith('.subunit') else path
    name = os.path.basename(stem)
    tests = subunit_results.read_tests(path)
    problems = required_groups.problems(tests, required)
    if not tests:
        problems.insert(0, 'no test result: %s holds none (the run '
                           'stopped before its tests, see its log)' % path)
    tests += checks
    written = []
    for suffix, render in (('.junit.xml', reports.junit_xml),
                           ('.html', reports.html_page)):
        with open(stem + suffix, 'w', encoding='utf-8') as f:
            f.write(render(name, tests, problems))
        written.append(stem + suffix)
    return written


def main(argv):
    args, required, checks = list(argv), [], []
    try:
        while args and args[0].startswith('--'):
            option = args.pop(0)
            if option not in ('--require', '--check') or not args:
                raise ValueError('bad option %s' % option)
            if option == '--require':
                required += required_groups.parse(args.pop(0))
            else:
                checks.append(parse_check(args.pop(0)))
        if not args:
            raise ValueError('no subunit file given')
    except ValueError as exc:
        print('subunit_report.py: %s (%s)' % (exc, USAGE), file=sys.stderr)
        return 2
    rc = 0
    for path in args:
        try:
            write_reports(path, required, checks)
        except OSError as exc:
            print('subunit_report.py: cannot write the reports of %s: %s'
                  % (path, exc), file=sys.stderr)
            rc = 1
    return rc


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
