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

import json
import shlex
import types

import testtools

from glance_multiapi_tests import deployment_access
from glance_multiapi_tests.multiapi import discovery

SOURCE = "discovery command 'get'"


def _cr(**overrides):
    doc = {
        'spec': {
            'keystoneEndpoint': 'api0',
            'customServiceConfig': '[glance_store]\ndefault_backend = top\n',
            'glanceAPIs': {
                'api0': {'type': 'split', 'customServiceConfig':
                         '[glance_store]\ndefault_backend = ceph0\n'},
                'api1': {'type': 'split'},
                'edge0': {'type': 'edge', 'customServiceConfig':
                          '[glance_store]\ndefault_backend = cephE\n'},
            }},
        'status': {'apiEndpoint': {
            'api0-public': 'http://127.0.0.1:9292',
            'api0-internal': 'http://127.0.0.1:9293',
            'api1-public': 'http://127.0.0.1:9294',
            'api1-internal': 'http://127.0.0.1:9295',
            'edge0-internal': 'http://127.0.0.1:9296'}},
    }
    for path, value in overrides.items():
        node = doc
        keys = path.split('.')
        for key in keys[:-1]:
            node = node[key]
        if value is None:
            node.pop(keys[-1], None)
        else:
            node[keys[-1]] = value
    return doc


def _opts(**values):
    base = dict(kubernetes_api=False, discovery_command=None, api_names=[],
                api_types={}, public_endpoints={}, internal_endpoints={},
                default_stores={}, keystone_endpoint=None,
                command_timeout=10)
    base.update(values)
    return types.SimpleNamespace(**base)


class ParseCrTest(testtools.TestCase):

    def test_reads_apis_endpoints_and_stores(self):
        dep = discovery.parse_cr(_cr(), SOURCE)
        self.assertEqual('api0', dep.keystone_endpoint)
        self.assertEqual(['api0', 'api1', 'edge0'], sorted(dep.apis))
        self.assertEqual({'public': 'http://127.0.0.1:9292',
                          'internal': 'http://127.0.0.1:9293'},
                         dep.apis['api0'].endpoints)
        self.assertEqual({'internal': 'http://127.0.0.1:9296'},
                         dep.apis['edge0'].endpoints)
        self.assertTrue(dep.apis['edge0'].is_edge)

    def test_api_snippet_wins_over_top_level_config(self):
        dep = discovery.parse_cr(_cr(), SOURCE)
        self.assertEqual('ceph0', dep.apis['api0'].default_store)
        self.assertEqual('top', dep.apis['api1'].default_store)

    def test_enabled_backends_of_the_effective_config(self):
        dep = discovery.parse_cr(_cr(**{
            'spec.glanceAPIs.api0.customServiceConfig':
                '[DEFAULT]\nenabled_backends = ceph0:rbd, ceph2:rbd\n'
                '[glance_store]\ndefault_backend = ceph0\n'}), SOURCE)
        self.assertEqual(('ceph0', 'ceph2'), dep.apis['api0'].stores)
        # NOTE: a default_backend not listed still counts as served.
        self.assertEqual(('top',), dep.apis['api1'].stores)
        self.assertEqual(('cephE',), dep.apis['edge0'].stores)

    def test_no_default_backend_anywhere_is_none(self):
        dep = discovery.parse_cr(_cr(**{'spec.customServiceConfig': None}),
                                 SOURCE)
        self.assertIsNone(dep.apis['api1'].default_store)

    def test_not_json_names_command(self):
        exc = self.assertRaises(discovery.DiscoveryError,
                                discovery.load_cr, 'error: forbidden',
                                SOURCE)
        self.assertIn(SOURCE, str(exc))
        self.assertIn('not JSON', str(exc))
        self.assertIn('error: forbidden', str(exc))

    def test_missing_glance_apis_names_field(self):
        exc = self.assertRaises(discovery.DiscoveryError,
                                discovery.parse_cr,
                                _cr(**{'spec.glanceAPIs': None}), SOURCE)
        self.assertIn('spec.glanceAPIs', str(exc))
        self.assertIn(SOURCE, str(exc))

    def test_missing_endpoint_names_status_key(self):
        exc = self.assertRaises(
            discovery.DiscoveryError, discovery.parse_cr,
            _cr(**{'status.apiEndpoint.api1-internal': None}), SOURCE)
        self.assertIn('status.apiEndpoint.api1-internal', str(exc))

    def test_not_strict_keeps_api_without_endpoints(self):
        dep = discovery.parse_cr(
            _cr(**{'status.apiEndpoint.api1-internal': None}), SOURCE,
            strict=False)
        self.assertEqual(['public'], list(dep.apis['api1'].endpoints))

    def test_bad_url_names_field(self):
        exc = self.assertRaises(
            discovery.DiscoveryError, discovery.parse_cr,
            _cr(**{'status.apiEndpoint.api0-public': 'glance:9292'}),
            SOURCE)
        self.assertIn('status.apiEndpoint.api0-public', str(exc))

    def test_keystone_endpoint_unknown(self):
        exc = self.assertRaises(
            discovery.DiscoveryError, discovery.parse_cr,
            _cr(**{'spec.keystoneEndpoint': 'api9'}), SOURCE)
        self.assertIn('spec.keystoneEndpoint', str(exc))
        self.assertIn('api9', str(exc))

    def test_keystone_endpoint_edge_refused(self):
        exc = self.assertRaises(
            discovery.DiscoveryError, discovery.parse_cr,
            _cr(**{'spec.keystoneEndpoint': 'edge0'}), SOURCE)
        self.assertIn('edge', str(exc))

    def test_keystone_endpoint_defaults_to_only_api(self):
        doc = _cr(**{'spec.keystoneEndpoint': None})
        for name in ('api1', 'edge0'):
            del doc['spec']['glanceAPIs'][name]
        dep = discovery.parse_cr(doc, SOURCE)
        self.assertEqual('api0', dep.keystone_endpoint)

    def test_bad_type_names_field(self):
        exc = self.assertRaises(
            discovery.DiscoveryError, discovery.parse_cr,
            _cr(**{'spec.glanceAPIs.api1.type': 'huge'}), SOURCE)
        self.assertIn('spec.glanceAPIs.api1.type', str(exc))

    def test_bad_ini_names_field(self):
        exc = self.assertRaises(
            discovery.DiscoveryError, discovery.parse_cr,
            _cr(**{'spec.glanceAPIs.api1.customServiceConfig': 'x = 1'}),
            SOURCE)
        self.assertIn('spec.glanceAPIs.api1.customServiceConfig', str(exc))


