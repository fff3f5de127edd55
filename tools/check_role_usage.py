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

"""Show that a run used every grant of the Role, and nothing was refused.

Usage: check_role_usage.py [--role FILE ...] [--service-account NAME]
                           [--allow-unused VERB:RESOURCE[/NAME]]
                           [--ran SUBUNIT ...] STATE_DIR_OR_AUDIT_LOG

Reads the embedded cloud's Kubernetes API audit log (kubeapi-audit.log in
its state dir) and the RBAC manifests of --role (repeatable; default
etc/test-operator/rbac.yaml), takes the grants of every Role bound to the
service account (--service-account, default the only one bound), and,
counting only that account's requests, prints how often each grant (one
verb on one resource, or one named object) was used, then one line per
problem:
a request refused with 403, a successful request the Role does not grant,
a grant never used. --allow-unused (repeatable) names a grant a job does
not exercise (e.g. patch:openstackcontrolplanes when the switchover and
grow/shrink scenarios are off). --ran (repeatable) names the run's
subunit streams: a grant only groups of tests that did not run need
(role_usage.NEEDED_BY; e.g. list and delete of pods, which only the
heat-engine restart makes) may then go unused, and says so. Exit
status: 0 the Role is exactly what the run needed, 1 problems, 2 an
unreadable role file, audit log or stream, or bad arguments.
"""

import argparse
import os
import sys

import checkout_path  # noqa: F401 (selftests/ on sys.path)
from glance_multiapi_tests.results.gate import required_groups
from glance_multiapi_tests.results.gate import verdict
from selftests.manifests import rbac
from selftests.manifests import role_usage

DEFAULT_ROLE = os.path.normpath(os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..', 'etc',
    'test-operator', 'rbac.yaml'))


def _allowance(text):
    try:
        return role_usage.parse_allowance(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc))


def _only_account(docs, paths):
    bound = sorted({s.get('name') for d in docs
                    if d.get('kind') == 'RoleBinding'
                    for s in d.get('subjects') or []
                    if isinstance(s, dict)})
    if len(bound) != 1:
        raise rbac.ManifestError('%s bind %d service accounts (%s); name one '
                                 'with --service-account' % (
                                     ', '.join(paths), len(bound),
                                     ', '.join(bound)))
    return bound[0]


def _records(path):
    """The audit records; a missing log means no request was made."""
    if os.path.isdir(path):
        path = os.path.join(path, role_usage.AUDIT_LOG)
    if not os.path.exists(path):
        return path, []
    with open(path) as stream:
        return path, role_usage.read_audit(stream, path)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description='Check a run\'s Kubernetes API requests against the '
                    'Role: all grants used, nothing refused.')
    parser.add_argument('--role', action='append', metavar='FILE',
                        help='RBAC manifest (repeatable; default: '
                             'etc/test-operator/rbac.yaml)')
    parser.add_argument('--service-account', metavar='NAME',
                        help='whose grants and requests (default: the only '
                             'account the manifests bind)')
    parser.add_argument('--allow-unused', action='append', default=[],
                        type=_allowance, metavar='VERB:RESOURCE[/NAME]',
                        help='a grant this job need not use (repeatable)')
    parser.add_argument('--ran', action='append', default=[],
                        metavar='SUBUNIT',
                        help='a subunit stream of the run (repeatable): '
                             'grants only groups of tests that did not run '
                             'need may go unused')
    parser.add_argument('audit', metavar='STATE_DIR_OR_AUDIT_LOG')
    args = parser.parse_args(argv)
    roles = args.role or [DEFAULT_ROLE]
    try:
        docs = [d for path in roles for d in rbac.load_documents(path)]
        account = args.service_account or _only_account(docs, roles)
        grants = rbac.account_grants(docs, account)
        if not grants:
            raise rbac.ManifestError('%s bind no Role to service account %s'
                                     % (', '.join(roles), account))
        log, records = _records(args.audit)
        records = role_usage.of_account(records, account)
        ran = required_groups.ran(verdict.read(args.ran)) if args.ran \
            else None
    except OSError as exc:
        print('check_role_usage: %s: %s' % (exc.filename, exc.strerror),
              file=sys.stderr)
        return 2
    except (ValueError, verdict.VerdictError) as exc:
        print('check_role_usage: %s' % exc, file=sys.stderr)
        return 2
    report = role_usage.usage(grants, records, args.allow_unused, ran)
    print(role_usage.format_table(report, args.allow_unused))
    if not records:
        print('no Kubernetes API request recorded in %s' % log)
    for problem in report.problems:
        print(problem)
    if report.problems:
        return 1
    print('check_role_usage: %d requests, every grant of %s (account %s) '
          'used, none refused' % (len(records), ', '.join(
              os.path.basename(p) for p in roles), account))
    return 0


if __name__ == '__main__':
    sys.exit(main())
