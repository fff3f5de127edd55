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

"""RBAC of the embedded Kubernetes-style API.

The manifests of ``up --kube-role`` (ServiceAccounts, their token
Secrets, Roles and RoleBindings, as etc/test-operator/rbac*.yaml ship
them) say which rules each service account has; a Role's rules decide
each request as Kubernetes' RBAC authorizer does (apiGroups, resources,
verbs and resourceNames, ``*`` for any). The errors are the Status
objects, reasons and messages of the API server. Pure logic.
"""

import dataclasses

from glance_multiapi_kernel import documents
from glance_multiapi_kernel import errors

# NOTE: in the state dir: the RBAC manifests of ``up --kube-role`` (one
# file, for the artifacts; named as when it held one Role) and the log of
# every resource request.
ROLE_FILE = 'kube-role.yaml'
AUDIT_LOG = 'kubeapi-audit.log'


class RoleError(errors.OneLineError):
    """A Role file that cannot be used (one line)."""


def parse_role(text, where):
    """The rules of the Role(s) in a YAML text (several documents allowed).

    Only documents of kind Role count (a ServiceAccount or RoleBinding
    beside it is skipped); RoleError when there is none or one is
    malformed.
    """
    docs = _documents(text, where)
    rules = []
    roles = 0
    for doc in docs:
        if doc.get('kind') != 'Role':
            continue
        roles += 1
        metadata = doc.get('metadata')
        name = metadata.get('name') if isinstance(metadata, dict) else None
        name = documents.short(name if isinstance(name, str) else '?')
        found = doc.get('rules') or []
        if not isinstance(found, list):
            raise RoleError('%s: Role %s rules: must be a list of rules' % (
                where, name))
        for index, rule in enumerate(found):
            rules.append(_rule(rule, '%s: Role %s rules[%d]' % (
                where, name, index)))
    if not roles:
        raise RoleError('%s holds no document of kind Role' % where)
    return rules


@dataclasses.dataclass(frozen=True)
class Rbac:
    """What RBAC manifests declare, by name."""

    roles: dict
    # NOTE: (role name, (service account, ...)) per RoleBinding.
    bindings: tuple
    accounts: tuple
    # NOTE: token Secret name -> the service account it is a token of.
    token_secrets: dict


def _documents(text, where):
    try:
        docs = [d for d in documents.load_yaml_all(text) if d is not None]
    except documents.DocumentError as exc:
        raise RoleError('%s: %s' % (where, exc)) from None
    for index, doc in enumerate(docs):
        if not isinstance(doc, dict):
            raise RoleError('%s: document %d is not a mapping' % (
                where, index + 1))
    return docs


def _meta_name(doc, where):
    name = (doc.get('metadata') or {}).get('name') if isinstance(
        doc.get('metadata'), dict) else None
    if not isinstance(name, str) or not name:
        raise RoleError('%s: a %s without metadata.name' % (
            where, doc.get('kind')))
    return name


def _bound_accounts(doc, where, namespace):
    """Service accounts a RoleBinding's subjects name in namespace.

    NOTE: a subject without a namespace means the binding's own (the
    RBAC authorizer's appliesToUser, kubernetes
    pkg/registry/rbac/validation/rule.go), which is how the manifests
    stay free of a namespace.
    """
    accounts = []
    subjects = doc.get('subjects') or []
    if not isinstance(subjects, list):
        raise RoleError('%s: RoleBinding %s: subjects must be a list' % (
            where, _meta_name(doc, where)))
    for subject in subjects:
        if not isinstance(subject, dict):
            raise RoleError('%s: RoleBinding %s: a subject must be a '
                            'mapping' % (where, _meta_name(doc, where)))
        if subject.get('kind') != 'ServiceAccount':
            continue
        if subject.get('namespace') in (None, '', namespace):
            accounts.append(str(subject.get('name')))
    return tuple(accounts)


