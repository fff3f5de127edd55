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

"""Exit codes, progress lines and redaction of the uploader's CLI.

Only the paths that end before any cloud is contacted are here; the rest
run against the embedded cloud in the functional tests.
"""

import io
import os
import tempfile
from unittest import mock

import fixtures
import testtools

from glance_image_uploader import cli
from glance_image_uploader import exitcodes
from glance_image_uploader import output
from glance_image_uploader import progress


class TestExitCodes(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.stderr = self.useFixture(
            fixtures.MonkeyPatch('sys.stderr', io.StringIO())).new_value
        self.tmp = self.useFixture(fixtures.TempDir()).path

    def _main(self, argv, environ=None):
        self.stderr.seek(0)
        self.stderr.truncate()
        code = cli.main(argv, environ or {})
        lines = self.stderr.getvalue().splitlines()
        self.assertEqual(1, len(lines), lines)
        self.assertNotIn('Traceback', lines[0])
        return code, lines[0]

    def _info(self, text):
        path = os.path.join(self.tmp, 'info.yaml')
        with open(path, 'w') as info:
            info.write(text)
        return path

    def test_missing_file_is_2(self):
        code, line = self._main([], {'OS_IMAGES_INFO_PATH': '/nope.yaml'})
        self.assertEqual(2, code)
        self.assertIn('/nope.yaml does not exist', line)

    def test_malformed_yaml_is_22(self):
        code, line = self._main(['--images-info', self._info('a: [')])
        self.assertEqual(22, code)
        self.assertIn('not valid YAML', line)

    def test_bad_env_is_22(self):
        code, line = self._main(
            ['--images-info', self._info('x: 1')],
            {'WAIT_QUEUED_IMAGE': 'ten'})
        self.assertEqual(22, code)
        self.assertIn('WAIT_QUEUED_IMAGE', line)

    def test_unknown_flag_is_22_not_2(self):
        code, line = self._main(['--no-such-flag'])
        self.assertEqual(22, code)
        self.assertIn('--no-such-flag', line)

    def test_missing_cloud_is_22(self):
        clouds = os.path.join(self.tmp, 'clouds.yaml')
        with open(clouds, 'w') as out:
            out.write('clouds: {}\n')
        info = self._info('os_images: {a: {uri: "http://127.0.0.1:9/a", '
                          'md5: "%s", image-format: raw}}' % ('0' * 32))
        code, line = self._main(
            ['--images-info', info, '--os-cloud', 'nowhere',
             '--os-client-config-file', clouds, '--temp-dir', self.tmp])
        self.assertEqual(22, code)
        self.assertIn('clouds.yaml %s: clouds: no cloud named nowhere' %
                      clouds, line)
        self.assertEqual(['clouds.yaml', 'info.yaml'],
                         sorted(os.listdir(self.tmp)))

    def test_clouds_yaml_is_read_first(self):
        info = self._info('os_images: {a: {uri: "http://127.0.0.1:9/a", '
                          'md5: "%s", image-format: raw}}' % ('0' * 32))
        clouds = os.path.join(self.tmp, 'clouds.yaml')
        for text, needle in (
                ('clouds: [', 'not valid YAML at line'),
                ('- demo\n',
                 'the document: expected a mapping, got a list'),
                ('clouds: {demo: {auth: 5}}\n',
                 'clouds.demo.auth: expected a mapping, got an int (5)'),
                ('clouds: {demo: {auth: {auth_url: "http://[::1"}}}\n',
                 'clouds.demo.auth.auth_url: invalid URL'),
                ('clouds: {demo: {}, demo: {}}\n',
                 'the key demo is given twice (lines 1 and 1)')):
            with open(clouds, 'w') as out:
                out.write(text)
            code, line = self._main(
                ['--images-info', info, '--os-cloud', 'demo',
                 '--os-client-config-file', clouds])
            self.assertEqual(22, code, line)
            self.assertIn('clouds.yaml %s' % clouds, line)
            self.assertIn(needle, line)
        code, line = self._main(
            ['--images-info', info, '--os-client-config-file',
             clouds + '.missing'])
        self.assertEqual(22, code, line)
        self.assertIn('--os-client-config-file %s.missing does not exist'
                      % clouds, line)

    def test_help_lists_codes(self):
        out = self.useFixture(
            fixtures.MonkeyPatch('sys.stdout', io.StringIO())).new_value
        self.assertRaises(SystemExit, cli.main, ['--help'], {})
        text = out.getvalue()
        self.assertIn('exit codes:', text)
        self.assertIn('WAIT_QUEUED_IMAGE', text)
        for code, _ in exitcodes.MEANINGS:
            self.assertIn('%3d  ' % code, text)


class TestProgress(testtools.TestCase):

    def test_rate_limited(self):
        now = [0.0]
        stream = io.StringIO()
        log = progress.Log(stream=stream, progress_interval=5,
                           clock=lambda: now[0])
        meter = log.progress('download a', total=80 << 20)
        for _ in range(80):
            # NOTE: 0.125 is exact in binary, so the 5 s marks are hit.
            now[0] += 0.125
            meter.update(1 << 20)
        meter.finish()
        lines = stream.getvalue().splitlines()
        self.assertEqual(3, len(lines), lines)
        self.assertEqual('download a:  50% 40.0/80.0 MiB 8.0 MiB/s',
                         lines[0])
        self.assertIn('100%', lines[-1])
        self.assertIn(' in 10.0 s', lines[-1])

    def test_quiet_keeps_errors(self):
        stream = io.StringIO()
        log = progress.Log(stream=stream, quiet=True)
        log.info('hidden')
        log.progress('x', 10).finish()
        log.error('shown')
        self.assertEqual('error: shown\n', stream.getvalue())

    def test_redact_url(self):
        self.assertEqual(
            'https://host:8/p/a.img?...',
            progress.redact_url('https://user:secret@host:8/p/a.img?t=tok'))
        self.assertEqual('oci://reg/x:1', progress.redact_url(
            'oci://u:p@reg/x:1'))


class TestOutput(testtools.TestCase):

    def test_render_shape(self):
        self.assertEqual(
            'os_images:\n  a:\n    openstack_glance_uuid: u1\n',
            output.render({'a': 'u1'}))

    def test_write_file_atomic(self):
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, 'uuids.yaml')
            output.write_file(path, 'x\n')
            self.assertEqual(['uuids.yaml'], os.listdir(directory))

    def test_write_file_bad_dir_is_8(self):
        error = self.assertRaises(exitcodes.UploaderError, output.write_file,
                                  '/nonexistent/dir/uuids.yaml', 'x')
        self.assertEqual(exitcodes.OUTPUT_ERROR, error.code)

    def test_configmap_without_kubernetes_is_8(self):
        # NOTE: the dict itself, not a rebound sys.modules: once another
        # test imported kubernetes, import finds it in the interpreter's
        # own dict without looking at the attribute.
        with mock.patch.dict('sys.modules', {'kubernetes': None}):
            error = self.assertRaises(exitcodes.UploaderError,
                                      output.write_configmap, 'm', 'ns', 'k',
                                      'x')
        self.assertEqual(exitcodes.OUTPUT_ERROR, error.code)
        self.assertIn('kubernetes python package', error.message)
