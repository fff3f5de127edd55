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

"""The shape of a Role manifest, and its rules as single grants.

A grant is one verb on one resource of one API group, optionally on one
object name: the unit the role-usage check counts (a rule with two verbs
and three resourceNames is six grants).
"""

import collections

import yaml

RBAC_API = 'rbac.authorization.k8s.io/v1'

# The kinds rbac.yaml may hold, and their apiVersion.
KINDS = {
    'ServiceAccount': 'v1',
    'Secret': 'v1',
    'Role': RBAC_API,
    'RoleBinding': RBAC_API,
}

# The verbs of Kubernetes resource requests, plus those RBAC knows for a
# few special resources (podsecuritypolicies, roles, users, CSRs).
REQUEST_VERBS = frozenset([
    'get', 'list', 'watch', 'create', 'update', 'patch', 'delete',
    'deletecollection'])
SPECIAL_VERBS = frozenset([
    'use', 'bind', 'escalate', 'impersonate', 'approve', 'sign'])

# NOTE: a request that names no object (list, watch, create,
# deletecollection) never matches a rule restricted by resourceNames, so
# such a rule silently denies what it seems to grant.
UNNAMED_VERBS = frozenset(['list', 'watch', 'create', 'deletecollection'])

# The API group of every resource the plugin touches, so that a rule with
# the wrong one (e.g. "extensions" for deployments) is caught.
KNOWN_GROUPS = {
    'glances': 'glance.openstack.org',
    'glanceapis': 'glance.openstack.org',
    'openstackcontrolplanes': 'core.openstack.org',
    'openstackversions': 'core.openstack.org',
    'deployments': 'apps',
    'pods': '',
}

Grant = collections.namedtuple('Grant', 'group resource verb name')


class ManifestError(ValueError):
    """A manifest that cannot be read at all."""


def grant_label(grant):
    """"patch openstackcontrolplanes.core.openstack.org/openstack"."""
    resource = grant.resource
    if grant.group:
        resource = '%s.%s' % (resource, grant.group)
    if grant.name is not None:
        resource = '%s/%s' % (resource, grant.name)
    return '%s %s' % (grant.verb, resource)


def load_documents(path):
    """The non-empty YAML documents of a file, as dicts."""
    try:
        with open(path) as stream:
            docs = [d for d in yaml.safe_load_all(stream) if d is not None]
    except OSError as exc:
        raise ManifestError('%s: cannot read: %s' % (path, exc.strerror))
    except yaml.YAMLError as exc:
        raise ManifestError('%s: not YAML: %s'
                            % (path, str(exc).replace('\n', ' ')))
    for index, doc in enumerate(docs, 1):
        if not isinstance(doc, dict):
            raise ManifestError('%s: document %d is not a mapping'
                                % (path, index))
    return docs


def roles(docs):
    """The Role documents."""
    return [d for d in docs if d.get('kind') == 'Role']


def grants(role):
    """The Role's rules as a list of Grants, in rule order."""
    result = []
    for rule in role.get('rules') or []:
        names = rule.get('resourceNames') or [None]
        for group in rule.get('apiGroups') or []:
            for resource in rule.get('resources') or []:
                for verb in rule.get('verbs') or []:
                    result.extend(Grant(group, resource, verb, name)
                                  for name in names)
    return result


def _name(doc):
    return '%s %s' % (doc.get('kind'), (doc.get('metadata') or {}).get(
        'name', '<no name>'))


def _is_str_list(value):
    return (isinstance(value, list) and value
            and all(isinstance(v, str) for v in value))


def _rule_problems(where, rule):
    problems = []
    for key in ('apiGroups', 'resources', 'verbs'):
        if not _is_str_list(rule.get(key)):
            problems.append('%s: %s must be a non-empty list of strings'
                            % (where, key))
    if problems:
        return problems
    names = rule.get('resourceNames')
    if names is not None and not _is_str_list(names):
        problems.append('%s: resourceNames must be a non-empty list of '
                        'strings' % where)
    for key in ('apiGroups', 'resources', 'verbs', 'resourceNames'):
        if '*' in (rule.get(key) or []):
            problems.append('%s: "*" in %s grants more than least '
                            'privilege allows' % (where, key))
    for verb in rule['verbs']:
        if verb not in REQUEST_VERBS | SPECIAL_VERBS | {'*'}:
            problems.append('%s: %r is not a Kubernetes verb' % (where, verb))
        if names and verb in UNNAMED_VERBS:
            problems.append('%s: %r cannot be limited by resourceNames (its '
                            'requests name no object); give it its own rule'
                            % (where, verb))
    for resource in rule['resources']:
        group = KNOWN_GROUPS.get(resource)
        if group is not None and rule['apiGroups'] != [group]:
            problems.append('%s: %s are in API group %r, not %s'
                            % (where, resource, group, rule['apiGroups']))
    return problems


def accounts(docs):
    """Names of the ServiceAccounts declared."""
    return [d['metadata'].get('name') for d in docs
            if d.get('kind') == 'ServiceAccount'
            and isinstance(d.get('metadata'), dict)]


