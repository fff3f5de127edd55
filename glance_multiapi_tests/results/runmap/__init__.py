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

"""The deployment map and the figures of a run.

While the run goes on, the tests append records (``recorder``, through
the plugin's ``tests/recording.py``); after it, ``records`` reads them
back, ``outcomes`` reads the run's subunit stream, ``model`` turns both
into the facts of one or more runs (``inventory`` names the tests a run
did not reach), ``deployment_map`` and ``map_svg`` render the page and
its diagram, ``metrics`` the figures and ``comparison`` holds them
against an earlier run's; ``publish`` writes every output.
"""
