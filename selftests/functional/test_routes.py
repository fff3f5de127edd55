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

"""The route of the keystoneEndpoint API, on real services.

Against the shared cloud, through its Kubernetes API (the python
``kubernetes`` client) and plain HTTP: only the catalog API's public
endpoint is a route URL, a switchover moves it (the old route stops
answering, the new one answers, the old API falls back to its Service
URL), a route whose API is down answers 503 like the OpenShift router,
and an upload cut short through the route is cut short in Glance too.
"""

import json
import os
import socket
import urllib.parse
import uuid

import requests
import yaml

from glance_multiapi_kernel import imagedata
from glance_multiapi_kernel import polling
from glance_multiapi_kernel import glance_cr
from glance_multiapi_tests.multiapi import probes
from selftests.functional import kube_base
from selftests.functional import test_kubeapi

PROBE_TIMEOUT = 5
WAIT = 30


class RoutesTest(kube_base.KubeCloudTestCase):
    """The route moves with keystoneEndpoint and status follows."""

    def glance_cr(self):
        custom, _apps = self.apis()
        return custom.get_namespaced_custom_object(*kube_base.GLANCE,
                                                   'glance')

    def patch_endpoint(self, api):
        custom, _apps = self.apis()
        owner = self.glance_cr()['metadata']['ownerReferences'][0]['name']
        custom.patch_namespaced_custom_object(
            *kube_base.OSCP, owner, test_kubeapi.oscp_patch(api))

    def ports(self):
        with open(os.path.join(self.state_dir, 'state.json')) as f:
            return json.load(f)['ports']

    def url(self, key):
        return 'http://127.0.0.1:%d' % self.ports()[key]

    def route_url(self, api):
        return self.url('route-glance-%s-public' % api)

    def service_urls(self, api, api_type='split'):
        # NOTE: an edge API has no public Service (nor its port).
        return {iface: self.url('glance-%s-%s' % (api, iface))
                for iface in glance_cr.interfaces(api_type)}

    def assertRouteOnlyFor(self, obj, owner):
        """status.apiEndpoint: owner's public is its route, all else not."""
        endpoints = obj['status']['apiEndpoint']
        wanted = {}
        for api, api_spec in obj['spec']['glanceAPIs'].items():
            urls = self.service_urls(api, api_spec['type'])
            if api == owner:
                urls['public'] = self.route_url(api)
            wanted.update(('%s-%s' % (api, i), u) for i, u in urls.items())
        self.assertEqual(wanted, endpoints)

    def wait_answering(self, url, up):
        """Poll the version document of url until it answers (or not)."""
        def check():
            ok, why = probes.answers(url, PROBE_TIMEOUT)
            return ok == up, 'answers' if ok else why

        return polling.poll(check, what='%s to %s' % (
            url, 'answer' if up else 'stop answering'), timeout=WAIT,
            interval=0.1, describe=str)

    def test_switchover_moves_the_route(self):
        before = self.glance_cr()
        original = before['spec']['keystoneEndpoint']
        target = sorted(a for a, s in before['spec']['glanceAPIs'].items()
                        if a != original and s['type'] != 'edge')[0]
        self.assertRouteOnlyFor(before, original)
        self.assertEqual([{'public': self.route_url(original),
                           'internal': self.service_urls(original)[
                               'internal']}],
                         test_kubeapi.image_catalog(self.state_dir))
        self.wait_answering(self.route_url(original), up=True)
        self.addCleanup(self.patch_endpoint, original)
        self.patch_endpoint(target)
        after = self.glance_cr()
        self.assertEqual(target, after['spec']['keystoneEndpoint'])
        self.assertRouteOnlyFor(after, target)
        self.assertEqual([{'public': self.route_url(target),
                           'internal': self.service_urls(target)[
                               'internal']}],
                         test_kubeapi.image_catalog(self.state_dir))
        why = self.wait_answering(self.route_url(original), up=False)
        self.assertIn('Connection refused', why)
        self.wait_answering(self.route_url(target), up=True)
        # NOTE: the old API's public Service stays, only its route goes.
        self.wait_answering(self.service_urls(original)['public'], up=True)
        self.patch_endpoint(original)
        self.assertRouteOnlyFor(self.glance_cr(), original)
        self.wait_answering(self.route_url(original), up=True)
        self.wait_answering(self.route_url(target), up=False)

    def test_route_of_a_down_api_answers_503(self):
        owner = self.glance_cr()['spec']['keystoneEndpoint']
        with self.fault('api-down'):
            resp = requests.get(self.route_url(owner) + '/', timeout=10)
            self.assertEqual(503, resp.status_code, resp.text[:200])
            self.assertIn('Application is not available', resp.text)
            # NOTE: the route, and so the catalog, stays as it was.
            self.assertRouteOnlyFor(self.glance_cr(), owner)
        self.wait_answering(self.route_url(owner), up=True)

    def test_route_restarts_on_its_own_port(self):
        owner = self.glance_cr()['spec']['keystoneEndpoint']
        before = self.route_url(owner)
        self.cli('restart', 'route-glance-%s-public' % owner, check=True)
        self.assertEqual(before, self.route_url(owner))
        self.wait_answering(before, up=True)

    def test_upload_cut_short_through_the_route_is_cut_in_glance(self):
        owner = self.glance_cr()['spec']['keystoneEndpoint']
        route = self.route_url(owner)
        token = self.demo_token()
        headers = {'X-Auth-Token': token}
        resp = requests.post(route + '/v2/images', headers=headers, json={
            'name': 'route-cut-%s' % uuid.uuid4().hex,
            'disk_format': 'raw', 'container_format': 'bare'}, timeout=30)
        self.assertEqual(201, resp.status_code, resp.text)
        image_id = resp.json()['id']
        self.addCleanup(requests.delete, route + '/v2/images/' + image_id,
                        headers=headers, timeout=30)
        data = imagedata.raw(4 * 1024 * 1024)

        def status_is(wanted):
            def check():
                image = requests.get(route + '/v2/images/' + image_id,
                                     headers=headers, timeout=30).json()
                return image['status'] == wanted, image['status']
            return check

        sock = self.send_half(route, '/v2/images/%s/file' % image_id,
                              token, data)
        try:
            # NOTE: saving proves the half body reached Glance while the
            # client still held it open: the route streams, not buffers.
            polling.poll(status_is('saving'), what='image %s saving while '
                         'half its upload is sent through the route' %
                         image_id, timeout=WAIT, interval=0.1, describe=str)
        finally:
            sock.close()
        polling.poll(status_is('queued'), what='image %s back to queued '
                     'after its upload was cut at the route' % image_id,
                     timeout=WAIT, interval=0.2, describe=str)

    def send_half(self, base, path, token, data):
        """PUT half of data with the full Content-Length; the open socket."""
        parts = urllib.parse.urlsplit(base)
        sock = socket.create_connection((parts.hostname, parts.port),
                                        timeout=30)
        sock.sendall((
            'PUT %s HTTP/1.1\r\nHost: %s\r\nX-Auth-Token: %s\r\n'
            'Content-Type: application/octet-stream\r\n'
            'Content-Length: %d\r\n\r\n' % (
                path, parts.netloc, token, len(data))).encode())
        sock.sendall(data[:len(data) // 2])
        return sock

    def demo_token(self):
        with open(os.path.join(self.state_dir, 'clouds.yaml')) as f:
            auth = yaml.safe_load(f)['clouds']['demo']['auth']
        user = {'name': auth['username'], 'domain': {'id': 'default'},
                'password': auth['password']}
        scope = {'project': {'name': auth['project_name'],
                             'domain': {'id': 'default'}}}
        resp = requests.post(auth['auth_url'] + '/auth/tokens', timeout=30,
                             json={'auth': {'identity': {
                                 'methods': ['password'],
                                 'password': {'user': user}},
                                 'scope': scope}})
        self.assertEqual(201, resp.status_code, resp.text)
        return resp.headers['X-Subject-Token']
