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

"""Property tests: the embedded cloud's inputs never crash it.

For any bytes or YAML/JSON-shaped value, the spec, a ``patch -p``, a
``--kube-role`` Role, a ``--fault`` and the embedded Kubernetes API's
control plane patch either parse or are refused with the module's own
error, in one line naming the file (or the input).
"""

import json
import os

from hypothesis import given
from hypothesis import strategies as st
import yaml

from glance_multiapi_kernel import documents
from glance_multiapi_cloud import cli
from glance_multiapi_cloud.components import kubeapi
from glance_multiapi_cloud import errors
from glance_multiapi_cloud import faults
from glance_multiapi_cloud.kubeapi.embedded import objects as kubeobjects
from glance_multiapi_cloud.kubeapi.embedded import rbac as kuberbac
from glance_multiapi_cloud import spec as spec_mod
from selftests import fuzzing

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), '..',
                                     '..'))
SPEC = cli.DEMO_SPEC
with open(os.path.join(REPO, 'etc', 'test-operator', 'rbac.yaml')) as f:
    ROLES = [doc for doc in yaml.safe_load_all(f) if doc]
ROLE = [doc for doc in ROLES if doc.get('kind') == 'Role'][0]
PATCH = {'spec': {'keystoneEndpoint': 'api1', 'glanceAPIs': {
    'api2': {'type': 'single', 'customServiceConfig':
             '[glance_store]\ndefault_backend = ceph1\n'}}}}
CONTROLPLANE_PATCH = {'spec': {'glance': {'enabled': True, 'template':
                                          PATCH['spec']}}}


class TestSpecFuzzing(fuzzing.FileFuzzing):

    @given(fuzzing.texts({'spec': SPEC}), fuzzing.texts(SPEC))
    def test_spec_text_is_a_spec_or_a_spec_error(self, whole, bare):
        for text in (whole, bare):
            try:
                spec = spec_mod.load(text, 'spec.yaml')
            except spec_mod.SpecError as exc:
                fuzzing.check_refusal(self, exc, 'spec.yaml')
                continue
            self.assertIn(spec['keystoneEndpoint'], spec['glanceAPIs'])
            json.dumps(spec)

    @given(fuzzing.raw_bytes(SPEC))
    def test_spec_file_is_read_or_refused(self, data):
        path = self.write('spec.yaml', data)
        try:
            text, source = cli._read_spec(path)
            spec_mod.load(text, source)
        except (spec_mod.SpecError, errors.Invalid) as exc:
            fuzzing.check_refusal(self, exc, path)

    @given(fuzzing.texts(PATCH))
    def test_patch_is_applied_or_refused(self, text):
        spec = spec_mod.normalize(SPEC)
        before = json.dumps(spec, sort_keys=True)
        try:
            new = spec_mod.apply_patch(spec, text)
        except spec_mod.SpecError as exc:
            fuzzing.check_refusal(self, exc, 'patch')
        else:
            json.dumps(new)
        self.assertEqual(before, json.dumps(spec, sort_keys=True))

    @given(fuzzing.texts(CONTROLPLANE_PATCH))
    def test_controlplane_patch_is_read_or_refused(self, text):
        # NOTE: as the embedded Kubernetes API reads a request body.
        try:
            body = documents.load_json(text)
        except documents.DocumentError as exc:
            fuzzing.check_refusal(self, exc)
            return
        try:
            template = kubeobjects.template_patch(body)
        except kubeobjects.PatchError as exc:
            fuzzing.check_refusal(self, exc)
            return
        self.assertIsInstance(template, (dict, type(None)))

    @given(st.text(max_size=60))
    def test_fault_argument_is_known_or_refused(self, text):
        try:
            record = faults.parse(text)
            faults.Faults([record], spec_mod.normalize(SPEC))
        except errors.Invalid as exc:
            fuzzing.check_refusal(self, exc)


class TestRoleFuzzing(fuzzing.FileFuzzing):

    @given(fuzzing.raw_bytes(ROLE))
    def test_role_file_is_rules_or_a_role_error(self, data):
        path = self.write('role.yaml', data)
        try:
            kubeapi.check_rbac([path], 'openstack')
        except kuberbac.RoleError as exc:
            fuzzing.check_refusal(self, exc, path)

    @given(st.lists(fuzzing.mutated(ROLE), min_size=1, max_size=3))
    def test_role_documents_are_rules_or_a_role_error(self, docs):
        text = '\n---\n'.join(fuzzing.dump(doc, True) for doc in docs)
        try:
            rules = kuberbac.parse_role(text, 'role.yaml')
        except kuberbac.RoleError as exc:
            fuzzing.check_refusal(self, exc, 'role.yaml')
            return
        for rule in rules:
            self.assertTrue(kuberbac.allows([rule], 'get', '', '', '') in (
                True, False))
