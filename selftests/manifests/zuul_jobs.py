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

"""Checks of the Zuul jobs against the ci-framework's facts.

zuulcilint checks the jobs' schema but cannot resolve what comes from
other repositories. Here: every parent is a job of this repository or
of the ci-framework; every cifmw_* variable named is one the ci-framework
uses; every hook variable names a real hook step and a playbook of this
repository, and a post_deploy hook sorts before the scenario's hook that
applies the kustomizations; and each Tempest CR the test-operator role
would build from the job's variables (rendered for a pull request and for
a periodic build; one per tempest stage, named "<name>-<stage>" as
ci-framework names it) has only fields of the Tempest CRD, overrides
naming real options, the token of rbac.yaml mounted, a disruptive CR's
own pod readable by that token's account, and externalPlugin's change
fields together or not at all; and a red run keeps its results: the
test_operator role must not fail the play on a test failure
(cifmw_test_operator_fail_on_test_failure false), so that the post_tests
hooks run and keep the summary, map and metrics, and one of them (a
playbook of this repository) fails the job afterwards.
"""

import ast
import importlib
import os
import re

import yaml

from selftests.manifests import cifmw_facts
from selftests.manifests import tempest_cr
from selftests.manifests import zuul_checkout

# Parents every Zuul tenant defines in its config repository.
TENANT_JOBS = {'base'}
KUSTOMIZE_DEPLOY = 'control_plane_kustomize_deploy.yml'
# Where the test-operator role's Tempest CR takes each variable from
# (ci-framework roles/test_operator/defaults/main.yml,
# cifmw_test_operator_tempest_config).
CR_FIELDS = {
    'cifmw_test_operator_privileged': ('privileged',),
    'cifmw_test_operator_selinux_level': ('SELinuxLevel',),
    'cifmw_test_operator_tempest_extra_mounts': ('extraMounts',),
    'cifmw_test_operator_tempest_include_list': ('tempestRun',
                                                 'includeList'),
    'cifmw_test_operator_tempest_exclude_list': ('tempestRun',
                                                 'excludeList'),
    'cifmw_test_operator_tempest_concurrency': ('tempestRun',
                                                'concurrency'),
    'cifmw_test_operator_tempest_external_plugin': ('tempestRun',
                                                    'externalPlugin'),
    'cifmw_test_operator_tempest_tempestconf_config': ('tempestconfRun',),
    'cifmw_test_operator_tempest_workflow': ('workflow',),
}
# ci-framework's defaults (roles/test_operator/defaults/main.yml): the
# stages the role runs, and the Tempest CR's name before its stage.
DEFAULT_STAGES = [{'name': 'tempest', 'type': 'tempest'}]
DEFAULT_TEMPEST_NAME = 'tempest-tests'


def load_config(paths):
    """({job name: job}, [project-template or project]) of zuul.d files."""
    jobs, projects = {}, []
    for path in paths:
        with open(path) as stream:
            for item in yaml.safe_load(stream) or []:
                if 'job' in item:
                    jobs[item['job']['name']] = item['job']
                else:
                    projects.extend(item.values())
    return jobs, projects


def hook_name(key, step):
    """The name run_hook gives a single hook variable of a step."""
    return key[len(step) + 1:].replace('_', ' ').capitalize()


def _merge(base, over):
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def job_vars(jobs, name):
    """A local job's variables, merged down its local ancestry."""
    chain = []
    while name in jobs:
        chain.insert(0, jobs[name])
        name = jobs[name].get('parent')
    merged = {}
    for job in chain:
        merged = _merge(merged, job.get('vars') or {})
    return merged


def _ancestry(jobs, facts, name):
    names = []
    while name and name != '-' and name not in names:
        names.append(name)
        name = (jobs.get(name) or {}).get('parent') or \
            facts['jobs'].get(name)
    return names


def _extras(jobs, facts, name):
    """Scenario files of the nearest job in the ancestry that sets them."""
    for ancestor in _ancestry(jobs, facts, name):
        found = (jobs.get(ancestor, {}).get('vars') or {}).get(
            'cifmw_extras')
        if found:
            return [str(e).lstrip('@') for e in found]
        found = sorted(f for j, f in facts['extras'] if j == ancestor)
        if found:
            return found
    return []


def _render(value, context, env):
    if isinstance(value, dict):
        return {k: _render(v, context, env) for k, v in value.items()}
    if isinstance(value, list):
        return [_render(v, context, env) for v in value]
    if not isinstance(value, str) or '{' not in value:
        return value
    text = env.from_string(value).render(context)
    if text[:1] in '[{':
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError):
            pass
    return text


