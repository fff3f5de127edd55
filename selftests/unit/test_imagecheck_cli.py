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

"""glance-multiapi-image-check: output, exit codes, one-line errors."""

import io
import json
import os
import shlex

import fixtures
import testtools

from glance_multiapi_tests.imagecheck import cli
from selftests.unit import test_imagecheck_samples

sample = test_imagecheck_samples.sample


def run_main(*argv):
    """(exit code, stdout, stderr) of glance-multiapi-image-check argv."""
    out, err = io.StringIO(), io.StringIO()
    with fixtures.MonkeyPatch('sys.stdout', out), \
            fixtures.MonkeyPatch('sys.stderr', err):
        try:
            code = cli.main(list(argv))
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


class CliTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path

    def main(self, *argv):
        return run_main(*argv)

    def sample_args(self, version='openstackversion.json',
                    mappings='image-mappings.yaml'):
        return ['--mappings', sample(mappings),
                '--version-file', sample(version),
                '--env-file', sample('related-images.env'),
                '--known-names', sample('known-image-names.txt')]

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, 'w') as handle:
            handle.write(text)
        return path

    def assert_one_line_error(self, err, *parts):
        self.assertEqual(1, err.count('\n'), err)
        self.assertTrue(err.startswith(cli.PROG + ': '), err)
        self.assertNotIn('Traceback', err)
        for part in parts:
            self.assertIn(part, err)

    def test_consistent_sample_exits_0_with_table(self):
        code, out, err = self.main(*self.sample_args())
        self.assertEqual(0, code, out + err)
        self.assertEqual('', err)
        header = out.splitlines()[0].split()
        self.assertEqual(['TARGET', 'FIELD', 'SOURCE', 'REFERENCE',
                          'DIGEST', 'VERDICT'], header)
        self.assertIn('CONSISTENT:', out)

    def test_broken_samples_exit_1_naming_fields(self):
        cases = [
            (dict(version='openstackversion-digest-mismatch.json'),
             'digest-mismatch: heat/heat-api in status.containerImages'),
            (dict(version='openstackversion-missing-field.json'),
             'missing: heat/heat-api in status.containerImages'),
            (dict(mappings='image-mappings-doubly-assigned.yaml'),
             'doubly-assigned: heatEngineImage is assigned to 2 images'),
            (dict(version='openstackversion-tag-vs-digest.json'),
             'tag-vs-digest: heat/heat-api in status.containerImages'),
        ]
        for kwargs, line in cases:
            code, out, _ = self.main(*self.sample_args(**kwargs))
            self.assertEqual(1, code, out)
            self.assertIn(line, out)
            self.assertIn('INCONSISTENT:', out)

    def test_json_output(self):
        code, out, _ = self.main(
            *self.sample_args(version='openstackversion-missing-field.json'),
            '-o', 'json')
        self.assertEqual(1, code)
        document = json.loads(out)
        self.assertFalse(document['consistent'])
        self.assertEqual(['heatCfnapiImage'],
                         document['findings'][0]['fields'])

    def test_version_command(self):
        command = 'cat %s' % shlex.quote(sample('openstackversion.json'))
        code, out, err = self.main('--mappings', sample('image-mappings.yaml'),
                                   '--version-command', command)
        self.assertEqual(0, code, err)
        code, _, err = self.main('--mappings', sample('image-mappings.yaml'),
                                 '--version-command', 'echo nope >&2; exit 4')
        self.assertEqual(23, code)
        self.assert_one_line_error(err, 'exited 4: nope')

    def test_malformed_input_exits_22_naming_file_and_field(self):
        bad_mapping = self.write('m.yaml', 'heat/heat-api: [heatAPIImage, 7]')
        code, out, err = self.main('--mappings', bad_mapping)
        self.assertEqual(22, code)
        self.assertEqual('', out)
        self.assert_one_line_error(err, bad_mapping, 'heat/heat-api[1]')
        bad_env = self.write('e.env', 'RELATED_IMAGE_HEAT_API_IMAGE_URL_'
                                      'DEFAULT=quay.io/x/y@sha256:12\n')
        code, _, err = self.main('--mappings', sample('image-mappings.yaml'),
                                 '--env-file', bad_env)
        self.assertEqual(22, code)
        self.assert_one_line_error(
            err, bad_env, 'RELATED_IMAGE_HEAT_API_IMAGE_URL_DEFAULT (line 1)')

    def test_unreadable_file_exits_23(self):
        missing = os.path.join(self.tmp, 'absent.json')
        code, _, err = self.main('--mappings', sample('image-mappings.yaml'),
                                 '--version-file', missing)
        self.assertEqual(23, code)
        self.assert_one_line_error(err, missing, 'does not exist')

    def test_usage_errors_exit_2_on_one_line(self):
        code, _, err = self.main('--running', 'heat-api=heatAPIImage')
        self.assertEqual(2, code)
        self.assert_one_line_error(err, '--running needs --kubernetes')
        code, _, err = self.main()
        self.assertEqual(2, code)
        self.assert_one_line_error(err, 'no image mappings file and no '
                                        'deployed references given')
        code, _, err = self.main('--version-file',
                                 sample('openstackversion.json'),
                                 '--target', 'heat/heat-all')
        self.assertEqual(2, code)
        self.assert_one_line_error(err, 'heat/heat-all is not in')
        code, _, err = self.main('--mappings', sample('image-mappings.yaml'),
                                 '--target', 'heat/heat-all')
        self.assertEqual(2, code)
        self.assert_one_line_error(err, 'heat/heat-all is not in')

    def test_help_documents_exit_codes(self):
        code, out, _ = self.main('--help')
        self.assertEqual(0, code)
        for text in ('0   consistent', '1   inconsistent', '2   usage',
                     '22  malformed input', '23  an input could not be read',
                     'heatCfnapiImage', 'tag-vs-digest'):
            self.assertIn(text, out)
