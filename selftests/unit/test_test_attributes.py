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


"""The Tempest tests' attributes agree with what the tests do.

A gate selects with them (``--exclude-regex '\\[.*\\bdisruptive\\b.*\\]'``),
so a test that changes cloud-wide state (a serial class: switchover,
grow/shrink, heat-engine restart) must say so, and a smoke test must be
neither slow nor disruptive.
"""

import importlib
import inspect
import pkgutil

from oslo_config import cfg
import testtools

from glance_multiapi_tests import tests


def _tests():
    """{'module.Class.test': (class, attrs)} of every plugin test."""
    found = {}
    for info in pkgutil.walk_packages(tests.__path__, tests.__name__ + '.'):
        if not info.name.rsplit('.', 1)[-1].startswith('test_'):
            continue
        module = importlib.import_module(info.name)
        for cls_name, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__:
                continue
            for name, func in inspect.getmembers(cls, inspect.isfunction):
                if name.startswith('test_'):
                    attrs = getattr(func, '__testtools_attrs', set())
                    found['%s.%s.%s' % (info.name, cls_name, name)] = (
                        cls, {a for a in attrs if not a.startswith('id-')})
    return found


class TestAttributesTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.tests = _tests()

    def test_tests_are_found(self):
        self.assertGreater(len(self.tests), 20)

    def test_serial_tests_are_slow_and_disruptive(self):
        wrong = sorted(name for name, (cls, attrs) in self.tests.items()
                       if getattr(cls, '_serial', False)
                       and not {'slow', 'disruptive'} <= attrs)
        self.assertEqual([], wrong)

    def test_disruptive_tests_are_serial(self):
        wrong = sorted(name for name, (cls, attrs) in self.tests.items()
                       if 'disruptive' in attrs
                       and not getattr(cls, '_serial', False))
        self.assertEqual([], wrong)

    def test_smoke_is_quick_and_harmless(self):
        wrong = sorted(name for name, (_, attrs) in self.tests.items()
                       if 'smoke' in attrs and attrs & {'slow',
                                                        'disruptive'})
        self.assertEqual([], wrong)

    def test_three_disruptive_scenarios(self):
        disruptive = sorted(name.rsplit('.', 1)[-1]
                            for name, (_, attrs) in self.tests.items()
                            if 'disruptive' in attrs)
        self.assertEqual(['test_add_and_remove_api',
                          'test_restart_engine_during_stack_create',
                          'test_switch_keystone_endpoint'], disruptive)

    def test_disruptive_scenarios_are_opt_in(self):
        from glance_multiapi_tests import config
        defaults = {'%s.%s' % (group.name, opt.dest): opt.default
                    for group, opts in config.OPT_GROUPS for opt in opts
                    if opt.dest.startswith('run_')
                    and isinstance(opt, cfg.BoolOpt)}
        self.assertEqual({'consolidated_heat.run_heat_engine_restart': False,
                          'glance_multiapi.run_grow_shrink': False,
                          'glance_multiapi.run_switchover': False}, defaults)

    def test_disruptive_scenarios_restore_through_the_guard(self):
        from glance_multiapi_tests.tests import restoration
        wrong = sorted(
            name for name, (cls, attrs) in self.tests.items()
            if 'disruptive' in attrs
            and 'restart' not in name
            and not issubclass(cls, restoration.DisruptiveTest))
        self.assertEqual([], wrong)

    def test_every_test_is_on_the_one_base(self):
        from glance_multiapi_tests.tests import base
        wrong = sorted(name for name, (cls, _) in self.tests.items()
                       if not issubclass(cls, base.BasePluginTest))
        self.assertEqual([], wrong)


class OneBaseTest(testtools.TestCase):
    """tests/ holds one class on tempest's BaseTestCase, the base."""

    def _modules(self):
        for info in pkgutil.walk_packages(tests.__path__,
                                          tests.__name__ + '.'):
            yield importlib.import_module(info.name)

    def test_one_class_under_tempest_base_test_case(self):
        from tempest import test
        direct = sorted(
            '%s.%s' % (module.__name__, name)
            for module in self._modules()
            for name, cls in inspect.getmembers(module, inspect.isclass)
            if cls.__module__ == module.__name__
            and test.BaseTestCase in cls.__bases__)
        self.assertEqual(['glance_multiapi_tests.tests.base.BasePluginTest'],
                         direct)

    def test_bad_configuration_is_invalid_configuration(self):
        # NOTE: tempest's error for a bad option value; a ValueError reads
        # as a bug of the plugin.
        wrong = []
        for module in self._modules():
            with open(module.__file__) as f:
                if 'raise ValueError' in f.read():
                    wrong.append(module.__name__)
        self.assertEqual([], wrong)
