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

"""The rules of the Glance CR that discovery and the embedded cloud share."""

import testtools

from glance_multiapi_kernel import glance_cr


class KeystoneEndpointTest(testtools.TestCase):

    def test_defaults_to_the_only_non_edge_api(self):
        # NOTE: the webhook's Default: the only API, and only then.
        self.assertEqual('a', glance_cr.default_keystone_endpoint(
            {'a': 'split'}))
        self.assertEqual('a', glance_cr.default_keystone_endpoint(
            {'a': 'single'}))

    def test_no_default_with_two_or_none(self):
        for types in ({'a': 'split', 'b': 'single'}, {}):
            self.assertIsNone(glance_cr.default_keystone_endpoint(types))

    def test_no_default_beside_an_edge_api(self):
        # NOTE: {central: split, edge1: edge} has two APIs: the webhook
        # leaves keystoneEndpoint unset and then refuses the spec, where
        # "the only non-edge API" would have taken it.
        types = {'central': 'split', 'edge1': 'edge'}
        self.assertIsNone(glance_cr.default_keystone_endpoint(types))
        self.assertEqual(glance_cr.UNKNOWN_API,
                         glance_cr.keystone_endpoint_problem(None, types))

    def test_the_only_api_is_the_default_even_when_edge(self):
        # NOTE: then refused, naming it (isValidKeystoneEP).
        types = {'e': 'edge'}
        self.assertEqual('e', glance_cr.default_keystone_endpoint(types))
        self.assertEqual(glance_cr.EDGE_API,
                         glance_cr.keystone_endpoint_problem('e', types))

    def test_webhook_refusals(self):
        types = {'a': 'split', 'e': 'edge'}
        self.assertIsNone(glance_cr.keystone_endpoint_problem('a', types))
        self.assertEqual(glance_cr.UNKNOWN_API,
                         glance_cr.keystone_endpoint_problem('x', types))
        self.assertEqual(glance_cr.EDGE_API,
                         glance_cr.keystone_endpoint_problem('e', types))

    def test_interfaces_by_type(self):
        self.assertEqual(('public', 'internal'),
                         glance_cr.interfaces('single'))
        self.assertEqual(('internal',), glance_cr.interfaces('edge'))


class BackendsTest(testtools.TestCase):

    def test_api_snippet_replaces_top_level(self):
        # The operator hands an API its own snippet instead of the
        # top-level one: the top-level stores are not inherited.
        top = ('[DEFAULT]\nenabled_backends = c0:rbd, c1:rbd\n'
               '[glance_store]\ndefault_backend = c0\n')
        own = '[glance_store]\ndefault_backend = c1\n'
        self.assertEqual(('c1', []), glance_cr.backends(
            [('top', top), ('own', own)]))

    def test_empty_api_snippet_inherits_top_level(self):
        top = ('[DEFAULT]\nenabled_backends = c0:rbd, c1:rbd\n'
               '[glance_store]\ndefault_backend = c0\n')
        for own in (None, ''):
            self.assertEqual(('c0', ['c0', 'c1']), glance_cr.backends(
                [('top', top), ('own', own)]))

    def test_nothing_set(self):
        self.assertEqual((None, []), glance_cr.backends(
            [('top', None), ('own', '')]))

    def test_bad_snippets_name_their_field(self):
        for text, problem in (('[glance_store\n', 'not valid INI'),
                              (7, 'expected a string, got int')):
            exc = self.assertRaises(glance_cr.ConfigError,
                                    glance_cr.backends, [('own', text)])
            self.assertEqual('own', exc.field)
            self.assertIn(problem, exc.problem)


def _csc(backends, default='s0'):
    return ('[DEFAULT]\nenabled_backends = %s\n[glance_store]\n'
            'default_backend = %s\n' % (backends, default))


def _spec(apis, top=None, keystone_endpoint='a'):
    spec = {'keystoneEndpoint': keystone_endpoint, 'glanceAPIs': {}}
    if top is not None:
        spec['customServiceConfig'] = top
    for name, (api_type, csc, replicas) in apis.items():
        spec['glanceAPIs'][name] = {'type': api_type, 'replicas': replicas,
                                    'customServiceConfig': csc}
    return spec


def _keystone(value):
    """The webhook's field.Invalid words, as "oc apply" shows them."""
    return ('Invalid value: "%s": %s' % (
        value, glance_cr.KEYSTONE_ENDPOINT_MESSAGE), 'isValidKeystoneEP')


