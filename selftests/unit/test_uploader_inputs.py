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

"""Input parsing, validation, naming and settings of the uploader."""

import argparse
import tempfile

import testtools

from glance_image_uploader import exitcodes
from glance_image_uploader import inputs

MD5 = '0123456789abcdef0123456789abcdef'
GOOD = """
os_images:
  ubuntu-jammy:
    uri: oci://registry.example/images/ubuntu:1.0
    md5: %s
    image-format: raw
    commit-tag: 0.2.2
    sha256: abc
  cirros:
    uri: https://example.org/cirros.qcow2
    md5: %s
    image-format: qcow2
""" % (MD5.upper(), MD5)


def _flags(**values):
    names = ('images_info', 'os_cloud', 'os_client_config_file',
             'in_progress_timeout', 'in_progress_interval',
             'wait_queued_image', 'insecure', 'plain_http')
    return argparse.Namespace(**{name: values.get(name) for name in names})


class TestParseImages(testtools.TestCase):

    def assertBad(self, text, *fragments):
        error = self.assertRaises(exitcodes.UploaderError,
                                  inputs.parse_images, text, source='f.yaml')
        self.assertEqual(exitcodes.BAD_CONFIG, error.code)
        for fragment in fragments:
            self.assertIn(fragment, error.message)
        self.assertNotIn('\n', error.message)

    def test_good_file_names_tags_and_properties(self):
        ubuntu, cirros = inputs.parse_images(GOOD)
        self.assertEqual('ubuntu-jammy-sylva-diskimage-builder-0.2.2',
                         ubuntu.glance_name)
        self.assertEqual('cirros', cirros.glance_name)
        self.assertEqual('sylva-md5-' + MD5, ubuntu.tag)
        self.assertEqual('raw', ubuntu.disk_format)
        self.assertEqual(
            {'sylva/uri': 'oci://registry.example/images/ubuntu:1.0',
             'sylva/md5': MD5.upper(), 'sylva/image-format': 'raw',
             'sylva/commit-tag': '0.2.2', 'sylva/sha256': 'abc'},
            ubuntu.properties)

    def test_properties_hold_no_credential(self):
        spec, = inputs.parse_images(
            'os_images:\n  cirros:\n    uri: "https://u:Pl4nted@127.0.0.1:'
            '8/c.img?X-Amz-Signature=Pl4nted2&file=c"\n    md5: %s\n'
            '    image-format: raw\n    auth-token: Pl4nted3\n'
            '    note: kept\n' % MD5)
        self.assertEqual({'sylva/uri': 'https://127.0.0.1:8/c.img?...',
                          'sylva/md5': MD5, 'sylva/image-format': 'raw',
                          'sylva/note': 'kept'}, spec.properties)
        self.assertIn('Pl4nted', spec.uri)

    def test_numeric_commit_tag_is_text(self):
        spec, = inputs.parse_images(
            'os_images: {a: {uri: "http://x/a", md5: %s, image-format: raw,'
            ' commit-tag: 1.5}}' % MD5)
        self.assertEqual('a-sylva-diskimage-builder-1.5', spec.glance_name)

    def test_malformed_yaml_names_line(self):
        self.assertBad('os_images: {a: [}', 'not valid YAML at line 1')

    def test_no_os_images(self):
        self.assertBad('images: {}', 'no top-level os_images')

    def test_empty_os_images(self):
        self.assertBad('os_images: {}', 'non-empty map')

    def test_entry_not_a_map(self):
        self.assertBad('os_images: {a: 3}', 'os_images.a must be a map')

    def test_missing_keys_are_listed(self):
        self.assertBad('os_images: {a: {uri: "http://x"}}',
                       'os_images.a lacks md5, image-format')

    def test_bad_md5(self):
        self.assertBad('os_images: {a: {uri: "http://x", md5: "12", '
                       'image-format: raw}}', 'a.md5 is not 32 hexadecimal')
        # NOTE: YAML reads 32 unquoted digits as a number; leading zeros
        # go, and 0-7 only read as octal.
        self.assertBad('os_images: {a: {uri: "http://x", md5: %s, '
                       'image-format: raw}}' % ('0' * 31 + '7'),
                       'a.md5 is a YAML number (7), not text; quote it')

    def test_unusable_image_names(self):
        for key, needle in (('""', 'the name is empty'),
                            ('"a\\nb"', 'holds a line break'),
                            ('"a/b"', 'holds a "/"'),
                            ('".."', 'names a folder'),
                            ('"x\\ty"', 'the control character')):
            self.assertBad('os_images: {%s: {uri: "http://x/a", md5: %s, '
                           'image-format: raw}}' % (key, MD5),
                           'not a usable image name', needle)

    def test_unusable_uris(self):
        for uri, needle in (('http://x/a\\0b', 'holds a NUL byte'),
                            ('http://[::1/a', 'Invalid IPv6 URL'),
                            ('http:///a', 'no host'),
                            ('oci://x:99999/a', 'out of range')):
            self.assertBad('os_images: {a: {uri: "%s", md5: %s, '
                           'image-format: raw}}' % (uri, MD5),
                           'os_images.a.uri: invalid URL', needle)

    def test_bad_scheme(self):
        self.assertBad('os_images: {a: {uri: "ftp://x", md5: %s, '
                       'image-format: raw}}' % MD5, 'a.uri must start')

    def test_bad_format(self):
        self.assertBad('os_images: {a: {uri: "http://x", md5: %s, '
                       'image-format: tarball}}' % MD5,
                       "image-format 'tarball' is not one of")

    def test_two_entries_one_glance_name(self):
        self.assertBad(
            'os_images: {a-sylva-diskimage-builder-1: {uri: "http://x", '
            'md5: %s, image-format: raw}, a: {uri: "http://x", md5: %s, '
            'image-format: raw, commit-tag: "1"}}' % (MD5, MD5),
            'several os_images entries')


