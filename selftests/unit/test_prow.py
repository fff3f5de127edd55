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


# NOTE: what glance-operator's configuration builds or imports
# (openshift/release 092857ce, ci-operator/config/openstack-k8s-operators/
# glance-operator/openstack-k8s-operators-glance-operator-main.yaml:
# base_images, images[].to, and the pipeline's src), and the image each
# step it runs names (the refs' from, step-registry
# openstack-k8s-operators/{build,deploy}/*-ref.yaml).
GLANCE_OPERATOR_IMAGES = {
    'src', 'cli', 'openstack-operator-ci-tempest', 'opm-builder',
    'openstack-operator-ci-pre-commit', 'openstack-operator-ci-build-deploy',
    'openstack-operator-ci-build-deploy-kuttl'}
REF_IMAGES = {'openstack-k8s-operators-build':
              'openstack-operator-ci-build-deploy',
              'openstack-k8s-operators-deploy':
              'openstack-operator-ci-build-deploy'}
PLUGIN_URL = 'https://github.com/openstack-k8s-operators/glance-multiapi-tests'
STOCK_IMAGE = ('quay.io/podified-antelope-centos9/openstack-tempest-all:'
               'current-podified')
GLANCE_OPERATOR_TEST = os.path.join(REPO, 'etc', 'prow',
                                    'glance-operator-test.yaml')


def known_images(config):
    """The images a ci-operator configuration builds or imports."""
    return ({'src', 'root'} | set(config.get('base_images') or {})
            | set(config.get('external_images') or {})
            | {i['to'] for i in config.get('images') or []})


def image_problems(tests, known):
    """One line per image a test, a step or a ref uses but nobody makes."""
    found = []
    for test in tests:
        used = []
        if 'container' in test:
            used.append(test['container']['from'])
        for step in (test.get('steps') or {}).get('test') or []:
            used.append(REF_IMAGES.get(step['ref']) if 'ref' in step
                        else step.get('from'))
        found += ['%s: %s is neither built nor imported' % (test['as'], u)
                  for u in used if u not in known]
    return found


def undeclared(test):
    """Parameters a test sets that none of its steps declares."""
    declared = {e['name'] for step in test['steps']['test']
                for e in step.get('env') or []}
    declared |= {'CEPH_HOSTNETWORK'} if any(
        'ref' in step for step in test['steps']['test']) else set()
    return sorted(set(test['steps'].get('env') or {}) - declared)


class StanzaTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        with open(STANZA) as f:
            self.config = yaml.safe_load(f)
        self.tests = {t['as']: t for t in self.config['tests']}

    def test_prow_page_shows_the_stanza(self):
        with open(PROW_RST) as f:
            text = f.read()
        self.assertIn('.. literalinclude:: ../../etc/prow/'
                      'ci-operator.yaml', text)
        self.assertIn('.. literalinclude:: ../../etc/prow/'
                      'glance-operator-test.yaml', text)

    def test_main_job_on_a_python_image_with_what_it_needs(self):
        step, = self.tests['embedded-cloud']['steps']['test']
        self.assertIn('tools/prow-run.sh', step['commands'])
        image, = [i for i in self.config['images']
                  if i['to'] == step['from']]
        self.assertEqual('python', image['from'])
        self.assertEqual('quay.io',
                         self.config['external_images']['python'][
                             'registry'])
        dockerfile = image['dockerfile_literal']
        self.assertIn('tools/setup-env.sh', dockerfile)
        self.assertIn('chmod g+w /etc/passwd', dockerfile)
        self.assertIn('>> /etc/passwd', step['commands'])

    def test_only_images_it_builds_or_imports(self):
        self.assertEqual([], image_problems(self.config['tests'],
                                            known_images(self.config)))

    def test_nothing_of_operator_builds(self):
        text = yaml.safe_dump(self.config)
        for word in ('ref:', 'workflow:', 'openstack-operator-ci-build',
                     'cluster_claim', 'make build'):
            self.assertNotIn(word, text)

    def test_baseline_is_a_declared_parameter(self):
        step, = self.tests['embedded-cloud']['steps']['test']
        self.assertIn('BASELINE', [e['name'] for e in step['env']])
        presubmit = dict(self.tests['embedded-cloud'])
        presubmit['steps'] = dict(presubmit['steps'], env={
            'BASELINE': 'https://example.invalid/metrics.json'})
        self.assertEqual([], undeclared(presubmit))

    def test_periodic_runs_the_same_step(self):
        periodic = self.tests['embedded-cloud-periodic']
        self.assertTrue(periodic['cron'])
        self.assertEqual(self.tests['embedded-cloud']['steps'],
                         periodic['steps'])
        with open(PROW_RST) as f:
            text = ' '.join(f.read().split())
        self.assertIn('periodic-ci-openstack-k8s-operators-glance-multiapi-'
                      'tests-main-embedded-cloud-periodic', text)
        self.assertIn('artifacts/embedded-cloud-periodic/embedded-cloud/'
                      'artifacts/results/metrics.json', text)

    def test_named_scripts_exist_and_run(self):
        for script in ('tools/prow-run.sh', 'tools/cluster-run.sh',
                       'tools/setup-env.sh', 'tools/install-report.sh'):
            self.assertTrue(os.access(os.path.join(REPO, script), os.X_OK),
                            script)
        meta = self.config['zz_generated_metadata']
        self.assertEqual(('openstack-k8s-operators', 'glance-multiapi-tests',
                          'main'), (meta['org'], meta['repo'],
                                    meta['branch']))


