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

"""The Tempest CR as test-operator and tcib's run_tempest.sh pass it on.

The expansion model is checked against the real bash and GNU xargs of
this machine, fed the same text the way run_tempest.sh feeds them.
"""

import json
import os
import shutil
import subprocess
import sys

import fixtures
import testtools
import yaml

from selftests.manifests import tcib_pod
from selftests.unit import manifest_tools

CR = os.path.join(manifest_tools.ETC, 'tempest-glance-multiapi.yaml')

# NOTE: the lines of run_tempest.sh (tcib 4b51b359) that expand the
# overrides and run xargs, with python printing the argv it got.
BASH_MODEL = r'''
cd "$FIRST_CWD"
O="$(echo ${TEMPESTCONF_OVERRIDES} | tr '\n' ' ') identity.v3_endpoint_type public "
O+="DEFAULT.log_dir ${LOGS} "
cd "$SECOND_CWD"
f() {
    cat <<EOF | xargs "$PYTHON" -c 'import json, sys; print(json.dumps(sys.argv[1:]))'
$*
EOF
}
f ${ARGS} ${O}
'''  # noqa: E501


def shipped_cr():
    with open(CR) as stream:
        return yaml.safe_load(stream)


def cr_with(**tempestconf_run):
    return {'metadata': {'name': 'glance-multiapi'},
            'spec': {'tempestconfRun': tempestconf_run,
                     'tempestRun': {'includeList': 'x.*\n'}}}


class PodEnvTest(testtools.TestCase):

    def test_shipped_cr(self):
        env, files = tcib_pod.pod_env(shipped_cr())
        self.assertEqual({'include.txt': 'glance_multiapi_tests.*\n'},
                         files)
        self.assertEqual('/etc/test_operator/include.txt',
                         env['TEMPEST_INCLUDE_LIST'])
        self.assertNotIn('TEMPEST_EXCLUDE_LIST', env)
        self.assertEqual('2', env['TEMPEST_CONCURRENCY'])
        self.assertEqual('glance-multiapi',
                         env['TEMPEST_WORKFLOW_STEP_DIR_NAME'])
        self.assertEqual('-,', env['TEMPEST_EXTERNAL_PLUGIN_REFSPEC'])

    def test_crd_defaults_debug_off_create_on(self):
        # NOTE: test-operator always sets TEMPESTCONF_DEBUG, to the CRD
        # default false, so run_tempest.sh's own default (true) never
        # applies in a test-operator pod.
        env, _ = tcib_pod.pod_env({'spec': {}})
        self.assertEqual(('true', 'false'), (env['TEMPESTCONF_CREATE'],
                                             env['TEMPESTCONF_DEBUG']))
        self.assertEqual(['--create'], tcib_pod.tempestconf_argv(env)[:1])
        self.assertNotIn('--debug', tcib_pod.tempestconf_argv(env))
        self.assertEqual('identity.v3_endpoint_type public',
                         env['TEMPESTCONF_OVERRIDES'])
        self.assertEqual('tempest.api.identity.v3',
                         tcib_pod.pod_env({'spec': {}})[1]['include.txt'])

    def test_unset_run_tempest_defaults(self):
        argv = tcib_pod.tempestconf_argv({})
        self.assertEqual(['--create', '--debug'], argv[:2])

    def test_two_plugins_and_a_change(self):
        cr = {'spec': {'tempestRun': {'externalPlugin': [
            {'repository': 'https://a/x.git'},
            {'repository': 'https://a/y.git', 'changeRepository': 'c',
             'changeRefspec': 'refs/1'}]}}}
        env, _ = tcib_pod.pod_env(cr)
        self.assertEqual('https://a/x.git,https://a/y.git,',
                         env['TEMPEST_EXTERNAL_PLUGIN_GIT_URL'])
        self.assertEqual('-,refs/1,', env['TEMPEST_EXTERNAL_PLUGIN_REFSPEC'])

    def test_image_and_ints(self):
        env, _ = tcib_pod.pod_env(cr_with(image='/x/i.qcow2', timeout=0,
                                          flavorMinMem=64))
        argv = tcib_pod.tempestconf_argv(env)
        self.assertIn('--image', argv)
        self.assertEqual('/x/i.qcow2', argv[argv.index('--image') + 1])
        self.assertNotIn('--timeout', argv)
        self.assertEqual('64', argv[argv.index('--flavor-min-mem') + 1])

    def test_tempest_run_argv_without_exclude_list(self):
        env, _ = tcib_pod.pod_env(shipped_cr())
        self.assertEqual(
            ['--include-list', '/etc/test_operator/include.txt',
             '--concurrency', '2',
             '--exclude-list', '/var/lib/tempest/external_files//exclude.txt'],
            tcib_pod.tempest_run_argv(env))

    def test_logs_dir_keeps_the_double_slash(self):
        env, _ = tcib_pod.pod_env(shipped_cr())
        self.assertEqual('/var/lib/tempest/external_files//glance-multiapi/',
                         tcib_pod.logs_dir(env))


