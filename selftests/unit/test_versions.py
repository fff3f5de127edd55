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

"""Every console script of setup.cfg answers --version, exit 0."""

import importlib
import io

import fixtures
import testtools

from glance_multiapi_kernel import version
from selftests import cli_runs

TESTED = ('glance-multiapi-cloud', 'glance-image-uploader',
          'glance-multiapi-image-check', 'glance-multiapi-doctor',
          'glance-multiapi-report')


class VersionTest(testtools.TestCase):

    def answer(self, script):
        module, _colon, function = cli_runs.console_scripts()[
            script].partition(':')
        main = getattr(importlib.import_module(module), function)
        out, err = io.StringIO(), io.StringIO()
        self.useFixture(fixtures.MonkeyPatch('sys.stdout', out))
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', err))
        exc = self.assertRaises(SystemExit, main, ['--version'])
        self.assertEqual((0, ''), (exc.code or 0, err.getvalue()))
        self.assertEqual('%s %s\n' % (script, version.version_string()),
                         out.getvalue())

    def test_every_console_script_is_tested_here(self):
        self.assertEqual(sorted(TESTED), sorted(cli_runs.console_scripts()))

    def test_version_is_pbr_s(self):
        self.assertRegex(version.version_string(), r'^\d+\.\d+')

    def test_cloud(self):
        self.answer('glance-multiapi-cloud')

    def test_uploader(self):
        self.answer('glance-image-uploader')

    def test_image_check(self):
        self.answer('glance-multiapi-image-check')

    def test_doctor(self):
        self.answer('glance-multiapi-doctor')

    def test_report(self):
        self.answer('glance-multiapi-report')