class GlanceOperatorTestStanzaTest(testtools.TestCase):
    """The test glance-operator's configuration adds."""

    def setUp(self):
        super().setUp()
        with open(GLANCE_OPERATOR_TEST) as f:
            self.tests = yaml.safe_load(f)
        self.test, = self.tests
        self.ours = self.test['steps']['test'][-1]
        self.env = {e['name']: e.get('default') for e in self.ours['env']}

    def test_runs_after_build_and_deploy(self):
        steps = self.test['steps']['test']
        self.assertEqual(['openstack-k8s-operators-build',
                          'openstack-k8s-operators-deploy'],
                         [s['ref'] for s in steps[:2]])
        self.assertIn('tools/cluster-run.sh', self.ours['commands'])
        self.assertIn('version', self.test['cluster_claim'])

    def test_only_images_glance_operator_builds_or_imports(self):
        self.assertEqual([], image_problems(self.tests,
                                            GLANCE_OPERATOR_IMAGES))

    def test_names_the_plugin_repository_explicitly(self):
        self.assertEqual(PLUGIN_URL, self.env['PLUGIN_REPOSITORY'])
        self.assertIn('git clone --depth 1 "$PLUGIN_REPOSITORY"',
                      self.ours['commands'])
        self.assertEqual([], undeclared(self.test))

    def test_runs_the_stock_tempest_image(self):
        self.assertEqual(STOCK_IMAGE, self.env['TEMPEST_IMAGE'])

    def test_no_job_spec_parsing(self):
        for path in (GLANCE_OPERATOR_TEST, STANZA,
                     os.path.join(REPO, 'tools', 'cluster-run.sh'),
                     os.path.join(REPO, 'tools', 'prow-run.sh')):
            with open(path) as f:
                self.assertNotIn('JOB_SPEC', f.read(), path)


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
            'REPO_OWNER': 'openstack-k8s-operators',
            'REPO_NAME': 'glance-multiapi-tests', 'PULL_NUMBER': '17',
            'PULL_PULL_SHA': 'b' * 40}

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

    def test_another_projects_job_must_name_the_plugin(self):
        self.pod_folder()
        proc = self.run_script(REPO_NAME='glance-operator')
        self.assertEqual(2, proc.returncode, proc.stdout)
        self.assertIn('this job tests openstack-k8s-operators/glance-'
                      'operator, not the plugin: set PLUGIN_REPOSITORY',
                      proc.stdout)

    def test_explicit_repository_wins_over_prows_variables(self):
        self.pod_folder()
        proc = self.run_script(REPO_NAME='glance-operator',
                               PULL_NUMBER='99',
                               PLUGIN_REPOSITORY=PLUGIN_URL)
        self.assertEqual(0, proc.returncode, proc.stdout + proc.stderr)
        cr = [d for d in self.applied() if d.get('kind') == 'Tempest'][0]
        self.assertEqual([{'repository': PLUGIN_URL}],
                         cr['spec']['tempestRun']['externalPlugin'])

    def test_no_repository_is_bad_settings(self):
        env = dict(self.env)
        for name in ('REPO_OWNER', 'REPO_NAME', 'PULL_NUMBER'):
            del env[name]
        proc = subprocess.run(
            ['bash', os.path.join(REPO, 'tools', 'cluster-run.sh')],
            env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(2, proc.returncode)
        self.assertIn('set PLUGIN_REPOSITORY', proc.stdout)


def cr_path(calls):
    """The file the CR was applied from."""
    return [c for c in calls if c[0] == 'apply' and
            c[-1].endswith('cr.yaml')][0][-1]
