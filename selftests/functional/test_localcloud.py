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

"""The embedded cloud against its own promises, on real services."""

import concurrent.futures
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid

import requests
import yaml

from glance_multiapi_kernel import imagedata
from glance_multiapi_cloud import ports
from glance_multiapi_kernel import polling
from selftests import cli_runs
from selftests.functional import base

STRESS_THREADS = 8
STRESS_CYCLES = 20
STRESS_SECONDS = 240


class Glance(object):
    """Raw glance v2 calls with a member token, through one URL."""

    def __init__(self, url, token):
        self.url = url.rstrip('/')
        self.headers = {'X-Auth-Token': token}

    def create(self, name, data):
        resp = requests.post(self.url + '/v2/images', headers=self.headers,
                             json={'name': name, 'disk_format': 'raw',
                                   'container_format': 'bare'}, timeout=60)
        resp.raise_for_status()
        image_id = resp.json()['id']
        put = requests.put(self.url + '/v2/images/%s/file' % image_id,
                           data=data, timeout=120, headers=dict(
                               self.headers,
                               **{'Content-Type':
                                  'application/octet-stream'}))
        return image_id, put

    def show(self, image_id):
        return requests.get(self.url + '/v2/images/' + image_id,
                            headers=self.headers, timeout=60)

    def delete(self, image_id):
        return requests.delete(self.url + '/v2/images/' + image_id,
                               headers=self.headers, timeout=60)

    def cleanup(self, image_id):
        """Delete if still there; an API removed by the test is fine."""
        try:
            self.delete(image_id)
        except requests.ConnectionError:
            pass


