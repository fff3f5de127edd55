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

"""heat-engine of the embedded cloud: heat's own engine with the hooks
that let it share one sqlite database with heat-api and heat-api-cfn.

Run as ``python -m glance_multiapi_cloud.runtime.heat_engine
--config-file heat.conf``.
"""

import sys

from glance_multiapi_cloud import runtime
from glance_multiapi_cloud.runtime import sqlite_tuning


def main():
    runtime.leave_working_folder_off_sys_path()
    sqlite_tuning.install()
    # NOTE: imported late so the hooks are in place before heat makes
    # its first engine.
    from heat.cmd import engine
    sys.argv[0] = 'heat-engine'
    engine.main()


if __name__ == '__main__':
    main()
