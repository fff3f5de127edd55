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

"""Hypothesis profiles and the bad input the property tests feed parsers.

Profiles: ``ci`` (the default) runs PROFILE_EXAMPLES['ci'] examples per
parser, derandomised, so a CI run is reproducible and bounded;
``HYPOTHESIS_PROFILE=thorough`` runs PROFILE_EXAMPLES['thorough'] with a
fresh random seed each time; ``matrix`` runs PROFILE_EXAMPLES['matrix'],
derandomised, for the Python matrix (tools/run-python-matrix.sh), which
checks that the parsers run under other interpreters, not how far they
are fuzzed; ``dev`` is ``ci`` without shrinking. None
keeps an example database, and Hypothesis' own caches go to a temporary
folder: a test run leaves no ``.hypothesis`` folder behind.

Inputs: any bytes, any text, any JSON-shaped value, and, most useful,
a valid document of the parser's own with a few parts replaced by values
of the wrong type, removed, wrapped or nested far too deep, so that the
fuzzing reaches past the first check of the parser. For the bounds of
every input (issue 47): paths that are no regular file (``SPECIAL``,
made by ``FileFuzzing.special``), documents with YAML aliases of any
fan-out and depth or a key given twice under any key
(``alias_documents``, ``duplicate_keys``) and byte streams cut, altered
or doubled anywhere (``damaged``).
"""

import atexit
import copy
import itertools
import json
import os
import shutil
import socket
import tempfile
import warnings

import fixtures
from hypothesis import configuration
from hypothesis import errors
from hypothesis import HealthCheck
from hypothesis import Phase
from hypothesis import settings
from hypothesis import strategies as st
import testtools
import yaml

PROFILE_ENV = 'HYPOTHESIS_PROFILE'
PROFILE_EXAMPLES = {'ci': 200, 'thorough': 5000, 'matrix': 20}
# NOTE: a message echoing a huge value is one line but not a readable one.
MAX_MESSAGE = 1000

# NOTE: Hypothesis caches constants and Unicode tables in the current
# folder's .hypothesis by default; one temporary folder per process
# instead keeps the tree as it was.
_HOME = tempfile.mkdtemp(prefix='gmt-hypothesis-')
atexit.register(shutil.rmtree, _HOME, ignore_errors=True)
configuration.set_hypothesis_home_dir(_HOME)

settings.register_profile(
    'ci', max_examples=PROFILE_EXAMPLES['ci'], derandomize=True,
    database=None, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.filter_too_much])
settings.register_profile(
    'thorough', parent=settings.get_profile('ci'),
    max_examples=PROFILE_EXAMPLES['thorough'], derandomize=False)
# NOTE: under Python 3.9 (Hypothesis 6.141) the ci profile's property
# tests took 721 s of the matrix's 1,288 s of unit tests; 3.11's unit
# stage already runs them with 200 examples each.
settings.register_profile(
    'matrix', parent=settings.get_profile('ci'),
    max_examples=PROFILE_EXAMPLES['matrix'])
# NOTE: for fixing what a run found: no shrinking, which can take minutes
# on inputs of 100 kB; the first failing example is reported as found.
settings.register_profile(
    'dev', parent=settings.get_profile('ci'),
    phases=[Phase.explicit, Phase.generate])
settings.load_profile(os.environ.get(PROFILE_ENV) or 'ci')
# NOTE: the huge inputs are meant; their repr is never shown whole.
warnings.filterwarnings('ignore', 'Generating overly large repr',
                        errors.HypothesisWarning)

# NOTE: past what PyYAML and json nest in Python, yet quick to refuse.
DEEP = 1000
# NOTE: texts each known to break a naive reader in its own way.
NASTY_TEXTS = (
    '', ' ', '\n', '---', '--- \n...\n---\n', '- ', 'null', '~', '[]', '{}',
    '""', '0', '-1', '1e999', '.nan', 'true', '[' * DEEP, '{"a":' * DEEP,
    '- ' * DEEP, 'a:\n' + ''.join(' ' * i + 'a:\n' for i in range(1, 400)),
    '&a [*a]', '&a {a: *a}', 'a: 2001-02-30', 'a: 2001-01-01', '1' * 5000,
    '\x00', '\ufeff', '\ud800', 'a: !!binary zz', 'a: !!set {x}',
    '!!python/object/apply:os.system ["true"]', '<<: 5', '? [1]\n: 2',
    '{1: 2}', 'a: [1, 2', 'a: b: c', '\t',
    '[{"name": "x"}]', 'a=b', '=', 'export', '\xff\xfe',
)
NASTY_BYTES = (
    b'', b'\x00', b'\x80', b'\xc3', b'\xff\xfe\x00\x00', b'\xef\xbb\xbf',
    bytes(range(256)), 'a: é'.encode('latin-1'),
    'a: b'.encode('utf-16'), b'\x1f\x8b\x08\x00', b'\x7fELF\x02\x01\x01',
)


