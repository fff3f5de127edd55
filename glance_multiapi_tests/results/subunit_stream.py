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

"""Read a subunit v2 stream test by test.

For glance-multiapi-report's verdict (results/verdict.py) and the
project's own runners and reports.
"""

import collections

import subunit
import testtools

# What a subunit status means to a reader of the results.
OUTCOMES = {'success': 'pass', 'xfail': 'pass', 'fail': 'fail',
            'uxsuccess': 'fail', 'skip': 'skip',
            # NOTE: started and never finished: the worker died under it.
            'inprogress': 'error'}

# NOTE: duration (seconds, 0.0 when a timestamp is missing) is what
# tools/suite_times.py records for stestr's scheduler.
Test = collections.namedtuple('Test', 'id outcome reason duration')


def for_each_test(stream, on_test):
    """Call on_test(dict) for every test of a subunit v2 byte stream.

    The dict is testtools.StreamToDict's: id, status, details, tags.
    """
    case = subunit.ByteStreamToStreamResult(stream, non_subunit_name='out')
    result = testtools.StreamToDict(on_test)
    result.startTestRun()
    try:
        case.run(result)
    finally:
        result.stopTestRun()


def parse_subunit(stream):
    """{test id: (status, details text)} of a subunit v2 byte stream."""
    results = {}

    def on_test(test):
        details = []
        for name, content in sorted(test['details'].items()):
            try:
                details.append('%s: %s' % (name, content.as_text()))
            except Exception:  # noqa: S110 - binary attachment, skip it
                pass
        results[test['id']] = (test['status'], '\n'.join(details))

    for_each_test(stream, on_test)
    return results


def _reason(raw):
    content = raw['details'].get('reason')
    if content is None:
        return ''
    try:
        return content.as_text().strip()
    except Exception:  # noqa: S110 - a binary attachment has no text
        return ''


def _test(raw):
    outcome = OUTCOMES.get(raw['status'])
    if outcome is None:
        return None
    start, stop = raw['timestamps']
    duration = (stop - start).total_seconds() if start and stop else 0.0
    return Test(raw['id'], outcome, _reason(raw), duration)


def read_tests(path):
    """The Tests of a subunit v2 file in stream order ([] when missing).

    Listings ('exists') and other non-results are left out.
    """
    tests = []

    def on_test(raw):
        test = _test(raw)
        if test:
            tests.append(test)

    try:
        stream = open(path, 'rb')
    except OSError:
        return tests
    with stream:
        try:
            for_each_test(stream, on_test)
        except Exception as exc:  # noqa: B902 - python-subunit's own
            # NOTE: a damaged stream can make python-subunit's parser
            # fail (a negative packet length: ValueError); what it read
            # counts, and the damage is one failed result naming the file.
            tests.append(Test('%s: damaged subunit stream' % path, 'error',
                              '%s: %s' % (type(exc).__name__, exc), 0.0))
    return tests
