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

"""The verdict of subunit streams: counts, failures and required groups.

What a gate decides after a run (``glance-multiapi-report --require``,
tools/subunit_summary.py): it passed when something ran, nothing failed,
every required group ran (required_groups.py) and every stream was read
whole. Pure apart from reading the streams.
"""

import dataclasses

from glance_multiapi_kernel import input_files
from glance_multiapi_tests.results.gate import required_groups
from glance_multiapi_tests.results.gate import subunit_stream


SIGNATURE = b'\xb3'


class VerdictError(Exception):
    """A stream that cannot be judged (one line naming the file)."""


@dataclasses.dataclass(frozen=True)
class Verdict:
    """Counts of one or more streams and the lines a reader must see."""

    passed: int
    failed_tests: tuple
    skipped: int
    missing_groups: tuple
    # NOTE: one line per stream read only in part (file, offset, damage):
    # never a pass, whatever its tests say.
    damaged: tuple = ()

    @property
    def failed(self):
        return (len(self.failed_tests) + len(self.missing_groups) +
                len(self.damaged))

    @property
    def ok(self):
        return bool(self.passed) and not self.failed

    def summary(self):
        return '%d passed, %d failed, %d skipped' % (
            self.passed, self.failed, self.skipped)

    def failure_lines(self, list_tests=True):
        lines = ['FAILED: %s' % test_id for test_id in self.failed_tests
                 ] if list_tests else []
        return lines + ['FAILED: %s' % line for line in
                        self.missing_groups + self.damaged]


def judge(tests, required=()):
    """The Verdict of subunit_stream.Test records."""
    return Verdict(
        passed=sum(1 for t in tests if t.outcome == 'pass'),
        failed_tests=tuple(t.id for t in tests
                           if t.outcome in ('fail', 'error') and
                           not t.damage),
        skipped=sum(1 for t in tests if t.outcome == 'skip'),
        missing_groups=tuple(required_groups.problems(tests, required)),
        damaged=tuple(t.id for t in subunit_stream.damage(tests)))


def read(paths, strict=True):
    """The Tests of subunit files, in order.

    strict: a file that is missing, unreadable or not a regular file is
    a VerdictError; otherwise it counts as nothing ran (missing) or as
    one failure (the others). A damaged stream gives the tests read
    before the damage and one error Test naming file, offset and damage
    (subunit_stream.read_tests), which judge() counts as a failure.
    """
    tests = []
    for path in paths:
        if strict:
            try:
                with input_files.open_regular(path, 'subunit stream') as f:
                    first = f.read(1)
            except input_files.InputFileError as exc:
                raise VerdictError(str(exc)) from None
            except OSError as exc:
                raise VerdictError('cannot read subunit stream %s: %s' % (
                    path, exc.strerror or exc)) from None
            # NOTE: every subunit v2 packet starts with its signature
            # byte; other bytes would only be kept as non-test output.
            if first and first != SIGNATURE:
                raise VerdictError('%s is not a subunit v2 stream (it '
                                   'starts with byte 0x%02x, not 0x%02x)' % (
                                       path, first[0], SIGNATURE[0]))
        tests += subunit_stream.read_tests(path)
    return tests
