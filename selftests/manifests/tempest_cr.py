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

"""Checks of the shipped Tempest CR beyond its field names.

``style_problems``: yamllint's defaults that matter here (a ``---``
document start, lines of at most 80 characters).
``override_problems``: the ``tempestconfRun.overrides`` reach
discover-tempest-config as pairs (through run_tempest.sh's bash and
xargs, see tcib_pod), and every pair naming one of this plugin's option
groups names a real option with a valid value.
``token_problems``: a pod that is not privileged gets the token of one
of the rbac*.yaml ServiceAccounts where in-cluster clients read it, a
CR that turns nothing disruptive on gets an account that only reads, and
a disruptive CR's account may read the pod test-operator makes of it
(``pod_names``), whatever the CR is called.
"""

from selftests.manifests import rbac
from selftests.manifests import shell_words
from selftests.manifests import tcib_pod

# test-operator mounts a token only into privileged pods
# (internal/util/common.go: automountServiceAccountToken follows
# spec.privileged); in-cluster clients read it from this folder.
TOKEN_DIR = '/var/run/secrets/kubernetes.io/serviceaccount'
MAX_LINE = 80
# test-operator d0ef1c3 internal/controller/common.go GetPodName: a pod
# is named after its CR, or "<cr>-sNN-<stepName>" for each workflow step
# ("no-name" for a step without one); api/v1beta1/common_webhook.go
# refuses names of 63 characters or more (a DNS label).
POD_STEP_INFIX = '-s'
POD_STEP_NO_NAME = 'no-name'
DNS_LABEL_MAX = 63


def style_problems(path, text):
    """yamllint-default problems of a YAML file's text, one line each."""
    problems = []
    lines = text.splitlines()
    if not lines or lines[0].rstrip() != '---':
        problems.append('%s:1: no "---" document start' % path)
    for number, line in enumerate(lines, 1):
        # NOTE: as yamllint's allow-non-breakable-words: one word (an
        # image reference, a URL) may run longer.
        if len(line) > MAX_LINE and ' ' in line.strip():
            problems.append('%s:%d: line is %d characters (at most %d)'
                            % (path, number, len(line), MAX_LINE))
    return problems


def override_pairs(text):
    """[(section.key, value)] of discover-tempest-config's overrides.

    As the pod passes them (tcib_pod): run_tempest.sh expands the text
    unquoted (bash word splitting, pathname expansion, echo) and pipes it
    through xargs, whose quote rules are not shlex's; ValueError
    (tcib_pod.RenderError) names what would break. The two overrides
    run_tempest.sh appends itself are left out.
    """
    env, _ = tcib_pod.pod_env(
        {'spec': {'tempestconfRun': {'overrides': text or ''}}})
    return tcib_pod.override_pairs_as_passed(env)[:-2]


def _glob_problems(text):
    # NOTE: run_tempest.sh expands the overrides unquoted twice, so bash
    # replaces a word holding * ? or [ by the names it matches in the
    # pod's working directory; in quotes the word keeps a quote character
    # for bash, matches nothing and reaches xargs unchanged.
    problems = []
    for word in shell_words.bash_words(text or ''):
        if any(c in word for c in shell_words.GLOB_MAGIC) and \
                word[0] not in '\'"':
            problems.append(
                'tempestconfRun.overrides: %r: bash (run_tempest.sh) '
                'expands it against the files of the pod\'s working '
                'directory; put the value in single quotes' % word)
    return problems


def override_problems(text, opt_groups):
    """Problems of the overrides for the given [(group, [opts])]."""
    known = {}
    for group, opts in opt_groups:
        name = getattr(group, 'name', group)
        known.setdefault(name, {}).update((o.dest, o) for o in opts)
    try:
        pairs = override_pairs(text)
    except ValueError as exc:
        return ['tempestconfRun.overrides: %s' % exc]
    problems = _glob_problems(text)
    for key, value in pairs:
        section, _, option = key.partition('.')
        if section not in known:
            continue
        opt = known[section].get(option)
        if opt is None:
            problems.append('tempestconfRun.overrides: [%s] has no option '
                            '%r' % (section, option))
            continue
        try:
            opt.type(value)
        except ValueError as exc:
            problems.append('tempestconfRun.overrides: [%s] %s = %r: %s'
                            % (section, option, value, exc))
    return problems


# NOTE: the overrides that turn on what changes the deployment, and the
# grants each then needs (its Kubernetes way); a CR without them must run
# as an account that can only read.
DISRUPTIVE_OPTIONS = {
    'glance_multiapi.run_switchover': (
        'patch openstackcontrolplanes.core.openstack.org',),
    'glance_multiapi.run_grow_shrink': (
        'patch openstackcontrolplanes.core.openstack.org',),
    'consolidated_heat.run_heat_engine_restart': (
        'list pods', 'delete pods', 'get deployments.apps/heat-engine'),
}
READ_VERBS = frozenset(['get', 'list', 'watch'])


