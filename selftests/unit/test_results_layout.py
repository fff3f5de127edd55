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

"""results/ is two products: the gate never needs the map.

A gate judges subunit streams (``results/gate``) where no record of the
plugin's tests may exist; the deployment map (``results/runmap``) reads
streams through the gate's reader. Read from the source, as
test_package_boundaries reads every import.
"""

import os

import testtools

from selftests.unit import test_package_boundaries as boundaries

RESULTS = 'glance_multiapi_tests.results'


class ResultsLayoutTest(testtools.TestCase):

    def imports_of(self, folder):
        found = []
        for path in boundaries.modules(folder):
            found.extend((path, name) for name in boundaries.imported(
                os.path.join(boundaries.ROOT, path)))
        return found

    def test_gate_imports_nothing_of_the_map(self):
        crossings = [(path, name) for path, name in self.imports_of(
            'glance_multiapi_tests/results/gate')
            if boundaries.under(name, RESULTS + '.runmap') or
            boundaries.under(name, RESULTS + '.cli')]
        self.assertEqual([], crossings)

    def test_results_import_no_tempest(self):
        crossings = [(path, name) for path, name in self.imports_of(
            'glance_multiapi_tests/results')
            if boundaries.under(name, 'tempest') or
            boundaries.under(name, 'glance_multiapi_tests.tests')]
        self.assertEqual([], crossings)
