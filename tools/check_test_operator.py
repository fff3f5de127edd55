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

Usage: check_test_operator.py [--cr FILE] [--fields FILE] [--rbac FILE]

The Tempest CR: every field it sets exists in test-operator's Tempest CRD
(the committed fact list tempest-crd-fields.txt, see
tools/tempest_crd_fields.py) with the CRD's type; every override of one of
this plugin's option groups names a real option with a valid value; a
pod that is not privileged mounts rbac.yaml's token. rbac.yaml: its kinds
and apiVersions, one ServiceAccount, Role and RoleBinding bound to each
other, real Kubernetes verbs, no wildcards, the right API group for each
resource. Both files: a "---" start and lines of at most 80 characters.
Prints one line per problem. Exit status: 0 all good, 1 problems, 2 a
file cannot be read.
"""

import argparse
import os
import sys

import yaml

from glance_multiapi_tests import config
from glance_multiapi_tests.selftests.manifests import crd_fields
from glance_multiapi_tests.selftests.manifests import rbac
from glance_multiapi_tests.selftests.manifests import tempest_cr

ETC = os.path.normpath(os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..', 'etc',
    'test-operator'))


def _read(path):
    with open(path) as stream:
        return stream.read()


def check(cr_path, fields_path, rbac_path):
    """Problems of the three files, one line each."""
    cr_text = _read(cr_path)
    meta, fields = crd_fields.parse_facts(_read(fields_path), fields_path)
    cr_docs = [d for d in yaml.safe_load_all(cr_text) if d is not None]
    if len(cr_docs) != 1 or not isinstance(cr_docs[0], dict):
        raise rbac.ManifestError('%s: want one Tempest CR document'
                                 % cr_path)
    cr = cr_docs[0]
    rbac_docs = rbac.load_documents(rbac_path)
    problems = tempest_cr.style_problems(cr_path, cr_text)
    problems += tempest_cr.style_problems(rbac_path, _read(rbac_path))
    problems += ['%s: %s' % (cr_path, p)
                 for p in crd_fields.check_object(cr, meta, fields)]
    overrides = ((cr.get('spec') or {}).get('tempestconfRun') or {}).get(
        'overrides')
    problems += ['%s: %s' % (cr_path, p) for p in
                 tempest_cr.override_problems(overrides, config.list_opts())]
    problems += ['%s: %s' % (cr_path, p)
                 for p in tempest_cr.token_problems(cr, rbac_docs)]
    problems += ['%s: %s' % (rbac_path, p)
                 for p in rbac.check_shape(rbac_docs)]
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(
        description='Check the Tempest CR and rbac.yaml for test-operator.')
    parser.add_argument('--cr', default=os.path.join(
        ETC, 'tempest-glance-multiapi.yaml'), help='the Tempest CR')
    parser.add_argument('--fields', default=os.path.join(
        ETC, 'tempest-crd-fields.txt'), help='the Tempest CRD fact list')
    parser.add_argument('--rbac', default=os.path.join(ETC, 'rbac.yaml'),
                        help='the ServiceAccount, Role and RoleBinding')
    args = parser.parse_args(argv)
    try:
        problems = check(os.path.relpath(args.cr), args.fields,
                         os.path.relpath(args.rbac))
    except OSError as exc:
        print('check_test_operator: %s: %s' % (exc.filename, exc.strerror),
              file=sys.stderr)
        return 2
    except (yaml.YAMLError, ValueError) as exc:
        print('check_test_operator: %s' % str(exc).replace('\n', ' '),
              file=sys.stderr)
        return 2
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print('check_test_operator: %s and %s agree with the Tempest CRD (%s) '
          'and are well formed' % (os.path.basename(args.cr),
                                   os.path.basename(args.rbac),
                                   os.path.basename(args.fields)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
