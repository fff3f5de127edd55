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

"""Which of a Role's grants a run used, from a Kubernetes API audit log.

The embedded cloud appends one JSON object per request to
``<state dir>/kubeapi-audit.log``: verb, apiGroup, resource, name,
namespace and the HTTP code. A run proves the Role least-privilege when
no request was refused (403) and every grant was used at least once; a
request the Role does not cover but that succeeded (the cloud was up
without --kube-role) is a problem too, since a cluster would refuse it.

A grant only some groups of tests need (NEEDED_BY) is judged against the
groups that ran: when none of them ran (skipped, or not selected), its
grant going unused is what the run needed, not more.
"""

import collections
import json

from selftests.manifests import rbac

AUDIT_LOG = 'kubeapi-audit.log'
_FIELDS = ('verb', 'apiGroup', 'resource', 'code')
# NOTE: 401 never reached authorisation and 403 was refused by it: neither
# used a grant.
_NOT_AUTHORISED = (401, 403)
# NOTE: (verb, resource) -> the groups of tests (results/required_groups)
# whose run makes that request, from the plugin's calls (all through
# glance_multiapi_tests/deployment_access.py): discovery lists the Glance
# CRs (tests/multiapi/base.py), the readiness check gets the GlanceAPI CRs, the
# consolidated-image check lists the OpenStackVersions, gets the heat
# Deployments and lists their pods (getting one only when it is still
# pulling or named on another digest), the switchover and grow/shrink
# patch the control plane, every disruptive scenario reads its own pod
# (common/own_pod.py) and the heat-engine restart lists and deletes pods
# and reads its Deployment. A grant missing here is needed by every run.
NEEDED_BY = {
    ('list', 'glances'): ('multiapi', 'switchover', 'grow_shrink'),
    ('get', 'glanceapis'): ('multiapi',),
    ('list', 'openstackversions'): ('consolidated_images',),
    ('get', 'deployments'): ('consolidated_images', 'heat_engine_restart'),
    ('patch', 'openstackcontrolplanes'): ('switchover', 'grow_shrink'),
    ('get', 'pods'): ('switchover', 'grow_shrink', 'heat_engine_restart'),
    ('list', 'pods'): ('consolidated_images', 'heat_engine_restart'),
    ('delete', 'pods'): ('heat_engine_restart',),
}


class AuditLogError(ValueError):
    """An audit log line that is not a request record."""


def read_audit(lines, where=AUDIT_LOG):
    """The request records (dicts) of an audit log's lines."""
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise AuditLogError('%s line %d: not JSON: %s'
                                % (where, number, exc))
        if not isinstance(record, dict) or any(
                key not in record for key in _FIELDS):
            raise AuditLogError('%s line %d: want an object with %s'
                                % (where, number, ', '.join(_FIELDS)))
        records.append(record)
    return records


def of_account(records, account):
    """The records of requests made with account's token.

    NOTE: the user is "system:serviceaccount:NAMESPACE:NAME"; a record
    without one (an older log) counts for everyone.
    """
    return [r for r in records if not r.get('user')
            or r['user'].rsplit(':', 1)[-1] == account]


def matches(grant, record):
    """Whether the grant allows the recorded request ("*" wildcards)."""
    def same(granted, asked):
        return granted == '*' or granted == asked
    return (same(grant.group, record['apiGroup'] or '')
            and same(grant.resource, record['resource'])
            and same(grant.verb, record['verb'])
            and (grant.name is None
                 or same(grant.name, record.get('name') or None)))


def request_label(record):
    """A request in a grant's words: "get glances.glance.openstack.org/x"."""
    return rbac.grant_label(rbac.Grant(
        record['apiGroup'] or '', record['resource'], record['verb'],
        record.get('name') or None))


def parse_allowance(text):
    """(verb, resource, name or None) from "VERB:RESOURCE[/NAME]".

    RESOURCE may carry its group ("deployments.apps") or not.
    """
    verb, sep, rest = text.partition(':')
    resource, _, name = rest.partition('/')
    if not sep or not verb or not resource:
        raise ValueError('%r: want VERB:RESOURCE[/NAME], e.g. '
                         'get:openstackversions' % text)
    return verb, resource, name or None


def _allowed(grant, allowance):
    verb, resource, name = allowance
    names = (grant.resource, '%s.%s' % (grant.resource, grant.group))
    return (verb == grant.verb and resource in names
            and (name is None or name == grant.name))


Report = collections.namedtuple('Report', 'counts problems unneeded')


def unneeded(grants, ran):
    """{grant: why} of the grants no group of tests that ran needs.

    ran: the groups that ran (required_groups.ran), or None when not
    known (then every grant is needed).
    """
    if ran is None:
        return {}
    found = {}
    for grant in grants:
        groups = NEEDED_BY.get((grant.verb, grant.resource))
        if groups and not set(groups) & set(ran):
            found[grant] = 'not needed: %s did not run' % ', '.join(groups)
    return found


def usage(grants, records, allow_unused=(), ran=None):
    """A Report: grant -> times used, and the problems (one line each).

    allow_unused: parsed allowances for grants a job does not exercise
    (e.g. get:openstackversions when the name is left unset). ran: the
    groups of tests that ran; a grant only other groups need may go
    unused (unneeded).
    """
    spared = unneeded(grants, ran)
    counts = collections.OrderedDict((g, 0) for g in grants)
    problems = []
    refused = collections.Counter()
    uncovered = collections.Counter()
    for record in records:
        if record['code'] in _NOT_AUTHORISED:
            if record['code'] == 403:
                refused[request_label(record)] += 1
            continue
        used = [g for g in grants if matches(g, record)]
        for grant in used:
            counts[grant] += 1
        if not used:
            uncovered[request_label(record)] += 1
    for label, times in sorted(refused.items()):
        problems.append('refused (403) %d time(s): %s' % (times, label))
    for label, times in sorted(uncovered.items()):
        problems.append('not granted by the Role, yet made %d time(s): %s'
                        % (times, label))
    for allowance in allow_unused:
        if not any(_allowed(g, allowance) for g in grants):
            problems.append('--allow-unused %s:%s%s matches no grant of the '
                            'Role' % (allowance[0], allowance[1],
                                      '/' + allowance[2] if allowance[2]
                                      else ''))
    for grant, times in counts.items():
        if times == 0 and grant not in spared and not any(
                _allowed(grant, a) for a in allow_unused):
            problems.append('never used (the Role grants more than the run '
                            'needs): %s' % rbac.grant_label(grant))
    return Report(counts, problems, spared)


def format_table(report, allow_unused=()):
    """The "grant  times used" table, one grant a line."""
    labels = [rbac.grant_label(g) for g in report.counts]
    width = max([len('grant')] + [len(label) for label in labels])
    lines = ['%-*s  %s' % (width, 'grant', 'used')]
    for grant, label in zip(report.counts, labels):
        note = ''
        if not report.counts[grant] and grant in report.unneeded:
            note = '  (%s)' % report.unneeded[grant]
        elif not report.counts[grant] and any(
                _allowed(grant, a) for a in allow_unused):
            note = '  (allowed unused)'
        lines.append('%-*s  %4d%s' % (width, label, report.counts[grant],
                                      note))
    return '\n'.join(lines)