def token_secrets(docs):
    """{token Secret name: the ServiceAccount it is a token of}."""
    found = {}
    for doc in docs:
        if (doc.get('kind') == 'Secret' and doc.get('type')
                == 'kubernetes.io/service-account-token'):
            meta = doc.get('metadata') or {}
            found[meta.get('name')] = (meta.get('annotations') or {}).get(
                'kubernetes.io/service-account.name')
    return found


def account_grants(docs, account):
    """Grants of every Role a RoleBinding of docs binds account to.

    docs may come from several files (rbac-disruptive.yaml binds its
    account to rbac.yaml's Role too).
    """
    by_name = {r['metadata'].get('name'): r for r in roles(docs)}
    result = []
    for binding in docs:
        if binding.get('kind') != 'RoleBinding':
            continue
        subjects = [s.get('name') for s in binding.get('subjects') or []
                    if isinstance(s, dict)
                    and s.get('kind') == 'ServiceAccount']
        role = by_name.get((binding.get('roleRef') or {}).get('name'))
        if account in subjects and role is not None:
            result.extend(g for g in grants(role) if g not in result)
    return result


def check_shape(docs, known_roles=()):
    """Problems (one line each) of one RBAC manifest file's documents.

    known_roles: names of Roles other files declare that this one's
    RoleBindings may name (rbac-disruptive.yaml binds rbac.yaml's Role).
    """
    problems = []
    by_kind = collections.defaultdict(list)
    for doc in docs:
        kind = doc.get('kind')
        if kind not in KINDS:
            problems.append('%s: kind not expected in an RBAC manifest (one '
                            'of %s)' % (_name(doc), ', '.join(sorted(KINDS))))
            continue
        if doc.get('apiVersion') != KINDS[kind]:
            problems.append('%s: apiVersion %r, want %s'
                            % (_name(doc), doc.get('apiVersion'),
                               KINDS[kind]))
        # NOTE: no namespace, so that "oc apply -n NS" puts everything
        # beside the control plane, wherever that is.
        if (doc.get('metadata') or {}).get('namespace'):
            problems.append('%s: metadata.namespace is set; leave it out so '
                            'that oc apply -n picks it' % _name(doc))
        by_kind[kind].append(doc)
    for kind in ('ServiceAccount', 'Role', 'RoleBinding'):
        if not by_kind[kind]:
            problems.append('want a %s, found none' % kind)
    if problems:
        return problems
    for role in by_kind['Role']:
        rules = role.get('rules')
        if not isinstance(rules, list) or not rules:
            problems.append('%s: no rules' % _name(role))
            rules = []
        for index, rule in enumerate(rules):
            where = '%s rules[%d]' % (_name(role), index)
            if not isinstance(rule, dict):
                problems.append('%s: not a mapping' % where)
                continue
            problems.extend(_rule_problems(where, rule))
    mine = accounts(docs)
    role_names = [r['metadata'].get('name') for r in by_kind['Role']]
    for binding in by_kind['RoleBinding']:
        problems.extend(_binding_problems(
            binding, role_names + list(known_roles), mine))
    bound = {s.get('name') for b in by_kind['RoleBinding']
             for s in b.get('subjects') or [] if isinstance(s, dict)}
    for account in mine:
        if account not in bound:
            problems.append('ServiceAccount %s: no RoleBinding binds it'
                            % account)
    for secret in by_kind['Secret']:
        problems.extend(_token_problems(secret, mine))
    return problems


def _binding_problems(binding, role_names, account_names):
    problems = []
    ref = binding.get('roleRef') or {}
    if (ref.get('apiGroup'), ref.get('kind')) != (
            'rbac.authorization.k8s.io', 'Role') or (
            ref.get('name') not in role_names):
        problems.append('%s: roleRef %s, want a Role of %s'
                        % (_name(binding), ref, ', '.join(role_names)))
    subjects = binding.get('subjects') or []
    for subject in subjects:
        if not isinstance(subject, dict) or (
                subject.get('kind') != 'ServiceAccount'
                or subject.get('name') not in account_names):
            problems.append('%s: subject %s, want a ServiceAccount of this '
                            'file (%s)' % (_name(binding), subject,
                                           ', '.join(account_names)))
        elif subject.get('namespace'):
            problems.append('%s: subject %s names a namespace; leave it '
                            'out (the binding\'s own)' % (_name(binding),
                                                          subject['name']))
    if not subjects:
        problems.append('%s: no subjects' % _name(binding))
    return problems


def _token_problems(secret, account_names):
    problems = []
    if secret.get('type') != 'kubernetes.io/service-account-token':
        problems.append('%s: type %r, want kubernetes.io/service-account-'
                        'token' % (_name(secret), secret.get('type')))
    owner = ((secret.get('metadata') or {}).get('annotations') or {}).get(
        'kubernetes.io/service-account.name')
    if owner not in account_names:
        problems.append('%s: annotation kubernetes.io/service-account.name '
                        'is %r, want one of %s' % (
                            _name(secret), owner, ', '.join(account_names)))
    return problems
