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

"""The Zuul jobs against the ci-framework fact list, and the fact list."""

import copy
import glob
import os

import testtools
import yaml

from glance_multiapi_tests import config
from glance_multiapi_kernel import glance_cr
from selftests.manifests import cifmw_facts
from selftests.manifests import crd_schema
from selftests.manifests import rbac
from selftests.manifests import zuul_checkout
from selftests.manifests import zuul_jobs
from selftests.unit import manifest_tools

REPO = manifest_tools.REPO
FACTS = os.path.join(REPO, 'etc', 'zuul', 'ci-framework-facts.txt')
GATE = 'glance-multiapi-tests-podified'
BASE = 'glance-multiapi-tests-podified-base'
PERIODIC = 'glance-multiapi-tests-podified-periodic'
PASTED = 'glance-operator-glance-multiapi'
PASTE = os.path.join(REPO, 'etc', 'zuul', 'paste-job.yaml')
OTHER_PR = 'pull request of glance-operator'
# NOTE: as ci-framework names the CR: <name>-<stage>, the default stage
# being "tempest" (roles/test_operator/tasks/runners/tempest_runner.yml).
CR = 'CR glance-multiapi-tempest'


def _read(path):
    with open(path) as stream:
        return stream.read()


class ShippedJobsTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        if zuul_jobs.jinja2() is None:
            self.skipTest('jinja2 is not installed (it comes with the '
                          'embedded cloud and the lint venv)')
        self.facts = cifmw_facts.parse_facts(_read(FACTS), FACTS)
        self.jobs, self.projects = zuul_jobs.load_config(
            sorted(glob.glob(os.path.join(REPO, 'zuul.d', '*.yaml')))
            + [PASTE])
        self.crd = crd_schema.load(os.path.join(
            manifest_tools.ETC, 'tempest-crd-schema.json'))
        self.rbac = [doc for name in ('rbac.yaml', 'rbac-disruptive.yaml')
                     for doc in rbac.load_documents(os.path.join(
                         manifest_tools.ETC, name))]
        self.used = _read(os.path.join(REPO, 'zuul.d', 'podified.yaml'))

    def problems(self, jobs=None, used=None, texts=None):
        return zuul_jobs.problems(
            jobs or self.jobs, self.projects, self.facts, REPO,
            self.used if used is None else used, self.crd,
            self.rbac, config.list_opts(), texts)

    def rendered(self, name, context):
        variables = zuul_jobs.job_vars(self.jobs, name)
        return zuul_jobs.render_vars(variables, zuul_checkout.contexts(
            variables[zuul_checkout.PROJECT_VAR])[context])

    def test_check_zuul_jobs_passes(self):
        code, out, err = manifest_tools.run(self, 'check_zuul_jobs')
        self.assertEqual((0, ''), (code, err), out)
        self.assertIn('all known', out)

    def test_parent_is_glance_operators_tempest_parent(self):
        self.assertEqual('podified-multinode-hci-deployment-crc-1comp-'
                         'backends', self.jobs[BASE]['parent'])
        self.assertIn(self.jobs[BASE]['parent'], self.facts['jobs'])

    def test_unknown_variable_is_named(self):
        found = self.problems(used=self.used + '\ncifmw_no_such_thing: 1')
        self.assertEqual(['cifmw_no_such_thing: no such variable in the '
                          'ci-framework'], found)

    def test_unknown_parent_is_named(self):
        jobs = copy.deepcopy(self.jobs)
        jobs[BASE]['parent'] = 'podified-no-such-parent'
        self.assertIn('%s: parent podified-no-such-parent is no job of this '
                      'repository or the ci-framework' % BASE,
                      self.problems(jobs))

    def test_control_plane_hook_must_sort_before_the_deploy_hook(self):
        jobs = copy.deepcopy(self.jobs)
        variables = jobs[BASE]['vars']
        variables['post_deploy_83_glance_multiapi_apis'] = variables.pop(
            'post_deploy_81_glance_multiapi_apis')
        found = self.problems(jobs)
        self.assertEqual(1, len(found), found)
        self.assertIn("'83 glance multiapi apis' sorts after '82 Kustomize "
                      "and update Control Plane'", found[0])

    def test_hook_playbook_must_exist(self):
        jobs = copy.deepcopy(self.jobs)
        jobs[BASE]['vars']['pre_tests_80_glance_multiapi_rbac_and_doctor'][
            'source'] = '{{ ansible_user_dir }}/playbooks/podified/x.yaml'
        found = self.problems(jobs)
        self.assertEqual(1, len(found), found)
        self.assertIn('is no playbook of this repository', found[0])

    def test_plugin_is_the_served_checkout_never_a_github_ref(self):
        # NOTE: main 9064415's jobs: the repository and the pull request of
        # zuul.project, which is glance-operator in glance-operator's job.
        jobs = copy.deepcopy(self.jobs)
        jobs[BASE]['vars']['cifmw_test_operator_tempest_external_plugin'] = (
            "{{ [{'repository': 'https://' ~ zuul.project.canonical_name}"
            " | combine({'changeRepository': 'https://' ~ zuul.project"
            ".canonical_name, 'changeRefspec': 'refs/pull/%s/head' % "
            "zuul.change} if zuul.change is defined else {})] }}")
        found = self.problems(jobs)
        self.assertIn("%s (%s, %s): externalPlugin repository is 'https://"
                      "github.com/openstack-k8s-operators/glance-operator', "
                      "not the checkout the controller serves (glance_multi"
                      "api_served_repository, set by the pre_tests hook)"
                      % (PASTED, OTHER_PR, CR), found)
        self.assertIn('%s (%s, %s): externalPlugin sets changeRefspec: the '
                      'served checkout holds the change (and its '
                      'Depends-On) already; a ref fetched on top tests '
                      'other code than the hooks run' % (GATE, 'pull '
                                                         'request', CR),
                      found)

    def test_checkout_of_this_project_not_zuul_project(self):
        jobs = copy.deepcopy(self.jobs)
        jobs[BASE]['vars']['glance_multiapi_src_dir'] = (
            '{{ zuul.project.src_dir }}')
        found = self.problems(jobs, texts={
            'zuul.d/podified.yaml': 'x: "{{ zuul.project.src_dir }}"\n'
                                    '# zuul.project in a comment\n'
                                    'y: "{{ zuul.projects[p].src_dir }}"'})
        self.assertIn('zuul.d/podified.yaml:1: uses zuul.project, which '
                      'names the project whose change runs (another one '
                      'when another project runs the job); take this '
                      'project from zuul.projects[glance_multiapi_project]',
                      found)
        self.assertIn('%s (%s): glance_multiapi_src_dir is src/github.com/'
                      'openstack-k8s-operators/glance-operator, not Zuul\'s '
                      'checkout of github.com/openstack-k8s-operators/'
                      'glance-multiapi-tests (src/github.com/openstack-k8s-'
                      'operators/glance-multiapi-tests)' % (PASTED, OTHER_PR),
                      found)
        self.assertEqual(1, len([f for f in found if f.startswith('zuul.d')]))

    def test_required_projects_name_this_project(self):
        jobs = copy.deepcopy(self.jobs)
        del jobs[BASE]['required-projects']
        del jobs[PASTED]['required-projects']
        found = self.problems(jobs)
        for name in (GATE, PERIODIC, PASTED):
            self.assertIn('%s: required-projects does not list '
                          'openstack-k8s-operators/glance-multiapi-tests, so '
                          'Zuul prepares no checkout of it when another '
                          'project\'s change runs the job' % name, found)

    def test_pasted_stanza_runs_this_projects_checkout(self):
        rendered = self.rendered(PASTED, OTHER_PR)
        self.assertEqual('src/github.com/openstack-k8s-operators/glance-'
                         'multiapi-tests', rendered['glance_multiapi_src_dir'])
        self.assertEqual([{'repository': zuul_checkout.SERVED}], rendered[
            'cifmw_test_operator_tempest_external_plugin'])
        self.assertIn('/home/zuul/src/github.com/openstack-k8s-operators/'
                      'glance-multiapi-tests/playbooks/podified/pre-tests.'
                      'yaml', rendered[
                          'pre_tests_80_glance_multiapi_rbac_and_doctor'][
                              'source'])

    def test_unknown_cr_field_and_option_are_named(self):
        jobs = copy.deepcopy(self.jobs)
        jobs[GATE]['vars']['cifmw_test_operator_tempest_extra_mounts'] = [
            {'extraVolumes': []}]
        jobs[GATE]['vars']['glance_multiapi_overrides'] = (
            'glance_multiapi.no_such_option true\n')
        found = self.problems(jobs)
        self.assertIn('%s (periodic, %s): Tempest CR spec.extraMounts[0].'
                      'extraVolumes: no such field in the Tempest CRD'
                      % (GATE, CR), found)
        self.assertIn("%s (periodic, %s): tempestconfRun.overrides: "
                      "[glance_multiapi] has no option 'no_such_option'"
                      % (GATE, CR), found)

    def test_red_run_keeps_its_results(self):
        # NOTE: ci-framework's test_operator role fails the play on a
        # test failure by default (roles/test_operator/tasks/main.yml),
        # before the post_tests hooks that keep the results.
        jobs = copy.deepcopy(self.jobs)
        jobs[BASE]['vars']['cifmw_test_operator_fail_on_test_failure'] = (
            True)
        found = self.problems(jobs)
        # NOTE: the gate, the periodic job and the pasted stanza.
        self.assertEqual(3, len(found), found)
        self.assertIn('%s: cifmw_test_operator_fail_on_test_failure is not '
                      'false: on a failed test run the test_operator role '
                      'fails the play before the post_tests hooks keep the '
                      'summary' % GATE, found[0])
        jobs = copy.deepcopy(self.jobs)
        del jobs[BASE]['vars'][
            'post_tests_80_glance_multiapi_required_groups']
        found = self.problems(jobs)
        self.assertIn('%s: no post_tests hook of this repository fails the '
                      'job after keeping the results (its last task an '
                      'ansible.builtin.fail)' % PERIODIC, found)

    def test_cr_is_named_as_ci_framework_names_it(self):
        rendered = self.rendered(PERIODIC, 'periodic')
        self.assertEqual(['glance-multiapi-tempest'], [
            cr['metadata']['name']
            for cr in zuul_jobs.tempest_crs_of(rendered)])
        rendered['cifmw_test_operator_stages'] = [
            {'name': 'tempest', 'type': 'tempest'},
            {'name': 'again', 'type': 'tempest', 'test_vars': {
                'cifmw_test_operator_tempest_name': 'gmt'}},
            {'name': 'tobiko', 'type': 'tobiko'}]
        self.assertEqual(['glance-multiapi-tempest', 'gmt-again'], [
            cr['metadata']['name']
            for cr in zuul_jobs.tempest_crs_of(rendered)])

    def test_disruptive_job_must_read_the_pod_ci_framework_makes(self):
        # NOTE: the Role of main 9064415 named the pod of the shipped CR
        # only; the periodic job's pod is glance-multiapi-tempest.
        manifest_tools.name_the_pod_in_get(self.rbac)
        found = self.problems()
        self.assertEqual(3, len(found), found)
        for context, line in zip(('pull request', 'periodic', OTHER_PR),
                                 found):
            self.assertIn('%s (%s, %s): a disruptive run reads its own pod '
                          'glance-multiapi-tempest' % (PERIODIC, context, CR),
                          line)

    def test_gate_excludes_disruptive_and_periodic_runs_everything(self):
        gate = self.rendered(GATE, 'periodic')
        periodic = self.rendered(PERIODIC, 'periodic')
        self.assertEqual(r'\[.*\bdisruptive\b.*\]', gate[
            'cifmw_test_operator_tempest_exclude_list'].strip())
        self.assertEqual('', periodic[
            'cifmw_test_operator_tempest_exclude_list'])
        self.assertEqual(['multiapi'], gate['glance_multiapi_required_groups'])
        self.assertIn('switchover',
                      periodic['glance_multiapi_required_groups'])


