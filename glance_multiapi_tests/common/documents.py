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

"""YAML and JSON documents read from files, commands and the Kubernetes API.

Every way PyYAML and json can fail on text nobody checked becomes one
DocumentError whose str() is one line: a syntax error, a document nested
deeper than any real one (PyYAML and json then hit Python's recursion
limit), a number too long to convert, an alias that contains itself, or
a YAML-only value (a date, a set, bytes) where the reader, like the
Kubernetes API, wants JSON. Each parser turns it into its own documented
error, naming its file; nothing here knows what a document should hold.
"""

import datetime
import json
import sys

from glance_multiapi_tests.common import errors

# NOTE: the deepest real input (a Deployment's env valueFrom) is about a
# dozen levels; PyYAML's own recursion gives up somewhere past 300.
MAX_DEPTH = 100
_SCALARS = (str, int, float, bool, type(None))


class DocumentError(errors.OneLineError, ValueError):
    """Text that holds no usable document; str() is one line."""


def decode(data, what='the text'):
    """UTF-8 bytes to text; DocumentError naming the line that is not."""
    try:
        return data.decode('utf-8')
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b'\n') + 1
        raise DocumentError('%s is not UTF-8 (line %d, byte 0x%02x)' % (
            what, line, data[exc.start])) from None


def _one_line(text):
    return ' '.join(str(text).split())


def load_yaml(text, loader=None, string_keys=True):
    """The JSON-shaped value of a YAML (or JSON) text; DocumentError if none.

    :param loader: a SafeLoader subclass (default SafeLoader), e.g. one
        refusing duplicate keys; the errors it raises that are not
        PyYAML's pass through.
    :param string_keys: False lets YAML's number and boolean keys through
        (a file other tools read with plain PyYAML).
    """
    yaml = _yaml()
    return _load(text, lambda text: yaml.load(
        text, Loader=loader or yaml.SafeLoader), string_keys)


def load_yaml_all(text):
    """The JSON-shaped values of every document of a YAML stream."""
    yaml = _yaml()
    return _load(text, lambda text: list(yaml.safe_load_all(text)))


def load_json(text):
    """The value of a JSON text; DocumentError (one line) if none."""
    return _load(text, json.loads)


def _yaml():
    # NOTE: imported when first needed: the results tools read JSON only
    # and run where PyYAML may be missing (test_results_map).
    import yaml
    return yaml


def _syntax_error(exc):
    """The one line of a YAML or JSON syntax error, else None."""
    if isinstance(exc, json.JSONDecodeError):
        return 'not valid JSON: %s' % _one_line(exc)
    yaml = sys.modules.get('yaml')
    if yaml is None or not isinstance(exc, yaml.YAMLError):
        return None
    mark = getattr(exc, 'problem_mark', None)
    where = ' at line %d column %d' % (
        mark.line + 1, mark.column + 1) if mark else ''
    problem = getattr(exc, 'problem', None) or str(exc).splitlines()[0]
    return 'not valid YAML%s: %s' % (where, _one_line(problem))


def _load(text, load, string_keys=True):
    if isinstance(text, bytes):
        text = decode(text)
    try:
        value = load(text)
    except RecursionError:
        raise DocumentError('not a usable document: nested deeper than '
                            'Python can read') from None
    except Exception as exc:  # noqa: B902 - sorted out just below
        problem = _syntax_error(exc)
        if problem is None and isinstance(exc, ValueError):
            # NOTE: PyYAML's own constructors: a date like 2001-02-30, or
            # an integer of more digits than Python converts (json too).
            problem = 'not a usable document: %s' % _one_line(exc)
        if problem is None:
            raise
        raise DocumentError(problem) from None
    check_shape(value, string_keys)
    return value


def _describe(value):
    if isinstance(value, (datetime.date, datetime.datetime)):
        return 'a date (%s) is not a JSON value; quote it' % (
            value.isoformat())
    return 'a %s is not a JSON value' % type(value).__name__


def short(text, limit=60):
    """text cut to limit characters, marked when cut (for messages)."""
    text = _one_line(text)
    return text if len(text) <= limit else text[:limit - 3] + '...'


def check_shape(value, string_keys=True):
    """Refuse what JSON cannot hold: DocumentError naming the key.

    Checks nesting depth, aliases that contain themselves, keys that are
    not strings (unless string_keys is False: then scalar keys pass) and
    values of types JSON has not (YAML dates, sets, bytes).
    """
    _check(value, '', 0, (), set(), string_keys)


def _check(value, path, depth, parents, seen, string_keys):
    # NOTE: the end of a deep path is the part a reader can find.
    where = path if len(path) <= 80 else '...' + path[-77:]
    where = where or 'the document'
    if depth > MAX_DEPTH:
        raise DocumentError('%s: nested more than %d levels deep' % (
            where, MAX_DEPTH))
    if isinstance(value, _SCALARS):
        return
    if not isinstance(value, (dict, list)):
        raise DocumentError('%s: %s' % (where, _describe(value)))
    if id(value) in parents:
        raise DocumentError('%s: a YAML alias that contains itself' % where)
    if id(value) in seen:
        # NOTE: an alias used again: checked once, or a few aliases of
        # aliases would take exponential time ("billion laughs").
        return
    seen.add(id(value))
    parents = parents + (id(value),)
    if isinstance(value, list):
        for index, item in enumerate(value):
            _check(item, '%s[%d]' % (path, index), depth + 1, parents, seen,
                   string_keys)
        return
    for key, item in value.items():
        if not isinstance(key, str) and (string_keys or not isinstance(
                key, _SCALARS)):
            raise DocumentError('%s: the key %s is not a string; quote '
                                'it' % (where, short(repr(key))))
        key = short(str(key), 40)
        _check(item, '%s.%s' % (path, key) if path else key, depth + 1,
               parents, seen, string_keys)
