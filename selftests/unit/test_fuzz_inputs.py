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

"""Property tests: the uploader's and the image check's files.

For any bytes or YAML/JSON-shaped value, the images-info file, the
uploader's environment, an image mapping, an OpenStackVersion, a
RELATED_IMAGE listing and a known-names file either parse or are refused
with the module's own error (UploaderError with code 2 or 22,
MalformedInput or InputUnavailable), in one line naming the file.
"""


from hypothesis import given
from hypothesis import strategies as st

from glance_multiapi_kernel import image_errors as check_errors
from glance_multiapi_tests.imagecheck import loader
from glance_multiapi_kernel import image_mappings
from glance_multiapi_tests.imagecheck import sources
from selftests import fuzzing
from glance_image_uploader import exitcodes
from glance_image_uploader import inputs

MD5 = 'd41d8cd98f00b204e9800998ecf8427e'
IMAGES_INFO = {'os_images': {
    'ubuntu-jammy': {'uri': 'http://127.0.0.1:8080/jammy.qcow2',
                     'md5': MD5, 'image-format': 'qcow2',
                     'commit-tag': 'abc123', 'sha256': 'x'},
    'cirros': {'uri': 'oci://127.0.0.1:5000/images/cirros:0.6',
               'md5': MD5, 'image-format': 'raw'}}}
MAPPING = {'openstack_version': {'custom_container_images': {
    'heat/heat-api': ['heatAPIImage', 'heatCfnapiImage'],
    'heat/heat-engine': ['heatEngineImage']}}}
IMAGE = 'quay.io/podified/openstack-heat-api@sha256:' + 'a' * 64
VERSION = {
    'apiVersion': 'core.openstack.org/v1beta1', 'kind': 'OpenStackVersion',
    'metadata': {'name': 'openstack', 'namespace': 'openstack'},
    'spec': {'targetVersion': '1.0', 'customContainerImages': {
        'heatAPIImage': IMAGE, 'heatCfnapiImage': IMAGE}},
    'status': {'availableVersion': '1.0', 'deployedVersion': '1.0',
               'containerImages': {'heatAPIImage': IMAGE,
                                   'heatCfnapiImage': IMAGE,
                                   'heatEngineImage': IMAGE,
                                   'cinderVolumeImages': {'a': IMAGE}}}}
VERSION_LIST = {'kind': 'OpenStackVersionList', 'items': [VERSION]}
ENV_LIST = [{'name': 'RELATED_IMAGE_HEAT_API_IMAGE_URL_DEFAULT',
             'value': IMAGE},
            {'name': 'RELATED_IMAGE_HEAT_ENGINE_IMAGE_URL_DEFAULT',
             'valueFrom': {'configMapKeyRef': {'name': 'x'}}}]
ENV_LINES = ('export RELATED_IMAGE_HEAT_API_IMAGE_URL_DEFAULT="%s"\n'
             'RELATED_IMAGE_HEAT_ENGINE_IMAGE_URL_DEFAULT=%s, OTHER=1\n'
             '# a comment\n' % (IMAGE, IMAGE))
ENVIRONMENT = ('OS_IMAGES_INFO_PATH', 'IMAGE_IN_PROGRESS_TIMEOUT',
               'IMAGE_IN_PROGRESS_INTERVAL', 'WAIT_QUEUED_IMAGE',
               'INSECURE_CLIENT', 'OCI_PLAIN_HTTP', 'FOREIGN_QUEUED_POLICY',
               'SSL_CERT_FILE', 'OS_CLOUD')


class _Args(object):
    """The uploader's parsed flags, none given."""

    def __getattr__(self, name):
        return None


class TestUploaderFuzzing(fuzzing.FileFuzzing):

    @given(fuzzing.raw_bytes(IMAGES_INFO))
    def test_images_info_is_images_or_exit_22(self, data):
        path = self.write('os-images-info.yaml', data)
        try:
            specs = inputs.parse_images(inputs.read_info_file(path),
                                        source=path)
        except exitcodes.UploaderError as exc:
            self.assertEqual(exitcodes.BAD_CONFIG, exc.code, exc)
            fuzzing.check_refusal(self, exc, path)
            return
        for spec in specs:
            self.assertTrue(spec.glance_name)
            self.assertIsInstance(spec.properties, dict)

    @given(st.dictionaries(st.sampled_from(ENVIRONMENT),
                           st.text(max_size=40) | fuzzing.huge_strings(),
                           max_size=len(ENVIRONMENT)))
    def test_environment_is_settings_or_exit_22(self, environ):
        try:
            settings = inputs.settings_from(_Args(), environ)
        except exitcodes.UploaderError as exc:
            self.assertEqual(exitcodes.BAD_CONFIG, exc.code, exc)
            fuzzing.check_refusal(self, exc)
            return
        self.assertGreaterEqual(settings.in_progress_timeout, 1)


class TestImageCheckFuzzing(fuzzing.FileFuzzing):

    def read(self, data, what):
        path = self.write('input.yaml', data)
        return loader.read_text(path, what), path

    def parse_or_refuse(self, parse, data, what):
        try:
            text, path = self.read(data, what)
        except check_errors.ImageCheckError as exc:
            fuzzing.check_refusal(self, exc, 'input.yaml')
            return None
        try:
            return parse(text, path)
        except check_errors.MalformedInput as exc:
            fuzzing.check_refusal(self, exc, path)
            return None

    @given(fuzzing.raw_bytes(MAPPING))
    def test_mapping_is_targets_or_malformed(self, data):
        found = self.parse_or_refuse(image_mappings.parse_mapping, data,
                                     'image mappings')
        if found is not None:
            for target in found.targets:
                self.assertTrue(target.image_name)
            found.owners()

    @given(st.one_of(fuzzing.raw_bytes(VERSION),
                     fuzzing.raw_bytes(VERSION_LIST)))
    def test_openstackversion_is_sources_or_malformed(self, data):
        found = self.parse_or_refuse(sources.parse_version_document, data,
                                     'OpenStackVersion')
        if found is not None:
            for source in found[0]:
                for field in source.references:
                    source.origin(field)

    @given(st.one_of(fuzzing.raw_bytes(ENV_LIST),
                     fuzzing.raw_bytes(), st.text().map(str.encode),
                     st.just(ENV_LINES.encode())))
    def test_env_listing_is_a_source_or_malformed(self, data):
        self.parse_or_refuse(sources.parse_env_listing, data,
                             'RELATED_IMAGE listing')

    @given(fuzzing.raw_bytes())
    def test_known_names_are_names_or_malformed(self, data):
        self.parse_or_refuse(sources.parse_known_names, data,
                             'known image names')
