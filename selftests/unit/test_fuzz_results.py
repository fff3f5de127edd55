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

"""Property tests: the records folder and the subunit streams read back.

A records folder (glance-multiapi-report, the plugin's own rebuild) with
any bytes in its files, or real records with fields broken, gives a map
and metrics that say what they left out, or RecordsError; a subunit
stream of any bytes gives tools/subunit_summary.py's verdict, never a
traceback; and a stream cut, altered or doubled anywhere never passes
glance-multiapi-report's verdict nor makes its map, unless it is still
whole: the damage is named with its file and the offset of the packet.
"""

import contextlib
import importlib.util
import io
import json
import os
import shutil
import tempfile
import traceback

import fixtures
from hypothesis import given
from hypothesis import strategies as st
import testtools

from glance_multiapi_tests.results.gate import subunit_stream
from glance_multiapi_tests.results.gate import verdict
from glance_multiapi_tests.results.runmap import model
from glance_multiapi_tests.results.runmap import outcomes
from glance_multiapi_tests.results.runmap import publish
from glance_multiapi_tests.results.runmap import recorder
from glance_multiapi_tests.results.runmap import records
from selftests import fuzzing
from selftests.unit import recorded_runs
from selftests.unit import synthetic_subunit


def _healthy_records():
    folder = tempfile.mkdtemp(prefix='gmt-fuzz-records-')
    try:
        recorded_runs.healthy(folder)
        return records.read(folder)[0]
    finally:
        shutil.rmtree(folder)


RECORDS = _healthy_records()


@st.composite
def record_lines(draw):
    """Lines of a records file: real records, some broken, some bytes."""
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        record = draw(st.sampled_from(RECORDS))
        choice = draw(st.integers(0, 3))
        if choice == 0:
            lines.append(json.dumps(record).encode())
        elif choice == 1:
            lines.append(draw(fuzzing.raw_bytes(record)).replace(b'\n',
                                                                 b' '))
        else:
            broken = draw(fuzzing.mutated(record))
            lines.append(json.dumps(broken).encode())
    return b'\n'.join(lines) + draw(st.sampled_from((b'\n', b'', b'\n{')))


class TestRecordsFuzzing(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.results = self.useFixture(fixtures.TempDir()).path
        self.folder = os.path.join(self.results, recorder.RECORDS_SUBDIR)
        os.mkdir(self.folder)

    @given(st.lists(record_lines(), min_size=1, max_size=3))
    def test_records_give_a_map_or_a_records_error(self, files):
        for name in os.listdir(self.folder):
            os.unlink(os.path.join(self.folder, name))
        for index, data in enumerate(files):
            with open(os.path.join(self.folder, '%d-1.jsonl' % index),
                      'wb') as f:
                f.write(data)
        try:
            found, problems = records.read(self.results)
        except records.RecordsError as exc:
            fuzzing.check_refusal(self, exc, self.results)
            return
        for problem in problems:
            fuzzing.check_refusal(self, problem, '.jsonl')
        facts = model.build(found, tests=recorded_runs.plugin_tests(),
                            problems=problems, now=0)
        rendered = publish.render(facts)
        self.assertEqual(4, len(rendered))


def _summary_tool():
    path = os.path.join(os.path.dirname(__file__), '..', '..',
                        'tools', 'subunit_summary.py')
    spec = importlib.util.spec_from_file_location('subunit_summary', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


subunit_summary = _summary_tool()
STREAM = synthetic_subunit.stream(
    (recorded_runs.ENDPOINTS, 'success'),
    (recorded_runs.UPLOAD, 'fail', {'traceback': 'boom'}),
    (recorded_runs.SWITCHOVER, 'skip', {'reason': '[glance_multiapi] '
                                        'run_switchover is False'}),
    (recorded_runs.ONE_SERVICE, 'inprogress'))


class TestSubunitFuzzing(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                                 'tempest_results.subunit')

    @given(st.one_of(fuzzing.damaged(STREAM), fuzzing.raw_bytes(),
                     st.just(STREAM), st.binary(max_size=2000)))
    def test_any_stream_gives_a_summary(self, data):
        with open(self.path, 'wb') as f:
            f.write(data)
        tests = subunit_stream.read_tests(self.path)
        for test in tests:
            self.assertIn(test.outcome, ('pass', 'fail', 'skip', 'error'))
        # NOTE: not a fixture: one per example would pile up thousands.
        with contextlib.redirect_stdout(io.StringIO()):
            code = subunit_summary.main(['--require', 'multiapi',
                                         self.path])
        self.assertIn(code, (0, 1))

    @given(st.one_of(fuzzing.damaged(STREAM), st.just(STREAM),
                     st.binary(max_size=300).map(lambda tail: STREAM +
                                                 tail)))
    def test_only_a_whole_stream_can_pass(self, data):
        with open(self.path, 'wb') as f:
            f.write(data)
        try:
            tests = verdict.read([self.path])
        except verdict.VerdictError as exc:
            fuzzing.check_refusal(self, exc, self.path)
            self.assertNotEqual(subunit_stream.SIGNATURE, data[0])
            return
        result = verdict.judge(tests)
        try:
            whole = sum(len(packet) for _, packet in subunit_stream.packets(
                io.BytesIO(data), 'data')) == len(data)
        except subunit_stream.DamagedStream as exc:
            whole = False
            self.assertLessEqual(exc.offset, len(data))
            self.assertEqual(('%s: damaged subunit stream at byte %d: %s' % (
                self.path, exc.offset, exc.problem),), result.damaged)
        if whole:
            self.assertEqual((), result.damaged)
        else:
            self.assertFalse(result.ok)
            fuzzing.check_refusal(self, result.damaged[0], self.path,
                                  'damaged subunit stream at byte')
        try:
            outcomes.read(self.path)
        except outcomes.OutcomesError as exc:
            self.assertFalse(whole)
            fuzzing.check_refusal(self, exc, self.path)

    @given(st.integers(1, len(STREAM) - 1))
    def test_a_cut_is_found_where_its_packet_starts(self, cut):
        with open(self.path, 'wb') as f:
            f.write(STREAM[:cut])
        starts = [offset for offset, _ in subunit_stream.packets(
            io.BytesIO(STREAM), 'whole')]
        result = verdict.judge(verdict.read([self.path]))
        if cut in starts:
            self.assertEqual((), result.damaged)
            return
        start = max(offset for offset in starts if offset < cut)
        self.assertEqual(1, len(result.damaged))
        self.assertIn('damaged subunit stream at byte %d: the stream ends '
                      'inside a packet' % start, result.damaged[0])


def _formatted(exc):
    """The traceback text a test result gets of exc, raised in a frame."""
    try:
        raise exc
    except Exception:  # noqa: B902 - any exception, formatted
        return traceback.format_exc()


_WORDS = st.text(st.characters(blacklist_categories=('Cs', 'Cc')),
                 min_size=1, max_size=200).map(str.strip).filter(bool)


class TestExceptionWordsFuzzing(testtools.TestCase):
    """A failure's words from any traceback text a stream may hold."""

    @given(st.text(max_size=6000))
    def test_any_text_gives_bounded_words(self, text):
        words = outcomes.exception_words(text)
        self.assertIsInstance(words, str)
        self.assertLessEqual(len(words), outcomes.MESSAGE_MAX)

    @given(_WORDS)
    def test_a_raised_exception_gives_its_own_words(self, message):
        self.assertEqual(message, outcomes.exception_words(_formatted(
            AssertionError(message))))
        self.assertEqual('ValueError: %s' % message,
                         outcomes.exception_words(_formatted(
                             ValueError(message))))
