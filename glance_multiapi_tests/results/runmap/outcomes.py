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

"""The tests' outcomes as tempest and stestr recorded them: a subunit stream.

The map takes a test's verdict (passed, failed, skipped, unfinished),
a class's set-up skip or failure and a tearDownClass failure from the
run's subunit stream (``glance-multiapi-report --subunit``, or
test-operator's ``tempest_results.subunit`` beside the records): the
tests record none of them (tests/recording.py). A failure reads as the
exception the test raised (``exception_words``), as the plugin's own
messages are written.
"""

from glance_multiapi_kernel import input_files
from glance_multiapi_tests.results.gate import subunit_stream
from glance_multiapi_tests.results.runmap import inventory
from glance_multiapi_tests.results.runmap import model

PLUGIN = 'glance_multiapi_tests.tests.'
# NOTE: the name test-operator's run_tempest.sh gives the stream.
TEST_OPERATOR_STREAM = 'tempest_results.subunit'
VERDICTS = {'pass': model.PASSED, 'fail': model.FAILED,
            'skip': model.SKIPPED, 'error': model.UNFINISHED}


class Outcomes(object):
    """What one run's stream says of the plugin's tests.

    tests: {bare id: [(verdict, message)]}, one result each time the
    test ran (streams of several runs concatenate); classes: {class:
    (verdict, message)} of setUpClass; teardowns: {class: message} of a
    failed tearDownClass.
    """

    def __init__(self):
        self.tests = {}
        self.classes = {}
        self.teardowns = {}

    def ran(self):
        """Whether a test of the stream ran (started, not only skipped)."""
        return any(status != model.SKIPPED for results in self.tests.values()
                   for status, _message in results)


class OutcomesError(Exception):
    """A stream that cannot be used; the message names it."""


# NOTE: as the plugin's checks write an exception (tests/recording.py
# exception_text): an assertion's message is the whole of what it says,
# and tempest's HTTP errors ("Bad request\nDetails: {...}") read as one
# line.
ASSERTIONS = ('AssertionError', 'MismatchError')
HTTP_ERRORS = 'tempest.lib.exceptions.'
MESSAGE_MAX = 4000


def exception_words(traceback):
    """What the exception at the end of a formatted traceback says.

    The lines after the last frame (``  File "...", line N, in f`` and
    its indented source lines): ``Type: message`` with the type's module
    left out, and an assertion's message alone. A stream holds a test's
    traceback, not its exception; the map shows a failure in the words
    the test raised it with. Pure; at most MESSAGE_MAX characters.
    """
    lines = (traceback or '').rstrip().splitlines()
    start = 0
    for index, line in enumerate(lines):
        if line.startswith('  File "'):
            start = index + 1
        elif line.startswith('Traceback (most recent call last)'):
            start = index + 1
    while start < len(lines) and (lines[start].startswith('    ') or
                                  not lines[start].strip()):
        start += 1
    words = '\n'.join(lines[start:]).strip() or '\n'.join(lines).strip()
    head, sep, rest = words.partition(': ')
    if sep and head and ' ' not in head and '\n' not in head:
        kind = head.rsplit('.', 1)[-1]
        if head.startswith(HTTP_ERRORS):
            rest = ' '.join(rest.split())
        words = rest if kind in ASSERTIONS else '%s: %s' % (kind, rest)
    elif head.rsplit('.', 1)[-1] in ASSERTIONS and not sep:
        words = ''
    return words[:MESSAGE_MAX]


def _message(raw, verdict):
    """A skip's reason, else the words of the traceback, else ''."""
    details = raw['details']
    names = ('reason',) if verdict == model.SKIPPED else ('traceback',)
    for name in names:
        try:
            text = details[name].as_text()
        except Exception:  # noqa: B902 - missing, or a binary attachment
            continue
        if verdict != model.SKIPPED:
            return exception_words(text)
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        if lines:
            return lines[0]
    return ''


def _inner(test_id, kind):
    """'module.Class' of 'setUpClass (module.Class)', else None."""
    prefix = kind + ' ('
    if test_id.startswith(prefix) and test_id.endswith(')'):
        return test_id[len(prefix):-1]
    return None


def read(path):
    """The Outcomes of the plugin's tests in the subunit stream at path."""
    found = Outcomes()

    def on_test(raw):
        verdict = VERDICTS.get(subunit_stream.OUTCOMES.get(raw['status']))
        if verdict is None:
            return
        test_id = raw['id']
        message = _message(raw, verdict)
        setup = _inner(test_id, 'setUpClass')
        teardown = _inner(test_id, 'tearDownClass')
        if setup and setup.startswith(PLUGIN):
            found.classes[setup] = (verdict, message)
        elif teardown and teardown.startswith(PLUGIN):
            if verdict == model.FAILED:
                found.teardowns[teardown] = message
        elif test_id.startswith(PLUGIN):
            found.tests.setdefault(inventory.bare_id(test_id), []).append(
                (verdict, message))

    try:
        with input_files.open_regular(path, 'subunit stream') as stream:
            subunit_stream.for_each_test(stream, on_test, name=path)
    except (input_files.InputFileError,
            subunit_stream.DamagedStream) as exc:
        # NOTE: a map must not show a run read in part as what it was.
        raise OutcomesError(str(exc)) from None
    except OSError as exc:
        raise OutcomesError('cannot read the subunit stream %s: %s' % (
            path, exc.strerror or exc)) from None
    return found
