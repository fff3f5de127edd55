#!/usr/bin/env python3
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

"""Load the pasted job in its tenant with Zuul's own parser.

Usage: check_zuul_tenant.py [--tenant FILE] [--paste FILE] [--facts FILE]
                            [--json]

Run with the python of .venv-zuul (tools/ci-venv.sh zuul). The tenant is
etc/zuul/tenant.yaml: the pasting project, whose zuul.d/ holds
etc/zuul/paste-job.yaml, and this project, whose zuul.d/ is loaded as the
tenant entry says (include: [job]). Beside them stand the tenant's config
project (the base job, the nodesets this project's jobs name) and the
ci-framework's jobs with their parents (etc/zuul/ci-framework-facts.txt).
Zuul's parser loads the tenant (selftests/manifests/zuul_tenant.py);
then every job the paste runs is frozen as Zuul freezes it for a change
of the pasting project, and must: resolve its parent chain down to
"base" through glance-multiapi-tests-podified, not be abstract, have this
project among its required projects, and carry the pasting project's own
irrelevant-files, none of this project's.
Prints one line per job (its parents, required projects and
irrelevant-files) or per problem, Zuul's words for a configuration error.
Exit status: 0 all good, 1 problems, 2 a file cannot be read or zuul is
not importable.
"""

import argparse
import glob
import json
import os
import sys

import yaml

import checkout_path  # noqa: F401 (selftests/ on sys.path)
from selftests.manifests import cifmw_facts

