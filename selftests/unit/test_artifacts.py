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

"""Artifacts of a cloud: what is kept, and that secrets are masked."""

import json
import os

import fixtures
import testtools
import yaml

from selftests import artifacts

TEMPEST_CONF = """[auth]
admin_username = admin
admin_password = MO2dVB8s9XW65a6y
use_dynamic_credentials = True

[identity]
password_hash_rounds = 4
uri_v3 = http://127.0.0.1:30352/v3

[glance_multiapi]
keystone_endpoint = api0
kubeconfig = /state/kubeconfig
"""

CLOUDS_YAML = """clouds:
  admin:
    auth:
      password: MO2dVB8s9XW65a6y
      username: admin
  demo:
    auth:
      "password": 'eStSPt2cLj5HuS9S'
      username: demo
"""

KUBECONFIG = """apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: LS0tQ0E=
    server: https://127.0.0.1:30364
users:
- name: glance-multiapi-tests
  user:
    client-key-data: LS0tS0VZLS0t
    token: LhTM6lpeFeqF2XSs_0QcKJ4P
"""


class SecretKeyTest(testtools.TestCase):

    def test_names_of_secrets(self):
        for name in ('password', 'admin_password', 'OS_PASSWORD',
                     'adminPassword', 'stack_domain_admin_password',
                     'token', 'auth-token', 'client-key-data', 'secret',
                     'client_secret', 'api_key', 'api_keys', 'passwd'):
            self.assertTrue(artifacts.secret_key(name), name)

    def test_names_that_only_mention_a_secret_word(self):
        for name in ('password_hash_rounds', 'keystone_endpoint',
                     'auth_type', 'certificate-authority-data',
                     'fernet_key_repository', 'kubeconfig', 'data',
                     'keys_count', 'username', 'use_dynamic_credentials'):
            self.assertFalse(artifacts.secret_key(name), name)


