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

"""Sphinx configuration of the glance-multiapi-tests release notes.

reno's extension reads releasenotes/notes/*.yaml *from git history*, so a
note shows only once it is committed. Built with ``tox -e releasenotes``
and by the lint stage, as ``sphinx-build -W``. Same theme as doc/source
(see its conf.py for why not openstackdocstheme).
"""

extensions = ['reno.sphinxext']

project = 'glance-multiapi-tests Release Notes'
copyright = 'glance-multiapi-tests developers'
author = 'glance-multiapi-tests developers'

html_theme = 'alabaster'
html_theme_options = {
    'description': 'What changed, and what it means for you',
}
html_static_path = []
templates_path = []
source_suffix = {'.rst': 'restructuredtext'}
master_doc = 'index'
pygments_style = 'sphinx'
