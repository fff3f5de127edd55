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

"""A planted password never leaves a console script.

Each console script runs as a real subprocess (cli_runs.ScriptCase) on
input that holds a planted password where users put theirs: a URL's
userinfo, a config file's password option, a kubeconfig's user, a
clouds.yaml, a command line. The password must appear in no line it
prints (stdout, stderr) and no file it writes; the inputs the test
wrote are the only files that may hold it. The uploader's image
property on a real cloud is selftests/functional/test_planted_secrets.
"""

import base64
import json
import os
import socket

import testtools

from glance_multiapi_kernel import redaction
from selftests import cli_runs
from selftests.unit import recorded_runs
from selftests.unit import stub_http

PLANTED = 'Pl4nted-S3cret'
PLANTED_TOO = 'An0ther-S3cret'


def _contents(root, leave_out=()):
    """{path: bytes} of every regular file under root but leave_out."""
    found = {}
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            if path in leave_out or not os.path.isfile(path):
                continue
            with open(path, 'rb') as f:
                found[path] = f.read()
    return found


class SecretCase(cli_runs.ScriptCase):
    """ScriptCase with the check that nothing shows a planted secret."""

    secrets = (PLANTED, PLANTED_TOO)

    def inputs(self):
        """Paths of the files the test wrote as input (they hold it)."""
        return {os.path.join(self.work, name) for name in self.files}

    def assertNoSecret(self, proc, leave_out=()):
        shown = 'exit %d\nstdout: %s\nstderr: %s' % (
            proc.returncode, proc.stdout[-3000:], proc.stderr[-3000:])
        self.assertNotIn('Traceback', proc.stdout + proc.stderr, shown)
        for secret in self.secrets:
            self.assertNotIn(secret, proc.stdout, shown)
            self.assertNotIn(secret, proc.stderr, shown)
            for path, data in _contents(
                    self.work, self.inputs() | set(leave_out)).items():
                self.assertNotIn(secret.encode(), data, path)


class _Baseline(stub_http.JsonHandler):
    """Serves a metrics.json to gate:PLANTED only."""

    body = '{"figures": []}'
    seen = []

    def do_GET(self):
        wanted = 'Basic ' + base64.b64encode(
            ('gate:%s' % PLANTED).encode()).decode()
        self.seen.append(self.headers.get('Authorization'))
        if self.headers.get('Authorization') != wanted:
            self.send_json(401, '{"error": "who are you?"}')
            return
        self.send_json(200, self.body)


# NOTE: what a test of another version (or a hand-edited records file)
# may have recorded: a URL with its userinfo and a config line.
LEAKY_RECORD = {
    'kind': 'verdict', 'v': 1, 't': 1700000100.0, 'pid': 999, 'seq': 1,
    'run': 'run-1', 'run_label': 'tempest', 'test': recorded_runs.full(
        recorded_runs.ENDPOINTS), 'element': 'api:api0', 'status': 'failed',
    'message': 'keystone at http://admin:%s@127.0.0.1:1/v3 refused; '
               'customServiceConfig: [database]\npassword = %s' % (
                   PLANTED, PLANTED_TOO)}


