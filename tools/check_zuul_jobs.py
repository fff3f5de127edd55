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

"""Check the Zuul jobs (zuul.d/) against the ci-framework's facts.

Usage: check_zuul_jobs.py [--facts FILE]

What zuulcilint cannot see from here: the parents, variables and hook
steps the podified jobs take from the ci-framework (the committed fact
list etc/zuul/ci-framework-facts.txt, see tools/ci_framework_facts.py),
the order of the control plane hook among the scenario's hooks, and the
Tempest CR the test-operator role builds from the jobs' variables, for a
pull request, a periodic build and another project's pull request
(against the Tempest CRD's schema,
etc/test-operator/tempest-crd-schema.json, the plugin's options and
etc/test-operator/rbac*.yaml), and which code the jobs test: Zuul's
checkout of this project, never zuul.project (selftests/manifests/
zuul_checkout.py). The stanza another project pastes,
etc/zuul/paste-job.yaml, is checked with them, as that project's Zuul
would see it. Prints one
line per problem. Exit status: 0 all good, 1 problems, 2 a file cannot
be read or jinja2 is missing.
"""

import argparse
import glob
import os
import sys

import yaml

from glance_multiapi_tests import config
import checkout_path  # noqa: F401 (selftests/ on sys.path)
from selftests.manifests import cifmw_facts
from selftests.manifests import crd_schema
from selftests.manifests import rbac
from selftests.manifests import zuul_jobs

ROOT = os.path.normpath(os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..'))
PASTE = os.path.join(ROOT, 'etc', 'zuul', 'paste-job.yaml')


def _read(path):
    with open(path) as stream:
        return stream.read()


def main(argv=None):
    parser = argparse.ArgumentParser(
        description='Check zuul.d/ against the ci-framework fact list.')
    parser.add_argument('--facts', default=os.path.join(
        ROOT, 'etc', 'zuul', 'ci-framework-facts.txt'),
        help='the ci-framework fact list')
    args = parser.parse_args(argv)
    if zuul_jobs.jinja2() is None:
        print('check_zuul_jobs: needs jinja2 (pip install Jinja2) to render '
              'the jobs\' variables', file=sys.stderr)
        return 2
    test_operator = os.path.join(ROOT, 'etc', 'test-operator')
    used = sorted(glob.glob(os.path.join(ROOT, 'zuul.d', 'podified.yaml'))
                  + glob.glob(os.path.join(ROOT, 'playbooks', 'podified',
                                           '**', '*'), recursive=True))
    try:
        facts = cifmw_facts.parse_facts(_read(args.facts), args.facts)
        crd_checker = crd_schema.load(os.path.join(
            test_operator, 'tempest-crd-schema.json'))
        rbac_docs = [doc for path in sorted(glob.glob(os.path.join(
            test_operator, 'rbac*.yaml'))) for doc in rbac.load_documents(
                path)]
        zuul_files = sorted(glob.glob(os.path.join(ROOT, 'zuul.d',
                                                   '*.yaml')))
        jobs, projects = zuul_jobs.load_config(zuul_files + [PASTE])
        used_text = '\n'.join(_read(p) for p in used if os.path.isfile(p))
        used_texts = {os.path.relpath(p, ROOT): _read(p) for p in
                      zuul_files + [PASTE] + glob.glob(os.path.join(
                          ROOT, 'playbooks', '**', '*'), recursive=True)
                      if os.path.isfile(p)}
    except OSError as exc:
        print('check_zuul_jobs: %s: %s' % (exc.filename, exc.strerror),
              file=sys.stderr)
        return 2
    except (yaml.YAMLError, cifmw_facts.FactsError,
            crd_schema.SchemaError, rbac.ManifestError) as exc:
        print('check_zuul_jobs: %s' % str(exc).replace('\n', ' '),
              file=sys.stderr)
        return 2
    problems = zuul_jobs.problems(jobs, projects, facts, ROOT, used_text,
                                  crd_checker, rbac_docs,
                                  config.list_opts(), used_texts)
    for line in problems:
        print(line)
    if not problems:
        print('check_zuul_jobs: %d jobs, %d ci-framework variables named, '
              'all known' % (len(jobs), len(set(
                  cifmw_facts.VAR.findall(used_text)))))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
