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

"""What the multi-API checks stand on: their base and the scenarios' base.

``base.MultiApiTest`` learns the deployment and offers the image helpers
of tests/api/test_catalog, test_endpoints and test_store_placement;
``scenario_base.MultiApiScenarioTest`` adds the spec patch and the
waiters of tests/scenario/test_switchover and test_grow_shrink.
"""
