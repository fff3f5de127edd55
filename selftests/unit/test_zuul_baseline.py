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

"""The last green build's metrics.json, through Zuul's builds API.

tools/zuul_baseline.py (the pre-run step, playbooks/baseline.yaml) asks a
loopback stand-in that answers as zuul-web's builds endpoint does
(selftests/unit/zuul_builds_api.py) and fetches the metrics.json of the
newest successful build of the job on the branch: its
glance-multiapi-metrics artifact, else a path under its log URL. No
build, an API that cannot be reached or never answers, or a file that is
no metrics.json: one line saying so, and no baseline. The round trip
runs the podified post-run (playbooks/podified/collect-logs.yaml) with
Zuul's own zuul_return and Zuul's own rule for an artifact's URL, then
finds that artifact as the next build would.
"""

import json
import os
import subprocess
import sys
import time

import fixtures
import testtools

from selftests import ci_playbooks
from selftests import ci_venvs
from selftests.unit import zuul_builds_api as zapi

REPO = ci_venvs.REPO
TOOL = os.path.join(REPO, 'tools', 'zuul_baseline.py')
JOB = 'glance-multiapi-tests-podified-periodic'
METRICS = json.dumps({'figures': [{
    'figure': 'switchover_convergence_seconds', 'value': 1.4,
    'labels': {'from_api': 'api0', 'to_api': 'api1',
               'interface': 'public'}}]}).encode()


class BaselineLookupTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.api = zapi.ZuulApi()
        self.url = zapi.serve(self, self.api)
        self.root = self.url + '/api/tenant/' + self.api.tenant
        self.out = os.path.join(self.useFixture(
            fixtures.TempDir()).path, 'baseline')

    def lookup(self, *extra, timeout=10, api=None):
        """(exit code, stdout lines) of zuul_baseline.py for JOB on main."""
        proc = subprocess.run(
            [sys.executable, TOOL, '--api', self.root if api is None else api,
             '--job', JOB,
             '--branch', 'main', '--out', self.out,
             '--timeout', str(timeout)] + list(extra),
            capture_output=True, text=True, timeout=60)
        return proc.returncode, proc.stdout.splitlines()

    def found(self):
        path = os.path.join(self.out, 'metrics.json')
        if not os.path.exists(path):
            return None
        with open(path, 'rb') as f:
            return f.read()

    def add(self, uuid, result='SUCCESS', artifact=True, branch='main',
            job=JOB, data=METRICS):
        log_url = '%s/logs/%s/' % (self.url, uuid)
        self.api.logs['%s/controller/metrics.json' % uuid] = data
        artifacts = [{'name': 'glance-multiapi-metrics',
                      'url': log_url + 'controller/metrics.json',
                      'metadata': {'type': 'metrics'}}] if artifact else []
        self.api.builds.append(zapi.build(uuid, job, branch, result,
                                          log_url=log_url,
                                          artifacts=artifacts))

    def test_newest_green_build_of_the_job_and_branch_is_used(self):
        self.add('old', data=b'{"figures": []}')
        self.add('new')
        self.add('red', result='FAILURE', data=b'{"figures": [1]}')
        self.add('other-branch', branch='stable', data=b'{"figures": [2]}')
        self.add('other-job', job='other', data=b'{"figures": [3]}')
        code, lines = self.lookup()
        self.assertEqual(0, code)
        self.assertEqual(METRICS, self.found())
        self.assertEqual(['baseline: %s/logs/new/controller/metrics.json '
                          '(new, 2026-09-01T06:00:00)' % self.url], lines)
        with open(os.path.join(self.out, 'lookup.txt')) as f:
            self.assertEqual(lines[0] + '\n', f.read())
        query = self.api.requests[0]
        for part in ('job_name=' + JOB, 'branch=main', 'result=SUCCESS',
                     'limit=1'):
            self.assertIn(part, query)

    def test_log_path_is_used_when_the_build_published_no_artifact(self):
        self.add('plain', artifact=False)
        code, lines = self.lookup('--log-path', 'controller/metrics.json')
        self.assertEqual(0, code)
        self.assertEqual(METRICS, self.found())
        self.assertIn('/logs/plain/controller/metrics.json', lines[0])

    def test_no_earlier_build_says_so_in_one_line(self):
        self.add('red', result='FAILURE')
        code, lines = self.lookup()
        self.assertEqual((0, ['baseline: none (no successful build of %s '
                              'on branch main yet)' % JOB]), (code, lines))
        self.assertIsNone(self.found())

    def test_an_earlier_baseline_is_not_left_behind(self):
        self.add('new')
        self.lookup()
        self.api.builds.clear()
        self.lookup()
        self.assertIsNone(self.found())

    def test_unknown_tenant_says_so_in_one_line(self):
        code, lines = self.lookup(api=self.url + '/api/tenant/nope')
        self.assertEqual(0, code)
        self.assertEqual(1, len(lines))
        self.assertIn('baseline: none (Zuul\'s builds API answered HTTP 404',
                      lines[0])

    def test_unreachable_api_says_so_in_one_line(self):
        code, lines = self.lookup(api='http://127.0.0.1:9/api/tenant/t')
        self.assertEqual(0, code)
        self.assertEqual(1, len(lines))
        self.assertIn('baseline: none (cannot reach Zuul\'s builds API',
                      lines[0])

    def test_api_that_never_answers_is_cut_at_the_deadline(self):
        zapi.held(self, self.api)
        started = time.monotonic()
        code, lines = self.lookup(timeout=1)
        self.assertLess(time.monotonic() - started, 20)
        self.assertEqual(0, code)
        self.assertEqual(1, len(lines))
        self.assertIn('baseline: none (cannot reach Zuul\'s builds API '
                      '(timed out)', lines[0])

    def test_a_file_that_is_no_metrics_json_is_no_baseline(self):
        self.add('new', data=b'<html>login</html>')
        code, lines = self.lookup()
        self.assertEqual(0, code)
        self.assertIn('baseline: none (the metrics.json of build new is no '
                      'JSON', lines[0])
        self.assertIsNone(self.found())

    def test_no_api_url_asks_nothing(self):
        code, lines = self.lookup(api='')
        self.assertEqual((0, ['baseline: none (no Zuul API URL given)']),
                         (code, lines))
        self.assertEqual([], self.api.requests)


