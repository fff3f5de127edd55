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

"""The facts the map and the metrics are built from, on recorded runs
and their streams: healthy, a failure, a run killed part way (no
stream), two workers."""

import fixtures
import testtools

from glance_multiapi_tests.results.runmap import model
from glance_multiapi_tests.results.runmap import records
from selftests.unit import recorded_runs as runs


class ModelTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.dir = self.useFixture(fixtures.TempDir()).path

    def facts(self):
        found, problems = records.read(self.dir)
        self.assertEqual([], problems)
        return model.build(found, now=1700000100.0,
                           outcomes=runs.outcomes(self.dir))

    def elements(self, facts):
        return {e['id']: e for e in facts['elements']}

    def rows(self, facts):
        return {t['bare']: t for t in facts['tests']}

    def test_healthy_run_has_every_api_url_and_verdict(self):
        runs.healthy(self.dir)
        facts = self.facts()
        self.assertTrue(facts['complete'])
        self.assertEqual({'namespace': 'openstack', 'name': 'glance',
                          'keystone_endpoint': 'api0',
                          'read_from': 'Glance openstack/glance via the '
                                       'Kubernetes API at '
                                       'https://127.0.0.1:1'},
                         facts['glance'])
        self.assertEqual(['api0', 'api1', 'edge1'],
                         [a['name'] for a in facts['apis']])
        self.assertEqual(('edge', 1, 'ceph2', 'rbd'), tuple(
            facts['apis'][2][k] for k in ('type', 'replicas',
                                          'default_store', 'store_type')))
        elements = self.elements(facts)
        for (api, interface), _url in runs.URLS.items():
            element = elements['endpoint:%s:%s' % (api, interface)]
            self.assertEqual('passed', element['status'], element)
            self.assertEqual([runs.full(runs.ENDPOINTS)],
                             [v['test'] for v in element['verdicts']])
        for api in ('api0', 'api1', 'edge1'):
            self.assertEqual('passed', elements['store:%s' % api]['status'])
        self.assertEqual('passed', elements['keystone_endpoint']['status'])
        self.assertEqual('passed', elements['catalog:public']['status'])
        # NOTE: heat's class was skipped: its test says why; what no test
        # of the run checks is "not checked".
        self.assertEqual('skipped', elements['heat:heat-engine']['status'])
        self.assertEqual('heat is not available ([service_available] heat '
                         '= False)', elements['heat:heat-engine'][
                             'verdicts'][0]['message'])
        self.assertEqual('not checked', elements['uploader']['status'])
        self.assertEqual({'passed': 5, 'skipped': 1}, facts['counts'])
        self.assertIn(runs.T + 'api.test_uploader.UploaderBasicsTest.'
                      'test_upload_image'.replace('api.', 'scenario.'),
                      facts['not_selected'])

    def test_catalog_first_seen_then_after_each_change(self):
        rec = runs.worker(self.dir, pid=100)
        runs.discovered(rec, 'first.Class')
        runs.discovered(rec, 'same.Catalog')
        runs.switchover_test(rec)
        # NOTE: a class after the restore sees the catalog as at first:
        # kept, it differs from the switched one before it.
        runs.discovered(rec, 'after.Restore')
        catalog = self.facts()['catalog']
        self.assertEqual(['first seen (seen by first.Class)',
                          'after keystoneEndpoint api0 -> api1',
                          'seen by after.Restore'],
                         [s['label'] for s in catalog])
        self.assertEqual([('internal', 'regionOne',
                           runs.URLS[('api0', 'internal')]),
                          ('public', 'regionOne', runs.ROUTE0)],
                         [(e['interface'], e['region'], e['url'])
                          for e in catalog[0]['entries']])
        self.assertEqual(runs.ROUTE1, catalog[1]['entries'][1]['url'])

    def test_failed_element_names_test_and_first_line(self):
        runs.api_down(self.dir)
        facts = self.facts()
        elements = self.elements(facts)
        public = elements['endpoint:api1:public']
        self.assertEqual('failed', public['status'])
        self.assertEqual([{
            'test': runs.full(runs.ENDPOINTS), 'run': 'tempest',
            'status': 'failed',
            'message': 'api1 public https://127.0.0.1:20003: TCP: '
                       '[Errno 111] Connection refused'}],
            public['verdicts'])
        self.assertEqual('passed', elements['endpoint:api0:public']['status'])
        self.assertEqual('failed', elements['store:api1']['status'])
        self.assertEqual('passed', elements['store:api0']['status'])
        # NOTE: the upload stopped at api1: edge1's check was not reached.
        edge = elements['store:edge1']
        self.assertEqual('not run', edge['status'])
        self.assertIn('not reached', edge['verdicts'][0]['message'])
        row = self.rows(facts)[runs.ENDPOINTS]
        self.assertEqual(('failed', '2 of 7 image endpoints fail the probe '
                          '(probe timeout 5.0 s per stage):'),
                         (row['status'], row['first_line']))

    def test_killed_run_marks_what_it_did_not_reach(self):
        runs.killed(self.dir)
        facts = self.facts()
        self.assertFalse(facts['complete'])
        self.assertEqual([False], [r['complete'] for r in facts['runs']])
        tests = self.rows(facts)
        # NOTE: no stream: a test the worker went on from ended, and the
        # map says where its result is; the one it was in is unfinished.
        self.assertEqual(('unfinished', 'ended; its result is in the run\'s '
                          'subunit stream, which this map was built without '
                          '(a run killed part way leaves none)'), (
            tests[runs.ENDPOINTS]['status'],
            tests[runs.ENDPOINTS]['message']))
        self.assertEqual(('unfinished', 'started, no result: killed in it, '
                          'or still running when this map was written'), (
            tests[runs.ONE_SERVICE]['status'],
            tests[runs.ONE_SERVICE]['message']))
        for bare in (runs.OWNERSHIP, runs.UPLOAD, runs.SWITCHOVER):
            self.assertEqual(('not run', 'the run never reached it'), (
                tests[bare]['status'], tests[bare]['message']))
        elements = self.elements(facts)
        # NOTE: what the checks that ended judged stands.
        for (api, interface), _url in runs.URLS.items():
            self.assertEqual('passed', elements['endpoint:%s:%s' % (
                api, interface)]['status'])
        self.assertEqual('unfinished', elements['catalog']['status'])
        for api in ('api0', 'api1', 'edge1'):
            self.assertEqual('not run', elements['store:%s' % api]['status'])
        self.assertEqual(
            ['not run', 'not run'],
            [v['status'] for v in elements['keystone_endpoint']['verdicts']])
        self.assertEqual('not run', elements['keystone_endpoint']['status'])
        # NOTE: not scheduled in this run at all: not checked.
        self.assertEqual('not checked', elements['uploader']['status'])

    def test_the_stream_of_a_killed_run_ends_what_it_holds(self):
        rec = runs.killed(self.dir)
        # NOTE: the part of a stream a killed run's stestr had written.
        runs.end(rec, runs.ENDPOINTS)
        runs.stream(self.dir)
        tests = self.rows(self.facts())
        self.assertEqual('passed', tests[runs.ENDPOINTS]['status'])
        self.assertEqual('unfinished', tests[runs.ONE_SERVICE]['status'])

    def test_two_workers_make_one_run(self):
        runs.two_workers(self.dir)
        facts = self.facts()
        self.assertEqual(1, len(facts['runs']))
        self.assertEqual((2, 2, True), tuple(facts['runs'][0][k] for k in (
            'workers', 'workers_ended', 'complete')))
        self.assertEqual({'passed': 5}, facts['counts'])
        self.assertEqual(5, len({t['bare'] for t in facts['tests']}))
        self.assertEqual(5, len(facts['figures']))

    def test_worker_that_never_ended_stops_the_run(self):
        one, _two = runs.two_workers(self.dir)
        # NOTE: the second worker's end record is taken away.
        found, _ = records.read(self.dir)
        found = [r for r in found if not (r['kind'] == 'worker-end' and
                                          r['pid'] == 502)]
        facts = model.build(found)
        self.assertFalse(facts['complete'])
        self.assertEqual(1, facts['runs'][0]['workers_ended'])

    def test_class_error_fails_its_tests_and_the_glance_cr(self):
        rec = runs.worker(self.dir, pid=600, scheduled=[runs.ENDPOINTS])
        runs.result(rec, 'setUpClass (%sapi.test_endpoints.'
                    'ImageEndpointsTest)' % runs.T, 'failed',
                    'discovery command \'x\': output is not JSON')
        rec.write('worker-end')
        runs.stream(self.dir)
        facts = self.facts()
        row = self.rows(facts)[runs.ENDPOINTS]
        self.assertEqual('failed', row['status'])
        self.assertEqual('setUpClass of ImageEndpointsTest failed: '
                         'discovery command \'x\': output is not JSON',
                         row['message'])
        self.assertEqual('failed', self.elements(facts)['glance']['status'])
        self.assertIsNone(facts['glance'])

    def test_same_label_twice_is_two_runs(self):
        runs.healthy(self.dir)
        rec = runs.worker(self.dir, pid=101, run='run-2',
                          clock=runs.Clock(1700001000.0),
                          scheduled=[runs.ENDPOINTS])
        runs.endpoints_test(rec, down=('api0',))
        rec.write('worker-end')
        runs.stream(self.dir)
        facts = self.facts()
        self.assertEqual(['tempest', 'tempest #2'],
                         [r['label'] for r in facts['runs']])
        verdicts = self.elements(facts)['endpoint:api0:public']['verdicts']
        self.assertEqual([('tempest', 'passed'), ('tempest #2', 'failed')],
                         [(v['run'], v['status']) for v in verdicts])
        # NOTE: one stream of both: each run its own result of the test.
        self.assertEqual([('tempest', 'passed'), ('tempest #2', 'failed')],
                         [(t['run'], t['status']) for t in facts['tests']
                          if t['bare'] == runs.ENDPOINTS])

    def test_unknown_selection_leaves_unstarted_tests_out(self):
        rec = runs.worker(self.dir, pid=700, scheduled=None)
        runs.discovered(rec, runs.T + 'api.test_endpoints.ImageEndpointsTest')
        runs.endpoints_test(rec)
        rec.write('worker-end')
        facts = self.facts()
        self.assertEqual([runs.ENDPOINTS], [t['bare'] for t in facts[
            'tests']])
        self.assertFalse(facts['runs'][0]['selection_known'])

    def test_added_api_is_shown_with_who_added_it(self):
        rec = runs.healthy(self.dir)
        rec.write('deployment', label='added by the grow/shrink scenario',
                  added=True, test='t.grow', apis=[{
                      'name': 'apigrow', 'type': 'split', 'replicas': 1,
                      'endpoints': {'public': 'https://127.0.0.1:20020'},
                      'default_store': 'cephgrow', 'store_type': 'rbd',
                      'stores': ['cephgrow']}])
        rec.write('figure', test='t.grow', figure='grow_answer_seconds',
                  value=2.5, labels={'api': 'apigrow'})
        facts = self.facts()
        grown = facts['apis'][-1]
        self.assertEqual(('apigrow', 't.grow (added by the grow/shrink '
                          'scenario)'), (grown['name'], grown['added_by']))
        elements = self.elements(facts)
        self.assertEqual([2.5], [f['value'] for f in elements[
            'api:apigrow']['figures']])
        self.assertNotIn('endpoint:apigrow:public', elements)

    def test_teardown_error_is_a_failed_result_of_its_own(self):
        rec = runs.healthy(self.dir)
        cls = runs.T + 'api.test_endpoints.ImageEndpointsTest'
        runs.result(rec, 'tearDownClass (%s)' % cls, 'failed',
                    'deleting image x: 500')
        runs.stream(self.dir)
        row = self.rows(self.facts())['tearDownClass (%s)' % cls]
        self.assertEqual(('failed', 'deleting image x: 500'),
                         (row['status'], row['first_line']))
