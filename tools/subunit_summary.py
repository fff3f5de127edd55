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

Usage: subunit_summary.py [--list-failures [--failure-details N]]
       [--require GROUPS] FILE [...]
Files that are missing or empty count as nothing ran. A file that is not
a regular file (a FIFO is never waited on), or a stream that is damaged
(cut short, altered, not subunit v2 from some byte on), counts as one
failure, always printed as "FAILED: FILE: damaged subunit stream at byte
N: WHAT", beside the tests read before it. With --list-failures the id
of every failed test is printed first, one a line; with
--failure-details N as well, under each the last N lines (1 to 50) of its
traceback, indented with "  | " and with secrets masked, for a console
of which only the tail is kept.
--require takes a comma-separated list of the plugin's test groups
(multiapi, switchover, grow_shrink, uploader, consolidated_images, heat,
heat_engine_restart):
each one that did not run (all its tests skipped, or none selected)
counts as one failure, printed as "FAILED: required group NAME did not
run: REASONS" (the skip reasons name the missing option).
Exit status: 0 when nothing failed and something ran, 1 otherwise, 2 for
bad arguments.
"""

import sys

from glance_multiapi_kernel import redaction
from glance_multiapi_tests.results.gate import required_groups
from glance_multiapi_tests.results.gate import subunit_stream
from glance_multiapi_tests.results.gate import verdict

USAGE = ('usage: subunit_summary.py [--list-failures [--failure-details '
         'N]] [--require GROUPS] FILE [FILE ...]')
MAX_DETAIL_LINES = 50


def _option(arg, name):
    return arg == name or arg.startswith(name + '=')


def _value(arg, args, what):
    """The option's value: after '=', else the next argument."""
    if '=' in arg:
        return arg.partition('=')[2]
    if not args:
        raise ValueError('%s needs %s' % (arg, what))
    return args.pop(0)


def parse_args(argv):
    """(list_failures, detail lines, required group names, paths).

    ValueError if bad.
    """
    list_failures, details, required, paths = False, 0, [], []
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == '--list-failures':
            list_failures = True
        elif _option(arg, '--failure-details'):
            value = _value(arg, args, 'a number of lines')
            if not value.isdigit() or not \
                    1 <= int(value) <= MAX_DETAIL_LINES:
                raise ValueError('--failure-details needs a number of '
                                 'lines from 1 to %d' % MAX_DETAIL_LINES)
            details = int(value)
        elif _option(arg, '--require'):
            value = _value(arg, args, 'a list of groups')
            required += [g for g in required_groups.parse(value)
                         if g not in required]
        elif arg.startswith('--'):
            raise ValueError('unknown option %s' % arg)
        else:
            paths.append(arg)
    if not paths:
        raise ValueError('no subunit file given')
    if details and not list_failures:
        raise ValueError('--failure-details goes with --list-failures')
    return list_failures, details, required, paths


def main(argv):
    try:
        list_failures, details, required, paths = parse_args(argv)
    except ValueError as exc:
        print('subunit_summary.py: %s (%s)' % (exc, USAGE), file=sys.stderr)
        return 2
    # NOTE: a missing stream counts as nothing ran here: the runners call
    # it on streams a stage that could not start never wrote.
    result = verdict.judge(verdict.read(paths, strict=False), required)
    tails = {}
    for path in reversed(paths) if details else ():
        tails.update(subunit_stream.failure_tails(path, details))
    for line in result.failure_lines(list_tests=list_failures):
        print(line)
        for detail in tails.pop(line.partition('FAILED: ')[2], ()):
            print('  | ' + redaction.text(detail))
    print(result.summary())
    return 0 if result.ok else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