class TestReadInfoFile(testtools.TestCase):

    def test_missing_file_is_code_2(self):
        error = self.assertRaises(exitcodes.UploaderError,
                                  inputs.read_info_file, '/nonexistent/x')
        self.assertEqual(exitcodes.INPUT_MISSING, error.code)
        self.assertIn('/nonexistent/x does not exist', error.message)

    def test_directory_is_code_2(self):
        with tempfile.TemporaryDirectory() as directory:
            error = self.assertRaises(exitcodes.UploaderError,
                                      inputs.read_info_file, directory)
        self.assertEqual(exitcodes.INPUT_MISSING, error.code)

    def test_reads_text(self):
        with tempfile.NamedTemporaryFile('w', suffix='.yaml') as info:
            info.write(GOOD)
            info.flush()
            self.assertEqual(GOOD, inputs.read_info_file(info.name))


class TestSettings(testtools.TestCase):

    def test_defaults(self):
        settings = inputs.settings_from(_flags(), {})
        self.assertEqual(inputs.DEFAULT_INFO_PATH, settings.info_path)
        self.assertEqual(3600, settings.in_progress_timeout)
        self.assertEqual(10, settings.in_progress_interval)
        self.assertEqual(10, settings.wait_queued)
        self.assertFalse(settings.insecure)
        self.assertFalse(settings.plain_http)
        self.assertIsNone(settings.cloud)

    def test_environment(self):
        settings = inputs.settings_from(_flags(), {
            'OS_IMAGES_INFO_PATH': '/i.yaml', 'OS_CLOUD': 'demo',
            'OS_CLIENT_CONFIG_FILE': '/c.yaml',
            'IMAGE_IN_PROGRESS_TIMEOUT': '60',
            'IMAGE_IN_PROGRESS_INTERVAL': '0.5', 'WAIT_QUEUED_IMAGE': '0',
            'INSECURE_CLIENT': 'True'})
        self.assertEqual(('/i.yaml', 'demo', '/c.yaml', 60, 0.5, 0),
                         (settings.info_path, settings.cloud,
                          settings.client_config_file,
                          settings.in_progress_timeout,
                          settings.in_progress_interval,
                          settings.wait_queued))
        self.assertTrue(settings.insecure)
        # NOTE: insecure only turns verification off; a registry without
        # TLS is reached by the HTTPS-then-HTTP fallback of sources.py.
        self.assertFalse(settings.plain_http)

    def test_foreign_queued_policy_and_ca_bundle(self):
        settings = inputs.settings_from(_flags(), {})
        self.assertEqual('refuse', settings.foreign_queued_policy)
        self.assertEqual((), settings.ca_files)
        settings = inputs.settings_from(_flags(), {
            'FOREIGN_QUEUED_POLICY': 'Ignore', 'SSL_CERT_FILE': '/ca.crt'})
        self.assertEqual('ignore', settings.foreign_queued_policy)
        self.assertEqual(('/ca.crt',), settings.ca_files)
        settings = inputs.settings_from(_flags(), {
            'SSL_CERT_FILE': '/ca.crt', 'REQUESTS_CA_BUNDLE': '/bundle'})
        self.assertEqual(('/ca.crt', '/bundle'), settings.ca_files)
        error = self.assertRaises(
            exitcodes.UploaderError, inputs.settings_from, _flags(),
            {'FOREIGN_QUEUED_POLICY': 'delete'})
        self.assertEqual(22, error.code)
        self.assertIn('FOREIGN_QUEUED_POLICY', error.message)

    def test_flags_win(self):
        settings = inputs.settings_from(
            _flags(images_info='/flag.yaml', wait_queued_image='3',
                   plain_http='true'),
            {'OS_IMAGES_INFO_PATH': '/env.yaml', 'WAIT_QUEUED_IMAGE': '9'})
        self.assertEqual('/flag.yaml', settings.info_path)
        self.assertEqual(3, settings.wait_queued)
        self.assertTrue(settings.plain_http)
        self.assertFalse(settings.insecure)

    def test_bad_number_names_variable(self):
        error = self.assertRaises(
            exitcodes.UploaderError, inputs.settings_from, _flags(),
            {'IMAGE_IN_PROGRESS_TIMEOUT': 'soon'})
        self.assertEqual(exitcodes.BAD_CONFIG, error.code)
        self.assertIn("IMAGE_IN_PROGRESS_TIMEOUT='soon'", error.message)

    def test_bad_flag_names_flag(self):
        error = self.assertRaises(
            exitcodes.UploaderError, inputs.settings_from,
            _flags(wait_queued_image='-1'), {})
        self.assertIn('--wait-queued-image', error.message)

    def test_bad_boolean(self):
        error = self.assertRaises(
            exitcodes.UploaderError, inputs.settings_from, _flags(),
            {'INSECURE_CLIENT': 'maybe'})
        self.assertEqual(exitcodes.BAD_CONFIG, error.code)


class TestHelp(testtools.TestCase):

    def test_every_code_is_documented(self):
        table = exitcodes.help_table()
        for code in (0, 1, 2, 3, 4, 5, 6, 7, 8, 22, 70, 130, 143):
            self.assertIn(' %d  ' % code, table)
        for line in table.splitlines():
            self.assertLessEqual(len(line), 79)
