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

"""uwsgi entry point of the embedded cloud's Keystone."""

from glance_multiapi_cloud import runtime
from glance_multiapi_cloud.runtime import sqlite_tuning

runtime.uwsgi_sys_path()
sqlite_tuning.install()

from keystone.wsgi.api import application  # noqa: E402,F401,H306
from keystone.common.rbac_enforcer import enforcer  # noqa: E402,H306

# NOTE: keystone publishes its policy enforcer before it registers the
# rules (RBACEnforcer._enforcer), so a fresh process whose first requests
# come on several threads at once can find identity:validate_token
# undefined and deny it: glance then answered 401 to a member after a
# keystone restart under load (functional test_stress_shared_database).
# Built once here, before uwsgi serves, as the server would on its first
# request (deprecation warnings per rule suppressed, as in a request).
enforcer.RBACEnforcer.suppress_deprecation_warnings = True
enforcer.RBACEnforcer()._enforcer.load_rules()
