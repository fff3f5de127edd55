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

"""What the uploader scenarios stand on (tests/scenario/test_uploader*).

``base`` (the scenarios' base class), ``components`` (the real image
sources and Glance states they drive), ``oci`` (artifacts in a real
registry), ``gates`` and ``gate_tls`` (the starting gates of the races,
and the registry gate's TLS), ``process`` (the uploader under test as a
process, and what a run did) and ``configmap_api`` (where an uploader in
configmap mode writes its UUID map).
"""
