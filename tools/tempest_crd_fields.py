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

"""Write the fact list of test-operator's Tempest CRD (its field paths).

Usage: tempest_crd_fields.py --from CRD_YAML --origin TEXT [--version V]
                             [-o OUT]

CI cannot reach test-operator, so the fields its Tempest CRD accepts are
committed as etc/test-operator/tempest-crd-fields.txt (the default OUT;
"-" prints) and tools/check_test_operator.py checks the shipped Tempest
CR against them. Regenerate after a test-operator release, from its
config/crd/bases/test.openstack.org_tempests.yaml; --origin says where
that file came from (repository, commit and path) and goes in the
header. Exit status: 0 written, 2 bad arguments or an unreadable CRD.
"""

import argparse
import os
import sys

import yaml

from glance_multiapi_tests.selftests.manifests import crd_fields

DEFAULT_OUT = os.path.normpath(os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..', 'etc',
    'test-operator', 'tempest-crd-fields.txt'))


def main(argv=None):
    parser = argparse.ArgumentParser(
        description='Write the field paths of a CRD (test-operator\'s '
                    'Tempest CRD) as a fact list.')
    parser.add_argument('--from', dest='source', required=True,
                        help='the CRD YAML file')
    parser.add_argument('--origin', required=True,
                        help='where the file came from, for the header '
                             '(e.g. "REPO@COMMIT:PATH")')
    parser.add_argument('--version', help='CRD version (default: the '
                                          'storage version)')
    parser.add_argument('-o', '--output', default=DEFAULT_OUT,
                        help='where to write ("-" prints; default '
                             'etc/test-operator/tempest-crd-fields.txt)')
    args = parser.parse_args(argv)
    try:
        with open(args.source) as stream:
            docs = [d for d in yaml.safe_load_all(stream) if d]
        if len(docs) != 1:
            raise crd_fields.FieldListError(
                'want one document, found %d' % len(docs))
        meta, fields = crd_fields.crd_facts(docs[0], args.version)
    except OSError as exc:
        print('tempest_crd_fields: %s: %s' % (args.source, exc.strerror),
              file=sys.stderr)
        return 2
    except (yaml.YAMLError, crd_fields.FieldListError) as exc:
        print('tempest_crd_fields: %s: %s'
              % (args.source, str(exc).replace('\n', ' ')), file=sys.stderr)
        return 2
    text = crd_fields.format_facts(meta, fields, args.origin,
                                   'tools/tempest_crd_fields.py')
    if args.output == '-':
        sys.stdout.write(text)
        return 0
    with open(args.output, 'w') as stream:
        stream.write(text)
    print('tempest_crd_fields: %d fields of %s %s/%s written to %s'
          % (len(fields), meta['kind'], meta['group'], meta['version'],
             args.output))
    return 0


if __name__ == '__main__':
    sys.exit(main())