class MaskTest(testtools.TestCase):

    def test_ini_values_masked_others_kept(self):
        text, found = artifacts.mask_settings(TEMPEST_CONF)
        self.assertIn('admin_password = ***\n', text)
        self.assertNotIn('MO2dVB8s9XW65a6y', text)
        self.assertIn('password_hash_rounds = 4\n', text)
        self.assertIn('keystone_endpoint = api0\n', text)
        self.assertEqual({'MO2dVB8s9XW65a6y'}, found)
        self.assertEqual(len(TEMPEST_CONF.splitlines()),
                         len(text.splitlines()))

    def test_yaml_values_masked_quotes_and_indent_kept(self):
        text, found = artifacts.mask_settings(CLOUDS_YAML)
        # NOTE: quoted, as a plain *** is a YAML alias (invalid here).
        self.assertIn("      password: '***'\n", text)
        self.assertIn('      "password": \'***\'\n', text)
        self.assertIn('      username: demo\n', text)
        self.assertEqual({'MO2dVB8s9XW65a6y', 'eStSPt2cLj5HuS9S'}, found)
        self.assertEqual('***', yaml.safe_load(text)['clouds']['admin'][
            'auth']['password'])

    def test_kubeconfig_token_and_client_key_masked(self):
        text, found = artifacts.mask_settings(KUBECONFIG)
        self.assertIn("    token: '***'\n", text)
        self.assertIn("    client-key-data: '***'\n", text)
        self.assertIn('certificate-authority-data: LS0tQ0E=', text)
        self.assertEqual({'LhTM6lpeFeqF2XSs_0QcKJ4P', 'LS0tS0VZLS0t'},
                         found)
        self.assertEqual({'client-key-data': '***', 'token': '***'},
                         yaml.safe_load(text)['users'][0]['user'])

    def test_json_stays_json(self):
        document = json.dumps({'kube': {'token': 'LhTM6lpeFeqF2XSs'},
                               'passwords': {'admin': 'MO2dVB8s9X'},
                               'port': 1}, indent=2)
        text, found = artifacts.mask_settings(document)
        self.assertEqual({'kube': {'token': '***'},
                          'passwords': {'admin': 'MO2dVB8s9X'}, 'port': 1},
                         json.loads(text))
        self.assertEqual({'LhTM6lpeFeqF2XSs'}, found)

    def test_crlf_line_endings_kept(self):
        text, _found = artifacts.mask_settings('password = x1234\r\na = b')
        self.assertEqual('password = ***\r\na = b', text)

    def test_mask_text_hides_values_anywhere_and_url_passwords(self):
        text = artifacts.mask_text(
            'auth with MO2dVB8s9XW65a6y ok\n'
            'transport_url = rabbit://guest:guest@127.0.0.1:30353/\n'
            'http://127.0.0.1:30352/v3 stays\n',
            {'MO2dVB8s9XW65a6y', 'x'})
        self.assertEqual('auth with *** ok\n'
                         'transport_url = rabbit://guest:***@127.0.0.1:'
                         '30353/\nhttp://127.0.0.1:30352/v3 stays\n', text)

    def test_short_values_are_not_masked_everywhere(self):
        self.assertEqual('a 1 b', artifacts.mask_text('a 1 b', {'1'}))

    def test_flow_style_yaml_masked_and_still_yaml(self):
        text, found = artifacts.mask_settings(
            'clouds:\n  admin:\n'
            '    auth: {username: admin, password: InlineFlowPass}\n'
            '    region_name: RegionOne\n')
        self.assertNotIn('InlineFlowPass', text)
        self.assertEqual({'clouds': {'admin': {
            'auth': {'username': 'admin', 'password': '***'},
            'region_name': 'RegionOne'}}}, yaml.safe_load(text))
        self.assertEqual({'InlineFlowPass'}, found)

    def test_block_scalar_text_masked_and_still_yaml(self):
        for header in ('>-', '|', '>', '|+'):
            text, found = artifacts.mask_settings(
                'auth:\n  password: %s\n    FoldedPassword\n'
                '  username: admin\n' % header)
            self.assertNotIn('FoldedPassword', text, header)
            self.assertEqual({'auth': {'password': '***',
                                       'username': 'admin'}},
                             yaml.safe_load(text), header)
            self.assertIn('FoldedPassword', {f.strip() for f in found})

    def test_block_scalar_text_masked_in_a_text_that_is_not_yaml(self):
        text, found = artifacts.mask_settings(
            '[x]\nstuff\npassword: >-\n  FoldedPassword\n  More1\n'
            'after = 1\n')
        self.assertEqual("[x]\nstuff\npassword: '***'\nafter = 1\n", text)
        self.assertEqual({'FoldedPassword', 'More1'}, found)

    def test_yaml_layout_and_comments_kept_when_line_masking_does(self):
        text, found = artifacts.mask_settings(
            '# made by the cloud\nauth:\n  password: Secr3tXYZ  # pw\n')
        self.assertEqual(
            "# made by the cloud\nauth:\n  password: '***'  # pw\n", text)
        self.assertEqual({'Secr3tXYZ'}, found)

    def test_json_lines_masked_as_json(self):
        text, found = artifacts.mask_settings(
            '{"verb": "create", "object": {"spec": {"token": "AuditTok1"}}}\n'
            '{"verb": "get"}\n')
        first, second = text.splitlines()
        self.assertEqual({'spec': {'token': '***'}},
                         json.loads(first)['object'])
        self.assertEqual('{"verb": "get"}', second)
        self.assertEqual({'AuditTok1'}, found)

    def test_switches_named_like_secrets_stay_readable(self):
        text, found = artifacts.mask_settings(
            'use_token = True\npassword: null\n')
        self.assertEqual('use_token = True\npassword: null\n', text)
        self.assertEqual(set(), found)

    def test_url_passwords_holding_a_slash(self):
        self.assertEqual(
            'connection = mysql+pymysql://keystone:***@127.0.0.1/keystone\n'
            'GET http://admin:***@127.0.0.1:9292/v2\n',
            artifacts.mask_text(
                'connection = mysql+pymysql://keystone:Db/Pass+w@127.0.0.1'
                '/keystone\nGET http://admin:UrlPa/ss@127.0.0.1:9292/v2\n'))

    def test_url_port_and_path_are_no_password(self):
        for text in ('pull docker://registry:5000/img@sha256:abcd',
                     'http://h:80/a@b',
                     '{"url":"http://h:8080","user":"a@b"}'):
            self.assertEqual(text, artifacts.mask_text(text))

    def test_tokens_on_command_lines_and_headers(self):
        self.assertEqual(
            'patch_command = oc --token=*** patch glance\n'
            'run oc --token *** get glance\n'
            'curl -H \'Authorization: Bearer ***\' http://x\n'
            'Bearer *** sent\n'
            '["oc", "--token", "***", "-n", "ns"]\n'
            'openstack --os-password "***" --password=\'***\'\n'
            'REQ: curl -H "X-Auth-Token: ***" -H "Accept: x"\n'
            'login with ***\n',
            artifacts.mask_text(
                'patch_command = oc --token=sha256~abc patch glance\n'
                'run oc --token abc get glance\n'
                'curl -H \'Authorization: Bearer abc\' http://x\n'
                'Bearer abc sent\n'
                '["oc", "--token", "abc", "-n", "ns"]\n'
                'openstack --os-password "pa ss" --password=\'qq\'\n'
                'REQ: curl -H "X-Auth-Token: gAAAAB" -H "Accept: x"\n'
                'login with sha256~xyz\n'))

    def test_options_that_only_mention_a_secret_stay(self):
        text = 'oc --token-file /var/run/token --key-file k.pem get pods'
        self.assertEqual(text, artifacts.mask_text(text))

    def test_a_value_masked_in_yaml_keeps_it_yaml(self):
        text, found = artifacts.mask_document(
            'users:\n  admin: Sh4redSecret\n  all: [Sh4redSecret]\n',
            {'Sh4redSecret'})
        self.assertEqual({'users': {'admin': '***', 'all': ['***']}},
                         yaml.safe_load(text))
        self.assertEqual(set(), found)

    def test_a_log_is_never_rewritten_as_yaml(self):
        log = 'a x: 1\nb password: x1\nc Bearer tok1\n'
        text, _found = artifacts.mask_document(log, log=True)
        self.assertEqual('a x: 1\nb password: x1\nc Bearer ***\n', text)

    def test_mask_file_in_place(self):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'clouds.yaml')
        with open(path, 'w') as f:
            f.write('auth: {username: admin, password: InlineFlowPass}\n'
                    'note: uses MO2dVB8s9X\n')
        self.assertEqual({'InlineFlowPass'}, artifacts.mask_file_in_place(
            path, {'MO2dVB8s9X'}))
        with open(path) as f:
            self.assertEqual({'auth': {'username': 'admin',
                                       'password': '***'},
                              'note': 'uses ***'}, yaml.safe_load(f))


