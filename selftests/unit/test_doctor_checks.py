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


"""The doctor's checks: the rows they make of what they found, and whole
runs against loopback stubs of a keystone and a Glance API."""

import contextlib
import io
import json
import os
import socket
import tempfile
from unittest import mock

import fixtures
import testtools

from glance_multiapi_kernel import certmint
from glance_multiapi_tests.doctor import checks
from glance_multiapi_tests.doctor import cli
from glance_multiapi_tests.doctor import keystone
from glance_multiapi_tests.doctor import report
from glance_multiapi_tests.multiapi import discovery
from glance_multiapi_tests.multiapi import probes
from selftests.unit import stub_http

INVALID = 'http://glance-api1-public.openstack.invalid:9292'
VERSIONS = json.dumps({'versions': [{'id': 'v2.16'}]})


class _Glance(stub_http.JsonHandler):

    def do_GET(self):
        self.send_json(300, VERSIONS)


class _Keystone(stub_http.JsonHandler):
    # NOTE: set per test: the password keystone accepts and the catalog.
    password = 'secret'
    catalog = []

    def do_POST(self):
        body = json.loads(self.rfile.read(
            int(self.headers['Content-Length'])))
        given = body['auth']['identity']['password']['user']['password']
        if given != self.password:
            self.send_json(401, json.dumps({'error': {
                'code': 401, 'title': 'Unauthorized',
                'message': 'The request you have made requires '
                           'authentication.'}}))
            return
        data = json.dumps({'token': {
            'methods': ['password'],
            'expires_at': '2999-01-01T00:00:00.000000Z',
            'issued_at': '2000-01-01T00:00:00.000000Z',
            'user': {'id': 'u1', 'name': 'admin',
                     'domain': {'id': 'default', 'name': 'Default'}},
            'project': {'id': 'p1', 'name': 'admin',
                        'domain': {'id': 'default', 'name': 'Default'}},
            'catalog': self.catalog}}).encode()
        self.send_response(201)
        self.send_header('X-Subject-Token', 'token')
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def _service(*endpoints, name='glance'):
    return {'type': 'image', 'name': name, 'id': name,
            'endpoints': [{'interface': interface, 'url': url,
                           'region': 'RegionOne'}
                          for interface, url in endpoints]}


def _deployment(**urls):
    apis = {name: discovery.Api(name=name, endpoints={'public': url})
            for name, url in sorted(urls.items())}
    return discovery.Deployment(apis=apis, keystone_endpoint='api0',
                                source='test')


class EndpointRowsTest(testtools.TestCase):

    def test_api_and_catalog_endpoints_are_both_listed(self):
        deployment = _deployment(api0='http://a:1', api1='http://b:2')
        found = [_service(('public', 'http://a:1'),
                          ('admin', 'http://a:1'))]
        self.assertEqual(
            [('endpoint', 'api0', 'public', 'http://a:1'),
             ('endpoint', 'api1', 'public', 'http://b:2'),
             ('catalog-endpoint', 'api0', 'public', 'http://a:1')],
            checks.endpoint_targets(deployment, found, ['public'],
                                    'RegionOne'))

    def test_failure_marks_every_row_of_its_url(self):
        targets = [('endpoint', 'api1', 'public', INVALID),
                   ('catalog-endpoint', None, 'public', INVALID),
                   ('endpoint', 'api0', 'public', 'http://a:1')]
        failure = probes.Failure(probes.Target('api1', 'public', INVALID),
                                 'DNS', 'Name or service not known')
        rows = checks.endpoint_rows(targets, [failure])
        self.assertEqual(['FAIL', 'FAIL', 'OK'], [r.status for r in rows])
        self.assertEqual('DNS: Name or service not known', rows[1].message)
        self.assertEqual(report.EXIT_PROBLEM, rows[0].exit_code)

    def test_nothing_to_probe_is_a_skip(self):
        rows = checks.check_endpoints([], 1, None)
        self.assertEqual([report.SKIP], [r.status for r in rows])


