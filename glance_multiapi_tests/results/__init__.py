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

"""What a run leaves for people and dashboards: records, map, metrics.

The tests write records while they run (``recorder``); ``records`` reads
them back, ``model`` turns them into the facts of one or more runs,
``deployment_map`` and ``metrics`` render those facts, ``publish``
rebuilds every output under a lock and ``cli`` does it by hand. Nothing
here imports tempest: the outputs can be rebuilt wherever the records
are copied to.
"""
