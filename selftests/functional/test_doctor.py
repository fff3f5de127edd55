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


"""glance-multiapi-doctor against a real embedded cloud.

Healthy, it exits 0 with every check OK; with a fault injected (and
cleared afterwards, the shared cloud's way) it exits 1 naming the API,
interface, URL and the resolver's own words; a keystone that does not
answer or refuses the password is one line and its documented code.
"""

import configparser
import json
import os
import socket
import subprocess

import fixtures

from selftests.functional import base

DOCTOR = os.path.join(base.BIN, 'glance-multiapi-doctor')


def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class DoctorTest(base.CloudTestCase):
    """The doctor's verdicts on the shared cloud."""

    def tempest_conf(self, **changes):
        """The cloud's tempest.conf, or a copy with {group: {opt: val}}."""
        path = os.path.join(self.state_dir, 'tempest', 'etc',
                            'tempest.conf')
        if not changes:
            return path
        conf = configparser.ConfigParser(interpolation=None)
        conf.optionxform = str
        conf.read(path)
        for group, values in changes.items():
            for key, value in values.items():
                conf.set(group, key, str(value))
        copy = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'tempest.conf')
        with open(copy, 'w') as f:
            conf.write(f)
        return copy

    def doctor(self, *args, env=None):
        proc = subprocess.run([DOCTOR] + list(args), capture_output=True,
                              text=True, timeout=300,
                              env=dict(os.environ, **(env or {})))
        self.assertNotIn('Traceback', proc.stdout + proc.stderr)
        return proc

    def failed_lines(self, proc):
        return [line for line in proc.stdout.splitlines()
                if line.startswith('FAIL')]

    def test_healthy_cloud_exits_zero_with_json_ok(self):
        with self.fault():
            proc = self.doctor('--config-file', self.tempest_conf(), '-o',
                               'json')
        self.assertEqual(0, proc.returncode, proc.stdout + proc.stderr)
        doc = json.loads(proc.stdout)
        self.assertTrue(doc['ok'])
        self.assertEqual({'OK'}, {c['status'] for c in doc['checks']})
        names = [c['name'] for c in doc['checks']]
        for name in ('config', 'discovery', 'keystone', 'endpoint',
                     'catalog-endpoint', 'catalog'):
            self.assertIn(name, names)
        self.assertEqual('api0', doc['deployment']['keystone_endpoint'])
        self.assertEqual({'api0', 'api1', 'edge0'},
                         set(doc['deployment']['apis']))

    def test_unresolvable_endpoint_names_api_interface_and_url(self):
        # The seed's CI failure: the keystoneEndpoint API's public host
        # does not resolve, both in the Glance CR and in the catalog.
        with self.fault('unresolvable-endpoint=api0'):
            proc = self.doctor('--config-file', self.tempest_conf(), '-o',
                               'json')
        self.assertEqual(1, proc.returncode, proc.stdout + proc.stderr)
        failed = [c for c in json.loads(proc.stdout)['checks']
                  if c['status'] == 'FAIL']
        self.assertEqual(['endpoint', 'catalog-endpoint'],
                         [c['name'] for c in failed])
        for check in failed:
            self.assertEqual(('api0', 'public'),
                             (check['api'], check['interface']))
            self.assertTrue(check['url'].startswith(
                'http://glance-api0-public.openstack.invalid:'), check)
            self.assertEqual('DNS: Name or service not known',
                             check['message'])
        self.assertIn('first: endpoint api0 public http://glance-api0-'
                      'public.openstack.invalid:', proc.stderr)

    def test_unresolvable_endpoint_text_report(self):
        with self.fault('unresolvable-endpoint=api1'):
            proc = self.doctor('--config-file', self.tempest_conf())
        self.assertEqual(1, proc.returncode, proc.stdout + proc.stderr)
        failed = self.failed_lines(proc)
        self.assertEqual(1, len(failed), proc.stdout)
        self.assertRegex(failed[0], r'^FAIL endpoint +api1 public '
                         r'http://glance-api1-public\.openstack\.invalid:'
                         r'\d+: DNS: Name or service not known$')

    def test_keystone_unreachable_is_one_line_and_24(self):
        url = 'http://127.0.0.1:%d/v3' % _free_port()
        proc = self.doctor('--config-file', self.tempest_conf(
            identity={'uri_v3': url}))
        self.assertEqual(24, proc.returncode, proc.stdout + proc.stderr)
        failed = self.failed_lines(proc)
        self.assertEqual(1, len(failed), proc.stdout)
        self.assertRegex(failed[0], r'^FAIL keystone +%s: TCP: 127\.0\.0\.1 '
                         r'port \d+: Connection refused$' % url)

    def test_wrong_password_is_one_line_and_25(self):
        proc = self.doctor('--config-file', self.tempest_conf(
            auth={'admin_password': 'not-the-password'}))
        self.assertEqual(25, proc.returncode, proc.stdout + proc.stderr)
        failed = self.failed_lines(proc)
        self.assertEqual(1, len(failed), proc.stdout)
        self.assertIn('refused the credentials of user admin (project '
                      'admin)', failed[0])
        self.assertIn('HTTP 401', failed[0])

    def test_discovery_failure_is_23(self):
        proc = self.doctor('--config-file', self.tempest_conf(
            glance_multiapi={'kubeconfig': '/nonexistent/kubeconfig'}))
        self.assertEqual(23, proc.returncode, proc.stdout + proc.stderr)
        failed = self.failed_lines(proc)
        self.assertEqual(1, len(failed), proc.stdout)
        self.assertIn('/nonexistent/kubeconfig', failed[0])

    def test_os_cloud_reads_the_catalog(self):
        proc = self.doctor(
            '--config-file', self.tempest_conf(), '--os-cloud', 'demo',
            env={'OS_CLIENT_CONFIG_FILE': os.path.join(self.state_dir,
                                                       'clouds.yaml')})
        self.assertEqual(0, proc.returncode, proc.stdout + proc.stderr)
        self.assertIn('catalog of cloud demo of', proc.stdout)

    def test_unconfigured_discovery_is_healthy_but_strict_fails(self):
        # NOTE: without a way to learn the APIs, discovery is a SKIP and
        # the run exits 0: a gate would then skip every test. --strict
        # says so with its own code.
        conf = self.tempest_conf(glance_multiapi={'kubernetes_api': False})
        loose = self.doctor('--config-file', conf)
        self.assertEqual(0, loose.returncode, loose.stdout + loose.stderr)
        self.assertRegex(loose.stdout, r'(?m)^SKIP discovery +')
        strict = self.doctor('--config-file', conf, '--strict')
        self.assertEqual(26, strict.returncode,
                         strict.stdout + strict.stderr)
        self.assertRegex(strict.stdout, r'(?m)^FAIL discovery +not run, '
                         r'and --strict allows no SKIP: ')
        self.assertIn('FAILED (exit 26)', strict.stdout)
        healthy = self.doctor('--config-file', self.tempest_conf(),
                              '--strict')
        self.assertEqual(0, healthy.returncode,
                         healthy.stdout + healthy.stderr)
