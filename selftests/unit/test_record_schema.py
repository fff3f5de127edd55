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

"""A record's first unusable field, named as the map's problems name it."""

import testtools

from glance_multiapi_tests.results.runmap import record_schema

GOOD = {'kind': 'verdict', 'test': 't', 'element': 'api:api0',
        'status': 'ok', 't': 1.5, 'pid': 12, 'seq': 3, 'run': 'r',
        'labels': {'api': 'api0', 'n': 1, 'up': True}, 'message': None,
        'apis': [{'name': 'api0', 'type': 'split', 'replicas': 1}],
        'verdicts': {'x': {'status': 'ok', 'message': None}}}


class RecordSchemaTest(testtools.TestCase):

    def test_a_good_record_and_nulls_pass(self):
        self.assertIsNone(record_schema.problem(GOOD))
        self.assertIsNone(record_schema.problem(
            {'kind': 'other', 't': None, 'labels': None}))

    def test_each_problem_is_named(self):
        for change, wanted in (
                ({'kind': 1}, 'field kind is not a string'),
                ({'status': None},
                 'a verdict record without status'),
                ({'t': -1}, 'field t is not a time in seconds since 1970'),
                ({'t': True}, 'field t is not a time in seconds since 1970'),
                ({'pid': 1.5}, 'field pid is not a process id'),
                ({'seq': 'a'}, 'field seq is not a number'),
                ({'apis': [{'type': 'split'}]},
                 'field apis is not a list of API objects with a name'),
                ({'verdicts': {'x': {}}},
                 'field verdicts is not an object of verdicts'),
                ({'labels': 5}, 'field labels is not an object'),
                ({'labels': {'a': [1]}}, 'field labels.a is not a scalar'),
                # NOTE: the fields in order, labels last.
                ({'t': 's', 'labels': {'a': []}},
                 'field t is not a time in seconds since 1970')):
            record = dict(GOOD, **change)
            self.assertEqual(wanted, record_schema.problem(record), change)

    def test_the_schema_is_a_valid_json_schema(self):
        import jsonschema
        jsonschema.Draft7Validator.check_schema(record_schema.SCHEMA)
