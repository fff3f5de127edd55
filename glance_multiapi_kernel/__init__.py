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

"""What the three products of this repository share, and nothing else.

The Tempest plugin (glance_multiapi_tests), the embedded cloud
(glance_multiapi_cloud) and the reference uploader (glance_image_uploader)
each import this package and never one another: the bounded reader of
input files and the documents it reads, the one-line errors, the one
redaction of secrets, polling, the deadline of every network exchange
(deadlines), the bounded command runner (commands), the Kubernetes
client, glance-operator's rules (glance_cr, conditions), the built-in
heat image facts (heat_images, image_mappings) and the version. It
imports none of them, nor tempest.
"""
