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

"""Write the openAPIV3Schema of test-operator's Tempest CRD as JSON.

Usage: tempest_crd_schema.py --from CRD_YAML --origin TEXT [--version V]
                             [-o OUT]

CI cannot reach test-operator, so the schema its Tempest CRD serves is
committed as etc/test-operator/tempest-crd-schema.json (the default OUT;
"-" prints) and tools/check_test_operator.py validates the shipped
Tempest CRs against it. Regenerate after a test-operator release, from
its config/crd/bases/test.openstack.org_tempests.yaml; --origin says
where that file came from (repository, commit and path) and goes in the
header. Exit status: 0 written, 2 bad arguments or an unreadable CRD.
"""

import argparse
import os
import sys

import yaml

import checkout_path  # noqa: F401 (selftests/ on sys.path)
from selftests.manifests import crd_schema

DEFAULT_OUT = os.path.normpath(os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..', 'etc',
    'test-operator', 'tempest-crd-schema.json'))


def main(argv=None):
    parser = argparse.ArgumentParser(
        description='Write the openAPIV3Schema of a CRD (test-operator\'s '
                    'Tempest CRD) as a JSON document.')
    parser.add_argument('--from', dest='source', required=True,
                        help='the CRD YAML file')
    parser.add_argument('--origin', required=True,
                        help='where the file came from, for the header '
                             '(e.g. "REPO@COMMIT:PATH")')
    parser.add_argument('--version', help='CRD version (default: the '
                                          'storage version)')
    parser.add_argument('-o', '--output', default=DEFAULT_OUT,
                        help='where to write ("-" prints; default '
                             'etc/test-operator/tempest-crd-schema.json)')
    args = parser.parse_args(argv)
    try:
        with open(args.source) as stream:
            docs = [d for d in yaml.safe_load_all(stream) if d]
        if len(docs) != 1:
            raise crd_schema.SchemaError(
                'want one document, found %d' % len(docs))
        meta, schema = crd_schema.from_crd(docs[0], args.version)
    except OSError as exc:
        print('tempest_crd_schema: %s: %s' % (args.source, exc.strerror),
              file=sys.stderr)
        return 2
    except (yaml.YAMLError, crd_schema.SchemaError) as exc:
        print('tempest_crd_schema: %s: %s'
              % (args.source, ' '.join(str(exc).split())), file=sys.stderr)
        return 2
    text = crd_schema.format_document(meta, schema, args.origin,
                                      'tools/tempest_crd_schema.py')
    if args.output == '-':
        sys.stdout.write(text)
        return 0
    with open(args.output, 'w') as stream:
        stream.write(text)
    print('tempest_crd_schema: the %s %s/%s schema written to %s'
          % (meta['kind'], meta['group'], meta['version'], args.output))
    return 0


if __name__ == '__main__':
    sys.exit(main())
