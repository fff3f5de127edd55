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

"""Keep a short-lived process's working folder off sys.path.

stevedore (through keystoneauth's auth plugin loader, oslo.config's
option listing and tempest's plugin manager) caches the entry points it
lists in a file keyed by sys.path and the mtime of each entry. ``python
-m`` puts the working folder first on sys.path (its full path; uwsgi puts
'.' and '' there). When that folder is new for every run, or changes
with every save, every process misses the cache and lists every
distribution's entry points again: about 2 CPU-s on an idle 2-core
machine, more on a busy one, and one more file in the cache folder each
time.

The processes that call this import nothing from their working folder:
the package they run is already loaded and the rest comes from the venv.
"""

import os
import sys


def leave_working_folder_off_sys_path():
    """Drop the working folder from sys.path ('.', '' or its full path)."""
    try:
        here = os.getcwd()
    except OSError:
        here = None
    sys.path[:] = [entry for entry in sys.path
                   if entry not in ('', '.') and entry != here]
