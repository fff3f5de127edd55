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

"""Which tests the plugin has and which elements each one checks.

Read statically, by walking ``glance_multiapi_tests.tests`` the way
``selftests/unit/test_test_attributes.py`` does, so that a test a run
never reached can still be named on the map, with what it would have
checked. A test class says what its tests check in ``result_checks``, a
test method can say more with ``tests.recording.checks``; both are
fnmatch patterns over the element ids of ``model``.
"""

import importlib
import inspect
import pkgutil

CLASS_ATTR = 'result_checks'
# NOTE: what a class's set-up checks (the Glance CR, read by discovery):
# passed for every test that started, whatever the test's own outcome.
SETUP_ATTR = 'result_setup_checks'
METHOD_ATTR = '_glance_multiapi_result_checks'
TESTS_PACKAGE = 'glance_multiapi_tests.tests'


def bare_id(test_id):
    """A test id without tempest's ``[attributes]``."""
    return (test_id or '').split('[', 1)[0]


def full_id(bare, func):
    """The id testtools gives a test with attributes (``[id-...,smoke]``)."""
    attrs = getattr(func, '__testtools_attrs', None)
    if not attrs:
        return bare
    return '%s[%s]' % (bare, ','.join(sorted(attrs)))


def checks_of(cls, func):
    """The element patterns a test checks: its classes', then its own.

    A class's ``result_checks`` add to its bases' (a base of every
    multi-API test checks the Glance CR, its subclasses more).
    """
    found = setup_checks_of(cls)
    for klass in reversed(cls.__mro__):
        for pattern in klass.__dict__.get(CLASS_ATTR, ()) or ():
            if pattern not in found:
                found.append(pattern)
    for pattern in getattr(func, METHOD_ATTR, ()) or ():
        if pattern not in found:
            found.append(pattern)
    return found


def setup_checks_of(cls):
    """The element patterns a class's set-up checks, over its bases."""
    found = []
    for klass in reversed(cls.__mro__):
        for pattern in klass.__dict__.get(SETUP_ATTR, ()) or ():
            if pattern not in found:
                found.append(pattern)
    return found


def plugin_tests(package=TESTS_PACKAGE):
    """{bare test id: {"id", "class", "checks", "setup"}} of each test.

    Modules that fail to import are left out; the recorder must not fail
    a run over them (tempest reports the import error itself).
    """
    found = {}
    top = importlib.import_module(package)
    for info in pkgutil.walk_packages(top.__path__, package + '.'):
        if not info.name.rsplit('.', 1)[-1].startswith('test_'):
            continue
        try:
            module = importlib.import_module(info.name)
        except Exception:  # noqa: B902,S112 - reported by tempest itself
            continue
        for cls_name, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__:
                continue
            for name, func in inspect.getmembers(cls, inspect.isfunction):
                if not name.startswith('test_'):
                    continue
                bare = '%s.%s.%s' % (info.name, cls_name, name)
                found[bare] = {'id': full_id(bare, func),
                               'class': '%s.%s' % (info.name, cls_name),
                               'checks': checks_of(cls, func),
                               'setup': setup_checks_of(cls)}
    return found
