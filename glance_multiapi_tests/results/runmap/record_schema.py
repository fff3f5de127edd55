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

"""What each field of a record holds, as tests/recording.py writes it.

A records folder is input: a copy from another version, a file edited by
hand or damaged on the way. ``problem(record)`` names the first field
whose value the map and the metrics could not use, so that records.read
leaves that record out and says why, instead of the rebuild failing on
it. A field that is missing (or null) is fine, but for what a record of
its kind is about (REQUIRED): the model reads every other field with a
default. Pure.
"""

import functools

from glance_multiapi_kernel import documents
from glance_multiapi_tests.results.runmap import metrics

LAST_SECOND = 253402300800


def _nullable(schema, description):
    """schema, or null; description says what a value must be."""
    if set(schema) == {'type'}:
        # NOTE: a type list is checked several times faster than anyOf.
        types = schema['type']
        types = types if isinstance(types, list) else [types]
        return {'type': types + ['null'], 'description': description}
    return {'anyOf': [{'type': 'null'}, schema], 'description': description}


_STRING = {'type': 'string'}
_STRINGS = {'type': 'array', 'items': _STRING}
_OBJECT = {'type': 'object'}
_STRING_MAP = {'type': 'object', 'additionalProperties': _STRING}
_OPTIONAL_STRING = {'type': ['string', 'null']}
_API = {'type': 'object', 'required': ['name'], 'properties': {
    'name': _STRING, 'type': _OPTIONAL_STRING,
    'endpoints': {'anyOf': [{'type': 'null'}, _STRING_MAP]},
    'default_store': _OPTIONAL_STRING, 'store_type': _OPTIONAL_STRING,
    'stores': {'anyOf': [{'type': 'null'}, _STRINGS]},
    'added_by': _OPTIONAL_STRING, 'replicas': {'type': ['number', 'null']}}}
_ENTRY = {'type': 'object', 'properties': {
    key: _OPTIONAL_STRING for key in ('interface', 'region', 'url',
                                      'owner')}}
_VERDICT = {'type': 'object', 'required': ['status'], 'properties': {
    'status': _STRING, 'message': _OPTIONAL_STRING}}
_GLANCE = {'type': 'object', 'properties': {
    key: _OPTIONAL_STRING for key in ('namespace', 'name', 'read_from')}}
_TYPES = {
    'a number': {'type': 'number'},
    'a string': _STRING,
    # NOTE: seconds since 1970 that a date can show: up to the year 9999.
    'a time in seconds since 1970': {'type': 'number', 'minimum': 0,
                                     'exclusiveMaximum': LAST_SECOND},
    'a list of strings': _STRINGS,
    'an object': _OBJECT,
    'a list of API objects with a name': {'type': 'array', 'items': _API},
    'a list of catalog entries': {'type': 'array', 'items': _ENTRY},
    'an object of verdicts': {'type': 'object',
                              'additionalProperties': _VERDICT},
    'an object of test objects': {'type': 'object',
                                  'additionalProperties': _OBJECT},
    'an object of the Glance CR\'s names': _GLANCE,
    'a process id': {'type': ['string', 'integer']},
}
# NOTE: by field name; the recorder uses each name with one meaning.
FIELDS = {
    'kind': 'a string', 't': 'a time in seconds since 1970',
    'pid': 'a process id', 'seq': 'a number', 'v': 'a number',
    'run': 'a string', 'run_label': 'a string', 'test': 'a string',
    'class': 'a string', 'message': 'a string', 'status': 'a string',
    'element': 'a string', 'label': 'a string', 'figure': 'a string',
    'keystone_endpoint': 'a string', 'elements': 'a list of strings',
    'setup_elements': 'a list of strings', 'checks': 'a list of strings',
    'setup': 'a list of strings', 'scheduled': 'a list of strings',
    'tests': 'an object of test objects',
    'glance': 'an object of the Glance CR\'s names',
    'apis': 'a list of API objects with a name',
    'entries': 'a list of catalog entries',
    'verdicts': 'an object of verdicts', 'labels': 'an object',
    'bound': 'an object',
}
# NOTE: what a record of a kind is about; without it, it says nothing.
REQUIRED = {
    'test-start': ('test',), 'verdict': ('test', 'element', 'status'),
    'checking': ('test', 'element'), 'figure': ('figure',),
}
# NOTE: a field that is missing (or null) is fine; labels hold scalars
# (the metrics' label values). What each kind requires is checked first,
# by problem(): as a schema (allOf of if/then per kind) it doubled the
# time of every record's check.
SCHEMA = {
    'type': 'object',
    'properties': dict(
        {field: _nullable(_TYPES[what], what)
         for field, what in FIELDS.items()},
        kind={'type': 'string', 'description': 'a string'},
        labels=_nullable({'type': 'object', 'additionalProperties': {
            'type': ['string', 'number', 'boolean']}}, 'an object')),
    'required': ['kind'],
}


@functools.lru_cache(maxsize=1)
def _validator():
    """SCHEMA's validator, made when the first record is checked."""
    # NOTE: jsonschema (with referencing, attrs) is imported then, not by
    # every glance-multiapi-report start: one that ends on its arguments
    # or files never checks a record.
    import jsonschema
    return jsonschema.Draft7Validator(SCHEMA)


def problem(record):
    """Why a record (a dict with a kind) cannot be used, else None."""
    if not isinstance(record.get('kind'), str):
        return 'field kind is not a string'
    kind = record['kind']
    for field in REQUIRED.get(kind, ()):
        if record.get(field) is None:
            return 'a %s record without %s' % (kind, field)
    if kind == 'figure':
        # NOTE: what becomes a line of metrics.prom and a figure of
        # metrics.json: names of their grammar, a finite value >= 0.
        found = metrics.problem(record['figure'], record.get('labels'),
                                record.get('value'))
        if found:
            return found
    validator = _validator()
    if validator.is_valid(record):
        return None
    errors = sorted(validator.iter_errors(record),
                    key=lambda e: _order(e.absolute_path))
    for error in errors:
        path = list(_deepest(error).absolute_path)
        if not path:
            continue
        field = path[0]
        if field == 'labels' and len(path) > 1:
            return 'field labels.%s is not a scalar' % documents.short(
                str(path[1]))
        return 'field %s is not %s' % (field, FIELDS.get(field, 'valid'))
    return None


def _deepest(error):
    """The innermost error of an anyOf (null, or the value's schema)."""
    while error.context:
        error = max(error.context, key=lambda e: len(e.absolute_path))
    return error


def _order(path):
    """Fields in FIELDS' order, labels last, as the checks ran before."""
    names = list(FIELDS)
    field = path[0] if path else ''
    if field == 'labels':
        return (len(names) + 1, ())
    return (names.index(field) if field in names else len(names), ())