class CollectTest(testtools.TestCase):
    """collect() on a made-up state dir shaped like the cloud's."""

    def setUp(self):
        super().setUp()
        root = self.useFixture(fixtures.TempDir()).path
        self.state = os.path.join(root, 'cloud')
        self.dest = os.path.join(root, 'artifacts')
        files = {
            'tempest/etc/tempest.conf': TEMPEST_CONF,
            'clouds.yaml': CLOUDS_YAML,
            'kubeconfig': KUBECONFIG,
            'tempest/logs/tempest.log': 'POST with eStSPt2cLj5HuS9S\n',
            'logs/keystone.log': 'token LhTM6lpeFeqF2XSs_0QcKJ4P issued\n',
            'logs/glance-api0.log': 'started\n',
            'rabbitmq/log/node@localhost.log': 'up\n',
            'glance/apis/api1/glance-api.conf':
                '[keystone_authtoken]\npassword = nzjuT7YeSjzQjJEE\n',
            'kubeapi-audit.log': '{"verb": "get"}\n',
            'state.json': json.dumps({
                'passwords': {'glance': 'nzjuT7YeSjzQjJEE',
                              'heat': 'SGuQWQkbOADSDtwJ'},
                'kube': {'token': 'LhTM6lpeFeqF2XSs_0QcKJ4P'}}),
        }
        for path, text in files.items():
            full = os.path.join(self.state, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, 'w') as f:
                f.write(text)
        self.secrets = ['MO2dVB8s9XW65a6y', 'eStSPt2cLj5HuS9S',
                        'LhTM6lpeFeqF2XSs_0QcKJ4P', 'LS0tS0VZLS0t',
                        'nzjuT7YeSjzQjJEE', 'SGuQWQkbOADSDtwJ']

    def assertNoSecret(self):
        for folder, _dirs, files in os.walk(self.dest):
            for name in files:
                with open(os.path.join(folder, name)) as f:
                    text = f.read()
                for secret in self.secrets:
                    self.assertNotIn(secret, text, name)

    def test_configuration_only_when_the_run_passed(self):
        written = artifacts.collect(self.state, self.dest, logs=False)
        self.assertEqual(['tempest.conf', 'clouds.yaml'], written)
        self.assertNoSecret()

    def test_logs_and_configuration_when_the_run_failed(self):
        written = artifacts.collect(self.state, self.dest, logs=True)
        self.assertEqual(
            ['tempest.conf', 'clouds.yaml', 'tempest.log',
             'kubeapi-audit.log', 'logs/glance-api0.log',
             'logs/keystone.log', 'logs/rabbitmq/node@localhost.log',
             'etc/kubeconfig', 'etc/state.json', 'etc/glance-api1.conf'],
            written)
        self.assertNoSecret()
        with open(os.path.join(self.dest, 'logs', 'keystone.log')) as f:
            self.assertEqual('token *** issued\n', f.read())
        with open(os.path.join(self.dest, 'etc', 'state.json')) as f:
            self.assertEqual({'glance': '***', 'heat': '***'},
                             json.load(f)['passwords'])

    def test_leaks_found_in_review_are_masked(self):
        files = {
            'clouds.yaml':
                'clouds:\n  admin:\n'
                '    auth: {username: admin, password: InlineFlowPass}\n'
                '  demo:\n    auth:\n      username: demo\n'
                '      password: >-\n        FoldedPassword\n',
            'keystone/keystone.conf':
                '[database]\nconnection = mysql+pymysql://keystone:'
                'Db/Pass+w@127.0.0.1/keystone\n',
            'tempest/logs/tempest.log':
                'login InlineFlowPass then FoldedPassword\n'
                'run oc --token=sha256~abc get glance\n'
                'run oc --token abc get glance\n'
                'GET http://admin:UrlPa/ss@127.0.0.1:9292/v2\n'
                "curl -H 'Authorization: Bearer abc' http://x\n",
        }
        for path, text in files.items():
            full = os.path.join(self.state, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, 'w') as f:
                f.write(text)
        self.secrets += ['InlineFlowPass', 'FoldedPassword', 'Db/Pass+w',
                         'UrlPa/ss', 'sha256~abc', 'abc ', 'Bearer abc']
        artifacts.collect(self.state, self.dest, logs=True)
        self.assertNoSecret()
        with open(os.path.join(self.dest, 'clouds.yaml')) as f:
            clouds = yaml.safe_load(f)['clouds']
        self.assertEqual({'username': 'admin', 'password': '***'},
                         clouds['admin']['auth'])
        self.assertEqual({'username': 'demo', 'password': '***'},
                         clouds['demo']['auth'])
        with open(os.path.join(self.dest, 'tempest.log')) as f:
            self.assertEqual(
                'login *** then ***\nrun oc --token=*** get glance\n'
                'run oc --token *** get glance\n'
                'GET http://admin:***@127.0.0.1:9292/v2\n'
                "curl -H 'Authorization: Bearer ***' http://x\n", f.read())

    def test_missing_files_are_left_out(self):
        self.assertEqual([], artifacts.collect(
            os.path.join(self.state, 'nothing'), self.dest, logs=True))