class ApplyOptionsTest(testtools.TestCase):

    def test_options_alone(self):
        dep = discovery.apply_options(None, _opts(
            api_names=['a', 'b'],
            public_endpoints={'a': 'http://127.0.0.1:1',
                              'b': 'http://127.0.0.1:2'},
            default_stores={'a': 's1'}, keystone_endpoint='b'))
        self.assertEqual('b', dep.keystone_endpoint)
        self.assertEqual('s1', dep.apis['a'].default_store)
        self.assertIsNone(dep.apis['b'].default_store)

    def test_options_win_over_discovery(self):
        base = discovery.parse_cr(_cr(), SOURCE)
        dep = discovery.apply_options(base, _opts(
            default_stores={'api1': 'other'},
            public_endpoints={'api0': 'http://127.0.0.2:80'},
            keystone_endpoint='api1'))
        self.assertEqual('other', dep.apis['api1'].default_store)
        self.assertEqual('ceph0', dep.apis['api0'].default_store)
        self.assertEqual('http://127.0.0.2:80',
                         dep.apis['api0'].endpoints['public'])
        self.assertEqual('http://127.0.0.1:9293',
                         dep.apis['api0'].endpoints['internal'])
        self.assertEqual('api1', dep.keystone_endpoint)

    def test_api_names_restrict_discovered_set(self):
        base = discovery.parse_cr(_cr(), SOURCE)
        dep = discovery.apply_options(base, _opts(api_names=['api0']))
        self.assertEqual(['api0'], list(dep.apis))

    def test_unknown_api_in_option_names_option(self):
        exc = self.assertRaises(
            discovery.DiscoveryError, discovery.apply_options, None,
            _opts(api_names=['a'], public_endpoints={
                'a': 'http://127.0.0.1:1', 'zz': 'http://127.0.0.1:2'}))
        self.assertIn('public_endpoints', str(exc))
        self.assertIn('zz', str(exc))

    def test_api_without_endpoint_refused(self):
        exc = self.assertRaises(discovery.DiscoveryError,
                                discovery.apply_options, None,
                                _opts(api_names=['a']))
        self.assertIn('API a has no endpoint', str(exc))

    def test_ambiguous_keystone_endpoint(self):
        exc = self.assertRaises(
            discovery.DiscoveryError, discovery.apply_options, None,
            _opts(api_names=['a', 'b'], public_endpoints={
                'a': 'http://127.0.0.1:1', 'b': 'http://127.0.0.1:2'}))
        self.assertIn('keystone_endpoint', str(exc))


class DiscoverTest(testtools.TestCase):

    def test_runs_command(self):
        doc = json.dumps(_cr())
        dep = deployment_access.choose(_opts(
            discovery_command='printf %%s %s' % shlex.quote(doc))).discover()
        self.assertEqual('api0', dep.keystone_endpoint)
        self.assertIn('discovery command', dep.source)

    def test_failing_command_names_it(self):
        exc = self.assertRaises(
            discovery.DiscoveryError, deployment_access.choose(
                _opts(discovery_command='echo nope >&2; exit 3')).discover)
        self.assertIn('exit 3', str(exc))
        self.assertIn('exited 3: nope', str(exc))
