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

"""The verdict of subunit streams, as a gate needs it.

``subunit_stream`` reads a stream test by test, and only a whole one;
``required_groups`` names the groups of the plugin's tests a job can
require to have run; ``verdict`` counts a run's results, its failures
and the required groups that did not run. The deployment map reads the
streams through ``subunit_stream`` too.
"""
