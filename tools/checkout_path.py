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

"""Put this checkout's top folder on sys.path, for the tools that need it.

The project's own tests and CI checkers (``selftests/``) are not part of
what ``pip install .`` installs; the tools that use them run from a
checkout and import this module first (``python tools/X.py`` puts only
``tools/`` on sys.path).
"""

import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TOP not in sys.path:
    sys.path.insert(0, TOP)
