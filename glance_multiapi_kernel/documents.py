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
limit, libyaml its own of 1,000 levels), a number too long to convert,
an alias that contains itself, aliases that would expand the document
past MAX_ALIAS_NODES nodes, a key given twice in one mapping (both
lines named), or a YAML-only value (a date, a set, bytes) where the
reader, like the Kubernetes API, wants JSON. Each parser turns it into
its own documented error, naming its file; nothing here knows what a
document should hold. Reading the file itself is
glance_multiapi_kernel/input_files.py's.
"""

import collections.abc
import datetime
import json
import sys

from glance_multiapi_kernel import errors

# NOTE: the deepest real input (a Deployment's env valueFrom) is about a
# dozen levels; PyYAML's own recursion gives up somewhere past 300.
MAX_DEPTH = 100
# NOTE: a YAML alias is the node it names, not a copy, so PyYAML reads
# "billion laughs" (nine anchors of nine aliases each) in a blink; but
# whatever walks the value (json.dumps into state.json, the uploader
# turning a key into a property, deepcopy) expands it to 10^9 nodes.
# Real files use an alias for a shared block of a few dozen nodes.
MAX_ALIAS_NODES = 10000
_SCALARS = (str, int, float, bool, type(None))


class DocumentError(errors.OneLineError, ValueError):
    """Text that holds no usable document; str() is one line."""


def utf8_problem(data):
    """None when data is UTF-8, else where it is not, for a message.

    'not UTF-8 (line 2, column 3: byte 0xff at offset 6)'.
    """
    try:
        data.decode('utf-8')
    except UnicodeDecodeError as exc:
        line = data.count(b'\n', 0, exc.start) + 1
        column = exc.start - (data.rfind(b'\n', 0, exc.start) + 1) + 1
        return 'not UTF-8 (line %d, column %d: byte 0x%02x at offset %d)' % (
            line, column, data[exc.start], exc.start)
    return None


def decode(data, what='the text'):
    """UTF-8 bytes to text; DocumentError naming where it is not."""
    problem = utf8_problem(data)
    if problem:
        raise DocumentError('%s is %s' % (what, problem))
    return data.decode('utf-8')


def _yaml():
    # NOTE: imported when first needed: the results tools read JSON only
    # and run where PyYAML may be missing (test_results_map).
    import yaml
    return yaml


class _Refused(Exception):
    """Raised inside the loader; _load makes it a DocumentError."""


def _line(node):
    mark = getattr(node, 'start_mark', None)
    return mark.line + 1 if mark is not None else 0


def _expanded_size(root):
    """Nodes of root with every alias expanded; _Refused past the bound.

    NOTE: memoised per node, so a chain of anchors costs its length, not
    its expansion; a node met while its own size is being counted is an
    alias that contains itself (check_shape names its path).
    """
    sizes, open_nodes, reused = {}, set(), []
    distinct = [0]
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            children = _children(node)
            sizes[key] = 1 + sum(sizes.get(id(c), 0) for c in children)
            open_nodes.discard(key)
            if sizes[key] - distinct[0] > MAX_ALIAS_NODES:
                big = max(reused, key=lambda n: sizes.get(id(n), 0))
                raise _Refused(
                    'YAML aliases would add more than %d nodes to the '
                    'document (the anchor at line %d, repeated); write '
                    'the values out instead' % (MAX_ALIAS_NODES,
                                                _line(big)))
            continue
        if key in sizes or key in open_nodes:
            reused.append(node)
            continue
        distinct[0] += 1
        open_nodes.add(key)
        stack.append((node, True))
        for child in reversed(_children(node)):
            stack.append((child, False))
    return sizes.get(id(root), 0)


def _children(node):
    value = node.value
    if isinstance(value, str):
        return ()
    if value and isinstance(value[0], tuple):
        return [part for pair in value for part in pair]
    return list(value)


def _construct_unique_mapping(loader, node, deep=False):
    yaml = _yaml()
    seen = {}
    for key_node, _ in node.value:
        if key_node.tag == 'tag:yaml.org,2002:merge':
            # NOTE: "<<: *defaults" merges keys the mapping may override.
            continue
        key = loader.construct_object(key_node, deep=deep)
        if not isinstance(key, collections.abc.Hashable):
            # NOTE: SafeLoader reports unhashable keys itself, below.
            continue
        if key in seen:
            # NOTE: PyYAML keeps the last value silently, which would hide
            # whatever the first one set.
            raise _Refused('the key %s is given twice (lines %d and %d); '
                           'one of the two would be silently ignored' % (
                               short(repr(key) if not isinstance(key, str)
                                     else key), seen[key],
                               _line(key_node)))
        seen[key] = _line(key_node)
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


_LOADERS = {}


def strict_loader():
    """The SafeLoader (libyaml's when there) every input is read with.

    It refuses a key given twice in one mapping, naming both lines, and
    aliases that would expand the document past MAX_ALIAS_NODES nodes.
    """
    if 'strict' not in _LOADERS:
        yaml = _yaml()
        base = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)

        class StrictLoader(base):
            def get_single_node(self):
                node = super().get_single_node()
                if node is not None:
                    _expanded_size(node)
                return node

            def get_node(self):
                node = super().get_node()
                if node is not None:
                    _expanded_size(node)
                return node

        StrictLoader.add_constructor(
            yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
            _construct_unique_mapping)
        _LOADERS['strict'] = StrictLoader
    return _LOADERS['strict']


def load_yaml(text, loader=None, string_keys=True):
    """The JSON-shaped value of a YAML (or JSON) text; DocumentError if none.

    :param loader: a SafeLoader subclass (default strict_loader());
        the errors it raises that are not PyYAML's pass through.
    :param string_keys: False lets YAML's number keys through (a file
        other tools read with plain PyYAML); null and boolean keys are
        refused all the same.
    """
    yaml = _yaml()
    return _load(text, lambda text: yaml.load(
        text, Loader=loader or strict_loader()), string_keys)


def load_yaml_all(text):
    """The JSON-shaped values of every document of a YAML stream."""
    yaml = _yaml()
    return _load(text, lambda text: list(yaml.load_all(
        text, Loader=strict_loader())))


def _unique_pairs(pairs):
    found = {}
    for key, value in pairs:
        if key in found:
            raise _Refused('the key %s is given twice in one object; one '
                           'of the two would be silently ignored' % short(
                               key))
        found[key] = value
    return found


def load_json(text, unique_keys=True):
    """The value of a JSON text; DocumentError (one line) if none.

    unique_keys: refuse an object that gives a key twice (json keeps the
    last silently), naming both lines.
    """
    if not unique_keys:
        return _load(text, json.loads)
    try:
        return _load(text, lambda text: json.loads(
            text, object_pairs_hook=_unique_pairs))
    except DocumentError as exc:
        if 'given twice' not in str(exc):
            raise
        # NOTE: json says no line; the YAML reader (JSON is YAML) does.
        try:
            load_yaml(text)
        except DocumentError as lines:
            if 'given twice' in str(lines):
                raise lines from None
        raise


def _syntax_error(exc):
    """The one line of a YAML or JSON syntax error, else None."""
    if isinstance(exc, json.JSONDecodeError):
        return 'not valid JSON: %s' % errors.one_line(exc)
    yaml = sys.modules.get('yaml')
    if yaml is None or not isinstance(exc, yaml.YAMLError):
        return None
    mark = getattr(exc, 'problem_mark', None)
    where = ' at line %d column %d' % (
        mark.line + 1, mark.column + 1) if mark else ''
    problem = getattr(exc, 'problem', None) or str(exc).splitlines()[0]
    if 'maximum nesting depth' in problem:
        # NOTE: libyaml's own bound (1,000 levels), where PyYAML's pure
        # Python reader hits the recursion limit.
        return 'not a usable document: nested deeper than the YAML ' \
            'reader allows%s' % where
    return 'not valid YAML%s: %s' % (where, errors.one_line(problem))


def _load(text, load, string_keys=True):
    if isinstance(text, bytes):
        text = decode(text)
    try:
        value = load(text)
    except _Refused as exc:
        raise DocumentError(str(exc)) from None
    except RecursionError:
        raise DocumentError('not a usable document: nested deeper than '
                            'Python can read') from None
    except Exception as exc:  # noqa: B902 - sorted out just below
        problem = _syntax_error(exc)
        if problem is None and isinstance(exc, ValueError):
            # NOTE: PyYAML's own constructors: a date like 2001-02-30, or
            # an integer of more digits than Python converts (json too).
            problem = 'not a usable document: %s' % errors.one_line(exc)
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
    return errors.one_line(text, limit)


def check_shape(value, string_keys=True):
    """Refuse what JSON cannot hold: DocumentError naming the key.

    Checks nesting depth, aliases that contain themselves, keys that are
    not strings (unless string_keys is False: then number keys pass) and
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
        # NOTE: with string_keys False a number key passes (plain PyYAML
        # makes it an int), but null, true and false are no names: they
        # would become "None", "True" and "False".
        if not isinstance(key, str) and (string_keys or isinstance(
                key, (bool, type(None))) or not isinstance(key, _SCALARS)):
            raise DocumentError('%s: the key %s is not a string; quote '
                                'it' % (where, short(repr(key))))
        key = short(str(key), 40)
        _check(item, '%s.%s' % (path, key) if path else key, depth + 1,
               parents, seen, string_keys)