def jinja2():
    """The jinja2 module, or None where it is not installed.

    NOTE: jinja2 comes with Ansible and with the embedded cloud's
    services, not with the plugin, and the venvs that hold the plugin
    alone import every module of it.
    """
    try:
        return importlib.import_module('jinja2')
    except ImportError:
        return None


def render_vars(variables, zuul):
    """The variables as Ansible would see them, for one Zuul context.

    zuul: the zuul variable (zuul_checkout.contexts); what the pre_tests
    hook gives the main play is there too.
    """
    env = jinja2().Environment(undefined=jinja2().StrictUndefined)
    env.filters['combine'] = lambda a, b: _merge(a, b)
    context = dict(zuul_checkout.hook_vars(), **variables)
    context.update(zuul=zuul, ansible_user_dir='/home/zuul')
    for _ in range(5):
        context = dict(context, **{k: _render(v, context, env)
                                   for k, v in variables.items()})
    return {k: context[k] for k in variables}


def tempest_crs_of(rendered):
    """The Tempest CRs the test_operator role makes of the variables.

    One per stage of type tempest (cifmw_test_operator_stages), named as
    ci-framework names it, "<cifmw_test_operator_tempest_name>-<stage>"
    (roles/test_operator/tasks/runners/tempest_runner.yml), with the
    stage's test_vars over the job's.
    """
    stages = rendered.get('cifmw_test_operator_stages') or DEFAULT_STAGES
    crs = []
    for stage in stages:
        if not isinstance(stage, dict) or stage.get('type') != 'tempest':
            continue
        variables = dict(rendered, **(stage.get('test_vars') or {}))
        crs.append(tempest_cr_of(variables, stage.get('name')))
    return crs


def tempest_cr_of(rendered, stage='tempest'):
    """The parts of the Tempest CR the job's variables set, for a stage."""
    cr = {'apiVersion': 'test.openstack.org/v1beta1', 'kind': 'Tempest',
          'metadata': {'name': '%s-%s' % (rendered.get(
              'cifmw_test_operator_tempest_name', DEFAULT_TEMPEST_NAME),
              stage)},
          'spec': {}}
    for var, path in CR_FIELDS.items():
        if var not in rendered or rendered[var] in (None, [], ''):
            continue
        node = cr['spec']
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = rendered[var]
    return cr


def _cr_problems(job, cr, crd_checker, rbac_docs, opt_groups, context):
    where = '%s (%s, CR %s)' % (job, context, cr['metadata']['name'])
    spec = cr['spec']
    problems = ['%s: Tempest CR %s' % (where, p) for p in
                crd_checker.problems(cr)]
    overrides = (spec.get('tempestconfRun') or {}).get('overrides')
    problems += ['%s: %s' % (where, p) for p in
                 tempest_cr.override_problems(overrides, opt_groups)]
    problems += ['%s: %s' % (where, p)
                 for p in tempest_cr.token_problems(cr, rbac_docs)]
    run = spec.get('tempestRun') or {}
    for line in (run.get('excludeList') or '').splitlines():
        try:
            re.compile(line)
        except re.error as exc:
            problems.append('%s: excludeList %r: %s' % (where, line, exc))
    problems += zuul_checkout.plugin_problems(where, cr)
    return problems


def _hook_problems(name, variables, facts, extras, repo):
    problems = []
    steps = sorted(facts['steps'], key=len, reverse=True)
    for key, hook in variables.items():
        step = next((s for s in steps if key.startswith(s + '_')), None)
        if step is None or not isinstance(hook, dict) or 'type' not in hook:
            continue
        source = str(hook.get('source', ''))
        local = source.rpartition('}}')[2].lstrip('/')
        if hook['type'] != 'playbook' or not os.path.isfile(
                os.path.join(repo, local)):
            problems.append('%s: hook %s: %r is no playbook of this '
                            'repository' % (name, key, source))
        if step != 'post_deploy':
            continue
        ours = hook_name(key, step)
        deploys = [h[3] for h in facts['hooks'] if h[0] in extras
                   and h[1] == step and h[2] == KUSTOMIZE_DEPLOY]
        if not deploys:
            problems.append('%s: hook %s: no scenario hook applies the '
                            'kustomizations after it (scenarios: %s)'
                            % (name, key, ', '.join(extras) or 'none'))
        elif not all(ours < d for d in deploys):
            problems.append('%s: hook %s: %r sorts after %r, which '
                            'applies the kustomizations'
                            % (name, key, ours, deploys[0]))
    return problems