class TestLocalCloud(base.CloudTestCase):

    def setUp(self):
        super().setUp()
        with open(os.path.join(self.state_dir, 'clouds.yaml')) as f:
            self.clouds = yaml.safe_load(f)['clouds']

    def image_services(self):
        _token, catalog = self.token_and_catalog()
        return [{e['interface']: e['url'] for e in svc['endpoints']}
                for svc in catalog if svc['type'] == 'image']

    def api_glance(self, api):
        token, _catalog = self.token_and_catalog()
        return Glance(self.doc()['status']['apiEndpoint'][api +
                                                          '-internal'],
                      token)

    def upload_and_check_store(self, api, store):
        glance = self.api_glance(api)
        data = imagedata.raw(256 * 1024)
        image_id, put = glance.create('lc-%s-%s' % (api, uuid.uuid4().hex),
                                      data)
        self.addCleanup(glance.cleanup, image_id)
        self.assertEqual(204, put.status_code, put.text)
        image = glance.show(image_id).json()
        self.assertEqual('active', image['status'])
        self.assertEqual(store, image['stores'])
        path = os.path.join(self.state_dir, 'glance', 'stores', store,
                            image_id)
        with open(path, 'rb') as f:
            self.assertEqual(data, f.read())
        return glance, image_id

    def test_upload_lands_in_each_api_store(self):
        self.upload_and_check_store('api0', 'ceph0')
        self.upload_and_check_store('api1', 'ceph1')

    def test_switch_catalog_to_api1(self):
        before = self.doc()
        self.addCleanup(self.cli, 'patch', '-p', json.dumps(
            {'spec': {'keystoneEndpoint':
                      before['spec']['keystoneEndpoint']}}))
        self.cli('patch', '-p', '{"spec": {"keystoneEndpoint": "api1"}}',
                 check=True)
        # NOTE: the public URL moves with the route (test_routes.py).
        endpoints = self.doc()['status']['apiEndpoint']
        self.assertEqual([{'public': endpoints['api1-public'],
                           'internal': endpoints['api1-internal']}],
                         self.image_services())

    def test_add_and_remove_api(self):
        csc = ('[DEFAULT]\nenabled_backends = ceph2:rbd\n[glance_store]\n'
               'default_backend = ceph2\n')
        catalog_before = self.image_services()
        self.addCleanup(self.cli, 'patch', '-p',
                        '{"spec": {"glanceAPIs": {"api2": null}}}')
        self.cli('patch', '-p', json.dumps({'spec': {'glanceAPIs': {
            'api2': {'type': 'split', 'customServiceConfig': csc}}}}),
            check=True)
        glance, image_id = self.upload_and_check_store('api2', 'ceph2')
        self.assertEqual(catalog_before, self.image_services())
        self.assertEqual(204, glance.delete(image_id).status_code)
        url = self.doc()['status']['apiEndpoint']['api2-internal']
        self.cli('patch', '-p', '{"spec": {"glanceAPIs": {"api2": null}}}',
                 check=True)
        self.assertRaises(requests.ConnectionError, requests.get, url,
                          timeout=5)
        self.assertNotIn('api2-internal',
                         self.doc()['status']['apiEndpoint'])
        self.assertEqual(catalog_before, self.image_services())

    def test_restarted_api_serves_first_request(self):
        """A restarted API validates its first token (no 401, no bind)."""
        self.addCleanup(self.cli, 'patch', '--clear-faults')
        for cycle in range(4):
            faults = ['--fault', 'wrong-default-store=api1'] if (
                cycle % 2 == 0) else []
            self.cli('patch', '--clear-faults', *faults, check=True)
            glance = self.api_glance('api1')
            resp = requests.get(glance.url + '/v2/images',
                                headers=glance.headers, timeout=60)
            self.assertEqual(200, resp.status_code, 'restart %d: %s' % (
                cycle, resp.text[:300]))

    def test_listens_on_loopback_only(self):
        # NOTE: keystone, two APIs with two ports each, registry, files.
        self.assertLoopbackOnly(at_least=7)

    def test_credentials_are_private(self):
        apis = sorted(self.doc()['spec']['glanceAPIs'])
        self.assertPrivateFiles(
            ['state.json', 'clouds.yaml', 'keystone/keystone.conf',
             'keystone/fernet-keys/0', 'tempest/etc/tempest.conf'] +
            ['glance/apis/%s/glance-api.conf' % api for api in apis])

    def test_ports_lie_outside_the_ephemeral_range(self):
        with open(os.path.join(self.state_dir, 'state.json')) as f:
            ports = json.load(f)['ports']
        with open('/proc/sys/net/ipv4/ip_local_port_range') as f:
            low, high = (int(v) for v in f.read().split())
        self.assertGreaterEqual(len(ports), 7, ports)
        inside = {key: port for key, port in ports.items()
                  if low <= port <= high}
        self.assertEqual({}, inside, 'ports any client connection may be '
                         'handed (ephemeral range %d-%d)' % (low, high))

    def test_restart_onto_a_held_port_names_the_holder(self):
        with open(os.path.join(self.state_dir, 'run',
                               'fileserver.pid')) as f:
            pid = json.load(f)['pid']
        with open(os.path.join(self.state_dir, 'state.json')) as f:
            port = json.load(f)['ports']['fileserver']
        self.addCleanup(self.cli, 'restart', 'fileserver', check=True)
        os.killpg(pid, signal.SIGTERM)
        holder = socket.socket()
        self.addCleanup(holder.close)
        holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)

        def bound():
            try:
                holder.bind(('127.0.0.1', port))
            except OSError as exc:
                return False, exc.strerror
            return True, 'bound'

        polling.poll(bound, timeout=30, what='the killed file server\'s '
                     'port %d to be free' % port, describe=str)
        holder.listen(1)
        proc = self.cli('restart', 'fileserver')
        self.assertEqual(98, proc.returncode, proc.stderr)
        self.assertEqual(1, len(proc.stderr.strip().splitlines()),
                         proc.stderr)
        for needle in ('fileserver', '127.0.0.1:%d' % port,
                       'listener of pid %d' % os.getpid()):
            self.assertIn(needle, proc.stderr)

    def test_refused_patch_changes_nothing(self):
        before = self.doc()
        for patch in ('{"spec": {"keystoneEndpoint": "nope"}}',
                      '{"spec": {"glanceAPIs": {"api0": {"type": "x"}}}}',
                      '{"spec": {"glanceAPIs": {"api1": {"type": "edge"}}}}',
                      '{"spec": ', '{"status": {}}'):
            proc = self.cli('patch', '-p', patch)
            self.assertEqual(22, proc.returncode, proc.stderr)
            self.assertEqual(1, len(proc.stderr.strip().splitlines()),
                             proc.stderr)
            self.assertNotIn('Traceback', proc.stderr)
        self.assertEqual(before['spec'], self.doc()['spec'])

    def test_stress_shared_database(self):
        """Bounded concurrent create/upload/delete on both APIs: no 5xx."""
        clients = [self.api_glance('api0'), self.api_glance('api1')]
        deadline = time.monotonic() + STRESS_SECONDS
        data = imagedata.raw(64 * 1024)

        def worker(index):
            glance = clients[index % 2]
            statuses = []
            for cycle in range(STRESS_CYCLES):
                if time.monotonic() > deadline:
                    break
                image_id, put = glance.create(
                    'lc-stress-%d-%d' % (index, cycle), data)
                statuses += [put.status_code,
                             glance.show(image_id).status_code,
                             glance.delete(image_id).status_code]
            return statuses

        with concurrent.futures.ThreadPoolExecutor(STRESS_THREADS) as pool:
            results = list(pool.map(worker, range(STRESS_THREADS)))
        statuses = [s for r in results for s in r]
        errors = [s for s in statuses if s >= 500]
        self.assertGreater(len(statuses), STRESS_THREADS * 3)
        self.assertEqual([], errors, '%d of %d calls failed' % (
            len(errors), len(statuses)))
        self.assertEqual({200, 204}, set(statuses))


