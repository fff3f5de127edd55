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

"""Warn (and so, with -W, fail the build) on an undocumented option.

``.. show-options::`` renders whatever the ``oslo.config.opts`` entry
point returns, so it cannot drift from ``config.py``; what can go wrong is
the page itself (the directive removed, another namespace named, a stale
install whose entry point lists less). After every page is read this
compares the options oslo.config's Sphinx domain recorded with
``configref_list_opts`` (``module:function``, called directly, not through
the entry point) and warns once per option that no page documents.
"""

import importlib

from oslo_config import sphinxext
from sphinx.util import logging

LOG = logging.getLogger(__name__)


def expected_targets(spec):
    """{anchor: 'group.option'} of every option spec's function lists."""
    module, _, function = spec.partition(':')
    list_opts = getattr(importlib.import_module(module), function)
    targets = {}
    for group, opts in list_opts():
        name = getattr(group, 'name', group) or 'DEFAULT'
        for opt in opts:
            targets[sphinxext._make_anchor_target(name, opt.dest)] = (
                '%s.%s' % (name, opt.dest))
    return targets


def check(app, env):
    spec = app.config.configref_list_opts
    if not spec:
        return
    documented = env.domaindata['oslo.config']['options']
    for target, option in sorted(expected_targets(spec).items()):
        if target not in documented:
            LOG.warning('option [%s] %s of %s is on no page (is '
                        '.. show-options:: still in the configuration '
                        'reference?)', *option.split('.', 1), spec)


def setup(app):
    app.add_config_value('configref_list_opts', '', 'env')
    app.connect('env-check-consistency', check)
    return {'parallel_read_safe': True, 'parallel_write_safe': True}
