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

"""uwsgi entry point of one Glance API of the embedded cloud."""

from glance_multiapi_cloud import runtime
from glance_multiapi_cloud.runtime import sqlite_tuning

runtime.uwsgi_sys_path()
sqlite_tuning.install()

from glance.wsgi.api import application  # noqa: E402,F401,H306
