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

"""The rules of the Glance CR that discovery and the embedded cloud share."""

import testtools

from glance_multiapi_tests.multiapi import glance_cr


class KeystoneEndpointTest(testtools.TestCase):

    def test_defaults_to_the_only_non_edge_api(self):
        self.assertEqual('a', glance_cr.default_keystone_endpoint(
            {'a': 'split', 'e': 'edge'}))

    def test_no_default_with_two_or_none(self):
        for types in ({'a': 'split', 'b': 'single'}, {'e': 'edge'}, {}):
            self.assertIsNone(glance_cr.default_keystone_endpoint(types))

    def test_webhook_refusals(self):
        types = {'a': 'split', 'e': 'edge'}
        self.assertIsNone(glance_cr.keystone_endpoint_problem('a', types))
        self.assertEqual(glance_cr.UNKNOWN_API,
                         glance_cr.keystone_endpoint_problem('x', types))
        self.assertEqual(glance_cr.EDGE_API,
                         glance_cr.keystone_endpoint_problem('e', types))

    def test_interfaces_by_type(self):
        self.assertEqual(('public', 'internal'),
                         glance_cr.interfaces('single'))
        self.assertEqual(('internal',), glance_cr.interfaces('edge'))


class BackendsTest(testtools.TestCase):

    def test_api_snippet_overrides_top_level(self):
        top = ('[DEFAULT]\nenabled_backends = c0:rbd, c1:rbd\n'
               '[glance_store]\ndefault_backend = c0\n')
        own = '[glance_store]\ndefault_backend = c1\n'
        self.assertEqual(('c1', ['c0', 'c1']), glance_cr.backends(
            [('top', top), ('own', own)]))

    def test_nothing_set(self):
        self.assertEqual((None, []), glance_cr.backends(
            [('top', None), ('own', '')]))

    def test_bad_snippets_name_their_field(self):
        for text, problem in (('[glance_store\n', 'not valid INI'),
                              (7, 'expected a string, got int')):
            exc = self.assertRaises(glance_cr.ConfigError,
                                    glance_cr.backends, [('own', text)])
            self.assertEqual('own', exc.field)
            self.assertIn(problem, exc.problem)
