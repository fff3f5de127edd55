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

"""The three products on one lot import only what they may.

Read from the source, not by importing it: every import statement of
every module, including those inside functions.

* The kernel (``glance_multiapi_kernel``) imports none of the products
  nor the self-tests: it is what they share.
* The plugin (``glance_multiapi_tests``) imports the kernel alone: it
  reaches a cloud through the Kubernetes API and commands, and runs the
  uploader as a command.
* The uploader (``glance_image_uploader``) and the embedded cloud
  (``glance_multiapi_cloud``) import the kernel alone, never the plugin
  (only tempest loads the plugin), nor each other, nor the self-tests.
* ``tools/`` scripts import no self-test from an installed package.

And two habits of the code, read the same way: the cloud's record is
read and written by its own module alone (no ``state.data``), and no
product parses ``/proc/<pid>`` by hand (psutil does).
"""

import ast
import os
import re

import testtools

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir,
                                    os.pardir))
KERNEL, PLUGIN, CLOUD, UPLOADER, SELFTESTS = (
    'glance_multiapi_kernel', 'glance_multiapi_tests',
    'glance_multiapi_cloud', 'glance_image_uploader', 'selftests')


def imported(path):
    """Every module name path imports (``from X import Y`` gives X.Y)."""
    with open(path, encoding='utf-8') as f:
        tree = ast.parse(f.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                yield '%s.%s' % (node.module, alias.name)


def modules(top):
    folder = os.path.join(ROOT, top)
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if d != '__pycache__']
        for name in sorted(filenames):
            if name.endswith('.py'):
                yield os.path.relpath(os.path.join(dirpath, name), ROOT)


def under(name, package):
    return name == package or name.startswith(package + '.')


class BoundariesTest(testtools.TestCase):

    def crossings(self, top, allowed):
        """[(module, import)] of top's imports of this project not allowed.

        allowed: a predicate on an imported module name of the project.
        """
        found = []
        for path in modules(top):
            for name in imported(os.path.join(ROOT, path)):
                ours = any(under(name, p) for p in (
                    KERNEL, PLUGIN, CLOUD, UPLOADER, SELFTESTS))
                if ours and not under(name, top) and not allowed(name):
                    found.append((path, name))
        return found

    def test_the_kernel_imports_no_product(self):
        self.assertEqual([], self.crossings(KERNEL, lambda name: False))

    def test_each_product_imports_the_kernel_alone(self):
        for top in (PLUGIN, UPLOADER, CLOUD):
            self.assertEqual([], self.crossings(top, lambda name: under(
                name, KERNEL)), top)

    def test_tools_import_selftests_from_the_checkout(self):
        found = []
        for name in sorted(os.listdir(os.path.join(ROOT, 'tools'))):
            if not name.endswith('.py'):
                continue
            for imp in imported(os.path.join(ROOT, 'tools', name)):
                if under(imp, PLUGIN + '.selftests'):
                    found.append((name, imp))
        self.assertEqual([], found)

    def sources(self, *tops):
        for top in tops:
            for path in modules(top):
                with open(os.path.join(ROOT, path), encoding='utf-8') as f:
                    yield path, f.read()

    def test_the_cloud_record_has_one_reader(self):
        found = [path for path, text in self.sources(CLOUD)
                 if re.search(r'\bstate\.data\b', text)]
        self.assertEqual([], found)

    def test_no_product_parses_proc_by_hand(self):
        found = [path for path, text in self.sources(PLUGIN, CLOUD, UPLOADER)
                 if re.search(r"""['"]/proc/(%[ds]|self|\{)""", text)]
        self.assertEqual([], found)

    def test_the_test_finds_what_it_looks_for(self):
        # NOTE: a reader that saw no import would pass every test above.
        names = set(imported(os.path.join(ROOT, CLOUD, 'cli.py')))
        self.assertIn('glance_multiapi_cloud.cloud', names)
        self.assertTrue(any(under(n, KERNEL) for n in names), names)
