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

"""deployment-map.html in a real browser (headless chromium, no network).

``DeploymentMapBrowserTest`` opens maps rebuilt from recorded runs
(healthy, api1 down, killed) and checks what a person sees: every API,
URL and verdict visible, a failed element marked failed (a red frame and
the word, not colour alone), no console error, nothing fetched.
``DeploymentMapFaultsTest`` makes the map of real tempest runs on the
shared embedded cloud, as the runners do (glance-multiapi-report over
the records and the run's stream, once the run has ended): a closed
port (api-down=api1), a switchover that leaves the public catalog entry
behind (route-not-moved), a bound set below the measured convergence,
and a run killed part way (records and no stream).
"""

import io
import json
import os
import signal
import subprocess
import tempfile

import fixtures
from prometheus_client.parser import text_string_to_metric_families
import testtools

from glance_multiapi_kernel import polling
from glance_multiapi_tests.results.gate import subunit_stream
from glance_multiapi_tests.results.runmap import outcomes
from glance_multiapi_tests.results.runmap import records
from selftests import browser
from selftests.functional import base
from selftests.functional import tempest_workspace
from selftests.functional import test_multiapi_faults
from selftests.unit import recorded_runs as runs

ENDPOINTS = test_multiapi_faults.ENDPOINTS
SWITCHOVER = test_multiapi_faults.SWITCHOVER
RED = 'rgb(207, 34, 46)'


class _MapInBrowser(object):
    """Opens a results folder's map; what a reader sees of it."""

    def open_map(self, results_dir):
        missing = browser.missing()
        if missing:
            # NOTE: tools/setup-env.sh installs them (bindep.txt test
            # profile, browser-requirements.txt): missing is a failure.
            self.fail('no browser to open the map with: %s is missing' %
                      missing)
        self.chromium = self.useFixture(browser.HeadlessChromium())
        driver = self.chromium.open(os.path.join(results_dir,
                                                 'deployment-map.html'))
        self.addCleanup(self._keep_screenshot, results_dir)
        return driver

    def _keep_screenshot(self, results_dir):
        folder = os.environ.get(base.ENV_ARTIFACTS)
        if folder and self.getDetails():
            os.makedirs(folder, exist_ok=True)
            self.chromium.screenshot(os.path.join(
                folder, '%s.png' % self.id().rsplit('.', 1)[-1]))

    def assertRenderedOffline(self):
        errors = [e for e in self.chromium.console()
                  if e.get('level') in ('SEVERE', 'WARNING')]
        self.assertEqual([], errors, 'console of deployment-map.html')
        self.assertEqual([], self.chromium.fetched(),
                         'deployment-map.html fetched something')
        svg = self.chromium.driver.find_element('css selector', 'svg.map')
        self.assertTrue(svg.is_displayed())
        self.assertGreater(svg.size['height'], 200)

    def visible(self):
        """Every word of the page a reader sees (tooltips left out)."""
        return self.chromium.driver.find_element('tag name', 'body').text

    @staticmethod
    def api_line(interface, url):
        """The text of an API's URL line in the diagram."""
        return '%-8s %s' % (interface, url)

    def diagram_line(self, text):
        """(mark of the diagram line holding text, its box's frame colour).

        The line must be displayed; its mark is the badge before it.
        """
        driver = self.chromium.driver
        found = driver.find_elements(
            'xpath', "//*[local-name()='svg']//*[local-name()='text' and "
            "@class='line' and contains(., '%s')]" % text)
        self.assertEqual(1, len(found), 'diagram lines holding %r' % text)
        line = found[0]
        self.assertTrue(line.is_displayed(), text)
        badge = line.find_element(
            'xpath', "preceding-sibling::*[local-name()='g'][1]")
        frame = line.find_element(
            'xpath', "ancestor::*[local-name()='g'][1]/*[local-name()="
            "'rect']")
        return badge.text, frame.value_of_css_property('stroke')