class FactsTest(testtools.TestCase):

    TREE = {
        'zuul.d/jobs.yaml': '- job:\n    name: a\n    parent: b\n'
                            '    vars:\n      cifmw_extras:\n'
                            "        - '@scenarios/s.yml'\n"
                            '- job:\n    name: b\n',
        'roles/r/defaults/main.yml': 'cifmw_r_one: 1\nx: "{{ cifmw_two }}"',
        'roles/r/molecule/default/converge.yml': 'cifmw_only_molecule: 1',
        'playbooks/p.yml': '- vars:\n    step: pre_tests\n',
        'scenarios/s.yml': 'post_deploy:\n  - name: 82 Deploy\n'
                           '    type: playbook\n    source: d.yml\n',
        'docs/x.md': 'cifmw_in_docs',
    }

    def test_collect_and_round_trip(self):
        facts = cifmw_facts.collect(self.TREE)
        self.assertEqual({'a': 'b', 'b': '-'}, facts['jobs'])
        self.assertEqual({('a', 'scenarios/s.yml')}, facts['extras'])
        self.assertEqual({'cifmw_r_one', 'cifmw_two', 'cifmw_extras'},
                         facts['vars'])
        self.assertEqual({'pre_tests'}, facts['steps'])
        self.assertEqual({('scenarios/s.yml', 'post_deploy', 'd.yml',
                           '82 Deploy')}, facts['hooks'])
        text = cifmw_facts.format_facts(facts, 'origin', 'test')
        self.assertEqual(facts, cifmw_facts.parse_facts(text))

    def test_bad_line_is_named(self):
        error = self.assertRaises(cifmw_facts.FactsError,
                                  cifmw_facts.parse_facts, 'job a\n', 'f')
        self.assertEqual("f:1: not a fact: 'job a'", str(error))

    def test_hook_name_as_run_hook_makes_it(self):
        self.assertEqual('81 glance multiapi apis', zuul_jobs.hook_name(
            'post_deploy_81_glance_multiapi_apis', 'post_deploy'))

    def test_generator_reads_a_git_repository(self):
        code, out, err = manifest_tools.run(
            self, 'ci_framework_facts', '--git-dir',
            os.path.join(REPO, 'no-such-repo'), '-o', '-')
        self.assertEqual(2, code)
        self.assertIn('cannot read HEAD', err)


