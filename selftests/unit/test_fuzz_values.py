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

"""Property tests: single values against their grammar, and metrics.prom.

Each grammar is held to an oracle written here from the source the
parser names (the OCI specs, Kubernetes' DNS-1123 label, OpenMetrics'
ABNF), character by character rather than by the parser's regex: an
image reference's digest, tag and registry port, a namespace, a figure's
value. metrics.prom made from records of any figure name, label name,
label value and value is read back by prometheus_client's own parser
as exactly the families and samples that were recorded and are usable:
nothing a record holds adds a line.
"""

import json
import math

from hypothesis import given
from hypothesis import strategies as st
from prometheus_client.parser import text_string_to_metric_families
import testtools

from glance_image_uploader import exitcodes
from glance_image_uploader import inputs
from glance_multiapi_kernel import values
from glance_multiapi_tests.imagecheck import pullspec
from glance_multiapi_tests.results.runmap import comparison
from glance_multiapi_tests.results.runmap import metrics
from glance_multiapi_tests.results.runmap import record_schema
from selftests import fuzzing  # noqa: F401 - registers the profiles

REPO = 'quay.io/podified-antelope-centos9/openstack-heat-api'
ASCII_WORD = set('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'
                 '0123456789_')
LOWER_HEX = set('0123456789abcdef')
# NOTE: from the OCI image spec (descriptor.md) and go-digest.
LENGTHS = {'sha256': 64, 'sha384': 96, 'sha512': 128, 'blake3': 64}


def _tag_ok(tag):
    """The OCI distribution spec's tag, checked a character at a time."""
    return (1 <= len(tag) <= 128 and tag[0] in ASCII_WORD and
            all(c in ASCII_WORD or c in '.-' for c in tag))


def _label_ok(name):
    """DNS-1123 label (Kubernetes' IsDNS1123Label), a character at a time."""
    allowed = set('abcdefghijklmnopqrstuvwxyz0123456789')
    return (isinstance(name, str) and 1 <= len(name) <= 63 and
            name[0] in allowed and name[-1] in allowed and
            all(c in allowed or c == '-' for c in name))


@st.composite
def _encoded(draw):
    """Hex digits of a registered length (or another), in any case."""
    length = draw(st.sampled_from(sorted(set(LENGTHS.values()))) |
                  st.integers(1, 130))
    alphabet = draw(st.sampled_from(['0123456789abcdef', '0123456789ABCDEF',
                                     '0123456789abcdefABCDEF',
                                     '0123456789abcdefgx']))
    return draw(st.text(alphabet=alphabet, min_size=length,
                        max_size=length))


class TestReferenceGrammar(testtools.TestCase):

    @given(st.sampled_from(sorted(LENGTHS) + ['md5', 'SHA256', 'sha_256']),
           _encoded())
    def test_digest_is_a_pin_only_in_lower_case_of_its_length(
            self, algorithm, encoded):
        text = '%s@%s:%s' % (REPO, algorithm, encoded)
        wanted = (algorithm in LENGTHS and set(encoded) <= LOWER_HEX and
                  len(encoded) == LENGTHS[algorithm])
        try:
            ref = pullspec.parse(text)
        except pullspec.InvalidPullspec as exc:
            self.assertFalse(wanted, exc)
            self.assertNotIn('\n', str(exc))
            return
        self.assertTrue(wanted, text)
        self.assertEqual('%s:%s' % (algorithm, encoded), ref.digest)

    @given(st.text(min_size=1, max_size=140).filter(
        lambda t: not any(c.isspace() or c in ':@/' for c in t)))
    def test_tag_is_the_oci_grammar(self, tag):
        try:
            ref = pullspec.parse('%s:%s' % (REPO, tag))
        except pullspec.InvalidPullspec:
            self.assertFalse(_tag_ok(tag), tag)
            return
        self.assertTrue(_tag_ok(tag), tag)
        self.assertEqual(tag, ref.tag)

    @given(st.integers(min_value=0, max_value=10 ** 12))
    def test_registry_port_is_a_tcp_port(self, port):
        text = 'registry.example:%d/ns/openstack-heat-api:1' % port
        try:
            pullspec.parse(text)
        except pullspec.InvalidPullspec as exc:
            self.assertFalse(1 <= port <= 65535, exc)
            return
        self.assertTrue(1 <= port <= 65535, text)

    @given(st.text(max_size=70) | st.sampled_from(['openstack', 'a' * 63,
                                                   'a' * 64, 'A', '-a']))
    def test_namespace_is_a_dns1123_label(self, name):
        problem = values.namespace_problem(name)
        self.assertEqual(_label_ok(name), problem is None, problem)