class OverridePairsTest(testtools.TestCase):

    def pairs(self, overrides):
        env, _ = tcib_pod.pod_env(cr_with(overrides=overrides))
        return tcib_pod.override_pairs_as_passed(env)

    def test_shipped(self):
        env, _ = tcib_pod.pod_env(shipped_cr())
        pairs = tcib_pod.override_pairs_as_passed(env)
        self.assertIn(('glance_multiapi.kubernetes_api', 'true'), pairs)
        self.assertEqual(('identity.v3_endpoint_type', 'public'), pairs[-2])
        self.assertEqual('DEFAULT.log_dir', pairs[-1][0])

    def test_single_quoted_json_value(self):
        self.assertEqual(('a.b', '{"type": "split"}'),
                         self.pairs('a.b \'{"type": "split"}\'')[0])

    def test_blanks_inside_quotes_collapse(self):
        # NOTE: the unquoted echo joins words with one blank.
        self.assertEqual(('a.b', 'x y'), self.pairs("a.b 'x   y'")[0])

    def test_apostrophe_runs_nothing(self):
        error = self.assertRaises(tcib_pod.RenderError, self.pairs,
                                  "a.b don't")
        self.assertIn('unmatched single quote', str(error))

    def test_unquoted_blank_splits_the_value(self):
        error = self.assertRaises(tcib_pod.RenderError, self.pairs,
                                  'a.b x y')
        self.assertIn('odd number of override words', str(error))

    def test_key_without_dot(self):
        error = self.assertRaises(tcib_pod.RenderError, self.pairs,
                                  'ab c')
        self.assertIn("'ab' 'c'", str(error))

    def test_value_starting_with_dash(self):
        error = self.assertRaises(tcib_pod.RenderError, self.pairs,
                                  'a.b --x')
        self.assertIn("'--x'", str(error))
        self.assertEqual(('a.b', '-1'), self.pairs('a.b -1')[0])


class RealShellTest(testtools.TestCase):
    """The model against bash and xargs themselves."""

    CASES = [
        'a.b 1\nc.d two',
        "a.b 'x   y'\n\tc.d \"it's\"",
        'a.b \'{"k": "v w"}\'',
        'a.b x\\ y',
        "a.b ''",
        'a.b *.txt\nc.d [ab]\ne.f nomatch*',
        'a.b \\\\server',
        'a.b "x\\y"',
        '   ',
    ]

    def setUp(self):
        super().setUp()
        if not (shutil.which('bash') and shutil.which('xargs')):
            self.skipTest('needs bash and xargs')
        temp = self.useFixture(fixtures.TempDir()).path
        self.first = os.path.join(temp, 'first')
        self.second = os.path.join(temp, 'second')
        for folder, names in ((self.first, ('one.txt', 'a')),
                              (self.second, ('two.txt', 'three.txt', 'b'))):
            os.makedirs(folder)
            for name in names:
                open(os.path.join(folder, name), 'w').close()

    def bash(self, env):
        run_env = dict(os.environ, FIRST_CWD=self.first,
                       SECOND_CWD=self.second, PYTHON=sys.executable,
                       LOGS=tcib_pod.logs_dir(env),
                       ARGS=tcib_pod.tempestconf_args_text(env),
                       TEMPESTCONF_OVERRIDES=env['TEMPESTCONF_OVERRIDES'],
                       LC_ALL='C')
        result = subprocess.run(['bash', '-c', BASH_MODEL], env=run_env,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE,
                                universal_newlines=True, check=False)
        return result

    def test_model_matches_bash_and_xargs(self):
        for overrides in self.CASES:
            env, _ = tcib_pod.pod_env(cr_with(overrides=overrides))
            result = self.bash(env)
            self.assertEqual(0, result.returncode, result.stderr)
            self.assertEqual(
                json.loads(result.stdout),
                tcib_pod.tempestconf_argv(env, self.first, self.second),
                'overrides %r' % overrides)

    def test_unmatched_quote_truncates_in_both(self):
        env, _ = tcib_pod.pod_env(cr_with(overrides="a.b don't"))
        result = self.bash(env)
        self.assertNotEqual(0, result.returncode)
        self.assertIn('unmatched single quote', result.stderr)
        error = self.assertRaises(tcib_pod.RenderError,
                                  tcib_pod.tempestconf_argv, env)
        # NOTE: xargs still runs the command with what came before.
        self.assertEqual(json.loads(result.stdout), error.partial)


class CloudsYamlTest(testtools.TestCase):

    def test_operator_shape_without_cacert(self):
        clouds, secure = tcib_pod.operator_clouds_yaml({
            'auth': {'auth_url': 'https://k:5000/v3', 'username': 'admin',
                     'password': 'pw', 'project_name': 'admin',
                     'user_domain_id': 'default'},
            'cacert': '/x/ca.crt', 'region_name': 'regionOne'})
        default = clouds['clouds']['default']
        self.assertEqual('https://k:5000', default['auth']['auth_url'])
        self.assertEqual('Default', default['auth']['user_domain_name'])
        self.assertNotIn('password', default['auth'])
        self.assertNotIn('cacert', default)
        self.assertEqual('pw',
                         secure['clouds']['default']['auth']['password'])


class ToolTest(testtools.TestCase):
    """tools/tcib_pod.py, as tools/run-test-operator.sh calls it."""

    def test_env_writes_the_configmap_files(self):
        files = self.useFixture(fixtures.TempDir()).path
        code, out, err = manifest_tools.run(
            self, 'tcib_pod', 'env', '--cr', CR, '--files-dir', files,
            '--set', 'TEMPESTCONF_IMAGE=/x.qcow2')
        self.assertEqual((0, ''), (code, err))
        env = dict(item.split('=', 1) for item in out.split('\0') if item)
        self.assertEqual('/x.qcow2', env['TEMPESTCONF_IMAGE'])
        self.assertEqual('2', env['TEMPEST_CONCURRENCY'])
        with open(os.path.join(files, 'include.txt')) as stream:
            self.assertEqual('glance_multiapi_tests.*\n', stream.read())

    def test_discover_argv_refuses_what_xargs_refuses(self):
        self.useFixture(fixtures.EnvironmentVariable(
            'TEMPESTCONF_OVERRIDES', "a.b it's"))
        code, out, err = manifest_tools.run(self, 'tcib_pod',
                                            'discover-argv')
        self.assertEqual((1, ''), (code, out))
        self.assertIn('unmatched single quote', err)
