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

"""The Prow stanza of doc/source/prow.rst and the cluster run it names.

``etc/prow/ci-operator.yaml`` (shown in prow.rst; yamllint checks it in
the lint stage) parses as a ci-operator configuration whose tests run
this project's scripts, and ``tools/cluster-run.sh`` is run against a
stand-in of ``oc`` that answers as a cluster whose test pod ended, with
the logs volume of a recorded run behind it.
"""

import json
import os
import subprocess
import sys
import textwrap

import fixtures
import testtools
import yaml

from selftests.unit import manifest_tools
from selftests.unit import recorded_runs as runs
from selftests.unit import synthetic_subunit

REPO = manifest_tools.REPO
STANZA = os.path.join(REPO, 'etc', 'prow', 'ci-operator.yaml')
PROW_RST = os.path.join(REPO, 'doc', 'source', 'prow.rst')
BIN = os.path.dirname(sys.executable)

# NOTE: answers as a cluster: the test pod ended Succeeded, its logs PVC
# and image are there, and "oc cp" copies $OC_VOLUME/<pod> off it; every
# call is logged, and every applied file kept.
FAKE_OC = textwrap.dedent('''\
    #!%(python)s
    import json, os, shutil, sys
    args = sys.argv[1:]
    log = os.environ['OC_LOG']
    with open(log, 'a') as f:
        f.write(json.dumps(args) + '\\n')
    if args[0] == 'apply':
        path = args[args.index('-f') + 1]
        with open(path) as f:
            text = f.read()
        with open(log + '.applied', 'a') as f:
            f.write(text + '\\n---\\n')
    elif args[0] == 'get' and args[1] == 'pod':
        if 'status.phase' in args[-1]:
            print(os.environ.get('OC_PHASE', 'Succeeded'), end='')
        else:
            print('quay.io/example/tempest:py312', end='')
    elif args[0] == 'get' and args[1] == 'pvc':
        print('glance-multiapi-0-abcde', end='')
    elif args[0] == 'cp':
        pod = args[3].rsplit('/', 1)[-1]
        shutil.copytree(os.path.join(os.environ['OC_VOLUME'], pod),
                        args[4])
    ''')


class StanzaTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        with open(STANZA) as f:
            self.config = yaml.safe_load(f)
        self.tests = {t['as']: t for t in self.config['tests']}

    def test_prow_page_shows_the_stanza(self):
        with open(PROW_RST) as f:
            self.assertIn('.. literalinclude:: ../../etc/prow/'
                          'ci-operator.yaml', f.read())

    def test_main_job_on_an_image_with_what_it_needs(self):
        test = self.tests['embedded-cloud']
        self.assertIn('tools/prow-run.sh', test['commands'])
        image, = [i for i in self.config['images']
                  if i['to'] == test['container']['from']]
        dockerfile = image['dockerfile_literal']
        self.assertIn('tools/setup-env.sh', dockerfile)
        self.assertIn('chmod g+w /etc/passwd', dockerfile)
        self.assertIn('>> /etc/passwd', test['commands'])

    def test_cluster_test_runs_after_build_and_deploy(self):
        test = self.tests['test-operator']
        steps = test['steps']['test']
        self.assertEqual(['openstack-k8s-operators-build',
                          'openstack-k8s-operators-deploy'],
                         [s['ref'] for s in steps[:2]])
        ours = steps[2]
        self.assertIn('tools/cluster-run.sh', ours['commands'])
        self.assertEqual('latest', ours['cli'])
        self.assertIn(ours['from'], [i['to'] for i in
                                     self.config['images']])
        self.assertIn('version', test['cluster_claim'])

    def test_named_scripts_exist_and_run(self):
        for script in ('tools/prow-run.sh', 'tools/cluster-run.sh',
                       'tools/setup-env.sh'):
            self.assertTrue(os.access(os.path.join(REPO, script), os.X_OK),
                            script)
        meta = self.config['zz_generated_metadata']
        self.assertEqual(('openstack-k8s-operators', 'glance-multiapi-tests',
                          'main'), (meta['org'], meta['repo'],
                                    meta['branch']))