def _fails_afterwards(path):
    """Whether a hook playbook ends with a task that fails the job."""
    try:
        with open(path) as stream:
            plays = yaml.safe_load(stream) or []
    except (OSError, yaml.YAMLError):
        return False
    tasks = [t for play in plays if isinstance(play, dict)
             for t in play.get('tasks') or []]
    return bool(tasks) and isinstance(tasks[-1], dict) and (
        'ansible.builtin.fail' in tasks[-1] or 'fail' in tasks[-1])


def red_run_problems(name, rendered, variables, repo):
    """Problems of keeping a red run's results (see the docstring).

    rendered: the job's variables rendered; variables: as written (the
    hooks' sources name this repository's playbooks after the last
    "}}").
    """
    if str(rendered.get('cifmw_run_tests', '')).lower() != 'true':
        return []
    found = []
    if str(rendered.get('cifmw_test_operator_fail_on_test_failure',
                        'true')).lower() != 'false':
        found.append('%s: cifmw_test_operator_fail_on_test_failure is not '
                     'false: on a failed test run the test_operator role '
                     'fails the play before the post_tests hooks keep the '
                     'summary, the deployment map and the metrics' % name)
    hooks = [str(hook.get('source', '')).rpartition('}}')[2].lstrip('/')
             for key, hook in sorted(variables.items())
             if key.startswith('post_tests_') and isinstance(hook, dict)]
    if not any(_fails_afterwards(os.path.join(repo, h)) for h in hooks):
        found.append('%s: no post_tests hook of this repository fails the '
                     'job after keeping the results (its last task an '
                     'ansible.builtin.fail)' % name)
    return found


def problems(jobs, projects, facts, repo, used_text, crd_checker,
             rbac_docs, opt_groups, used_texts=None):
    """One line per problem of the jobs.

    used_text: the podified files; crd_checker: a crd_schema.Checker of
    the Tempest CRD; used_texts: {path: text} of every file that may
    name this project (zuul.d/, playbooks/), none of which may use
    zuul.project.
    """
    used_texts = used_texts or {}
    found = []
    known = set(jobs) | set(facts['jobs']) | TENANT_JOBS
    for name, job in sorted(jobs.items()):
        if job.get('parent') and job['parent'] not in known:
            found.append('%s: parent %s is no job of this repository or '
                         'the ci-framework' % (name, job['parent']))
    for project in projects:
        for pipeline in project.values():
            if not isinstance(pipeline, dict):
                continue
            for entry in pipeline.get('jobs') or []:
                entry_name = entry if isinstance(entry, str) else \
                    next(iter(entry))
                if entry_name not in known and not entry_name.startswith(
                        'openstack-tox-'):
                    found.append('project: job %s is defined nowhere known'
                                 % entry_name)
    for var in sorted(set(cifmw_facts.VAR.findall(used_text))
                      - facts['vars']):
        found.append('%s: no such variable in the ci-framework' % var)
    found += zuul_checkout.zuul_project_problems(used_texts)
    for name, job in sorted(jobs.items()):
        variables = job_vars(jobs, name)
        this = variables.get(zuul_checkout.PROJECT_VAR)
        if not job.get('abstract'):
            found += zuul_checkout.required_problems(jobs, name, this)
        ancestry = _ancestry(jobs, facts, name)
        if not any(a in facts['jobs'] for a in ancestry):
            continue
        extras = _extras(jobs, facts, name)
        found += _hook_problems(name, job.get('vars') or {}, facts, extras,
                                repo)
        if job.get('abstract'):
            continue
        for context, zuul in zuul_checkout.contexts(this).items():
            try:
                rendered = render_vars(variables, zuul)
            except jinja2().TemplateError as exc:
                found.append('%s (%s): cannot render: %s'
                             % (name, context, exc))
                continue
            if context == 'periodic':
                found += red_run_problems(name, rendered, variables, repo)
            found += zuul_checkout.checkout_problems(
                '%s (%s)' % (name, context), rendered, this)
            crs = tempest_crs_of(rendered)
            if not crs:
                found.append('%s (%s): cifmw_test_operator_stages has no '
                             'tempest stage' % (name, context))
            for cr in crs:
                found += _cr_problems(name, cr, crd_checker, rbac_docs,
                                      opt_groups, context)
    return found
