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

"""Option values whose meaning is more than the type oslo.config checks.

A JSON spec (``grow_api_spec``) and format templates (``name_format``,
``tag_format``) are strings to oslo.config; their contents are read
here. Each refusal is an OptionValueError whose one line names
``[group] option`` and what is wrong, so a test can fail or skip with it
before it changes anything. Pure: no I/O.
"""

import string

from glance_multiapi_kernel import documents
from glance_multiapi_kernel import errors
from glance_multiapi_kernel import glance_cr


class OptionValueError(errors.OneLineError, ValueError):
    """An option value that cannot be used; str() is one line."""

    def __init__(self, group, name, problem):
        super().__init__('[%s] %s: %s' % (group, name, problem))


def api_spec(group, name, text):
    """The JSON object of one API's spec (type, replicas, ...) in text."""
    try:
        spec = documents.load_json(text or '')
    except documents.DocumentError as exc:
        raise OptionValueError(group, name, str(exc)) from None
    if not isinstance(spec, dict):
        raise OptionValueError(group, name, 'expected a JSON object (one '
                               'API of spec.glanceAPIs), got %s' %
                               type(spec).__name__)
    api_type = spec.get('type', glance_cr.DEFAULT_TYPE)
    if api_type not in glance_cr.API_TYPES:
        raise OptionValueError(group, name, 'type %s is not one of %s' % (
            documents.short(repr(api_type)), ', '.join(glance_cr.API_TYPES)))
    replicas = spec.get('replicas', 1)
    if (not isinstance(replicas, int) or isinstance(replicas, bool)
            or replicas < 0):
        raise OptionValueError(group, name, 'replicas %s is not a '
                               'non-negative integer' %
                               documents.short(repr(replicas)))
    config = spec.get('customServiceConfig', '')
    if not isinstance(config, str):
        raise OptionValueError(group, name, 'customServiceConfig must be a '
                               'string, got %s' % type(config).__name__)
    return spec


def template(group, name, text, fields):
    """text, a str.format template using only {field} of fields.

    :param fields: the names the template may use, e.g. ('name',
        'commit_tag').
    """
    if not isinstance(text, str):
        raise OptionValueError(group, name, 'expected a string')
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as exc:
        raise OptionValueError(group, name, '%s is not a format template: '
                               '%s' % (documents.short(repr(text)), exc))
    for _literal, field, spec, conversion in parsed:
        if field is None:
            continue
        if field not in fields or spec or conversion:
            raise OptionValueError(
                group, name, '{%s} is not a placeholder it may use; it may '
                'use %s (and {{ }} for braces)' % (
                    documents.short(field), ', '.join(
                        '{%s}' % f for f in fields)))
    return text
