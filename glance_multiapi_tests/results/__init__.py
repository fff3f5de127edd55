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

"""What a run leaves, in two products: the deployment map and the gate.

``runmap`` is the deployment map and the figures of a run: the records
the tests append while they run, read back with the run's subunit
streams once it has ended, the facts built from both, the map's page and
diagram, metrics.json and metrics.prom, and the comparison with an
earlier run's figures. ``gate`` is the verdict a CI gate needs of
subunit streams: counts, failed tests and the groups that had to run.
``cli`` is ``glance-multiapi-report``, over both. Nothing here imports
tempest: the map can be built and the verdict given wherever the
records and streams are copied to.
"""