class ControlPlaneKustomizationTest(testtools.TestCase):

    def test_two_split_apis_and_an_edge_one_each_with_its_own_store(self):
        path = os.path.join(REPO, 'playbooks', 'podified', 'files',
                            '89-glance-multiapi-kustomization.yaml')
        kustomization = yaml.safe_load(_read(path))
        ops = yaml.safe_load(kustomization['patches'][0]['patch'])
        self.assertEqual({'add'}, {op['op'] for op in ops})
        values = {op['path']: op['value'] for op in ops}
        template = '/spec/glance/template/'
        apis = values[template + 'glanceAPIs']
        types = {name: api['type'] for name, api in apis.items()}
        self.assertEqual({'default': 'split', 'api1': 'split',
                          'edge1': 'edge'}, types)
        # NOTE: the control plane's apiOverrides name the "default" API.
        self.assertEqual('default', values[template + 'keystoneEndpoint'])
        self.assertIsNone(glance_cr.keystone_endpoint_problem('default',
                                                              types))
        defaults = set()
        for name, api in apis.items():
            default, stores = glance_cr.backends([
                ('template', values[template + 'customServiceConfig']),
                (name, api['customServiceConfig'])])
            self.assertIn(default, stores)
            defaults.add(default)
        self.assertEqual(3, len(defaults))
        # The operator's webhook and controller take it as it is.
        self.assertEqual([], glance_cr.refusals({
            'customServiceConfig': values[template + 'customServiceConfig'],
            'keystoneEndpoint': values[template + 'keystoneEndpoint'],
            'glanceAPIs': apis}))