def _pairs(cr):
    overrides = ((cr.get('spec') or {}).get('tempestconfRun') or {}).get(
        'overrides') or ''
    return dict(override_pairs(overrides)) if overrides else {}


def disruptive_options(cr):
    """The disruptive run_* overrides the CR turns on."""
    pairs = _pairs(cr)
    return [name for name in DISRUPTIVE_OPTIONS
            if str(pairs.get(name, '')).lower() == 'true']


def is_disruptive(cr):
    """Whether the CR's overrides turn a disruptive scenario on."""
    return bool(disruptive_options(cr))


def _needed_grants(cr):
    pairs = _pairs(cr)
    needed = []
    for option in disruptive_options(cr):
        if option.endswith('run_heat_engine_restart') and pairs.get(
                'consolidated_heat.restart_command'):
            continue
        if option.startswith('glance_multiapi.') and pairs.get(
                'glance_multiapi.patch_object') == 'glance':
            needed.append(('patch glances.glance.openstack.org', option))
            continue
        needed.extend((grant, option) for grant in DISRUPTIVE_OPTIONS[option])
    return needed


def pod_names(cr):
    """The names test-operator gives the CR's pods (common.go GetPodName)."""
    name = str((cr.get('metadata') or {}).get('name') or '')
    workflow = (cr.get('spec') or {}).get('workflow') or []
    if not workflow:
        return [name]
    return ['%s%s%02d-%s' % (name, POD_STEP_INFIX, index,
                             (step or {}).get('stepName') or
                             POD_STEP_NO_NAME)
            for index, step in enumerate(workflow)]


def _may_get_pod(grants, pod):
    return any(g.verb in ('get', '*') and g.resource in ('pods', '*') and
               g.group in ('', '*') and g.name in (None, pod)
               for g in grants)


def pod_problems(cr, grants):
    """Problems of the disruptive run's read of its own pod.

    The restoration guard reads the pod it runs in (common/own_pod.py, by
    its hostname); grants: the mounted token's account's.
    """
    problems = []
    for pod in pod_names(cr):
        if len(pod) >= DNS_LABEL_MAX:
            problems.append('pod name %s is %d characters; test-operator '
                            'refuses %d or more' % (pod, len(pod),
                                                    DNS_LABEL_MAX))
        if is_disruptive(cr) and not _may_get_pod(grants, pod):
            problems.append(
                'a disruptive run reads its own pod %s (test-operator names '
                'it after the CR) to put the deployment back when the pod '
                'is deleted, but its account may not "get pods/%s"' % (
                    pod, pod))
    return problems


def mounted_token_secret(cr):
    """Name of the Secret the CR mounts at TOKEN_DIR, else None."""
    volumes, mounts = {}, []
    for extra in (cr.get('spec') or {}).get('extraMounts') or []:
        for vol in extra.get('extraVol') or []:
            for volume in vol.get('volumes') or []:
                name = (volume.get('secret') or {}).get('secretName')
                volumes[volume.get('name')] = name
            mounts.extend(vol.get('mounts') or [])
    for mount in mounts:
        if mount.get('mountPath') == TOKEN_DIR:
            return volumes.get(mount.get('name'))
    return None


def token_problems(cr, rbac_docs):
    """Problems of which token the CR's pod acts with.

    rbac_docs: the documents of every RBAC manifest (rbac*.yaml).
    """
    problems = []
    if (cr.get('metadata') or {}).get('namespace'):
        problems.append('metadata.namespace is set; leave it out so that '
                        'oc apply -n puts the CR beside the control plane '
                        '(and the plugin reads that namespace in the pod)')
    if (cr.get('spec') or {}).get('privileged'):
        return problems
    secrets = rbac.token_secrets(rbac_docs)
    secret = mounted_token_secret(cr)
    if secret is None:
        problems.append('the CR is not privileged and mounts no Secret at '
                        '%s: the pod would have no token (mount one of %s)'
                        % (TOKEN_DIR, ', '.join(sorted(secrets))))
        return problems
    if secret not in secrets:
        problems.append('the CR mounts Secret %s at %s, which no RBAC '
                        'manifest declares as a token (%s)' % (
                            secret, TOKEN_DIR, ', '.join(sorted(secrets))))
        return problems
    account = secrets[secret]
    granted = rbac.account_grants(rbac_docs, account)
    writes = sorted({rbac.grant_label(g) for g in granted
                     if g.verb not in READ_VERBS})
    labels = {rbac.grant_label(g) for g in granted}
    for grant, option in _needed_grants(cr):
        if grant not in labels:
            problems.append('%s is on, which needs "%s", but the token '
                            'mounted (%s, account %s) is not granted it' % (
                                option, grant, secret, account))
    problems += ['%s (token %s, account %s)' % (p, secret, account)
                 for p in pod_problems(cr, granted)]
    if writes and not is_disruptive(cr):
        problems.append('the CR turns no disruptive scenario on, yet its '
                        'token (%s, account %s) may %s: a gate must run as '
                        'an account that only reads' % (
                            secret, account, '; '.join(writes)))
    return problems