class DeploymentMapBrowserTest(_MapInBrowser, testtools.TestCase):
    """Maps of recorded runs, as a browser shows them."""

    def setUp(self):
        super().setUp()
        self.dir = self.useFixture(fixtures.TempDir()).path

    def test_every_api_url_and_verdict_is_visible(self):
        runs.healthy(self.dir)
        runs.rebuild(self.dir)
        self.open_map(self.dir)
        self.assertRenderedOffline()
        seen = self.visible()
        for name in ('api0', 'api1', 'edge1'):
            self.assertIn('API %s' % name, seen)
        urls = dict(runs.URLS)
        urls[('api0', 'public')] = runs.ROUTE0
        for (_api, interface), url in urls.items():
            mark, _frame = self.diagram_line(self.api_line(interface, url))
            self.assertEqual('\u2714 PASSED', mark, url)
        self.assertIn(runs.ROUTE1, seen)
        for word in ('\u2714 PASSED', '\u2013 SKIPPED', '\u00b7 NOT CHECKED',
                     '80.5 MiB/s', '1.40 s', 'keystoneEndpoint: api0',
                     'openstack/glance'):
            self.assertIn(word, seen)

    def test_failed_element_is_marked_failed(self):
        runs.api_down(self.dir)
        runs.rebuild(self.dir)
        self.open_map(self.dir)
        self.assertRenderedOffline()
        for interface in ('public', 'internal'):
            self.assertEqual(('\u2718 FAILED', RED), self.diagram_line(
                self.api_line(interface, runs.URLS[('api1', interface)])))
        mark, frame = self.diagram_line(self.api_line(
            'internal', runs.URLS[('api0', 'internal')]))
        self.assertEqual('\u2714 PASSED', mark)
        self.assertNotEqual(RED, frame)
        seen = self.visible()
        self.assertIn('\u2718 3 FAILED element(s)', seen)
        self.assertIn('%s: api1 public https://127.0.0.1:20003: TCP: '
                      '[Errno 111] Connection refused' % runs.full(
                          ENDPOINTS), seen)

    def test_killed_run_shows_what_did_not_run(self):
        runs.killed(self.dir)
        runs.rebuild(self.dir)
        self.open_map(self.dir)
        self.assertRenderedOffline()
        seen = self.visible()
        self.assertIn('STOPPED EARLY', seen)
        self.assertIn('\u26a0 UNFINISHED', seen)
        mark, _frame = self.diagram_line('default store ceph0')
        self.assertEqual('\u25cb NOT RUN', mark)


