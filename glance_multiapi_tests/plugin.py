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

import os

from tempest.test_discover import plugins

from glance_multiapi_tests import config as project_config


class GlanceMultiApiTempestPlugin(plugins.TempestPlugin):
    """Tempest plugin for multi-API Glance, uploaders and shared images."""

    def load_tests(self):
        """Return the test folder and the top folder tempest imports from."""
        base_path = os.path.split(os.path.dirname(
            os.path.abspath(__file__)))[0]
        test_dir = "glance_multiapi_tests/tests"
        full_test_dir = os.path.join(base_path, test_dir)
        return full_test_dir, base_path

    def register_opts(self, conf):
        """Register every option group of this plugin on tempest's CONF."""
        for group, opts in project_config.OPT_GROUPS:
            conf.register_group(group)
            conf.register_opts(opts, group=group.name)

    def get_opt_lists(self):
        """Return the (group name, options) pairs register_opts added."""
        return [(group.name, opts)
                for group, opts in project_config.OPT_GROUPS]