class CatalogRowsTest(testtools.TestCase):

    def test_keystone_endpoint_api_alone_is_ok(self):
        rows = checks.catalog_rows([_service(('public', 'http://a:1'))],
                                   _deployment(api0='http://a:1',
                                               api1='http://b:2'),
                                   ['public'], None)
        self.assertEqual([report.OK], [r.status for r in rows])

    def test_each_ownership_problem_is_a_row(self):
        found = [_service(('public', 'http://a:1')),
                 _service(('public', 'http://b:2'), name='glance-api1')]
        rows = checks.catalog_rows(found, _deployment(
            api0='http://a:1', api1='http://b:2'), ['public'], None)
        self.assertEqual(2, len(rows))
        self.assertIn('holds 2 services', rows[0].message)
        self.assertIn("api1's public endpoint", rows[1].message)

    def test_without_discovery_only_the_count(self):
        found = [_service(('public', 'http://a:1')),
                 _service(('public', 'http://b:2'), name='other')]
        rows = checks.catalog_rows(found, None, ['public'], None)
        self.assertEqual(report.FAIL, rows[0].status)
        self.assertIn('holds 2 services of type image', rows[0].message)

    def test_unread_catalog_is_a_skip(self):
        rows = checks.catalog_rows(None, None, ['public'], None)
        self.assertEqual(report.SKIP, rows[0].status)


