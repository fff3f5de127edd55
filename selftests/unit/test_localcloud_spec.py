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

import glob
import json
import os

import fixtures
import testtools

from glance_multiapi_kernel import documents
from glance_multiapi_kernel import jsonmerge
from glance_multiapi_cloud import cli
from glance_multiapi_cloud import errors
from glance_multiapi_cloud import fault_hooks
from glance_multiapi_cloud import faults
from glance_multiapi_cloud import glanceconf
from glance_multiapi_cloud import record as record_mod
from glance_multiapi_cloud import spec
from glance_multiapi_cloud import state as state_mod
from glance_multiapi_cloud import tempestconf
from glance_multiapi_cloud import testimages
from glance_multiapi_kernel import glance_cr

DEMO = """
keystoneEndpoint: api0
glanceAPIs:
  api0:
    customServiceConfig: |
      [DEFAULT]
      enabled_backends = ceph0:rbd
      [glance_store]
      default_backend = ceph0
  api1:
    type: split
    customServiceConfig: |
      [DEFAULT]
      enabled_backends = ceph1:rbd
      [glance_store]
      default_backend = ceph1
  edge0:
    type: edge
    customServiceConfig: |
      [glance_store]
      default_backend = edgestore
"""


def _csc(store):
    return ('[DEFAULT]\nenabled_backends = %s:rbd\n[glance_store]\n'
            'default_backend = %s\n' % (store, store))