class ClusterRunTest(testtools.TestCase):
    """tools/cluster-run.sh against a stand-in oc."""

    def setUp(self):
        super().setUp()
        self.work = self.useFixture(fixtures.TempDir()).path
        bin_dir = os.path.join(self.work, 'bin')
        os.makedirs(bin_dir)
        oc = os.path.join(bin_dir, 'oc')
        with open(oc, 'w') as f:
            f.write(FAKE_OC % {'python': sys.executable})
        os.chmod(oc, 0o755)
        self.volume = os.path.join(self.work, 'volume')
        self.log = os.path.join(self.work, 'oc.log')
        self.out = os.path.join(self.work, 'artifacts')
        self.env = {
            'PATH': '%s:%s:/usr/bin:/bin' % (bin_dir, BIN),
            'OC_LOG': self.log, 'OC_VOLUME': self.volume,
            'ARTIFACT_DIR': self.out, 'POLL_INTERVAL': '0',
            'PYTHON': sys.executable,
            'REPORT': os.path.join(BIN, 'glance-multiapi-report'),
            'JOB_SPEC': json.dumps({'refs': {
                'org': 'openstack-k8s-operators',
                'repo': 'glance-multiapi-tests',
                'pulls': [{'number': 17}]}})}

    def pod_folder(self, outcome='success'):
        """The logs volume's folder of pod glance-multiapi."""
        folder = os.path.join(self.volume, 'glance-multiapi')
        runs.healthy(folder)
        synthetic_subunit.write(folder, 'tempest_results.subunit', (
            runs.full(runs.ENDPOINTS), outcome))
        with open(os.path.join(folder, 'tempest_results.xml'), 'w') as f:
            f.write('<testsuite/>')

    def run_script(self, **env):
        return subprocess.run(
            ['bash', os.path.join(REPO, 'tools', 'cluster-run.sh')],
            env=dict(self.env, **env), capture_output=True, text=True,
            timeout=300)

    def calls(self):
        with open(self.log) as f:
            return [json.loads(line) for line in f]

    def applied(self):
        with open(self.log + '.applied') as f:
            return [d for d in yaml.safe_load_all(f) if d]

    def test_green_run_leaves_map_junit_and_no_cr(self):
        self.pod_folder()
        proc = self.run_script()
        self.assertEqual(0, proc.returncode, proc.stdout + proc.stderr)
        cr = [d for d in self.applied() if d.get('kind') == 'Tempest'][0]
        self.assertEqual([{
            'repository': 'https://github.com/openstack-k8s-operators/'
                          'glance-multiapi-tests',
            'changeRepository': 'https://github.com/openstack-k8s-operators/'
                                'glance-multiapi-tests',
            'changeRefspec': 'refs/pull/17/head'}],
            cr['spec']['tempestRun']['externalPlugin'])
        reader = [d for d in self.applied() if d.get('kind') == 'Pod'][0]
        self.assertEqual('quay.io/example/tempest:py312',
                         reader['spec']['containers'][0]['image'])
        self.assertEqual('glance-multiapi-0-abcde', reader['spec'][
            'volumes'][0]['persistentVolumeClaim']['claimName'])
        for name in ('deployment-map.html', 'metrics.json'):
            self.assertTrue(os.path.isfile(os.path.join(
                self.out, 'glance-multiapi', name)), name)
        self.assertTrue(os.path.isfile(os.path.join(self.out,
                                                    'junit_tempest.xml')))
        calls = self.calls()
        self.assertIn(['delete', 'tempest', '-n', 'openstack',
                       'glance-multiapi', '--ignore-not-found',
                       '--wait=false'], calls)
        self.assertLess(
            calls.index(['delete', 'tempest', '-n', 'openstack',
                         'glance-multiapi', '--ignore-not-found',
                         '--wait=true']),
            calls.index(['apply', '-n', 'openstack', '-f', cr_path(calls)]))

    def test_failed_test_fails_the_run(self):
        self.pod_folder('fail')
        proc = self.run_script(KEEP_CR='1')
        self.assertEqual(1, proc.returncode, proc.stdout + proc.stderr)
        self.assertIn('FAILED: ' + runs.full(runs.ENDPOINTS), proc.stdout)
        self.assertNotIn(['delete', 'tempest', '-n', 'openstack',
                          'glance-multiapi', '--ignore-not-found',
                          '--wait=false'], self.calls())
        self.assertTrue(os.path.isfile(os.path.join(
            self.out, 'glance-multiapi', 'deployment-map.html')))

    def test_pod_that_does_not_end_is_told(self):
        proc = self.run_script(OC_PHASE='Running', TIMEOUT='0')
        self.assertEqual(3, proc.returncode, proc.stdout + proc.stderr)
        self.assertIn('pod glance-multiapi did not end within 0 s (last '
                      'phase: none)', proc.stdout)

    def test_no_repository_is_bad_settings(self):
        env = dict(self.env)
        del env['JOB_SPEC']
        proc = subprocess.run(
            ['bash', os.path.join(REPO, 'tools', 'cluster-run.sh')],
            env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(2, proc.returncode)
        self.assertIn('set PLUGIN_REPOSITORY', proc.stdout)


def cr_path(calls):
    """The file the CR was applied from."""
    return [c for c in calls if c[0] == 'apply' and
            c[-1].endswith('cr.yaml')][0][-1]
