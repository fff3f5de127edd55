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

"""CI checks of the manifests shipped for test-operator (etc/test-operator).

``crd_schema``: a CRD's openAPIV3Schema (the committed copy of
test-operator's Tempest CRD's) and CRs validated against it (jsonschema,
unknown fields refused as the API server refuses them).
``tempest_cr``: the rest of the Tempest CR (overrides, token, style).
``rbac``: the shape of rbac.yaml and its Role's rules as single grants.
``role_usage``: which grants a run used, from the embedded cloud's
Kubernetes API audit log.
The tools in tools/ are thin command lines over these modules.
"""