class PublishedArtifactTest(testtools.TestCase):
    """The post-run's zuul_return artifact is what the next run finds."""

    def test_round_trip_through_zuul_return_and_the_builds_api(self):
        venv = self.useFixture(ci_venvs.CiVenv('zuul'))
        work = self.useFixture(fixtures.TempDir()).path
        home = os.path.join(work, 'home')
        reports = os.path.join(home, 'ci-framework-data', 'tests',
                               'glance-multiapi')
        os.makedirs(reports)
        with open(os.path.join(reports, 'metrics.json'), 'wb') as f:
            f.write(METRICS)
        jobdir = os.path.join(work, 'jobdir')
        os.makedirs(os.path.join(jobdir, 'work'))
        # NOTE: the executor makes results.json before the playbooks run.
        results = os.path.join(jobdir, 'work', 'results.json')
        open(results, 'w').close()
        site = subprocess.run(
            [venv.bin('python'), '-c', 'import os, zuul; '
             'print(os.path.dirname(zuul.__file__))'],
            capture_output=True, text=True, check=True, timeout=60)
        actions = os.path.join(site.stdout.strip(), 'ansible', 'base',
                               'action')
        proc = ci_playbooks.play(
            venv, os.path.join(REPO, 'playbooks', 'podified',
                               'collect-logs.yaml'),
            {'cifmw_zuul_target_host': 'localhost',
             'ansible_user_dir': home},
            home=home, timeout=300,
            env={'ZUUL_JOBDIR': jobdir, 'ANSIBLE_ACTION_PLUGINS': actions})
        self.assertEqual(0, proc.returncode, proc.stdout + proc.stderr)
        with open(results) as f:
            returned = json.load(f)['data']

        # Zuul's own rule for the artifact's URL, against the log URL the
        # upload of the logs returns.
        api = zapi.ZuulApi()
        url = zapi.serve(self, api)
        log_url = url + '/logs/green/'
        resolved = subprocess.run(
            [venv.bin('python'), '-c', 'import json, sys\n'
             'from zuul.lib import result_data\n'
             'data = json.load(sys.stdin)\n'
             'print(json.dumps(result_data.get_artifacts_from_result_data('
             'data)))'],
            input=json.dumps(dict(returned, zuul=dict(
                returned['zuul'], log_url=log_url))),
            capture_output=True, text=True, check=True, timeout=60)
        artifacts = json.loads(resolved.stdout)
        self.assertEqual([{'name': 'glance-multiapi-metrics',
                           'url': log_url + 'ci-framework-data/tests/'
                                            'glance-multiapi/metrics.json',
                           'metadata': {'type': 'metrics'}}], artifacts)

        api.builds.append(zapi.build('green', JOB, 'main', 'SUCCESS',
                                     log_url=log_url, artifacts=artifacts))
        api.logs['green/ci-framework-data/tests/glance-multiapi/'
                 'metrics.json'] = METRICS
        out = os.path.join(work, 'baseline')
        proc = subprocess.run(
            [sys.executable, TOOL, '--api', url + '/api/tenant/' +
             api.tenant, '--job', JOB, '--branch', 'main', '--out', out],
            capture_output=True, text=True, timeout=60)
        self.assertEqual(0, proc.returncode, proc.stderr)
        with open(os.path.join(out, 'metrics.json'), 'rb') as f:
            self.assertEqual(METRICS, f.read())