class DeploymentMapFaultsTest(_MapInBrowser, base.CloudTestCase):
    """The map of real runs, healthy and under faults, judged in a browser.

    Against the shared cloud, one case at a time (faults are cloud-wide).
    """

    def results_dir(self):
        return tempfile.mkdtemp(prefix='gmt-map-', dir=self.useFixture(
            fixtures.TempDir()).path)

    def overrides(self, results_dir, **more):
        options = dict(test_multiapi_faults.MultiApiFaultsTest.overrides(
            self)['glance_multiapi'], results_dir=results_dir, **more)
        return {'glance_multiapi': options}

    def report(self, results_dir):
        """glance-multiapi-report RESULTS_DIR, as the runners run it."""
        done = subprocess.run(
            [os.path.join(base.BIN, 'glance-multiapi-report'), '-q',
             results_dir], capture_output=True, text=True, timeout=120)
        self.assertEqual(0, done.returncode, done.stdout + done.stderr)

    def run_mapped(self, regex, results_dir, **more):
        """Run tempest writing records into results_dir, then its map.

        Its stream goes beside the records, as a test-operator pod leaves
        it; {test id: (status, details)} as run_tempest gives them.
        """
        proc = self.tempest_stream(regex.replace('.', r'\.'),
                                   overrides=self.overrides(results_dir,
                                                            **more))
        with open(os.path.join(results_dir, outcomes.TEST_OPERATOR_STREAM),
                  'wb') as f:
            f.write(proc.stdout)
        self.report(results_dir)
        results = subunit_stream.parse_subunit(io.BytesIO(proc.stdout))
        return {k: v for k, v in results.items()
                if v[0] in ('success', 'fail', 'skip')}

    def facts(self, results_dir):
        with open(os.path.join(results_dir, 'deployment-map.json')) as f:
            return json.load(f)

    def elements(self, results_dir):
        return {e['id']: e for e in self.facts(results_dir)['elements']}

    def url(self, key):
        with open(os.path.join(self.state_dir, 'state.json')) as f:
            state = json.load(f)
        scheme = 'https' if state['options'].get('tls') else 'http'
        return '%s://127.0.0.1:%d' % (scheme, state['ports'][key])

    def test_closed_port_marks_the_api_urls_failed(self):
        out = self.results_dir()
        with self.fault('api-down=api1'):
            results = self.run_mapped(ENDPOINTS, out)
        self.assertOutcome(results, ENDPOINTS, 'fail')
        self.open_map(out)
        self.assertRenderedOffline()
        for interface in ('public', 'internal'):
            url = self.url('glance-api1-%s' % interface)
            self.assertEqual(('\u2718 FAILED', RED), self.diagram_line(
                self.api_line(interface, url)))
            self.assertIn('ImageEndpointsTest.test_image_endpoints_answer: '
                          'api1 %s %s: TCP:' % (interface, url),
                          ' '.join(self.visible().split()))
        mark, _ = self.diagram_line(self.api_line(
            'internal', self.url('glance-api0-internal')))
        self.assertEqual('\u2714 PASSED', mark)

    def test_interface_left_behind_is_the_failed_entry(self):
        out = self.results_dir()
        with self.fault('route-not-moved'):
            results = self.run_mapped(SWITCHOVER, out)
        self.assertOutcome(results, SWITCHOVER, 'fail')
        elements = self.elements(out)
        public, internal = elements['catalog:public'], elements[
            'catalog:internal']
        self.assertEqual(('failed', 'passed'), (public['status'],
                                                internal['status']))
        self.assertIn('did not show api1\'s URL within 20 s', public[
            'verdicts'][0]['message'])
        self.assertIn('(api0); expected api1\'s %s' % self.url(
            'glance-api1-public'), public['verdicts'][0]['message'])
        figures = {(f['labels']['from_api'], f['labels']['interface'])
                   for f in internal['figures']}
        self.assertIn(('api0', 'internal'), figures)
        self.open_map(out)
        self.assertRenderedOffline()
        seen = ' '.join(self.visible().split())
        self.assertIn('after keystoneEndpoint api0 -> api1 (did not '
                      'converge)', seen)
        mark, frame = self.diagram_line('public regionOne')
        self.assertEqual(('\u2718 FAILED', RED), (mark, frame))

    def test_switchover_bound_fails_when_set_only(self):
        out = self.results_dir()
        with self.fault():
            results = self.run_mapped(SWITCHOVER, out,
                                      max_switchover_seconds='0.001')
        details = self.assertOutcome(
            results, SWITCHOVER, 'fail',
            'figure glance_multiapi_switchover_convergence_seconds{from_api='
            '"api0",interface="public",to_api="api1"} is ',
            ' s, over its bound 0.001 s ([glance_multiapi] '
            'max_switchover_seconds)')
        self.addDetail('bound-failure', testtools.content.text_content(
            details[-2000:]))
        with open(os.path.join(out, 'metrics.prom')) as f:
            families = {m.name: m for m in
                        text_string_to_metric_families(f.read())}
        samples = families['glance_multiapi_switchover_convergence_seconds']
        self.assertEqual(4, len(samples.samples))
        self.assertEqual('failed', self.elements(out)['catalog:public'][
            'status'])
        # NOTE: unset, the same figure is recorded and nothing fails.
        again = self.results_dir()
        with self.fault():
            results = self.run_mapped(SWITCHOVER, again)
        self.assertOutcome(results, SWITCHOVER, 'success')
        figures = self.facts(again)['figures']
        self.assertEqual({None}, {f['bound']['value'] for f in figures})
        self.assertEqual(4, len(figures))

    def test_killed_run_keeps_the_map_of_what_ran(self):
        out = self.results_dir()
        # NOTE: with the store placement class too: the three tests of
        # the other two take a tenth of a second each, so under load all
        # had ended before the kill (seen beside stress-ng --cpu 2).
        regex = (r'glance_multiapi_tests\.tests\.api\.test_(endpoints|'
                 r'catalog|store_placement)')
        argv, workspace = self.tempest_argv(regex, self.overrides(out))
        proc = subprocess.Popen(argv, cwd=workspace, start_new_session=True,
                                env=tempest_workspace.env(),
                                stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        self.addCleanup(proc.wait, 60)

        def a_check_ended():
            try:
                found, _ = records.read(out)
            except records.RecordsError:
                return False, 'no records yet'
            starts = [r for r in found if r['kind'] == 'test-start']
            passed = [r for r in found if r['kind'] == 'verdict' and
                      r['status'] == 'passed']
            return len(starts) > 1 and bool(passed), (
                '%d test(s) started, %d check(s) passed' % (
                    len(starts), len(passed)))

        polling.poll(a_check_ended, what='a test of the run to judge an '
                     'element and end', timeout=300, interval=0.2,
                     describe=str)
        # NOTE: as a pod is killed: no handler, no atexit runs, no stream.
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(60)
        self.report(out)
        facts = self.facts(out)
        self.assertFalse(facts['complete'])
        self.assertIn('passed', {e['status'] for e in facts['elements']})
        messages = [t['message'] for t in facts['tests']]
        self.assertTrue([m for m in messages if m.startswith('ended; ')],
                        messages)
        statuses = {t['status'] for t in facts['tests']}
        self.assertTrue(statuses & {'not run', 'unfinished'}, statuses)
        self.open_map(out)
        self.assertRenderedOffline()
        self.assertIn('STOPPED EARLY', self.visible())