class TestSpecLoad(testtools.TestCase):

    def test_defaults_filled(self):
        loaded = spec.load(DEMO, 'demo.yaml')
        self.assertEqual('split', loaded['glanceAPIs']['api0']['type'])
        self.assertEqual(1, loaded['glanceAPIs']['api0']['replicas'])

    def test_stores_from_custom_service_config(self):
        loaded = spec.load(DEMO, 'demo.yaml')
        self.assertEqual(('ceph1', ['ceph1']),
                         spec.api_stores(loaded, 'api1'))
        self.assertEqual(['ceph0', 'ceph1', 'edgestore'],
                         spec.all_stores(loaded))

    def test_api_snippet_wins_over_top_level(self):
        loaded = spec.normalize({
            'customServiceConfig': _csc('shared'),
            'glanceAPIs': {'a': {}, 'b': {'customServiceConfig':
                                          _csc('own')}}, 'keystoneEndpoint':
            'a'})
        self.assertEqual('shared', spec.api_stores(loaded, 'a')[0])
        self.assertEqual('own', spec.api_stores(loaded, 'b')[0])

    def test_whole_cr_accepted(self):
        loaded = spec.load(json.dumps({'spec': {'glanceAPIs': {
            'only': {'customServiceConfig': _csc('s')}}}}), 'cr.json')
        # NOTE: like the operator, the only API is the default.
        self.assertEqual('only', loaded['keystoneEndpoint'])

    def test_keystone_endpoint_defaulted_only_with_one_api(self):
        # NOTE: glance_webhook.go Default; an unset keystoneEndpoint
        # beside an edge API is refused in the webhook's words, as
        # "oc apply" of that spec is.
        central_edge = {'glanceAPIs': {
            'central': {'customServiceConfig': _csc('c')},
            'edge1': {'type': 'edge', 'customServiceConfig': _csc('e')}}}
        exc = self.assertRaises(spec.SpecError, spec.load,
                                json.dumps(central_edge), 'ce.json')
        self.assertIn('ce.json: spec.keystoneEndpoint: Invalid value: "": '
                      'KeystoneEndpoint is assigned to an invalid '
                      'GlanceAPI instance (unset: Default sets it only '
                      'when there is exactly one API) [glance-operator '
                      'api/v1beta1/glance_webhook.go isValidKeystoneEP]',
                      str(exc))
        central_edge['keystoneEndpoint'] = 'central'
        self.assertEqual('central', spec.load(json.dumps(central_edge),
                                              'ce.json')['keystoneEndpoint'])
        exc = self.assertRaises(spec.SpecError, spec.load, json.dumps(
            {'glanceAPIs': {'edge1': {'type': 'edge',
                                      'customServiceConfig': _csc('e')}}}),
            'e.json')
        self.assertIn('Invalid value: "edge1": KeystoneEndpoint is '
                      'assigned', str(exc))

    def test_patch_unsetting_keystone_endpoint_refused_with_two_apis(self):
        loaded = spec.load(DEMO, 'demo.yaml')
        exc = self.assertRaises(
            spec.SpecError, spec.apply_patch, loaded,
            '{"spec": {"keystoneEndpoint": null}}')
        self.assertIn('spec.keystoneEndpoint: Invalid value: "": '
                      'KeystoneEndpoint is assigned', str(exc))

    def _refused(self, text, *needles):
        exc = self.assertRaises(spec.SpecError, spec.load, text, 'x.yaml')
        for needle in needles:
            self.assertIn(needle, str(exc))
        self.assertNotIn('\n', str(exc))

    def test_malformed_yaml_names_line(self):
        self._refused('glanceAPIs: {api0: [\n', 'x.yaml', 'line')

    def test_not_a_mapping(self):
        self._refused('- a\n- b\n', 'x.yaml', 'mapping')

    def test_unknown_keystone_endpoint(self):
        self._refused(DEMO.replace('keystoneEndpoint: api0',
                                   'keystoneEndpoint: api9'), 'api9',
                      'names no API')

    def test_edge_keystone_endpoint(self):
        self._refused(DEMO.replace('keystoneEndpoint: api0',
                                   'keystoneEndpoint: edge0'), 'edge')

    def test_bad_name_type_replicas(self):
        self._refused('glanceAPIs: {Api_0: {}}', 'invalid API name')
        self._refused(DEMO.replace('type: split', 'type: weird'),
                      'api1.type')
        self._refused(DEMO.replace('type: split', 'replicas: -1'),
                      'replicas')

    def test_operator_refusals_one_line_each(self):
        cases = (
            (DEMO.replace('ceph0:rbd', 'ceph0:file'),
             'spec.glanceAPIs.api0: The GlanceAPI layout type: split '
             'cannot be used', 'glance_webhook.go isInvalidBackend'),
            (DEMO.replace('keystoneEndpoint: api0',
                          'keystoneEndpoint: edge0'),
             'spec.keystoneEndpoint: Invalid value: "edge0": '
             'KeystoneEndpoint is assigned to an invalid GlanceAPI '
             'instance', 'isValidKeystoneEP'),
        )
        for text, reason, rule in cases:
            exc = self.assertRaises(spec.SpecError, spec.load, text, 'd.yaml')
            self.assertIn('d.yaml: ' + reason, str(exc))
            self.assertIn(rule, str(exc))
            self.assertNotIn('\n', str(exc))

    def test_single_on_rbd_is_taken_as_the_webhook_takes_it(self):
        # NOTE: the controller does not deploy it (reconcile_pass).
        loaded = spec.load(DEMO.replace('type: split', 'type: single'),
                           'd.yaml')
        self.assertEqual('single', loaded['glanceAPIs']['api1']['type'])

    def _cr(self, annotations, api_type='single'):
        doc = {'metadata': {'name': 'glance'},
               'spec': documents.load_yaml(DEMO.replace(
                   'type: split', 'type: ' + api_type))}
        if annotations is not None:
            doc['metadata']['annotations'] = annotations
        return json.dumps(doc)

    def test_whole_cr_brings_its_annotations(self):
        key = glance_cr.LOCATION_API_ANNOTATION
        loaded, annotations = spec.load_cr(self._cr({key: 'false'}), 'g.json')
        self.assertEqual({key: 'false'}, annotations)
        self.assertEqual('single', loaded['glanceAPIs']['api1']['type'])
        self.assertEqual({}, spec.load_cr(DEMO, 'd.yaml')[1])
        self.assertEqual({}, spec.load_cr(self._cr(None), 'g.json')[1])

    def test_stand_in_cannot_run_location_api_single_on_rbd(self):
        key = glance_cr.LOCATION_API_ANNOTATION
        exc = self.assertRaises(spec.SpecError, spec.load_cr,
                                self._cr({key: 'true'}), 'g.json')
        self.assertIn('g.json: spec.glanceAPIs.api1: the embedded cloud '
                      'cannot run a single API on ceph1:rbd with the '
                      'location API', str(exc))
        self.assertIn(key, str(exc))
        self.assertNotIn('\n', str(exc))
        # A split API on rbd, or the annotation off, it runs.
        spec.load_cr(self._cr({key: 'true'}, 'split'), 'g.json')
        spec.load_cr(self._cr({key: 'no'}), 'g.json')

    def test_annotations_must_be_strings(self):
        for bad in ({glance_cr.LOCATION_API_ANNOTATION: True}, ['x'], 'x'):
            exc = self.assertRaises(spec.SpecError, spec.load_cr,
                                    self._cr(bad), 'g.json')
            self.assertIn('g.json: metadata.annotations must map strings',
                          str(exc))

    def _shipped_specs(self):
        root = os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))))
        paths = sorted(glob.glob(os.path.join(root, 'etc', '*.yaml')))
        # NOTE: the default, its DCN alias and the two-API pair at least.
        self.assertGreaterEqual(len(paths), 3, paths)
        for path in paths:
            with open(path) as f:
                text = f.read()
            yield os.path.basename(path), text

    def test_shipped_specs_pass_the_operator_rules(self):
        for name, text in self._shipped_specs():
            loaded = spec.load(text, name)
            self.assertEqual([], glance_cr.refusals(loaded), name)
        self.assertEqual([], glance_cr.refusals(
            spec.normalize(cli.DEMO_SPEC, 'built-in')))

    def test_default_grow_spec_on_every_shipped_spec(self):
        grow = tempestconf.GROW_API_SPEC
        patch = json.dumps({'spec': {'glanceAPIs': {
            'apigrow': json.loads(grow)}}})
        for name, text in self._shipped_specs():
            grown = spec.apply_patch(spec.load(text, name), patch)
            self.assertEqual([], glance_cr.refusals(grown), name)
            self.assertEqual(('cephgrow', ['cephgrow']),
                             spec.api_stores(grown, 'apigrow'), name)

    def test_default_spec_is_dcn_like(self):
        text = dict(self._shipped_specs())['glance-multiapi-cloud.yaml']
        loaded = spec.load(text, 'default')
        self.assertEqual(
            {'api0': 'split', 'api1': 'split', 'edge0': 'edge'},
            {n: a['type'] for n, a in loaded['glanceAPIs'].items()})
        self.assertEqual('api0', loaded['keystoneEndpoint'])
        self.assertEqual(loaded, spec.normalize(cli.DEMO_SPEC, 'built-in'))
        # NOTE: as the operator's edge sample: the edge knows the central
        # store besides its own default; api1 knows only its own.
        self.assertEqual(('ceph2', ['ceph0', 'ceph2']),
                         spec.api_stores(loaded, 'edge0'))
        self.assertEqual(('ceph1', ['ceph1']),
                         spec.api_stores(loaded, 'api1'))
        self.assertEqual(3, len({spec.api_stores(loaded, n)[0]
                                 for n in loaded['glanceAPIs']}))

    def test_missing_default_store(self):
        self._refused('glanceAPIs: {a: {customServiceConfig: "[x]\\n"}}',
                      'default_backend')