class TestReportKeepsSecrets(SecretCase):

    script = 'glance-multiapi-report'

    def setUp(self):
        super().setUp()
        self.results = os.path.join(self.work, 'results')
        recorded_runs.healthy(self.results)
        leaky = os.path.join(self.results, 'glance-multiapi-records',
                             'leaky.jsonl')
        with open(leaky, 'w') as f:
            f.write(json.dumps(LEAKY_RECORD) + '\n')
        self.given = {leaky}
        _Baseline.seen = []

    def inputs(self):
        return super().inputs() | self.given

    def test_records_quoting_secrets_make_files_without_them(self):
        out = os.path.join(self.work, 'out')
        proc = self.run_script([self.results, out])
        self.assertEqual(0, proc.returncode, proc.stderr)
        self.assertNoSecret(proc)
        with open(os.path.join(out, 'deployment-map.json')) as f:
            self.assertIn('http://admin:***@127.0.0.1:1/v3', f.read())

    def test_baseline_url_password_is_sent_never_shown(self):
        port = stub_http.serve(self, _Baseline)
        out = os.path.join(self.work, 'out')
        proc = self.run_script([
            self.results, out, '--baseline',
            'http://gate:%s@127.0.0.1:%d/metrics.json' % (PLANTED, port)])
        self.assertEqual(0, proc.returncode, proc.stderr)
        self.assertNoSecret(proc)
        self.assertIn('http://gate:***@127.0.0.1:%d/metrics.json' % port,
                      proc.stdout)
        with open(os.path.join(out, 'deployment-map.json')) as f:
            facts = json.load(f)
        self.assertEqual('http://gate:***@127.0.0.1:%d/metrics.json' % port,
                         facts['comparison']['baseline'])
        self.assertEqual(1, len(_Baseline.seen))
        self.assertIsNotNone(_Baseline.seen[0])

    def test_refused_baseline_url_is_named_without_its_password(self):
        port = stub_http.serve(self, _Baseline)
        proc = self.run_script([
            self.results, os.path.join(self.work, 'out'), '--baseline',
            'http://gate:%s-wrong@127.0.0.1:%d/m.json' % (PLANTED, port)])
        self.assertEqual(22, proc.returncode, proc.stderr)
        self.assertNoSecret(proc)
        self.assertIn('http://gate:***@127.0.0.1:%d/m.json' % port,
                      proc.stderr)

    def test_unreachable_baseline_host_is_named_without_its_password(self):
        # NOTE: a port nobody listens on: refused at once.
        with socket.socket() as sock:
            sock.bind(('127.0.0.1', 0))
            port = sock.getsockname()[1]
        proc = self.run_script([
            self.results, os.path.join(self.work, 'out'), '--baseline',
            'http://%s@127.0.0.1:%d/m.json' % (PLANTED, port)])
        self.assertEqual(22, proc.returncode, proc.stderr)
        self.assertNoSecret(proc)


class TestBaselineRequest(testtools.TestCase):
    """The baseline's userinfo is a header; its host is all that resolves."""

    def test_no_name_with_userinfo_reaches_the_resolver(self):
        from glance_multiapi_tests.results.runmap import comparison
        self.addCleanup(redaction.forget_all)
        asked = []
        real = socket.getaddrinfo

        def getaddrinfo(host, *args, **kwargs):
            asked.append(host)
            if host not in ('127.0.0.1', 'localhost'):
                raise socket.gaierror(socket.EAI_NONAME, 'refused by test')
            return real(host, *args, **kwargs)

        port = stub_http.serve(self, _Baseline)
        _Baseline.seen = []
        self.patch(socket, 'getaddrinfo', getaddrinfo)
        figures = comparison.load('http://gate:%s@127.0.0.1:%d/m.json' % (
            PLANTED, port))
        self.assertEqual([], figures)
        self.assertEqual({'127.0.0.1'}, set(asked))


def _closed_port():
    """A loopback port nobody listens on: a connection is refused."""
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def _planted_clouds_yaml(folder):
    """A clouds.yaml in folder whose cloud demo holds both planted secrets.

    Its keystone is a closed loopback port, the password in its URL too.
    """
    clouds = os.path.join(folder, 'clouds.yaml')
    with open(clouds, 'w') as f:
        f.write('clouds:\n  demo:\n    auth:\n      auth_url: http://'
                'admin:%s@127.0.0.1:%d/v3\n      username: admin\n'
                '      password: %s\n      project_name: admin\n'
                '      user_domain_name: Default\n'
                '      project_domain_name: Default\n' % (
                    PLANTED, _closed_port(), PLANTED_TOO))
    return clouds


