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

import sys

from glance_multiapi_kernel import syspath

# NOTE: the services run in their cloud's state folder, whose mtime
# changes with each save of the state; see glance_multiapi_kernel/syspath.py
# for what
# that costs. heat_engine's main() calls this; the wsgi_* modules call
# uwsgi_sys_path().
leave_working_folder_off_sys_path = syspath.leave_working_folder_off_sys_path


def uwsgi_sys_path():
    """leave_working_folder_off_sys_path(), inside uwsgi only.

    The wsgi_* modules call it first: any other process that imports
    them (tools/import_every_module.py) keeps its sys.path.
    """
    if 'uwsgi' in sys.modules:
        leave_working_folder_off_sys_path()
