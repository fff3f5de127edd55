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

"""What runs inside the service processes of the embedded cloud.

The uwsgi entry points (wsgi_*), the heat-engine launcher and the sqlite
hooks they all install. The CLI names these modules by dotted path in the
argv it starts (uwsgi ``--module``, ``python -m``); nothing else imports
them.
"""

import os
import sys


def leave_working_folder_off_sys_path():
    """Drop the working folder from sys.path ('.', '' or its full path).

    NOTE: stevedore caches the entry points it lists in a file keyed by
    sys.path and the mtimes of its entries. The services run in their
    cloud's state folder, which uwsgi ('.' and '') and "python -m" (its
    full path) put on sys.path, and whose mtime changes with each save
    of the state: every start of keystone, a Glance API or heat rebuilt
    that cache (1 to 3.6 CPU-s on a loaded 2-core machine). Nothing is
    imported from there: this package is already loaded, the services'
    own from the venv.
    """
    try:
        here = os.getcwd()
    except OSError:
        here = None
    sys.path[:] = [entry for entry in sys.path
                   if entry not in ('', '.') and entry != here]


def uwsgi_sys_path():
    """leave_working_folder_off_sys_path(), inside uwsgi only.

    The wsgi_* modules call it first: any other process that imports
    them (tools/import_every_module.py) keeps its sys.path.
    """
    if 'uwsgi' in sys.modules:
        leave_working_folder_off_sys_path()