def parse_rbac(texts, namespace):
    """The Rbac of manifests: texts is [(YAML text, where it came from)].

    RoleError (one line) for YAML that is not RBAC manifests, a Role
    declared twice, a malformed rule or a binding to no Role.
    """
    roles, bindings, accounts, secrets = {}, [], [], {}
    for text, where in texts:
        for doc in _documents(text, where):
            kind = doc.get('kind')
            if kind == 'Role':
                name = _meta_name(doc, where)
                if name in roles:
                    raise RoleError('%s: Role %s is declared twice' % (
                        where, name))
                rules = doc.get('rules') or []
                if not isinstance(rules, list):
                    raise RoleError('%s: Role %s: rules must be a list' % (
                        where, name))
                roles[name] = [_rule(rule, '%s: Role %s rules[%d]' % (
                    where, name, index)) for index, rule in enumerate(rules)]
            elif kind == 'RoleBinding':
                ref = doc.get('roleRef') or {}
                if not isinstance(ref, dict) or ref.get('kind') != 'Role':
                    raise RoleError('%s: RoleBinding %s: roleRef must name '
                                    'a Role' % (where, _meta_name(doc,
                                                                  where)))
                bindings.append((str(ref.get('name')),
                                 _bound_accounts(doc, where, namespace)))
            elif kind == 'ServiceAccount':
                accounts.append(_meta_name(doc, where))
            elif kind == 'Secret' and doc.get('type') == \
                    'kubernetes.io/service-account-token':
                owner = ((doc.get('metadata') or {}).get('annotations') or
                         {}).get('kubernetes.io/service-account.name')
                secrets[_meta_name(doc, where)] = str(owner)
    if not roles:
        raise RoleError('%s: no document of kind Role' % ', '.join(
            where for _text, where in texts))
    for role, _accounts in bindings:
        if role not in roles:
            raise RoleError('a RoleBinding names Role %s, which none of '
                            '%s declares' % (role, ', '.join(
                                where for _text, where in texts)))
    return Rbac(roles=roles, bindings=tuple(bindings),
                accounts=tuple(accounts), token_secrets=secrets)


def account_rules(rbac, account):
    """The rules bound to a service account.

    NOTE: manifests without any RoleBinding (a bare Role file, as the
    functional tests write) bind every Role to whoever uses the cloud.
    """
    if not rbac.bindings:
        return [rule for rules in rbac.roles.values() for rule in rules]
    return [rule for role, accounts in rbac.bindings if account in accounts
            for rule in rbac.roles[role]]


def default_account(rbac):
    """The one service account the manifests bind, else RoleError."""
    bound = sorted({a for _role, accounts in rbac.bindings
                    for a in accounts})
    if not rbac.bindings:
        return rbac.accounts[0] if len(rbac.accounts) == 1 else None
    if len(bound) == 1:
        return bound[0]
    raise RoleError('the RBAC manifests bind %d service accounts (%s); '
                    'name the one the kubeconfig acts as' % (
                        len(bound), ', '.join(bound) or 'none'))


def _rule(rule, where):
    if not isinstance(rule, dict):
        raise RoleError('%s: a rule must be a mapping' % where)
    fields = {}
    for key, required in (('apiGroups', True), ('resources', True),
                          ('verbs', True), ('resourceNames', False)):
        value = rule.get(key)
        if value is None and not required:
            value = []
        if not isinstance(value, list) or not all(
                isinstance(v, str) for v in value):
            raise RoleError('%s: %s must be a list of strings' % (where,
                                                                  key))
        fields[key] = value
    return fields


def _matches(values, wanted):
    return '*' in values or wanted in values


def allows(rules, verb, group, resource, name):
    """Whether a rule grants verb on group/resource (named name or not)."""
    for rule in rules:
        if not (_matches(rule['verbs'], verb) and
                _matches(rule['apiGroups'], group) and
                _matches(rule['resources'], resource)):
            continue
        names = rule.get('resourceNames') or []
        if not names or (name and name in names):
            return True
    return False


def user(namespace, account):
    """The user name the API server gives a service account's token."""
    return 'system:serviceaccount:%s:%s' % (namespace, account)
