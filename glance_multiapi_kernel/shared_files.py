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

"""Where the files of the repository's etc/ are, installed or not.

In a source tree (or an editable install) they are in its etc/. An
installed distribution has them under share/glance-multiapi-tests/etc
of its data folder (setup.cfg's data_files): the venv's, or on Debian
/usr/local, where pip installs for the system Python.
"""

import os
import sys
import sysconfig

from glance_multiapi_kernel import version

SHARE = os.path.join('share', version.DISTRIBUTION)
_SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def roots():
    """The folders that may hold etc/, the source tree first."""
    found = [_SOURCE_ROOT]
    # NOTE: the data folder is sys.prefix in a venv, /usr/local for
    # Debian's python3 (whose sys.prefix is /usr); both are asked.
    for prefix in (sysconfig.get_path('data'), sys.prefix):
        root = os.path.join(prefix, SHARE)
        if root not in found:
            found.append(root)
    return found


def find(relative):
    """The path of etc/... file relative ("etc/x.yaml"), or None."""
    for root in roots():
        path = os.path.join(root, relative)
        if os.path.exists(path):
            return path
    return None