class DoctorRunTest(testtools.TestCase):
    """checks.run and cli.main over a stub keystone and Glance."""

    def setUp(self):
        super().setUp()
        self.glance = 'http://127.0.0.1:%d' % stub_http.serve(self, _Glance)
        self.catalog = [_service(('public', self.glance))]
        handler = type('K', (_Keystone,), {'catalog': self.catalog})
        self.keystone = 'http://127.0.0.1:%d/v3' % stub_http.serve(
            self, handler)

    def conf(self, password='secret', keystone=None, **multiapi):
        options = {'api_names': 'api0,api1',
                   'public_endpoints': 'api0:%s,api1:%s' % (
                       self.glance, self.glance),
                   'keystone_endpoint': 'api0', 'probe_timeout': '2'}
        options.update(multiapi)
        text = '[identity]\nuri_v3 = %s\n[auth]\nadmin_username = admin\n' \
               'admin_password = %s\nadmin_project_name = admin\n' \
               '[glance_multiapi]\n%s' % (
                   keystone or self.keystone, password,
                   ''.join('%s = %s\n' % item
                           for item in sorted(options.items())))
        fd, path = tempfile.mkstemp(suffix='.conf')
        self.addCleanup(os.unlink, path)
        with os.fdopen(fd, 'w') as f:
            f.write(text)
        return path

    def main(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(err):
            try:
                code = cli.main(list(argv))
            except SystemExit as exc:
                code = exc.code
        return code, out.getvalue(), err.getvalue()

    def statuses(self, outcome):
        return [(c.name, c.status, c.api) for c in outcome.checks]

    def broken(self):
        """A config whose api1 public endpoint never resolves."""
        return self.conf(public_endpoints='api0:%s,api1:%s' % (
            self.glance, INVALID))

    def test_unresolvable_api_endpoint_is_exit_one(self):
        outcome = checks.run(checks.Inputs(config_file=self.broken()))
        self.assertEqual([
            ('config', 'OK', None), ('discovery', 'OK', None),
            ('keystone', 'OK', None), ('endpoint', 'OK', 'api0'),
            ('endpoint', 'FAIL', 'api1'),
            ('catalog-endpoint', 'OK', 'api0'), ('catalog', 'OK', None)],
            self.statuses(outcome))
        self.assertEqual(1, report.exit_code(outcome.checks))
        self.assertEqual(INVALID, outcome.checks[4].url)
        self.assertTrue(outcome.checks[4].message.startswith('DNS: '))

    def test_healthy_is_exit_zero_and_json_ok(self):
        code, out, err = self.main('--config-file', self.conf(), '-o',
                                   'json')
        self.assertEqual(0, code, out + err)
        self.assertTrue(json.loads(out)['ok'])
        self.assertEqual('', err)

    def test_wrong_password_is_one_line_and_25(self):
        code, out, _ = self.main('--config-file', self.conf('wrong'))
        self.assertEqual(25, code)
        failed = [line for line in out.splitlines()
                  if line.startswith('FAIL')]
        self.assertEqual(1, len(failed), out)
        self.assertIn('refused the credentials of user admin (project '
                      'admin)', failed[0])
        self.assertNotIn('Request-ID', failed[0])

    def test_keystone_unreachable_is_24(self):
        keystone = 'http://127.0.0.1:%d/v3' % _free_port()
        code, out, _ = self.main('--config-file',
                                 self.conf(keystone=keystone))
        self.assertEqual(24, code)
        self.assertIn('FAIL keystone         %s: TCP: ' % keystone, out)
        self.assertIn('Connection refused', out)

    def test_discovery_error_is_23(self):
        conf = self.conf(api_types='api0:bogus')
        code, out, _ = self.main('--config-file', conf)
        self.assertEqual(23, code)
        self.assertIn("FAIL discovery        [glance_multiapi]: api_types: "
                      "api0: 'bogus' is not one of", out)

    def test_missing_config_file_is_22_on_one_line(self):
        code, out, _ = self.main('--config-file', '/nonexistent/t.conf')
        self.assertEqual(22, code)
        self.assertEqual(
            ['FAIL config           tempest.conf /nonexistent/t.conf does '
             'not exist',
             'glance-multiapi-doctor: FAILED (exit 22): 1 of 1 check(s) '
             'failed'], out.splitlines())

    def test_bad_option_value_names_group_and_option(self):
        code, out, _ = self.main('--config-file',
                                 self.conf(probe_timeout='fast'))
        self.assertEqual(22, code)
        self.assertIn('[glance_multiapi] probe_timeout: invalid value: '
                      "could not convert string to float: 'fast'", out)
        self.assertNotIn('LocationInfo', out)

    def test_missing_credentials_is_22(self):
        code, out, _ = self.main('--config-file', self.conf(password=''))
        self.assertEqual(22, code)
        self.assertIn('[auth] admin_password unset (or give --os-cloud)',
                      out)

    def test_no_input_is_a_usage_error(self):
        code, _, err = self.main()
        self.assertEqual(2, code)
        self.assertEqual(1, len(err.splitlines()), err)

    def test_output_file_gets_json_and_stdout_text(self):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path, 'sub',
                            'd.json')
        code, out, _ = self.main('--config-file', self.broken(), '-o',
                                 'json',
                                 '--output-file', path)
        self.assertEqual(1, code)
        with open(path) as f:
            self.assertFalse(json.load(f)['ok'])
        self.assertIn('FAIL endpoint         api1 public %s' % INVALID, out)

    def test_json_on_stdout_puts_the_verdict_on_stderr(self):
        code, out, err = self.main('--config-file', self.broken(), '-o',
                                   'json')
        self.assertEqual(1, code)
        self.assertEqual('FAIL', json.loads(out)['checks'][4]['status'])
        self.assertIn('first: endpoint api1 public %s: DNS: ' % INVALID,
                      err)

    def test_unexpected_error_is_one_line_and_70(self):
        with mock.patch.object(checks, 'run',
                               side_effect=KeyError('boom')):
            code, out, err = self.main('--config-file', self.conf())
        self.assertEqual(70, code)
        self.assertEqual("glance-multiapi-doctor: internal error: "
                         "KeyError: 'boom'\n", err)

    def test_negative_probe_timeout_is_22_naming_it(self):
        code, out, err = self.main('--config-file',
                                   self.conf(probe_timeout='-3'), '-o',
                                   'json')
        self.assertEqual(22, code, err)
        self.assertEqual(
            '[glance_multiapi] probe_timeout: invalid value: -3.0 seconds '
            'is not positive',
            json.loads(out)['checks'][0]['message'].partition(': ')[2])

    def test_zero_timeouts_are_22_not_false_failures(self):
        for name in ('probe_timeout', 'kubernetes_timeout',
                     'command_timeout'):
            code, out, _ = self.main('--config-file',
                                     self.conf(**{name: '0'}))
            self.assertEqual(22, code, out)
            self.assertIn('FAIL config', out)
            self.assertIn('[glance_multiapi] %s: invalid value: 0' % name,
                          out)

    def test_identity_port_out_of_range_is_22(self):
        keystone = 'http://127.0.0.1:99999/v3'
        code, out, err = self.main('--config-file',
                                   self.conf(keystone=keystone))
        self.assertEqual(22, code, err)
        self.assertIn("[identity] uri_v3: invalid URL '%s': Port out of "
                      "range" % keystone, out)
        # NOTE: and one line on stderr, for a log that shows only that.
        self.assertEqual(1, len(err.splitlines()), err)
        self.assertIn('first: config', err)

    def test_cloud_without_cacert_verifies_with_the_configured_bundle(self):
        # NOTE: keystone-operator's clouds.yaml names no cacert; in a venv
        # requests from PyPI would verify with certifi's bundle instead.
        folder = self.useFixture(fixtures.TempDir()).path
        clouds = os.path.join(folder, 'clouds.yaml')
        body = ('clouds:\n  c:\n    auth:\n      auth_url: https://'
                '127.0.0.1:5000/v3\n      username: a\n      password: b\n'
                '      project_name: c\n')
        with open(clouds, 'w') as f:
            f.write(body)
        self.useFixture(fixtures.EnvironmentVariable(
            'OS_CLIENT_CONFIG_FILE', clouds))
        access = keystone.from_cloud('c', cafile='/pem/bundle.pem')
        self.assertEqual('/pem/bundle.pem', access.cafile)
        self.assertEqual('/pem/bundle.pem', access.make_session(5).verify)
        self.useFixture(fixtures.MockPatch(
            'glance_multiapi_tests.common.trust.system_ca',
            return_value='/etc/system.pem'))
        self.assertEqual('/etc/system.pem', keystone.from_cloud(
            'c').make_session(5).verify)
        # NOTE: a cacert clouds.yaml names must be there (issue 47's
        # reader checks it before openstacksdk does).
        own = os.path.join(folder, 'own.pem')
        with open(own, 'wb') as f:
            f.write(certmint.make_ca('own CA')[0])
        with open(clouds, 'w') as f:
            f.write(body + '    cacert: %s\n' % own)
        self.assertEqual(own, keystone.from_cloud(
            'c', cafile='/pem/bundle.pem').make_session(5).verify)
        with open(clouds, 'w') as f:
            f.write(body + '    verify: false\n')
        self.assertFalse(keystone.from_cloud(
            'c', cafile='/pem/bundle.pem').make_session(5).verify)

    def test_cloud_auth_url_port_out_of_range_is_22(self):
        folder = self.useFixture(fixtures.TempDir()).path
        clouds = os.path.join(folder, 'clouds.yaml')
        with open(clouds, 'w') as f:
            f.write('clouds:\n  bad:\n    auth:\n      auth_url: '
                    'http://127.0.0.1:99999/v3\n      username: a\n'
                    '      password: b\n      project_name: c\n')
        self.useFixture(fixtures.EnvironmentVariable(
            'OS_CLIENT_CONFIG_FILE', clouds))
        code, out, err = self.main('--os-cloud', 'bad')
        self.assertEqual(22, code, err)
        self.assertIn('FAIL keystone         --os-cloud bad: clouds.yaml %s: '
                      "clouds.bad.auth.auth_url: invalid URL 'http://127.0."
                      "0.1:99999/v3': Port out of range" % clouds, out)

    def test_config_file_not_utf8_is_22_naming_the_line(self):
        path = self.conf()
        with open(path, 'ab') as f:
            f.write(b'# caf\xe9\n')
        code, out, err = self.main('--config-file', path)
        self.assertEqual(22, code, err)
        with open(path, 'rb') as f:
            lines = f.read().count(b'\n')
        self.assertIn('FAIL config           tempest.conf %s is not UTF-8 '
                      '(line %d, column 6: byte 0xe9 at offset' % (
                          path, lines), out)

    def test_endpoint_option_that_is_no_url_is_22_naming_it(self):
        for value, needle in (('http://[::1', 'Invalid IPv6 URL'),
                              ('http://', 'no host'),
                              ('ftp://x/', 'not http:// or https://')):
            code, out, err = self.main('--config-file', self.conf(
                api_names='api0', public_endpoints='api0:' + value))
            self.assertEqual(22, code, out)
            self.assertIn('[glance_multiapi] public_endpoints: api0: invalid '
                          'URL', out)
            self.assertIn(needle, out)

    def test_non_finite_float_options_are_22(self):
        for name in ('convergence_interval', 'pod_watch_interval'):
            for value in ('nan', 'inf', '-1'):
                code, out, err = self.main('--config-file', self.conf(
                    **{name: value}))
                self.assertEqual(22, code, out)
                self.assertIn('[glance_multiapi] %s: invalid value' % name,
                              out)

    def test_internal_error_still_writes_the_json_report(self):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'd.json')
        with mock.patch.object(checks, 'run',
                               side_effect=KeyError('boom')):
            code, out, err = self.main('--config-file', self.conf(), '-o',
                                       'json')
            self.assertEqual(70, code)
            code, text, _ = self.main('--config-file', self.conf(), '-o',
                                      'json', '--output-file', path)
        self.assertEqual(70, code)
        with open(path) as f:
            written = json.load(f)
        for document in (json.loads(out), written):
            self.assertFalse(document['ok'])
            self.assertEqual(70, document['exit_code'])
            self.assertEqual("internal error: KeyError: 'boom'",
                             document['checks'][0]['message'])
        self.assertIn("FAIL doctor           internal error: KeyError: "
                      "'boom'", text)
        self.assertEqual("glance-multiapi-doctor: internal error: "
                         "KeyError: 'boom'\n", err)
