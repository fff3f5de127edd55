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

"""Check the manifests shipped for test-operator (etc/test-operator).

Usage: check_test_operator.py [--cr FILE ...] [--schema FILE]
                              [--rbac FILE ...]

Each Tempest CR (by default every etc/test-operator/tempest-*.yaml, so a
new one is covered without a change here): it validates against the
schema test-operator's Tempest CRD serves (the committed
tempest-crd-schema.json, see tools/tempest_crd_schema.py) with unknown
fields refused, as the API server prunes or refuses them; every override
of one of this plugin's option groups names a real option with a valid
value; the CR names no namespace; a pod that is not privileged mounts
the token of an RBAC manifest's account, and a CR that turns nothing
disruptive on mounts one that only reads. Every rbac*.yaml: its kinds
and apiVersions, no namespace, RoleBindings of its ServiceAccounts to
Roles it (or another rbac*.yaml) declares, real Kubernetes verbs, no
wildcards, the right API group for each resource. The doctor's manifest
(doctor.yaml): a ConfigMap and a Job that run with the gate CR's
(tempest-glance-multiapi.yaml) overrides, image, git URL and token
(selftests/manifests/doctor_manifest.py). All files: a "---" start and
lines of at most 80 characters. Prints one line per problem,
naming the file and the field path. Exit status: 0 all good, 1 problems,
2 a file cannot be read (or no CR found).
"""

import argparse
import glob
import os
import sys

import yaml

from glance_multiapi_tests import config
import checkout_path  # noqa: F401 (selftests/ on sys.path)
from selftests.manifests import crd_schema
from selftests.manifests import doctor_manifest
from selftests.manifests import rbac
from selftests.manifests import tempest_cr

ETC = os.path.normpath(os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..', 'etc',
    'test-operator'))
CR_GLOB = 'tempest-*.yaml'
RBAC_GLOB = 'rbac*.yaml'
DOCTOR = os.path.join(ETC, 'doctor.yaml')
GATE_CR = os.path.join(ETC, 'tempest-glance-multiapi.yaml')


def _read(path):
    with open(path) as stream:
        return stream.read()


def cr_problems(cr_path, checker, rbac_docs, opt_groups):
    """Problems of one Tempest CR file, one line each."""
    cr_text = _read(cr_path)
    cr_docs = [d for d in yaml.safe_load_all(cr_text) if d is not None]
    if len(cr_docs) != 1 or not isinstance(cr_docs[0], dict):
        raise rbac.ManifestError('%s: want one Tempest CR document'
                                 % cr_path)
    cr = cr_docs[0]
    problems = tempest_cr.style_problems(cr_path, cr_text)
    problems += ['%s: %s' % (cr_path, p) for p in checker.problems(cr)]
    overrides = ((cr.get('spec') or {}).get('tempestconfRun') or {}).get(
        'overrides')
    problems += ['%s: %s' % (cr_path, p) for p in
                 tempest_cr.override_problems(overrides, opt_groups)]
    problems += ['%s: %s' % (cr_path, p)
                 for p in tempest_cr.token_problems(cr, rbac_docs)]
    return problems


def doctor_problems(doctor_path, gate_cr_path):
    """Problems of the doctor's manifest against the gate CR."""
    text = _read(doctor_path)
    docs = [d for d in yaml.safe_load_all(text) if d is not None]
    gate = yaml.safe_load(_read(gate_cr_path))
    return tempest_cr.style_problems(doctor_path, text) + [
        '%s: %s' % (doctor_path, p)
        for p in doctor_manifest.problems(docs, gate)]


def check(cr_paths, schema_path, rbac_paths, doctor=None):
    """Problems of the CRs, the RBAC manifests and the doctor's."""
    checker = crd_schema.load(schema_path)
    by_file = {path: rbac.load_documents(path) for path in rbac_paths}
    rbac_docs = [doc for docs in by_file.values() for doc in docs]
    opt_groups = config.list_opts()
    problems = []
    for cr_path in cr_paths:
        problems += cr_problems(cr_path, checker, rbac_docs, opt_groups)
    for path, docs in by_file.items():
        others = [r['metadata'].get('name') for other, d in by_file.items()
                  if other != path for r in rbac.roles(d)]
        problems += tempest_cr.style_problems(path, _read(path))
        problems += ['%s: %s' % (path, p)
                     for p in rbac.check_shape(docs, known_roles=others)]
    if doctor:
        problems += doctor_problems(*doctor)
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(
        description='Check the Tempest CRs and rbac.yaml for test-operator.')
    parser.add_argument('--cr', action='append', metavar='FILE',
                        help='a Tempest CR (repeatable; default: every '
                             'etc/test-operator/%s)' % CR_GLOB)
    parser.add_argument('--schema', default=os.path.join(
        ETC, 'tempest-crd-schema.json'),
        help='the Tempest CRD schema (tools/tempest_crd_schema.py)')
    parser.add_argument('--rbac', action='append', metavar='FILE',
                        help='an RBAC manifest (repeatable; default: every '
                             'etc/test-operator/%s)' % RBAC_GLOB)
    parser.add_argument('--doctor', default=DOCTOR, metavar='FILE',
                        help='the doctor\'s manifest (default: etc/test-'
                             'operator/doctor.yaml)')
    parser.add_argument('--gate-cr', default=GATE_CR, metavar='FILE',
                        help='the CR the doctor must match (default: etc/'
                             'test-operator/tempest-glance-multiapi.yaml)')
    args = parser.parse_args(argv)
    crs = args.cr or sorted(glob.glob(os.path.join(ETC, CR_GLOB)))
    if not crs:
        print('check_test_operator: no Tempest CR (%s) in %s'
              % (CR_GLOB, os.path.relpath(ETC)), file=sys.stderr)
        return 2
    rbacs = args.rbac or sorted(glob.glob(os.path.join(ETC, RBAC_GLOB)))
    try:
        problems = check([os.path.relpath(p) for p in crs], args.schema,
                         [os.path.relpath(p) for p in rbacs],
                         (os.path.relpath(args.doctor),
                          os.path.relpath(args.gate_cr)))
    except OSError as exc:
        print('check_test_operator: %s: %s' % (exc.filename, exc.strerror),
              file=sys.stderr)
        return 2
    except (yaml.YAMLError, ValueError) as exc:
        print('check_test_operator: %s' % ' '.join(str(exc).split()),
              file=sys.stderr)
        return 2
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print('check_test_operator: %s and %s agree with the Tempest CRD (%s) '
          'and are well formed; %s matches %s' % (
              ', '.join(os.path.basename(p) for p in crs),
              ', '.join(os.path.basename(p) for p in rbacs),
              os.path.basename(args.schema), os.path.basename(args.doctor),
              os.path.basename(args.gate_cr)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
