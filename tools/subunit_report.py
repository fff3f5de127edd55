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
The reports are made by the standard tools, as tcib's run_tempest.sh and
OpenStack CI make theirs: subunit2junitxml (python-subunit and junitxml)
and subunit2html (os-testr), taken from beside this Python or from PATH.
What the runner knows beyond the stream is appended to a copy of it
first, as subunit events (NAME.subunit itself is left as it is): a
stream that is missing or holds no result becomes one failed test,
NAME.no_test_result, so a run that stopped before its tests still shows
up red; a test that started and never finished fails with a message
saying so; --require (as in subunit_summary.py) adds one failed test
required_group.GROUP per required group that did not run; --check adds
a check the runner made outside the stream (the doctor, the role usage)
as one more test, checks.NAME: RESULT is "pass", "fail:MESSAGE" or
"skip:MESSAGE". Exit status: 0 reports written, 1 a report could not
be written (a tool missing or failing, a file unwritable), 2 bad
arguments.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from xml.etree import ElementTree

import checkout_path  # noqa: F401 (selftests/ on sys.path)
from selftests import report_events
from glance_multiapi_tests.results.gate import required_groups
from glance_multiapi_tests.results.gate import subunit_stream

USAGE = ('usage: subunit_report.py [--require GROUPS] [--check NAME=RESULT]'
         ' FILE.subunit [...]')
# The tools and the packages that bring them.
TOOLS = {'subunit2junitxml': 'python-subunit junitxml',
         'subunit2html': 'os-testr'}
TOOL_TIMEOUT = 600


class ReportError(Exception):
    """A report that could not be written; the message is one line."""


def find_tool(name):
    """The path of a report tool: beside this Python first, then PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), name)
    if os.access(beside, os.X_OK):
        return beside
    found = shutil.which(name)
    if not found:
        raise ReportError('%s not found beside %s nor on PATH (pip install '
                          '%s; tools/setup-env.sh installs them)'
                          % (name, sys.executable, TOOLS[name]))
    return found


def _run(command, what, **kwargs):
    try:
        proc = subprocess.run(command, capture_output=True,
                              timeout=TOOL_TIMEOUT, **kwargs)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ReportError('%s: %s' % (what, exc))
    err = proc.stderr.decode('utf-8', 'replace').strip().splitlines()
    return proc.returncode, err[-1] if err else ''


def _junit(stream_path, out_path):
    # NOTE: subunit2junitxml exits 1 when a test failed: that is a report
    # too. --no-passthrough keeps stray bytes of the stream out of the XML.
    tool = find_tool('subunit2junitxml')
    with open(stream_path, 'rb') as stream:
        rc, err = _run([tool, '--no-passthrough', '-o', out_path],
                       'subunit2junitxml', stdin=stream)
    try:
        ElementTree.parse(out_path)
    except (OSError, ElementTree.ParseError) as exc:
        raise ReportError('subunit2junitxml (exit %d) wrote no JUnit XML: '
                          '%s' % (rc, err or exc))


def _html(stream_path, out_path):
    tool = find_tool('subunit2html')
    rc, err = _run([tool, stream_path, out_path], 'subunit2html')
    if rc != 0 or not os.path.exists(out_path):
        raise ReportError('subunit2html failed (exit %d): %s'
                          % (rc, err or 'no page written'))


def write_reports(path, required, checks=()):
    """Write the two reports of one stream; return their paths."""
    stem = path[:-len('.subunit')] if path.endswith('.subunit') else path
    name = os.path.basename(stem)
    try:
        with open(path, 'rb') as stream:
            data = stream.read()
    except FileNotFoundError:
        data = b''
    except OSError as exc:
        raise ReportError('cannot read it: %s' % (exc.strerror or exc))
    tests = subunit_stream.read_tests(path)
    data = report_events.enriched(name, path, data, tests, required,
                                  checks)
    folder = os.path.dirname(os.path.abspath(stem))
    written = []
    with tempfile.TemporaryDirectory(dir=folder,
                                     prefix='.%s-report-' % name) as work:
        stream_path = os.path.join(work, name + '.subunit')
        with open(stream_path, 'wb') as stream:
            stream.write(data)
        for suffix, render in (('.junit.xml', _junit), ('.html', _html)):
            # NOTE: an earlier run's report must not stand for this one.
            target = stem + suffix
            if os.path.exists(target):
                os.unlink(target)
            part = os.path.join(work, name + suffix)
            render(stream_path, part)
            os.replace(part, target)
            written.append(target)
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
                checks.append(report_events.parse_check(args.pop(0)))
        if not args:
            raise ValueError('no subunit file given')
    except ValueError as exc:
        print('subunit_report.py: %s (%s)' % (exc, USAGE), file=sys.stderr)
        return 2
    rc = 0
    for path in args:
        try:
            write_reports(path, required, checks)
        except (OSError, ReportError) as exc:
            if isinstance(exc, OSError):
                exc = exc.strerror or exc
            print('subunit_report.py: cannot write the reports of %s: %s'
                  % (path, exc), file=sys.stderr)
            rc = 1
    return rc


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
