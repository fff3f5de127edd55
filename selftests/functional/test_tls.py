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

"""A cloud brought up with --tls, as the operators deploy by default.

Keystone and every Glance API endpoint answer https under the cloud's
own CA, which tempest.conf and clouds.yaml name; the checks pass on it,
and with fault untrusted-cert they fail naming the certificate problem
(never "not answering"), unless the operator turned verification off.
"""

import configparser
import json
import os
import subprocess

import requests
import yaml

from selftests.functional import base
from selftests.functional import test_multiapi_faults

FAULTS = test_multiapi_faults
API_CHECKS = (r'glance_multiapi_tests\.tests\.api\.test_(endpoints|catalog|'
              r'store_placement)')
UNTRUSTED = 'TLS: certificate verify failed: unable to get local issuer ' \
    'certificate'


class TlsCloudTest(base.CloudTestCase):
    """The https cloud of up --tls and the checks' verdicts on it."""

    # NOTE: no shared https cloud exists; the class brings its own.
    cloud_env = 'GLANCE_MULTIAPI_FUNCTIONAL_TLS_CLOUD'
    up_args = ('--tls',)

    def status(self):
        return json.loads(self.cli('status', '-o', 'json', check=True).stdout)

    def tempest_conf(self):
        conf = configparser.ConfigParser(interpolation=None)
        conf.read(os.path.join(self.state_dir, 'tempest', 'etc',
                               'tempest.conf'))
        return conf

    def ca(self):
        return os.path.join(self.state_dir, 'tls', 'ca.crt')

    def test_endpoints_are_https_under_the_cloud_ca(self):
        report = self.status()
        urls = [report['services']['keystone']['url']]
        for api in report['apis'].values():
            urls += [u for u in (api['public'], api['internal']) if u]
        # NOTE: keystone and at least one API's endpoints, whatever the
        # default spec holds.
        self.assertGreaterEqual(len(urls), 3, report)
        for url in urls:
            self.assertTrue(url.startswith('https://127.0.0.1:'), url)
            resp = requests.get(url, verify=self.ca(), timeout=10)
            self.assertIn(resp.status_code, (200, 300), url)
            # NOTE: only the cloud's CA makes it trusted, not the system's.
            self.assertRaises(requests.exceptions.SSLError, requests.get,
                              url, timeout=10)
        conf = self.tempest_conf()
        self.assertEqual(self.ca(),
                         conf.get('identity', 'ca_certificates_file'))
        self.assertEqual('False', conf.get(
            'identity', 'disable_ssl_certificate_validation'))
        self.assertTrue(conf.get('identity', 'uri_v3').startswith(
            'https://'))
        with open(os.path.join(self.state_dir, 'clouds.yaml')) as f:
            clouds = yaml.safe_load(f)['clouds']
        self.assertEqual(self.ca(), clouds['demo']['cacert'])

    def test_healthy_https_cloud_passes(self):
        with self.fault():
            results = self.run_tempest(API_CHECKS, concurrency=2)
        for test_id in (FAULTS.ENDPOINTS, FAULTS.ONE_SERVICE,
                        FAULTS.OWNERSHIP, FAULTS.UPLOAD_STORE,
                        FAULTS.INFO_STORES, FAULTS.READ_ACROSS):
            self.assertOutcome(results, test_id, 'success')

    def test_untrusted_cert_fails_with_tls_diagnosis(self):
        with self.fault('untrusted-cert=api1'):
            results = self.run_tempest(API_CHECKS, concurrency=2)
        details = self.assertOutcome(
            results, FAULTS.ENDPOINTS, 'fail',
            'api1 internal https://127.0.0.1:',
            'api1 public https://127.0.0.1:', ': ' + UNTRUSTED)
        self.assertNotIn('api0', details.split('Traceback')[-1])
        for test_id in (FAULTS.UPLOAD_STORE, FAULTS.INFO_STORES,
                        FAULTS.READ_ACROSS):
            self.assertOutcome(
                results, test_id, 'fail',
                'api1: no endpoint passes TLS (trusting [identity] '
                'ca_certificates_file=%s)' % self.ca(), UNTRUSTED)
        # NOTE: the catalog holds api0 only, whose certificate is good.
        for test_id in (FAULTS.ONE_SERVICE, FAULTS.OWNERSHIP):
            self.assertOutcome(results, test_id, 'success')

    def test_disabled_validation_is_honoured(self):
        with self.fault('untrusted-cert=api1'):
            results = self.run_tempest(
                FAULTS.ENDPOINTS.replace('.', r'\.'), overrides={
                    'identity': {'disable_ssl_certificate_validation':
                                 'True'}})
        self.assertOutcome(results, FAULTS.ENDPOINTS, 'success')

    def test_doctor_names_the_certificate_problem(self):
        conf = os.path.join(self.state_dir, 'tempest', 'etc',
                            'tempest.conf')
        with self.fault('untrusted-cert=api1'):
            proc = subprocess.run(
                [os.path.join(base.BIN, 'glance-multiapi-doctor'),
                 '--config-file', conf], capture_output=True, text=True,
                timeout=300)
        self.assertEqual(1, proc.returncode, proc.stdout + proc.stderr)
        self.assertIn('FAIL endpoint         api1 internal https://',
                      proc.stdout)
        self.assertIn(UNTRUSTED, proc.stdout)
        self.assertIn('OK   keystone', proc.stdout)

    def test_grown_api_with_untrusted_cert_is_a_tls_failure(self):
        # NOTE: the waiter of grow/shrink: a TLS failure ends the wait at
        # once, named, instead of reading as "not answering" (which a
        # shrink would take for success).
        with self.fault('untrusted-cert=apigrow'):
            results = self.run_tempest(
                FAULTS.GROW_SHRINK.replace('.', r'\.'), overrides={
                    'glance_multiapi': {'convergence_timeout': 60,
                                        'run_grow_shrink': True}})
        details = self.assertOutcome(
            results, FAULTS.GROW_SHRINK, 'fail',
            'waiting for every endpoint of apigrow to answer: https://'
            '127.0.0.1:', ' ' + UNTRUSTED,
            '(a certificate problem, not an endpoint that is down)')
        self.assertNotIn('timed out', details.split('Traceback')[-1])
