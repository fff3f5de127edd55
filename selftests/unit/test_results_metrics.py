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

"""Figures: names, units, bounds, and metrics.prom as Prometheus reads
it (prometheus_client's own parser)."""

import json

import fixtures
from prometheus_client.parser import text_string_to_metric_families
import testtools

from glance_multiapi_tests import config
from glance_multiapi_tests.results.runmap import metrics
from glance_multiapi_tests.results.runmap import model
from glance_multiapi_tests.results.runmap import records
from selftests.unit import recorded_runs as runs


class FiguresTest(testtools.TestCase):

    def test_names_are_stable_and_in_base_units(self):
        for key, figure in metrics.FIGURES.items():
            self.assertEqual(metrics.PREFIX + key, figure.metric)
            suffix = {'seconds': '_seconds',
                      'bytes per second': '_bytes_per_second'}[figure.unit]
            self.assertTrue(figure.metric.endswith(suffix), figure.metric)
            self.assertTrue(set(figure.labels) <= {
                'api', 'interface', 'store', 'from_api', 'to_api',
                'service', 'source', 'outcome'}, figure.labels)

    def test_every_bound_is_a_plugin_option_unset_by_default(self):
        options = {(g.name, o.name): o for g, opts in config.OPT_GROUPS
                   for o in opts}
        for key, figure in metrics.FIGURES.items():
            group, option, kind, _scale = figure.bound
            self.assertIn((group, option), options, key)
            self.assertIsNone(options[(group, option)].default, key)
            self.assertIn(kind, ('max', 'min'))
            self.assertIn(figure.metric, options[(group, option)].help)

    def test_over_a_max_names_figure_value_bound_and_option(self):
        labels = {'from_api': 'api0', 'to_api': 'api1',
                  'interface': 'public'}
        self.assertEqual(
            'figure glance_multiapi_switchover_convergence_seconds{from_api='
            '"api0",interface="public",to_api="api1"} is 1.83 s, over its '
            'bound 0.5 s ([glance_multiapi] max_switchover_seconds)',
            metrics.bound_problem('switchover_convergence_seconds', 1.83,
                                  labels, 0.5))
        self.assertIsNone(metrics.bound_problem(
            'switchover_convergence_seconds', 0.4, labels, 0.5))
        self.assertIsNone(metrics.bound_problem(
            'switchover_convergence_seconds', 99, labels, None))

    def test_under_a_min_rate_is_told_in_mib_per_second(self):
        labels = {'api': 'api1', 'store': 'ceph1', 'interface': 'public'}
        self.assertEqual(
            'figure glance_multiapi_upload_bytes_per_second{api="api1",'
            'interface="public",store="ceph1"} is 12.0 MiB/s, under its '
            'bound 100 MiB/s ([glance_multiapi] min_upload_mib_per_second)',
            metrics.bound_problem('upload_bytes_per_second',
                                  12 * metrics.MIB, labels, 100))
        self.assertIsNone(metrics.bound_problem(
            'upload_bytes_per_second', 120 * metrics.MIB, labels, 100))

    def test_element_of_a_figure(self):
        self.assertEqual('catalog:internal', metrics.element_of(
            'switchover_convergence_seconds', {'interface': 'internal'}))
        self.assertEqual('api:apigrow', metrics.element_of(
            'shrink_gone_seconds', {'api': 'apigrow'}))
        self.assertIsNone(metrics.element_of('grow_answer_seconds', {}))


class PromTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.dir = self.useFixture(fixtures.TempDir()).path

    def facts(self):
        found, _ = records.read(self.dir)
        return model.build(found, outcomes=runs.outcomes(self.dir))

    def parse(self, text):
        return {f.name: f for f in text_string_to_metric_families(text)}

    def test_prom_parses_with_every_figure(self):
        runs.two_workers(self.dir)
        text = metrics.to_prom(self.facts())
        families = self.parse(text)
        switch = families['glance_multiapi_switchover_convergence_seconds']
        self.assertEqual('gauge', switch.type)
        self.assertEqual({('internal', 0.8), ('public', 1.4)}, {
            (s.labels['interface'], s.value) for s in switch.samples})
        self.assertEqual({'from_api': 'api0', 'to_api': 'api1',
                          'interface': 'public'}, switch.samples[1].labels)
        upload = families['glance_multiapi_upload_bytes_per_second']
        self.assertEqual(80.5 * metrics.MIB, {
            s.labels['api']: s.value for s in upload.samples}['api0'])
        self.assertEqual(1, families['glance_multiapi_run_complete']
                         .samples[0].value)
        tests = {s.labels['status']: s.value for s in
                 families['glance_multiapi_tests'].samples}
        self.assertEqual(5, tests['passed'])
        self.assertIn('not_run', tests)
        # NOTE: node-exporter's textfile collector refuses timestamps.
        for family in families.values():
            for sample in family.samples:
                self.assertIsNone(sample.timestamp)
        self.assertEqual(len(families), text.count('# TYPE '))
        self.assertTrue(text.endswith('\n'))

    def test_last_sample_of_a_label_set_wins_and_labels_escape(self):
        rec = runs.worker(self.dir, pid=1)
        for value in (3.0, 4.5):
            rec.write('figure', test='t', figure='heat_engine_restart_seconds',
                      value=value, labels={'service': 'heat "engine"\\x'})
        rec.write('figure', test='t', figure='heat_engine_restart_seconds',
                  value='not a number', labels={'service': 'y'})
        facts = self.facts()
        family = self.parse(metrics.to_prom(facts))[
            'glance_multiapi_heat_engine_restart_seconds']
        self.assertEqual([({'service': 'heat "engine"\\x'}, 4.5)],
                         [(s.labels, s.value) for s in family.samples])
        self.assertEqual(0, self.parse(metrics.to_prom(facts))[
            'glance_multiapi_run_complete'].samples[0].value)

    def test_metrics_json_has_units_labels_bounds_and_tests(self):
        rec = runs.healthy(self.dir)
        runs.switchover_test(rec, bound=1.0)
        document = json.loads(metrics.to_json(self.facts()))
        by_labels = {(f['name'], f['labels'].get('interface')): f
                     for f in document['figures']}
        public = by_labels[('glance_multiapi_switchover_convergence_'
                            'seconds', 'public')]
        self.assertEqual(('seconds', 1.4, '1.40 s', True, 'catalog:public'),
                         tuple(public[k] for k in ('unit', 'value',
                                                   'display', 'exceeded',
                                                   'element')))
        self.assertEqual({'option': '[glance_multiapi] max_switchover_'
                          'seconds', 'value': 1.0, 'kind': 'max'},
                         public['bound'])
        self.assertEqual(runs.full(runs.SWITCHOVER), public['test'])
        self.assertIn('Seconds from the keystoneEndpoint patch',
                      public['help'])
        self.assertEqual(5, document['tests']['passed'])