def huge_strings():
    """Strings of 1 kB to 100 kB (made, not drawn: their repr stays short)."""
    return st.integers(1000, 100000).map(lambda size: 'x' * size)


def scalars():
    """Any JSON scalar, huge strings included."""
    return st.one_of(
        st.none(), st.booleans(), st.integers(),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=30), huge_strings(),
        st.sampled_from(('', '-1', '0', 'api0', 'http://', '1e999')))


def _containers(children):
    return st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.text(max_size=12), children, max_size=4))


def json_values(max_leaves=12):
    """Any JSON-shaped value: scalars in lists and mappings."""
    return st.recursive(scalars(), _containers, max_leaves=max_leaves)


# NOTE: made once: a strategy made at each draw is validated at each.
_VALUES = json_values()


def _paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, path + (index,))


def _nested(value, levels):
    for _ in range(levels):
        value = [value]
    return value


@st.composite
def mutated(draw, example, max_changes=3):
    """example (a valid document) with 1..max_changes parts broken."""
    doc = copy.deepcopy(example)
    for _ in range(draw(st.integers(1, max_changes))):
        path = draw(st.sampled_from(list(_paths(doc))))
        action = draw(st.sampled_from(
            ('replace', 'replace', 'replace', 'delete', 'wrap', 'deepen')))
        old = doc
        for part in path:
            old = old[part]
        if action == 'replace':
            new = draw(_VALUES)
        elif action == 'wrap':
            new = [old]
        elif action == 'deepen':
            new = _nested(old, draw(st.integers(90, 130)))
        else:
            new = None
        if not path:
            doc = new
            continue
        parent = doc
        for part in path[:-1]:
            parent = parent[part]
        if action == 'delete' and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = new
    return doc


def dump(value, as_yaml):
    """value as JSON or YAML text (JSON when PyYAML cannot nest it)."""
    if as_yaml:
        try:
            return yaml.safe_dump(value, default_flow_style=False,
                                  allow_unicode=True)
        except RecursionError:
            pass
    return json.dumps(value)


def texts(example=None):
    """Text for a parser of YAML or JSON documents like example."""
    values = json_values()
    if example is not None:
        values = st.one_of(mutated(example), mutated(example), values)
    return st.one_of(
        st.builds(dump, values, st.booleans()),
        st.sampled_from(NASTY_TEXTS), st.text(max_size=200), huge_strings(),
        huge_strings().map(lambda text: 'a: ' + text))


@st.composite
def _broken_utf8(draw, text):
    data = text.encode('utf-8', 'surrogatepass')
    at = draw(st.integers(0, len(data)))
    return data[:at] + draw(st.sampled_from((b'\xff', b'\xc3', b'\x80',
                                             b'\xed\xa0\x80'))) + data[at:]


def raw_bytes(example=None):
    """Bytes for a parser of files: texts, any bytes, non-UTF-8 ones."""
    return st.one_of(
        texts(example).map(lambda text: text.encode('utf-8',
                                                    'surrogatepass')),
        texts(example).flatmap(_broken_utf8),
        st.binary(max_size=300), st.sampled_from(NASTY_BYTES))


_MARK = 'gmt-alias-here'


def _with_mark(draw, example):
    """A copy of example with one value (never the root) the mark."""
    doc = copy.deepcopy(example) if isinstance(example, dict) else {
        'x': example}
    paths = [path for path in _paths(doc) if path]
    path = draw(st.sampled_from(paths))
    parent = doc
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = _MARK
    return doc


