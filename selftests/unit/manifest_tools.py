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

"""Load and run the repository's tools/*.py checkers from unit tests."""

import importlib.util
import io
import os
import sys

import fixtures

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), '..',
                                     '..'))
ETC = os.path.join(REPO, 'etc', 'test-operator')


def load(name):
    """The module of tools/<name>.py (tools/ is not a package).

    tools/ goes on sys.path, as ``python tools/<name>.py`` puts it there:
    a tool imports tools/checkout_path.py first.
    """
    tools = os.path.join(REPO, 'tools')
    if tools not in sys.path:
        sys.path.append(tools)
    path = os.path.join(tools, name + '.py')
    spec = importlib.util.spec_from_file_location('tool_' + name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(test, name, *argv):
    """(exit code, stdout, stderr) of tools/<name>.py main(argv)."""
    out, err = io.StringIO(), io.StringIO()
    test.useFixture(fixtures.MonkeyPatch('sys.stdout', out))
    test.useFixture(fixtures.MonkeyPatch('sys.stderr', err))
    try:
        code = load(name).main(list(argv))
    except SystemExit as exc:
        code = exc.code
    return code, out.getvalue(), err.getvalue()


def name_the_pod_in_get(rbac_docs, pod='glance-multiapi-disruptive'):
    """Make the Roles' get on pods name one pod, as main 9064415's did.

    Changes rbac_docs (the parsed RBAC documents) in place; the first
    rule granting get on every pod loses it to a rule naming pod.
    """
    for doc in rbac_docs:
        for rule in doc.get('rules') or []:
            if rule['resources'] == ['pods'] and 'get' in rule['verbs']:
                rule['verbs'].remove('get')
                doc['rules'].append({
                    'apiGroups': [''], 'resources': ['pods'],
                    'resourceNames': [pod], 'verbs': ['get']})
                return rbac_docs
    return rbac_docs