class TestPatch(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.spec = spec.load(DEMO, 'demo.yaml')

    def test_switch(self):
        new = spec.apply_patch(self.spec,
                               '{"spec": {"keystoneEndpoint": "api1"}}')
        self.assertEqual('api1', new['keystoneEndpoint'])
        self.assertEqual('api0', self.spec['keystoneEndpoint'])

    def test_add_and_remove(self):
        grown = spec.apply_patch(self.spec, json.dumps({'spec': {
            'glanceAPIs': {'api2': {'customServiceConfig': _csc('c2')}}}}))
        self.assertEqual('c2', spec.api_stores(grown, 'api2')[0])
        shrunk = spec.apply_patch(grown, '{"spec": {"glanceAPIs": '
                                         '{"api2": null}}}')
        self.assertNotIn('api2', shrunk['glanceAPIs'])

    def test_type_cannot_change(self):
        exc = self.assertRaises(spec.SpecError, spec.apply_patch, self.spec,
                                '{"spec": {"glanceAPIs": {"api1": '
                                '{"type": "edge"}}}}')
        self.assertIn('spec.glanceAPIs.api1.type: The GlanceAPI layout '
                      '(type) cannot be modified', str(exc))
        self.assertIn('glance_webhook.go ValidateUpdate', str(exc))

    def test_refusals_change_nothing(self):
        before = json.dumps(self.spec, sort_keys=True)
        for bad in ('{"spec": {"keystoneEndpoint": "nope"}}',
                    '{"spec": {"glanceAPIs": {"api0": null}}}',
                    '{"spec": {"glanceAPIs": {"api0": {"type": "edge"}}}}',
                    '{"spec": {"glanceAPIs": {"api1": {'
                    '"customServiceConfig": null}}}}',
                    '{"metadata": {"name": "x"}}', 'not json', '[1]'):
            self.assertRaises(spec.SpecError, spec.apply_patch, self.spec,
                              bad)
        self.assertEqual(before, json.dumps(self.spec, sort_keys=True))

    def test_merge_patch_rfc7386(self):
        self.assertEqual({'a': {'c': 1}, 'd': [3]}, jsonmerge.merge_patch(
            {'a': {'b': 1, 'c': 0}, 'd': [1, 2]},
            {'a': {'b': None, 'c': 1}, 'd': [3]}))


class TestFaults(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.spec = spec.load(DEMO, 'demo.yaml')

    def _faults(self, *names):
        return faults.Faults([faults.parse(n) for n in names], self.spec)

    def test_healthy_is_identity(self):
        healthy = self._faults()
        self.assertEqual('http://h:1', healthy.url('api0', 'public',
                                                   'http://h:1'))
        self.assertEqual([('glance', 'api0')],
                         healthy.catalog([('glance', 'api0')]))
        self.assertTrue(healthy.reconciles())

    def test_unresolvable(self):
        url = self._faults('unresolvable-endpoint').url(
            'api0', 'public', 'http://127.0.0.1:9292')
        self.assertEqual(
            'http://glance-api0-public.openstack.invalid:9292', url)

    def test_catalog_faults(self):
        self.assertEqual([('glance', 'api1')], self._faults(
            'catalog-wrong-api').catalog([('glance', 'api0')]))
        self.assertEqual(2, len(self._faults(
            'duplicate-image-service').catalog([('glance', 'api0')])))

    def test_wrong_store(self):
        self.assertEqual('ceph0', self._faults(
            'wrong-default-store=api1').default_store(
                'api1', 'ceph1', ['ceph0', 'ceph1']))

    def test_unknown_fault_and_api(self):
        self.assertRaises(errors.Invalid, faults.parse, 'no-such-fault')
        self.assertRaises(errors.Invalid, self._faults, 'api-down=api7')

    def test_slow_reconcile_acts_late(self):
        late = self._faults('slow-reconcile=2.5')
        self.assertTrue(late.reconciles())
        self.assertEqual(2.5, late.reconcile_delay())
        self.assertFalse(self._faults(
            'slow-reconcile=2.5', 'patch-not-reconciled').reconciles())
        self.assertTrue(self._faults().reconciles())
        self.assertEqual(0, self._faults().reconcile_delay())
        for bad in ('slow-reconcile', 'slow-reconcile=0',
                    'slow-reconcile=x', 'slow-reconcile=nan',
                    'slow-reconcile=601'):
            self.assertRaises(errors.Invalid, self._faults, bad)

    def test_observed_generation_lag(self):
        self.assertEqual(0, self._faults().status_lag())
        self.assertEqual(3600.0, self._faults(
            'observed-generation-lag=3600').status_lag())
        self.assertEqual(6.0, self._faults(
            'observed-generation-lag=6', 'observed-generation-lag=2'
        ).status_lag())
        for bad in ('observed-generation-lag', 'observed-generation-lag=0',
                    'observed-generation-lag=x',
                    'observed-generation-lag=3601'):
            self.assertRaises(errors.Invalid, self._faults, bad)

    def test_statefulset_not_observed(self):
        self.assertTrue(self._faults().statefulset_observed('api0'))
        default = self._faults('statefulset-not-observed')
        self.assertEqual((False, True), (default.statefulset_observed(
            'api0'), default.statefulset_observed('api1')))
        self.assertFalse(self._faults(
            'statefulset-not-observed=api1').statefulset_observed('api1'))
        self.assertRaises(errors.Invalid, self._faults,
                          'statefulset-not-observed=api7')

    def test_shared_store_moves_second_store_only(self):
        shared = self._faults('shared-store=ceph0:ceph1')
        self.assertEqual('/g/stores/ceph0',
                         shared.store_dir('ceph1', '/g/stores/ceph1'))
        self.assertEqual('/g/stores/ceph0',
                         shared.store_dir('ceph0', '/g/stores/ceph0'))
        self.assertEqual('/g/stores/ceph1',
                         self._faults().store_dir('ceph1', '/g/stores/ceph1'))
        for bad in ('shared-store', 'shared-store=ceph0',
                    'shared-store=ceph0:ceph0'):
            self.assertRaises(errors.Invalid, self._faults, bad)

    def test_every_hook_is_declared_and_combined(self):
        hooks = fault_hooks.hooks()
        public = {name for name, value in vars(fault_hooks.Fault).items()
                  if callable(value) and not name.startswith('_')}
        self.assertEqual(public - {'check_arg'}, set(hooks))
        for name, declared in hooks.items():
            self.assertEqual(declared.__doc__,
                             getattr(faults.Faults, name).__doc__)

    def test_combined_as_declared(self):
        # NOTE: one fault of each combiner, two where their order counts.
        ref = '127.0.0.1:1/podified/openstack-heat-api@sha256:' + 'a' * 64
        self.assertIsNone(self._faults(
            'version-field-missing=heatAPIImage',
            'version-digest-drift=heatAPIImage').version_image(
                'heatAPIImage', ref))
        self.assertNotEqual(ref, self._faults(
            'version-digest-drift=heatAPIImage').version_image(
                'heatAPIImage', ref))
        self.assertEqual(4, self._faults(
            'slow-reconcile=4', 'slow-reconcile=2').reconcile_delay())
        drift = self._faults('heat-image-drift=heat-api')
        self.assertEqual((True, False), (drift.image_drifts('heat-api'),
                                         drift.image_drifts('heat-engine')))
        self.assertEqual(2.0, self._faults(
            'heat-rpc-timeout=20:2', 'heat-rpc-timeout=20:5').rpc_timeout(1))
        self.assertIsNone(self._faults().rpc_timeout(1))
        self.assertEqual([('glance', 'api1'), ('glance-api1', 'api1')],
                         self._faults('catalog-wrong-api',
                                      'duplicate-image-service').catalog(
                             [('glance', 'api0')]))

    def test_a_state_builds_its_faults_once(self):
        cloud = state_mod.State(self.useFixture(fixtures.TempDir()).path)
        cloud.record = record_mod.Record(spec=self.spec)
        first = cloud.faults
        self.assertIs(first, cloud.faults)
        self.assertTrue(first.reconciles())
        cloud.record.faults = [faults.parse('patch-not-reconciled')]
        self.assertFalse(cloud.faults.reconciles())
        patched = cloud.faults
        self.assertIs(patched, cloud.faults)
        cloud.record.spec = dict(self.spec, keystoneEndpoint='api1')
        self.assertIsNot(patched, cloud.faults)


class TestServedStores(testtools.TestCase):
    """Each embedded API is configured with its own stores only."""

    def setUp(self):
        super().setUp()
        self.spec = spec.normalize(cli.DEMO_SPEC, 'built-in')

    def _served(self, api, *names):
        return glanceconf.served_stores(self.spec, api, faults.Faults(
            [faults.parse(n) for n in names], self.spec))

    def test_own_stores_only(self):
        self.assertEqual(('ceph0', ['ceph0', 'ceph2']), self._served('api0'))
        self.assertEqual(('ceph1', ['ceph1']), self._served('api1'))
        self.assertEqual(('ceph2', ['ceph0', 'ceph2']),
                         self._served('edge0'))

    def test_wrong_default_store_adds_the_foreign_store(self):
        self.assertEqual(('ceph0', ['ceph1', 'ceph0']),
                         self._served('api1', 'wrong-default-store=api1'))

    def test_every_store_fault(self):
        self.assertEqual(('ceph1', ['ceph1', 'ceph0', 'ceph2']),
                         self._served('api1', 'every-store'))
        self.assertEqual(('ceph1', ['ceph1']),
                         self._served('api1', 'every-store=api0'))

    def test_config_names_own_stores_and_reveals_locations(self):
        text = glanceconf.render_config(
            glance_dir='/g', api_dir='/g/apis/api1', default_store='ceph1',
            stores=['ceph1'], keystone_url='http://k', glance_password='p',
            store_dir=lambda store, path: path.replace('ceph1', 'ceph0'))
        self.assertIn('enabled_backends = ceph1:file\n', text)
        self.assertNotIn('[ceph0]', text)
        self.assertIn('[ceph1]\n', text)
        self.assertIn('filesystem_store_datadir = /g/stores/ceph0\n', text)
        self.assertIn('show_image_direct_url = True\n', text)
        self.assertIn('show_multiple_locations = True\n', text)


class TestQcow2(testtools.TestCase):

    def test_inspector_accepts_it(self):
        # NOTE: glance's format inspector is oslo.utils' since 7.3.0; the
        # plugin alone (the Python matrix) may hold an older one, which
        # the embedded cloud's glance never runs with.
        try:
            from oslo_utils.imageutils import format_inspector
        except ImportError:
            from importlib import metadata
            self.skipTest('oslo.utils %s has no imageutils.format_inspector '
                          "(the embedded cloud's glance needs 7.3.0 or "
                          'newer)' % metadata.version('oslo.utils'))
        import tempfile
        with tempfile.NamedTemporaryFile(suffix='.qcow2') as f:
            f.write(testimages.empty_qcow2(4 * 1024 * 1024))
            f.flush()
            inspector = format_inspector.detect_file_format(f.name)
        self.assertEqual('qcow2', str(inspector))
        self.assertEqual(4 * 1024 * 1024, inspector.virtual_size)
        inspector.safety_check()
