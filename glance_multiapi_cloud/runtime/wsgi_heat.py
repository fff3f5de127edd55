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

"""uwsgi entry point of heat-api or heat-api-cfn of the embedded cloud.

GMT_HEAT_APP names the API (heat-api or heat-api-cfn), GMT_HEAT_CONF its
heat.conf, GMT_STATE_DIR the cloud's state dir. Both come from the one
installed heat package. heat-api carries the heat-rpc-timeout fault
(heat_faults.py), idle unless the cloud's faults name it.
"""

import importlib
import os
import sys

from glance_multiapi_cloud.runtime import heat_faults
from glance_multiapi_cloud import runtime
from glance_multiapi_cloud.runtime import sqlite_tuning

runtime.uwsgi_sys_path()
sqlite_tuning.install()

_MODULES = {'heat-api': 'heat.wsgi.api', 'heat-api-cfn': 'heat.wsgi.cfn'}
_APP = os.environ['GMT_HEAT_APP']

# NOTE: heat's WSGI apps read their options from sys.argv, where uwsgi
# leaves only its own name; hand them the config file that way.
sys.argv = [_APP, '--config-file', os.environ['GMT_HEAT_CONF']]

application = importlib.import_module(_MODULES[_APP]).application
if _APP == 'heat-api':
    application = heat_faults.install(application,
                                      os.environ['GMT_STATE_DIR'])