# NOTE: JSON numbers as a record or a baseline may hold them, the
# integers past what a float holds too.
NUMBERS = (st.floats(allow_nan=True, allow_infinity=True) |
           st.integers(min_value=-10 ** 500, max_value=10 ** 500) |
           st.sampled_from([0, -0.0, 1e308, 10 ** 400, -(10 ** 400)]))


def _figure_ok(value):
    try:
        number = float(value)
    except OverflowError:
        return False
    return math.isfinite(number) and number >= 0


class TestFigureValues(testtools.TestCase):

    @given(NUMBERS | st.booleans() | st.none() | st.text(max_size=5))
    def test_figure_is_finite_and_not_negative(self, value):
        wanted = not isinstance(value, (bool, str, type(None))) and \
            _figure_ok(value)
        problem = values.figure_problem(value)
        self.assertEqual(wanted, problem is None, problem)

    @given(NUMBERS)
    def test_baseline_value_is_read_or_refused_in_one_line(self, value):
        text = json.dumps({'figures': [{
            'figure': 'grow_answer_seconds', 'labels': {'api': 'a'},
            'value': value}]})
        try:
            found = comparison.parse(text, 'b.json')
        except comparison.BaselineError as exc:
            self.assertFalse(_figure_ok(value), exc)
            self.assertNotIn('\n', str(exc))
            return
        self.assertTrue(_figure_ok(value))
        self.assertEqual(float(value), found[0]['value'])


_NAMES = st.text(max_size=12) | st.sampled_from(
    ['grow_answer_seconds', 'x\nglance_multiapi_injected 1', 'a:b', 'ok_1',
     '', '_x'])
_LABELS = st.dictionaries(
    st.text(max_size=8) | st.sampled_from(['api', '_api', 'a\nb', 'a"b']),
    st.text(max_size=12), max_size=3)


class TestMetricsProm(testtools.TestCase):

    @given(st.lists(st.tuples(_NAMES, _LABELS, NUMBERS), max_size=5))
    def test_records_never_add_a_line_to_metrics_prom(self, figures):
        records = [{'kind': 'figure', 'figure': name, 'labels': labels,
                    'value': value, 't': 1.0, 'pid': 1, 'seq': index}
                   for index, (name, labels, value) in enumerate(figures)]
        usable = [r for r in records if record_schema.problem(r) is None]
        facts = {'figures': metrics.collect(records), 'elements': [],
                 'counts': {}, 'complete': True}
        expected = {}
        for record in usable:
            name = metrics.PREFIX + record['figure']
            labels = {k: str(v) for k, v in record['labels'].items()}
            expected.setdefault(name, {})[tuple(sorted(
                labels.items()))] = float(record['value'])
        found = {}
        for family in text_string_to_metric_families(metrics.to_prom(facts)):
            for sample in family.samples:
                found.setdefault(sample.name, {})[tuple(sorted(
                    sample.labels.items()))] = sample.value
        for own in ('tests', 'elements', 'run_complete'):
            found.pop(metrics.PREFIX + own, None)
        self.assertEqual(expected, found)


MD5 = 'd41d8cd98f00b204e9800998ecf8427e'
_KEYS = st.none() | st.booleans() | st.integers(-5, 5000) | st.text(
    alphabet='abcxyz-', min_size=1, max_size=8)


class TestImageKeys(testtools.TestCase):

    @given(st.lists(_KEYS, min_size=1, max_size=4, unique=True))
    def test_null_and_boolean_keys_are_never_image_names(self, keys):
        text = 'os_images:\n' + ''.join(
            '  %s:\n    uri: http://127.0.0.1:9/c.img\n    md5: %s\n'
            '    image-format: raw\n' % (json.dumps(key), MD5)
            for key in keys)
        text = text.replace('"', '') if all(
            isinstance(k, str) for k in keys) else text
        bare = [k for k in keys if k is None or isinstance(k, bool)]
        try:
            specs = inputs.parse_images(text)
        except exitcodes.UploaderError as exc:
            self.assertNotIn('\n', exc.message)
            return
        self.assertEqual([], bare)
        for spec in specs:
            self.assertNotIn(spec.key, ('None', 'True', 'False'))
