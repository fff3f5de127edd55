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

"""Property tests: the bounds of every command's input (issue 47).

Any path that is no regular file (a FIFO, a device, a folder, a socket,
a symlink loop, ...) given to any reader of the five commands is refused
at once with the reader's own error, in one line naming the path and
what it is; YAML with aliases of any fan-out and depth, or a key given
twice, under any key of any parser's document parses into a value no
larger than MAX_ALIAS_NODES past its text, or is refused naming why.
(Damaged subunit streams: test_fuzz_results.py.)
"""

import json
import os

import fixtures
from hypothesis import given
from hypothesis import strategies as st

from glance_multiapi_cloud import cli as cloud_cli
from glance_multiapi_cloud.components import kubeapi
from glance_multiapi_cloud import errors as cloud_errors
from glance_multiapi_cloud.kubeapi.embedded import rbac as kuberbac
from glance_multiapi_cloud import spec as spec_mod
from glance_multiapi_cloud import state as state_mod
from glance_multiapi_kernel import clouds_yaml
from glance_multiapi_kernel import documents
from glance_multiapi_kernel import image_errors as check_errors
from glance_multiapi_kernel import image_mappings
from glance_multiapi_kernel import kube
from glance_multiapi_tests.doctor import settings
from glance_multiapi_tests.imagecheck import loader
from glance_multiapi_tests.imagecheck import sources
from glance_multiapi_tests.results.gate import verdict
from glance_multiapi_tests.results.runmap import outcomes
from glance_multiapi_tests.results.runmap import recorder
from glance_multiapi_tests.results.runmap import records
from selftests import fuzzing
from selftests.unit import test_fuzz_inputs as inputs
from selftests.unit import test_fuzz_localcloud as cloud
from glance_image_uploader import exitcodes
from glance_image_uploader import inputs as uploader_inputs

KINDS = st.sampled_from(fuzzing.SPECIAL)
# NOTE: how input_files names each kind.
SAID = {'fifo': 'is a FIFO', 'character device': 'is a character device',
        'null device': 'is a character device', 'folder': 'is a folder',
        'symlink loop': 'is a symlink loop', 'socket': 'is a socket',
        'missing': 'does not exist', 'dangling symlink': 'does not exist',
        'under a file': 'not a folder'}
CLOUDS = {'clouds': {'demo': {'auth': {'auth_url': 'http://127.0.0.1:5000',
                                       'username': 'u', 'password': 'p'},
                              'region_name': 'regionOne'}}}
KUBECONFIG = {'apiVersion': 'v1', 'kind': 'Config', 'clusters': [
    {'name': 'c', 'cluster': {'server': 'https://127.0.0.1:6443'}}],
    'users': [{'name': 'u', 'user': {'token': 't'}}],
    'contexts': [{'name': 'c', 'context': {'cluster': 'c', 'user': 'u'}}],
    'current-context': 'c'}


class _Bounded(fuzzing.FileFuzzing):

    def setUp(self):
        super().setUp()
        # NOTE: a reader that waited on a FIFO would hang the run.
        self.useFixture(fixtures.Timeout(120, gentle=True))

    def refused(self, exc, path, kind):
        fuzzing.check_refusal(self, exc, path, SAID[kind])


