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

"""Sphinx configuration of the glance-multiapi-tests documentation.

Built with ``tox -e docs`` or by the lint stage (tools/run-lint.sh), both
as ``sphinx-build -W``: every warning fails the build. Nothing here
reaches the network (no intersphinx), so it builds offline.
"""

import os
import sys

# The local extensions (cli-reference, the configuration reference check,
# the upstream commits and facts).
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '_ext'))
# NOTE: and the checkout's top folder: the upstream facts are in
# selftests/, which is not installed.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir,
                                os.pardir))

extensions = [
    # .. show-options:: renders the plugin's oslo.config.opts entry point.
    'oslo_config.sphinxext',
    # .. cli-reference:: renders a console script from its parser.
    'cliref',
    'configref_check',
    # .. upstream-commits:: and .. upstream-facts:: render
    # selftests/manifests/upstream.py, which tools/check_upstream.py reads.
    'upstream_facts',
]

project = 'glance-multiapi-tests'
copyright = 'glance-multiapi-tests developers'
author = 'glance-multiapi-tests developers'

# NOTE: the theme is Sphinx's default, alabaster, not openstackdocstheme.
# openstackdocstheme is made for projects hosted on OpenDev: it builds its
# "report a bug" and source links from OpenDev/Launchpad metadata
# (openstackdocs_repo_name, openstackdocs_bug_project) that this project,
# hosted wherever its users clone it from, does not have, and it would
# add pins of its own. alabaster comes with Sphinx, needs no settings and
# builds offline.
html_theme = 'alabaster'
html_theme_options = {
    'description': 'Tempest checks for multi-API Glance on Kubernetes',
    'fixed_sidebar': True,
    'page_width': '1240px',
    'sidebar_width': '240px',
}
html_sidebars = {
    '**': ['about.html', 'navigation.html', 'relations.html',
           'searchbox.html'],
}
# custom.css: wide tables wrap their literals (alabaster loads it).
html_static_path = ['_static']
html_last_updated_fmt = None
templates_path = []
exclude_patterns = ['_ext']
source_suffix = {'.rst': 'restructuredtext'}
master_doc = 'index'
pygments_style = 'sphinx'
# NOTE: literal blocks here are messages, commands and files, not Python.
highlight_language = 'none'
# NOTE: literal text in ``double backquotes`` is common here (options,
# files, commands); a single-backquoted name is a mistake, not a cross
# reference to guess.
default_role = None
nitpicky = False

# configref_check: the options the built reference must hold, read
# straight from the plugin (not through its entry point).
configref_list_opts = 'glance_multiapi_tests.config:list_opts'
