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

"""The plugin registers its options beside other plugins in any order."""

from oslo_config import cfg
import testtools

from glance_multiapi_tests import config
from glance_multiapi_tests.options import consolidated_heat
from glance_multiapi_tests import plugin

OURS = 'glance_multiapi_tests.plugin'
HEAT = 'heat_tempest_plugin.plugin'


def _other_heat_plugin(conf):
    """What heat-tempest-plugin 3.0.0 registers: another definition."""
    conf.register_group(cfg.OptGroup('service_available'))
    conf.register_opt(cfg.BoolOpt('heat', default=True, help='other text'),
                      group='service_available')


class RegisterOptsTest(testtools.TestCase):

    def _register(self, conf, installed):
        p = plugin.GlanceMultiApiTempestPlugin()
        self.patch(plugin, '_installed_plugin_modules', lambda: installed)
        p.register_opts(conf)
        return p

    def test_alone_registers_its_own_heat_option(self):
        conf = cfg.ConfigOpts()
        p = self._register(conf, [OURS])
        conf([])
        self.assertFalse(conf.service_available.heat)
        self.assertIn(('service_available',
                       consolidated_heat.SharedServiceAvailableOpts),
                      p.get_opt_lists())

    def test_heat_plugin_loaded_first(self):
        conf = cfg.ConfigOpts()
        _other_heat_plugin(conf)
        p = self._register(conf, [HEAT, OURS])
        conf([])
        self.assertTrue(conf.service_available.heat)
        self.assertTrue(conf.consolidated_heat.enabled)
        self.assertNotIn('service_available',
                         [name for name, _ in p.get_opt_lists()])

    def test_heat_plugin_loaded_second(self):
        conf = cfg.ConfigOpts()
        self._register(conf, [OURS, HEAT])
        # NOTE: raises DuplicateOptError if this plugin took the option.
        _other_heat_plugin(conf)
        conf([])
        self.assertTrue(conf.service_available.heat)

    def test_unknown_plugin_registered_it_first(self):
        conf = cfg.ConfigOpts()
        _other_heat_plugin(conf)
        self._register(conf, ['someone_else.plugin', OURS])
        conf([])
        self.assertTrue(conf.service_available.heat)
        for group, opts in config.OPT_GROUPS:
            for opt in opts:
                self.assertIn(opt.dest, conf[group.name])

    def test_a_clash_never_stops_the_own_groups(self):
        conf = cfg.ConfigOpts()
        self.patch(plugin, 'register_shared_opts', self._boom)
        p = plugin.GlanceMultiApiTempestPlugin()
        self.assertRaises(RuntimeError, p.register_opts, conf)
        conf([])
        for group, _ in config.OPT_GROUPS:
            self.assertTrue(conf[group.name].enabled)

    @staticmethod
    def _boom(conf):
        raise RuntimeError('shared option clash')

    def test_installed_plugin_modules_lists_this_plugin(self):
        self.assertIn(OURS, plugin._installed_plugin_modules())