class TestNonRegularPaths(_Bounded):
    """Every reader of a file refuses what is not a regular file."""

    @given(KINDS)
    def test_images_info(self, kind):
        path = self.special(kind)
        exc = self.assertRaises(exitcodes.UploaderError,
                                uploader_inputs.read_info_file, path)
        self.assertEqual(exitcodes.INPUT_MISSING, exc.code)
        self.refused(exc, path, kind)

    @given(KINDS)
    def test_clouds_yaml(self, kind):
        path = self.special(kind)
        exc = self.assertRaises(clouds_yaml.CloudsError, clouds_yaml.check,
                                'demo', config_files=[path], environ={},
                                option='--os-client-config-file')
        self.refused(exc, path, kind)

    @given(KINDS, st.sampled_from(('image mappings', 'OpenStackVersion',
                                   'known image names')))
    def test_image_check_files(self, kind, what):
        path = self.special(kind)
        exc = self.assertRaises(check_errors.InputUnavailable,
                                loader.read_text, path, what)
        self.refused(exc, path, kind)

    @given(KINDS)
    def test_kubeconfig(self, kind):
        path = self.special(kind)
        if kind in fuzzing.MISSING:
            # NOTE: a kubeconfig of $KUBECONFIG's list that is not there
            # is skipped, as kubectl does; connect() says none was found.
            kube.check_kubeconfig(path, '--kubeconfig')
            return
        exc = self.assertRaises(kube.KubeError, kube.check_kubeconfig, path,
                                '--kubeconfig')
        self.refused(exc, path, kind)
        self.assertIn('--kubeconfig', str(exc))
        exc = self.assertRaises(kube.KubeError, kube.connect, kube.Settings(
            kubeconfig=path, kubeconfig_option='--kubeconfig'))
        self.refused(exc, path, kind)

    @given(KINDS)
    def test_tempest_conf(self, kind):
        path = self.special(kind)
        exc = self.assertRaises(settings.ConfigProblem, settings.load, path)
        self.refused(exc, path, kind)

    @given(KINDS)
    def test_cloud_spec_and_role(self, kind):
        path = self.special(kind)
        exc = self.assertRaises(cloud_errors.Invalid, cloud_cli._read_spec,
                                path)
        self.refused(exc, path, kind)
        exc = self.assertRaises(kuberbac.RoleError, kubeapi.check_rbac,
                                [path], 'openstack')
        self.refused(exc, path, kind)

    @given(KINDS.filter(lambda kind: kind not in fuzzing.MISSING + (
        'under a file', 'symlink loop')))
    def test_cloud_state(self, kind):
        root = self.special('folder')
        self.special(kind, os.path.join(root, state_mod.STATE_FILE))
        exc = self.assertRaises(cloud_errors.CloudError,
                                state_mod.State(root).load)
        self.refused(exc, os.path.join(root, state_mod.STATE_FILE), kind)

    @given(KINDS)
    def test_report_streams(self, kind):
        path = self.special(kind)
        exc = self.assertRaises(verdict.VerdictError, verdict.read, [path])
        self.refused(exc, path, kind)
        exc = self.assertRaises(outcomes.OutcomesError, outcomes.read, path)
        self.refused(exc, path, kind)
        # NOTE: tools/subunit_summary.py: missing is "nothing ran",
        # anything else one failure naming it.
        tests = verdict.read([path], strict=False)
        if kind in fuzzing.MISSING:
            self.assertEqual([], tests)
            return
        self.assertFalse(verdict.judge(tests).ok)
        self.refused(verdict.judge(tests).damaged[0], path, kind)

    @given(KINDS.filter(lambda kind: kind not in fuzzing.MISSING + (
        'under a file',)))
    def test_records_files(self, kind):
        results = self.special('folder')
        folder = os.path.join(results, recorder.RECORDS_SUBDIR)
        os.mkdir(folder)
        path = os.path.join(folder, '1-1.jsonl')
        self.special(kind, path)
        found, problems = records.read(results)
        self.assertEqual([], found)
        self.assertEqual(1, len(problems), problems)
        self.refused(problems[0], path, kind)


def _parsed_is_bounded(test, value, text):
    # NOTE: what the aliases add is bounded; the rest is the text's own.
    limit = len(text) + documents.MAX_ALIAS_NODES
    test.assertLessEqual(fuzzing.expanded_size(value, limit), limit)


def _yaml(example):
    return st.one_of(fuzzing.alias_documents(example),
                     fuzzing.duplicate_keys(example))


class TestAliasesAndDuplicates(_Bounded):
    """Every YAML parser: bounded aliases, no key given twice."""

    def check(self, text, parse, error, *names):
        try:
            value = parse(text)
        except error as exc:
            fuzzing.check_refusal(self, exc, *names)
            return None
        return value

    @given(_yaml(inputs.IMAGES_INFO))
    def test_images_info(self, text):
        specs = self.check(text, lambda text: uploader_inputs.parse_images(
            text, source='info.yaml'), exitcodes.UploaderError, 'info.yaml')
        for spec in specs or ():
            _parsed_is_bounded(self, spec.info, text)
            spec.properties

    @given(_yaml(cloud.SPEC))
    def test_cloud_spec(self, text):
        spec = self.check(text, lambda text: spec_mod.load(text, 's.yaml'),
                          spec_mod.SpecError, 's.yaml')
        if spec is not None:
            _parsed_is_bounded(self, spec, text)
            json.dumps(spec)

    @given(_yaml(cloud.ROLE))
    def test_role(self, text):
        self.check(text, lambda text: kuberbac.parse_rbac(
            [(text, 'r.yaml')], 'openstack'), kuberbac.RoleError, 'r.yaml')

    @given(_yaml(inputs.MAPPING))
    def test_image_mapping(self, text):
        self.check(text, lambda text: image_mappings.parse_mapping(
            text, 'm.yaml'), check_errors.MalformedInput, 'm.yaml')

    @given(_yaml(inputs.VERSION))
    def test_openstackversion(self, text):
        self.check(text, lambda text: sources.parse_version_document(
            text, 'v.yaml'), check_errors.MalformedInput, 'v.yaml')

    @given(_yaml(CLOUDS))
    def test_clouds_yaml(self, text):
        path = self.write('clouds.yaml', text.encode())
        self.check(path, lambda path: clouds_yaml.check(
            'demo', config_files=[path], environ={},
            option='--os-client-config-file'), clouds_yaml.CloudsError,
            path)

    @given(_yaml(KUBECONFIG))
    def test_kubeconfig(self, text):
        path = self.write('kubeconfig', text.encode())
        self.check(path, lambda path: kube.check_kubeconfig(
            path, '--kubeconfig'), kube.KubeError, path)

    @given(fuzzing.json_values(max_leaves=6).filter(
        lambda value: isinstance(value, dict) and value).flatmap(
            fuzzing.alias_documents))
    def test_any_document(self, text):
        value = self.check(text, documents.load_yaml,
                           documents.DocumentError)
        if value is not None:
            _parsed_is_bounded(self, value, text)