class RefusalsTest(testtools.TestCase):
    """spec -> refused? -> the operator's message and rule."""

    SPLIT = (glance_cr.SPLIT_FILE_MESSAGE, 'isInvalidBackend')

    CASES = [
        # (what, spec, refusal (message, rule) or None)
        ('split on one rbd store',
         _spec({'a': ('split', _csc('s0:rbd'), 1)}), None),
        ('split on one file store',
         _spec({'a': ('split', _csc('s0:file'), 1)}), SPLIT),
        ('split, file store with 0 replicas',
         _spec({'a': ('split', _csc('s0:file'), 0)}), None),
        ('split on two file stores (one store only counts)',
         _spec({'a': ('split', _csc('s0:file,s1:file'), 1)}), None),
        ('split on file and rbd',
         _spec({'a': ('split', _csc('s0:file, s1:rbd'), 1)}), None),
        ('split, no own config, top-level file',
         _spec({'a': ('split', '', 1)}, top=_csc('s0:file')), SPLIT),
        ('split, no own config, no top-level config',
         _spec({'a': ('split', '', 1)}), SPLIT),
        ('split, no own config, top-level rbd',
         _spec({'a': ('split', '', 1)}, top=_csc('s0:rbd')), None),
        ('split, own config without enabled_backends, top-level file',
         _spec({'a': ('split', '[glance_store]\ndefault_backend = s0\n', 1)},
               top=_csc('s0:file')), SPLIT),
        ('split, own file store, top-level rbd',
         _spec({'a': ('split', _csc('s0:file'), 1)}, top=_csc('s0:rbd')),
         SPLIT),
        ('single on one file store',
         _spec({'a': ('single', _csc('s0:file'), 1)}), None),
        # NOTE: the webhook takes a single API on any store; the
        # controller does not deploy it (DeploymentTest below).
        ('single on one rbd store',
         _spec({'a': ('single', _csc('s0:rbd'), 1)}), None),
        ('single, no config anywhere',
         _spec({'a': ('single', '', 1)}), None),
        ('edge on one file store (no rule for edge)',
         _spec({'a': ('split', _csc('s0:rbd'), 1),
                'e': ('edge', _csc('s1:file'), 1)}), None),
        ('keystoneEndpoint names an edge API',
         _spec({'a': ('split', _csc('s0:rbd'), 1),
                'e': ('edge', _csc('s1:rbd'), 1)}, keystone_endpoint='e'),
         _keystone('e')),
        ('keystoneEndpoint names no API',
         _spec({'a': ('split', _csc('s0:rbd'), 1)},
               keystone_endpoint='nope'), _keystone('nope')),
        ('keystoneEndpoint unset beside an edge API',
         _spec({'central': ('split', _csc('s0:rbd'), 1),
                'edge1': ('edge', _csc('s1:rbd'), 1)},
               keystone_endpoint=None), _keystone('')),
    ]

    def test_table(self):
        for what, spec, expected in self.CASES:
            found = glance_cr.refusals(spec)
            if expected is None:
                self.assertEqual([], found, what)
                continue
            self.assertEqual(1, len(found), what)
            message, rule = expected
            self.assertTrue(found[0].reason.startswith(message), what)
            self.assertTrue(found[0].rule.endswith(rule), what)
            line = glance_cr.describe(found[0])
            self.assertNotIn('\n', line, what)
            self.assertIn('glance-operator ', line, what)

    def test_type_cannot_change_on_update(self):
        old = _spec({'a': ('split', _csc('s0:rbd'), 1),
                     'b': ('split', _csc('s1:rbd'), 1)})
        new = _spec({'a': ('split', _csc('s0:rbd'), 1),
                     'b': ('edge', _csc('s1:rbd'), 1)})
        found = glance_cr.refusals(new, old)
        self.assertEqual([('spec.glanceAPIs.b.type',
                           glance_cr.LAYOUT_UPDATE_MESSAGE,
                           glance_cr.WEBHOOK + ' ValidateUpdate')], found)
        # Adding an API of any type, or keeping the type, is fine.
        grown = _spec({'a': ('split', _csc('s0:rbd'), 1),
                       'b': ('split', _csc('s1:rbd'), 1),
                       'c': ('edge', _csc('s2:rbd'), 1)})
        self.assertEqual([], glance_cr.refusals(grown, old))
        # A create has nothing to compare with.
        self.assertEqual([], glance_cr.refusals(new))

    def test_enabled_backends_read_as_the_webhook_reads_them(self):
        text = ('# enabled_backends = x:file\n[DEFAULT]\n'
                'enabled_backends = a:rbd , b:file\n'
                'enabled_backends = c:file\n')
        self.assertEqual(['a:rbd', 'b:file'],
                         glance_cr.enabled_backends(text))
        self.assertEqual([], glance_cr.enabled_backends(None))

    def test_effective_config_is_not_layered(self):
        self.assertEqual('own', glance_cr.effective_config('top', 'own'))
        self.assertEqual('top', glance_cr.effective_config('top', ''))
        self.assertEqual('', glance_cr.effective_config(None, None))