class TestCloudLifecycle(base.CloudTestCase):
    """Start-up failures and down; each uses its own small cloud."""

    ONE_API = ('glanceAPIs:\n  solo:\n    customServiceConfig: |\n'
               '      [DEFAULT]\n      enabled_backends = s0:rbd\n'
               '      [glance_store]\n      default_backend = s0\n')

    def setUp(self):
        super().setUp()
        self.work = tempfile.mkdtemp(prefix='gmt-lifecycle-')
        self.addCleanup(shutil.rmtree, self.work, ignore_errors=True)
        self.dir = os.path.join(self.work, 'cloud')

    def run_cli(self, *args, env=None):
        return subprocess.run(base.cli_argv(self.dir, *args),
                              capture_output=True, text=True, env=env,
                              timeout=300)

    def processes_of(self, path):
        """Pids whose environment or command line mention path."""
        return cli_runs.processes_naming(path)

    def assertOneLineError(self, proc, code, *needles):
        self.assertEqual(code, proc.returncode, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(1, len(lines), proc.stderr)
        for needle in needles:
            self.assertIn(needle, lines[0])
        self.assertEqual([], self.processes_of(self.dir))

    def spec_file(self, text):
        path = os.path.join(self.work, 'spec.yaml')
        with open(path, 'w') as f:
            f.write(text)
        return path

    def test_malformed_spec(self):
        proc = self.run_cli('up', '--spec', self.spec_file(
            'glanceAPIs: {api0: [\n'))
        self.assertOneLineError(proc, 22, 'spec.yaml', 'not valid YAML')

    def test_unknown_keystone_endpoint(self):
        proc = self.run_cli('up', '--spec', self.spec_file(
            self.ONE_API + 'keystoneEndpoint: api7\n'))
        self.assertOneLineError(proc, 22, 'api7')

    def test_operator_refusals(self):
        # spec -> the operator's words and the upstream rule, one line.
        edge = ('  e0:\n    type: edge\n    customServiceConfig: |\n'
                '      [glance_store]\n      default_backend = e0\n')
        for text, needles in (
                (self.ONE_API.replace('s0:rbd', 's0:file'),
                 ('spec.glanceAPIs.solo: The GlanceAPI layout type: split '
                  'cannot be used in combination with File',
                  'glance_webhook.go isInvalidBackend')),
                # NOTE: a single API on rbd is taken (the controller does
                # not deploy it); with the location API the operator
                # would, and the stand-in cannot.
                ('metadata:\n  annotations:\n    glance.openstack.org/'
                 'location-api: "true"\nspec:\n  ' + self.ONE_API.replace(
                     'solo:\n', 'solo:\n    type: single\n').replace(
                     '\n', '\n  ').rstrip(' '),
                 ('spec.glanceAPIs.solo: the embedded cloud cannot run a '
                  'single API on s0:rbd with the location API',)),
                (self.ONE_API + edge + 'keystoneEndpoint: e0\n',
                 ('spec.keystoneEndpoint: Invalid value: "e0": '
                  'KeystoneEndpoint is assigned to an invalid GlanceAPI '
                  'instance', 'glance_webhook.go isValidKeystoneEP')),
                # NOTE: the webhook defaults keystoneEndpoint only with
                # exactly one API: beside an edge API it stays unset.
                (self.ONE_API + edge,
                 ('spec.keystoneEndpoint: Invalid value: "": '
                  'KeystoneEndpoint is assigned to an invalid GlanceAPI '
                  'instance (unset: Default sets it only when there is '
                  'exactly one API)', 'glance_webhook.go isValidKeystoneEP'))):
            proc = self.run_cli('up', '--spec', self.spec_file(text))
            self.assertOneLineError(proc, 22, 'spec.yaml', *needles)
            self.assertFalse(os.path.exists(os.path.join(self.dir, 'tempest')),
                             'a refused spec must build nothing')

    def test_busy_port(self):
        sock = socket.socket()
        self.addCleanup(sock.close)
        for port in ports.block_starts(ports.ephemeral_range()):
            if ports.untouched(port):
                sock.bind(('127.0.0.1', port))
                break
        sock.listen(1)
        proc = self.run_cli('up', '--spec', self.spec_file(self.ONE_API),
                            '--base-port', str(port))
        self.assertOneLineError(proc, 98, str(port), 'busy',
                                'listener of pid %d' % os.getpid())

    def test_base_port_in_ephemeral_range(self):
        low, _high = ports.ephemeral_range()
        proc = self.run_cli('up', '--spec', self.spec_file(self.ONE_API),
                            '--base-port', str(low + 10))
        self.assertOneLineError(proc, 22, str(low + 10), 'ephemeral')

    def test_missing_binary(self):
        env = dict(os.environ, PATH='/nonexistent')
        proc = self.run_cli('up', '--spec', self.spec_file(self.ONE_API),
                            env=env)
        self.assertOneLineError(proc, 127, 'docker-registry')

    def test_up_then_down_leaves_nothing(self):
        proc = self.run_cli('up', '-q', '--no-registry', '--no-fileserver',
                            '--spec', self.spec_file(self.ONE_API))
        self.addCleanup(self.run_cli, 'down')
        self.assertEqual(0, proc.returncode, proc.stderr)
        self.assertNotEqual([], self.processes_of(self.dir))
        status = json.loads(self.run_cli('status', '-o', 'json').stdout)
        self.assertTrue(status['apis']['solo']['ready'], status)
        again = self.run_cli('up', '--spec', self.spec_file(self.ONE_API))
        self.assertEqual(4, again.returncode, again.stderr)
        down = self.run_cli('down')
        self.assertEqual(0, down.returncode, down.stderr)
        polling.poll(lambda: (not self.processes_of(self.dir),
                              self.processes_of(self.dir)),
                     what='every process of %s to be gone' % self.dir,
                     timeout=30)
        self.assertEqual(3, self.run_cli('patch', '-p', '{}').returncode)
