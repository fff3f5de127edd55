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

from oslo_config import cfg
from oslo_log import log as logging
from tempest import config
from tempest.test_discover import plugins

from glance_multiapi_kernel import redaction
from glance_multiapi_tests import config as project_config

LOG = redaction.logger(logging.getLogger(__name__))
PLUGIN_ENTRY_POINTS = 'tempest.test_plugins'


def _installed_plugin_modules():
    """Module paths of every installed tempest plugin's entry point."""
    from importlib import metadata
    eps = metadata.entry_points()
    if hasattr(eps, 'select'):
        found = eps.select(group=PLUGIN_ENTRY_POINTS)
    else:  # NOTE: Python 3.9's entry_points() is a dict of lists.
        found = eps.get(PLUGIN_ENTRY_POINTS, ())
    return [ep.value.split(':')[0] for ep in found]


def _registered(conf, group, name):
    try:
        return name in conf[group]
    except (cfg.NoSuchOptError, KeyError, TypeError):
        return False


def register_shared_opts(conf, installed=None):
    """Register the shared options nobody else registers; return them.

    An option is left alone when an installed plugin owns it
    (config.SHARED_OPT_OWNERS: whichever order tempest loads the plugins
    in, that plugin registers it) or when something registered it already.
    A clash that slips past both is logged, never raised, so the rest of
    this plugin's options are registered whatever happens here.
    """
    if installed is None:
        installed = _installed_plugin_modules()
    done = []
    for group, opts in project_config.SHARED_OPT_GROUPS:
        # NOTE: a fresh group object: oslo.config's register_group keeps a
        # shallow copy whose option dict is the module-level group's own.
        conf.register_group(cfg.OptGroup(group.name, title=group.title))
        for opt in opts:
            owners = project_config.SHARED_OPT_OWNERS.get(
                (group.name, opt.name), ())
            owner = [m for m in installed
                     if any(m == o or m.startswith(o + '.') for o in owners)]
            if owner or _registered(conf, group.name, opt.name):
                continue
            try:
                conf.register_opt(opt, group=group.name)
            except cfg.DuplicateOptError as exc:
                LOG.warning('glance_multiapi_tests: [%s] %s is defined by '
                            'another plugin; using theirs (%s)',
                            group.name, opt.name, exc)
                continue
            done.append((group.name, opt))
    return done


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
        """Register this plugin's groups, then the shared options.

        The groups this plugin owns go first, so nothing a shared option
        meets can keep them from being registered.
        """
        for group, opts in project_config.OPT_GROUPS:
            conf.register_group(group)
            conf.register_opts(opts, group=group.name)
        self._shared = register_shared_opts(conf)

    def get_opt_lists(self):
        """Return the (group name, options) pairs register_opts added."""
        lists = [(group.name, opts)
                 for group, opts in project_config.OPT_GROUPS]
        shared = {}
        for group_name, opt in getattr(self, '_shared', []):
            shared.setdefault(group_name, []).append(opt)
        return lists + sorted(shared.items())

    def get_service_clients(self):
        """Return the service clients tempest registers for every test.

        heat-api and heat-api-cfn are one client class under two catalog
        types, so each is registered on its own: tempest's ClientsFactory
        keeps the arguments of a client's last call, so one registration
        told at call time which API to reach would remember the last one.
        The images client bound to one Glance API's URL takes the URL at
        call time and waits [glance_multiapi] image_timeout for images.
        Each name is the attribute tempest's client managers (os_primary,
        os_admin, ...) get; they are this plugin's own words so that no
        other plugin's registration can take them.
        """
        conf = config.CONF
        heat = config.service_client_config('consolidated_heat')
        image = config.service_client_config('image')
        image['build_timeout'] = conf.glance_multiapi.image_timeout
        return [
            dict(heat, name='consolidated_heat',
                 service_version='consolidated_heat.orchestration',
                 module_path='glance_multiapi_tests.services.orchestration',
                 client_names=['HeatClient']),
            dict(heat, name='consolidated_heat_cfn',
                 service_version='consolidated_heat.cloudformation',
                 module_path='glance_multiapi_tests.services.orchestration',
                 client_names=['HeatClient'],
                 service=conf.consolidated_heat.cfn_catalog_type),
            dict(image, name='glance_apis',
                 service_version='glance_multiapi.image',
                 module_path='glance_multiapi_tests.services.image',
                 client_names=['FixedUrlImagesClient']),
        ]