class DeploymentTest(testtools.TestCase):
    """What one pass of the Glance controller deploys."""

    BLOCKS = [
        # (what, API spec, top-level config, location API on, refused?)
        ('single on one file store', ('single', _csc('s0:file'), 1), None,
         False, False),
        ('single on one rbd store', ('single', _csc('s0:rbd'), 1), None,
         False, True),
        ('single on rbd, 0 replicas (the controller has no exemption)',
         ('single', _csc('s0:rbd'), 0), None, False, True),
        ('single on two file stores (one store only counts)',
         ('single', _csc('s0:file,s1:file'), 1), None, False, True),
        ('single, no own config, top-level rbd', ('single', '', 1),
         _csc('s0:rbd'), False, True),
        ('single, no config anywhere', ('single', '', 1), None, False,
         False),
        ('single on rbd with the location API', ('single', _csc('s0:rbd'),
                                                 1), None, True, False),
        ('split on rbd', ('split', _csc('s0:rbd'), 1), None, False, False),
        ('edge on rbd', ('edge', _csc('s0:rbd'), 1), None, False, False),
    ]

    def test_blocks_deployment(self):
        for what, api, top, location, refused in self.BLOCKS:
            spec = _spec({'a': api}, top=top)
            self.assertEqual(refused, glance_cr.blocks_deployment(
                spec, 'a', location), what)

    def test_location_api_annotation_is_parsed_as_go_does(self):
        key = glance_cr.LOCATION_API_ANNOTATION
        for value in ('true', 'True', 'TRUE', 't', '1'):
            self.assertTrue(glance_cr.location_api({key: value}), value)
        for value in ('false', '0', 'yes', 'on', '', ' true'):
            self.assertFalse(glance_cr.location_api({key: value}), value)
        self.assertFalse(glance_cr.location_api({}))
        self.assertFalse(glance_cr.location_api(None))

    def _three(self):
        return _spec({'a': ('split', _csc('s0:rbd'), 1),
                      'b': ('single', _csc('s1:rbd'), 1),
                      'c': ('edge', _csc('s2:rbd'), 1)},
                     keystone_endpoint='a')

    def test_fresh_pass_stops_at_the_refused_api(self):
        passed = glance_cr.reconcile_pass(self._three(), False)
        self.assertEqual('b', passed['stoppedAt'])
        self.assertEqual(['a'], sorted(passed['apis']))
        self.assertEqual(['a'], passed['reconciled'])
        self.assertEqual(['a'], passed['keystoneEndpoint'])
        everything = glance_cr.reconcile_pass(self._three(), True)
        self.assertIsNone(everything['stoppedAt'])
        self.assertEqual(['a', 'b', 'c'], everything['reconciled'])

    def test_later_apis_keep_what_they_had(self):
        healthy = _spec({'a': ('split', _csc('s0:rbd'), 1),
                         'c': ('edge', _csc('s2:rbd'), 1),
                         'gone': ('split', _csc('s3:rbd'), 1)})
        before = glance_cr.reconcile_pass(healthy, False)
        spec = self._three()
        spec['glanceAPIs']['c']['replicas'] = 3
        spec['keystoneEndpoint'] = 'a'
        passed = glance_cr.reconcile_pass(spec, False, before)
        # c is not reconciled: its old replicas stay; "gone" left the
        # spec but the cleanup after the loop never ran.
        self.assertEqual(['a', 'c', 'gone'], sorted(passed['apis']))
        self.assertEqual(1, passed['apis']['c']['replicas'])
        self.assertEqual(['a'], passed['reconciled'])
        # Once b is fixed, the pass completes and cleans up.
        spec['glanceAPIs']['b']['customServiceConfig'] = _csc('s1:file')
        done = glance_cr.reconcile_pass(spec, False, passed)
        self.assertEqual(['a', 'b', 'c'], sorted(done['apis']))
        self.assertEqual(3, done['apis']['c']['replicas'])

    def test_kept_api_keeps_its_keystone_endpoint_annotation(self):
        old = _spec({'a': ('split', _csc('s0:rbd'), 1),
                     'z': ('split', _csc('s2:rbd'), 1)}, keystone_endpoint='z')
        before = glance_cr.reconcile_pass(old, False)
        new = _spec({'a': ('split', _csc('s0:rbd'), 1),
                     'b': ('single', _csc('s1:rbd'), 1),
                     'z': ('split', _csc('s2:rbd'), 1)}, keystone_endpoint='a')
        passed = glance_cr.reconcile_pass(new, False, before)
        self.assertEqual(['a', 'z'], passed['keystoneEndpoint'])

    def test_entries_carry_the_effective_config(self):
        top = _csc('s9:rbd', 's9')
        spec = _spec({'a': ('split', '', 1)}, top=top)
        passed = glance_cr.reconcile_pass(spec, False)
        self.assertEqual(top, passed['apis']['a']['customServiceConfig'])

    def test_glanceapi_crs_are_named_as_the_controller_names_them(self):
        self.assertEqual([('g-a-external', 'external'),
                          ('g-a-internal', 'internal')],
                         glance_cr.glanceapi_crs('g', 'a', 'split'))
        self.assertEqual([('glance-s-single', 'single')],
                         glance_cr.glanceapi_crs('glance', 's', 'single'))
        self.assertEqual([('glance-e-edge', 'edge')],
                         glance_cr.glanceapi_crs('glance', 'e', 'edge'))
        self.assertEqual(('public',), glance_cr.child_interfaces('external'))
        self.assertEqual(('public', 'internal'),
                         glance_cr.child_interfaces('single'))