class TestDoctorKeepsSecrets(SecretCase):

    given = set()

    script = 'glance-multiapi-doctor'

    def setUp(self):
        super().setUp()
        from selftests.unit import test_doctor_checks as doctor
        glance = 'http://127.0.0.1:%d' % stub_http.serve(self, doctor._Glance)
        self.glance_with_userinfo = glance.replace(
            '//', '//reader:%s@' % PLANTED)
        handler = type('K', (doctor._Keystone,), {
            'password': PLANTED_TOO, 'catalog': [doctor._service(
                ('public', self.glance_with_userinfo))]})
        self.keystone = 'http://127.0.0.1:%d/v3' % stub_http.serve(
            self, handler)

    def conf(self, keystone):
        return ('[identity]\nuri_v3 = %s\n[auth]\nadmin_username = admin\n'
                'admin_password = %s\nadmin_project_name = admin\n'
                '[glance_multiapi]\napi_names = api0\nkeystone_endpoint = '
                'api0\nprobe_timeout = 5\npublic_endpoints = api0:%s\n' % (
                    keystone, PLANTED_TOO, self.glance_with_userinfo))

    def run_doctor(self, keystone, *argv):
        path = os.path.join(self.work, 'tempest.conf')
        with open(path, 'w') as f:
            f.write(self.conf(keystone))
        self.given = {path}
        return self.run_script(['--config-file', path] + list(argv))

    def inputs(self):
        return super().inputs() | self.given

    def test_healthy_run_shows_urls_without_passwords(self):
        report = os.path.join(self.work, 'report.json')
        proc = self.run_doctor(
            self.keystone.replace('//', '//admin:%s@' % PLANTED),
            '-o', 'json', '--output-file', report)
        self.assertEqual(0, proc.returncode, proc.stdout + proc.stderr)
        self.assertNoSecret(proc)
        self.assertIn('reader:***@127.0.0.1', proc.stdout)
        with open(report) as f:
            document = json.load(f)
        self.assertIn('http://reader:***@127.0.0.1', json.dumps(document))

    def test_unreachable_keystone_is_named_without_its_password(self):
        proc = self.run_doctor('http://admin:%s@127.0.0.1:%d/v3' % (
            PLANTED, _closed_port()), '-o', 'json')
        self.assertEqual(24, proc.returncode, proc.stdout + proc.stderr)
        self.assertNoSecret(proc)
        self.assertIn('http://admin:***@127.0.0.1:', proc.stdout)

    def test_bad_identity_url_is_named_without_its_password(self):
        proc = self.run_doctor('http://admin:%s@127.0.0.1:99999/v3' %
                               PLANTED)
        self.assertEqual(22, proc.returncode, proc.stdout + proc.stderr)
        self.assertNoSecret(proc)

    def test_clouds_yaml_secrets_are_not_shown(self):
        clouds = _planted_clouds_yaml(self.work)
        self.given = {clouds}
        proc = self.run_script(['--os-cloud', 'demo', '-o', 'json'],
                               env={'OS_CLIENT_CONFIG_FILE': clouds})
        self.assertEqual(24, proc.returncode, proc.stdout + proc.stderr)
        self.assertNoSecret(proc)


KUBECONFIG = '''apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "http://kube:%s@127.0.0.1:%d"}
users:
- name: u
  user: {token: "%s"}
contexts:
- name: x
  context: {cluster: c, user: u, namespace: openstack}
current-context: x
'''


class TestImageCheckKeepsSecrets(SecretCase):

    script = 'glance-multiapi-image-check'
    files = {'kubeconfig': (KUBECONFIG % (PLANTED, _closed_port(),
                                          PLANTED_TOO)).encode()}

    def test_kubeconfig_server_and_token_are_not_shown(self):
        for output in ('table', 'json'):
            proc = self.run_script([
                '--kubernetes', '--kubeconfig', self.fill(
                    '{work}/kubeconfig'), '-o', output])
            self.assertEqual(23, proc.returncode, proc.stderr)
            self.assertNoSecret(proc)
            self.assertIn('http://kube:***@127.0.0.1:', proc.stderr)

    def test_version_command_line_is_not_shown_with_its_token(self):
        proc = self.run_script([
            '--version-command', 'false --token=%s' % PLANTED])
        self.assertEqual(23, proc.returncode, proc.stderr)
        self.assertNoSecret(proc)
        self.assertIn('--token=***', proc.stderr)


MD5 = '0123456789abcdef0123456789abcdef'


class TestUploaderKeepsSecrets(SecretCase):

    script = 'glance-image-uploader'

    def images(self, uri):
        path = os.path.join(self.work, 'images.yaml')
        with open(path, 'w') as f:
            f.write('os_images:\n  cirros:\n    uri: "%s"\n    md5: %s\n'
                    '    image-format: raw\n    password: %s\n' % (
                        uri, MD5, PLANTED_TOO))
        self.given.add(path)
        return path

    def setUp(self):
        super().setUp()
        self.given = set()

    def inputs(self):
        return super().inputs() | self.given

    def test_refused_source_url_is_named_without_its_password(self):
        images = self.images('http://u:%s@127.0.0.1:9/c.img\\0' % PLANTED)
        proc = self.run_script(['--images-info', images])
        self.assertEqual(22, proc.returncode, proc.stderr)
        self.assertNoSecret(proc)
        self.assertIn('os_images.cirros.uri', proc.stderr)

    def test_unreachable_keystone_is_named_without_passwords(self):
        images = self.images('http://u:%s@127.0.0.1:9/c.img?token=%s' % (
            PLANTED, PLANTED))
        clouds = _planted_clouds_yaml(self.work)
        self.given.add(clouds)
        proc = self.run_script(['--images-info', images, '--os-cloud',
                                'demo', '--os-client-config-file', clouds])
        self.assertNotEqual(0, proc.returncode, proc.stderr)
        self.assertNoSecret(proc)