ROOT = os.path.normpath(os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..'))
THIS = 'openstack-k8s-operators/glance-multiapi-tests'
PARENT = 'glance-multiapi-tests-podified'
# NOTE: where the pasting project keeps it; any zuul.d/ file loads alike.
PASTED_AS = 'zuul.d/glance-multiapi.yaml'


def _read(path):
    with open(path) as stream:
        return stream.read()


def _project_names(tenant_conf):
    names = []
    for source in (tenant_conf.get('source') or {}).values():
        for entry in (source or {}).get('untrusted-projects') or []:
            names.append(entry if isinstance(entry, str) else
                         next(iter(entry)))
    return names


def _pasted_jobs(paste_text):
    """(pipeline, job) of every job the paste's project stanzas run."""
    found = []
    for doc in yaml.safe_load(paste_text) or []:
        project = doc.get('project') if isinstance(doc, dict) else None
        for pipeline, body in sorted((project or {}).items()):
            if not isinstance(body, dict):
                continue
            for entry in body.get('jobs') or []:
                found.append((pipeline, entry if isinstance(entry, str)
                              else next(iter(entry))))
    return found


def _defined_jobs(paste_text):
    return {doc['job']['name'] for doc in yaml.safe_load(paste_text) or []
            if isinstance(doc, dict) and 'job' in doc}


def _irrelevant(paste_text, name):
    for doc in yaml.safe_load(paste_text) or []:
        if isinstance(doc, dict) and doc.get('job', {}).get('name') == name:
            if 'irrelevant-files' in doc['job']:
                return list(doc['job']['irrelevant-files'] or [])
    return None


def check(tenant_text, paste_text, facts, ours):
    """(problems, jobs): one line per problem, and {job: what it froze to}.

    ours: {path: text} of this project's zuul.d/.
    """
    from selftests.manifests import zuul_tenant
    tenant_conf = yaml.safe_load(tenant_text)[0]['tenant']
    projects = _project_names(tenant_conf)
    if THIS not in projects:
        return ['tenant %s: %s is not among its untrusted-projects, so '
                'the paste\'s parent %s cannot resolve'
                % (tenant_conf.get('name'), THIS, PARENT)], {}
    pasting = [p for p in projects if p != THIS]
    if not pasting:
        return ['tenant %s lists no project to paste into besides %s'
                % (tenant_conf.get('name'), THIS)], {}
    trees = {THIS: ours, pasting[0]: {PASTED_AS: paste_text}}
    nodesets, jobs = zuul_tenant.referenced(trees)
    config = ('tenant-config', zuul_tenant.stand_in_config_project(
        facts['jobs'], nodesets, jobs - set(facts['jobs'])))
    try:
        tenant = zuul_tenant.load(tenant_conf, trees, config)
    except zuul_tenant.TenantError as exc:
        return [str(exc)], {}
    problems = ['zuul: %s' % line for line in tenant.error_lines()]
    if problems:
        return problems, {}
    frozen = {}
    defined = _defined_jobs(paste_text)
    for pipeline, name in _pasted_jobs(paste_text):
        if name not in defined:
            continue
        try:
            job, path = tenant.freeze(pasting[0], pipeline, name)
        except zuul_tenant.TenantError as exc:
            problems.append('%s: %s' % (name, exc))
            continue
        required = sorted(job.required_projects)
        ifiles = [m.regex.pattern for m in
                  job.irrelevant_file_matcher.matchers] \
            if job.irrelevant_file_matcher else []
        frozen[name] = {'pipeline': pipeline, 'parents': path,
                        'required_projects': required,
                        'irrelevant_files': sorted(ifiles),
                        'abstract': bool(job.abstract)}
        if PARENT not in path or path[-1:] != ['base']:
            problems.append('%s: its parents %s do not reach base through '
                            '%s' % (name, ' > '.join(path) or 'none',
                                    PARENT))
        if job.abstract:
            problems.append('%s: abstract after freezing: Zuul will not '
                            'run it' % name)
        if not any(r.endswith('/' + THIS) for r in required):
            problems.append('%s: %s is not among its required projects %s'
                            % (name, THIS, required))
        own = _irrelevant(paste_text, name)
        if own is None:
            problems.append('%s: sets no irrelevant-files, so it inherits '
                            'this project\'s paths, matched against %s\'s '
                            'files' % (name, pasting[0]))
        elif sorted(own) != sorted(ifiles):
            problems.append('%s: irrelevant-files %s once frozen, not the '
                            'paste\'s own %s' % (name, sorted(ifiles),
                                                 sorted(own)))
    if not frozen and not problems:
        problems.append('the paste runs none of the jobs it defines')
    return problems, frozen


def main(argv=None):
    parser = argparse.ArgumentParser(
        description='Load the pasted job in its tenant with Zuul\'s parser.')
    parser.add_argument('--tenant', default=os.path.join(
        ROOT, 'etc', 'zuul', 'tenant.yaml'))
    parser.add_argument('--paste', default=os.path.join(
        ROOT, 'etc', 'zuul', 'paste-job.yaml'))
    parser.add_argument('--facts', default=os.path.join(
        ROOT, 'etc', 'zuul', 'ci-framework-facts.txt'))
    parser.add_argument('--json', action='store_true',
                        help='print {"problems": [...], "jobs": {...}}')
    args = parser.parse_args(argv)
    try:
        import zuul.configloader  # noqa: F401
    except ImportError as exc:
        print('check_zuul_tenant: zuul is not importable (%s); run it with '
              'the python of tools/ci-venv.sh zuul' % exc, file=sys.stderr)
        return 2
    try:
        ours = {os.path.relpath(p, ROOT): _read(p) for p in sorted(
            glob.glob(os.path.join(ROOT, 'zuul.d', '*.yaml')))}
        facts = cifmw_facts.parse_facts(_read(args.facts), args.facts)
        problems, jobs = check(_read(args.tenant), _read(args.paste),
                               facts, ours)
    except OSError as exc:
        print('check_zuul_tenant: %s: %s' % (exc.filename, exc.strerror),
              file=sys.stderr)
        return 2
    except (yaml.YAMLError, cifmw_facts.FactsError, KeyError,
            IndexError, TypeError) as exc:
        print('check_zuul_tenant: cannot read the tenant or the paste: %s'
              % exc, file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({'problems': problems, 'jobs': jobs},
                         sort_keys=True))
    else:
        for line in problems:
            print(line)
        for name, job in sorted(jobs.items()):
            print('zuul-tenant: %s (%s): parents %s; required projects %s; '
                  '%d irrelevant-files, the pasting project\'s'
                  % (name, job['pipeline'], ' > '.join(job['parents']),
                     ', '.join(job['required_projects']),
                     len(job['irrelevant_files'])))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
