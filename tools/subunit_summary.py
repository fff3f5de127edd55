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

"""Print one line "N passed, N failed, N skipped" for subunit v2 files.

Usage: subunit_summary.py [--list-failures] FILE [FILE ...]
Files that are missing or empty count as nothing ran. With
--list-failures the id of every failed test is printed first, one a line.
Exit status: 0 when nothing failed and something ran, else 1.
"""

import sys

from glance_multiapi_tests.selftests import subunit_results


def count(path, failures):
    totals = {'success': 0, 'fail': 0, 'skip': 0}

    def on_test(test):
        status = test['status']
        if status in ('success', 'xfail'):
            totals['success'] += 1
        elif status in ('fail', 'uxsuccess'):
            totals['fail'] += 1
            failures.append(test['id'])
        elif status == 'skip':
            totals['skip'] += 1

    try:
        stream = open(path, 'rb')
    except OSError:
        return totals
    with stream:
        subunit_results.for_each_test(stream, on_test)
    return totals


def main(argv):
    list_failures = '--list-failures' in argv
    paths = [a for a in argv if a != '--list-failures']
    totals = {'success': 0, 'fail': 0, 'skip': 0}
    failures = []
    for path in paths:
        for key, value in count(path, failures).items():
            totals[key] += value
    if list_failures:
        for test_id in failures:
            print('FAILED: %s' % test_id)
    print('%d passed, %d failed, %d skipped' % (
        totals['success'], totals['fail'], totals['skip']))
    return 0 if totals['success'] and not totals['fail'] else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