@st.composite
def alias_documents(draw, example):
    """YAML of example with a chain of anchors, aliased under any key.

    Level 0 is a list of fan-out scalars, each next level a list of
    fan-out aliases of the one before; one value of example becomes an
    alias of some level, so the document expands to anything from a few
    nodes to fan-out ** depth (a billion laughs at 9 and 9).
    """
    fan = draw(st.integers(1, 12))
    depth = draw(st.integers(0, 9))
    lines = ['x-lol0: &a0 [%s]' % ', '.join(['lol'] * fan)]
    for level in range(1, depth + 1):
        lines.append('x-lol%d: &a%d [%s]' % (level, level, ', '.join(
            ['*a%d' % (level - 1)] * fan)))
    doc = _with_mark(draw, example)
    text = yaml.safe_dump(doc, default_flow_style=False, width=1000)
    alias = '*a%d' % draw(st.integers(0, depth))
    return '\n'.join(lines) + '\n' + text.replace(_MARK, alias)


@st.composite
def duplicate_keys(draw, example):
    """YAML of example with one mapping giving one of its keys twice."""
    doc = _with_mark(draw, example)
    text = yaml.safe_dump(doc, default_flow_style=False, width=1000)
    for line in text.splitlines():
        if line.rstrip().endswith(_MARK):
            indent = line[:len(line) - len(line.lstrip())]
            key = line.strip().split(':', 1)[0]
            if line.lstrip().startswith('- ') or not key:
                break
            again = '%s%s: %s' % (indent, key, draw(st.sampled_from(
                ('1', 'x', '[]', '{}', 'null'))))
            return text.replace(line, line.replace(
                _MARK, 'x') + '\n' + again)
    return 'a: 1\na: 2\n' + text.replace(_MARK, 'x')


def expanded_size(value, limit):
    """Nodes of value with every shared part counted each time, to limit."""
    count = 0
    stack = [value]
    while stack and count <= limit:
        item = stack.pop()
        count += 1
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return count


@st.composite
def damaged(draw, data):
    """data with a few bytes changed, cut or doubled (at least once)."""
    data = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        action = draw(st.integers(0, 2))
        if action == 0:
            data[at] = draw(st.integers(0, 255))
        elif action == 1:
            del data[at:]
        else:
            data[at:at] = data[at:]
    return bytes(data)


# NOTE: what a path given as an input file may be besides a regular
# file; FileFuzzing.special makes each.
SPECIAL = ('fifo', 'character device', 'null device', 'folder',
           'symlink loop', 'socket', 'missing', 'under a file',
           'dangling symlink')
# NOTE: SPECIAL kinds whose refusal says "does not exist".
MISSING = ('missing', 'dangling symlink')


def check_refusal(test, exc, *names):
    """exc is one readable line naming every one of names (any case)."""
    text = str(exc)
    test.assertTrue(text.strip(), 'an empty message: %r' % (exc,))
    test.assertNotIn('\n', text.strip(), 'a message of several lines')
    test.assertLessEqual(len(text), MAX_MESSAGE, 'an unreadable message: '
                         '%s...' % text[:200])
    for name in names:
        test.assertIn(name.lower(), text.lower())


class FileFuzzing(testtools.TestCase):
    """A test case that writes the generated bytes to files of its own."""

    def setUp(self):
        super().setUp()
        self.folder = self.useFixture(fixtures.TempDir()).path

    def write(self, name, data):
        """data (bytes) into the file name of this test's folder."""
        path = os.path.join(self.folder, name)
        with open(path, 'wb') as f:
            f.write(data)
        return path

    _made = itertools.count()

    def special(self, kind, path=None):
        """A path (new in this test's folder, or path) that is kind.

        kind is one of SPECIAL; a device is /dev's own (at path, a
        symlink to it).
        """
        device = {'character device': '/dev/zero',
                  'null device': '/dev/null'}.get(kind)
        if device and path is None:
            return device
        path = path or os.path.join(self.folder, 'special-%d' % next(
            self._made))
        if device:
            os.symlink(device, path)
        elif kind == 'fifo':
            os.mkfifo(path)
        elif kind == 'folder':
            os.mkdir(path)
        elif kind == 'symlink loop':
            os.symlink(path, path)
        elif kind == 'socket':
            sock = socket.socket(socket.AF_UNIX)
            sock.bind(path)
            sock.close()
        elif kind == 'under a file':
            with open(path, 'wb') as f:
                f.write(b'x')
            path += '/x'
        elif kind == 'dangling symlink':
            os.symlink(path + '-nowhere', path)
        return path
