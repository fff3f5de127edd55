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

import numbers

from glance_multiapi_tests.common import documents

LAST_SECOND = 253402300800


def _number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _timestamp(value):
    # NOTE: seconds since 1970 that a date can show: up to the year 9999.
    return _number(value) and 0 <= value < LAST_SECOND


def _text(value):
    return isinstance(value, str)


def _texts(value):
    return isinstance(value, list) and all(_text(v) for v in value)


def _mapping(value):
    return isinstance(value, dict)


def _text_map(value):
    return _mapping(value) and all(_text(v) for v in value.values())


def _api(value):
    return (_mapping(value) and _text(value.get('name')) and all(
        check(value.get(key)) for key, check in _API.items()
        if value.get(key) is not None))


def _apis(value):
    return isinstance(value, list) and all(_api(v) for v in value)


def _entry(value):
    return _mapping(value) and all(
        value.get(key) is None or _text(value.get(key))
        for key in ('interface', 'region', 'url', 'owner'))


def _entries(value):
    return isinstance(value, list) and all(_entry(v) for v in value)


def _verdict(value):
    return (_mapping(value) and _text(value.get('status')) and
            (value.get('message') is None or _text(value.get('message'))))


def _verdicts(value):
    return _mapping(value) and all(_verdict(v) for v in value.values())


def _glance(value):
    return _mapping(value) and all(
        value.get(key) is None or _text(value.get(key))
        for key in ('namespace', 'name', 'read_from'))


def _inventory(value):
    return _mapping(value) and all(_mapping(v) for v in value.values())


def _pid(value):
    return _text(value) or (isinstance(value, int) and
                            not isinstance(value, bool))


_API = {'type': _text, 'endpoints': _text_map, 'default_store': _text,
        'store_type': _text, 'stores': _texts, 'added_by': _text,
        'replicas': _number}
# NOTE: by field name; the recorder uses each name with one meaning.
FIELDS = {
    'kind': _text, 't': _timestamp, 'pid': _pid, 'seq': _number, 'v': _number,
    'run': _text, 'run_label': _text, 'test': _text, 'class': _text,
    'message': _text, 'status': _text, 'element': _text, 'label': _text,
    'figure': _text, 'keystone_endpoint': _text, 'elements': _texts,
    'setup_elements': _texts, 'checks': _texts, 'setup': _texts,
    'scheduled': _texts, 'tests': _inventory, 'glance': _glance,
    'apis': _apis, 'entries': _entries, 'verdicts': _verdicts,
    'labels': _mapping, 'bound': _mapping,
}
# NOTE: what a record of a kind is about; without it, it says nothing.
REQUIRED = {
    'test-start': ('test',), 'test-end': ('test',),
    'verdict': ('test', 'element', 'status'), 'checking': ('test', 'element'),
    'class-skip': ('class',), 'class-error': ('class',),
    'class-teardown-error': ('class',), 'figure': ('figure',),
}
DESCRIPTIONS = {_number: 'a number', _text: 'a string',
                _timestamp: 'a time in seconds since 1970',
                _texts: 'a list of strings', _mapping: 'an object',
                _text_map: 'an object of strings',
                _apis: 'a list of API objects with a name',
                _entries: 'a list of catalog entries',
                _verdicts: 'an object of verdicts',
                _inventory: 'an object of test objects',
                _glance: 'an object of the Glance CR\'s names',
                _pid: 'a process id'}


def problem(record):
    """Why a record (a dict with a kind) cannot be used, else None."""
    if not _text(record.get('kind')):
        return 'field kind is not a string'
    for key in REQUIRED.get(record['kind'], ()):
        if record.get(key) is None:
            return 'a %s record without %s' % (record['kind'], key)
    for key, check in FIELDS.items():
        value = record.get(key)
        if value is not None and not check(value):
            return 'field %s is not %s' % (key, DESCRIPTIONS[check])
    labels = record.get('labels') or {}
    for key, value in labels.items():
        if not isinstance(value, (str, int, float, bool)):
            return 'field labels.%s is not a scalar' % documents.short(key)
    return None
