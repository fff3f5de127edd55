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
``token_problems``: a pod that is not privileged gets the token of
rbac.yaml's ServiceAccount where in-cluster clients read it.
"""

from glance_multiapi_tests.selftests.manifests import shell_words
from glance_multiapi_tests.selftests.manifests import tcib_pod

# test-operator mounts a token only into privileged pods
# (internal/util/common.go: automountServiceAccountToken follows
# spec.privileged); in-cluster clients read it from this folder.
TOKEN_DIR = '/var/run/secrets/kubernetes.io/serviceaccount'
MAX_LINE = 80


def style_problems(path, text):
    """yamllint-default problems of a YAML file's text, one line each."""
    problems = []
    lines = text.splitlines()
    if not lines or lines[0].rstrip() != '---':
        problems.append('%s:1: no "---" document start' % path)
    for number, line in enumerate(lines, 1):
        if len(line) > MAX_LINE:
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


def _token_secret(rbac_docs):
    for doc in rbac_docs:
        if (doc.get('kind') == 'Secret' and doc.get('type')
                == 'kubernetes.io/service-account-token'):
            return doc['metadata'].get('name')
    return None


def token_problems(cr, rbac_docs):
    """Problems of how the CR's pod gets rbac.yaml's token."""
    spec = cr.get('spec') or {}
    namespace = (cr.get('metadata') or {}).get('namespace')
    problems = []
    for doc in rbac_docs:
        theirs = (doc.get('metadata') or {}).get('namespace')
        if theirs != namespace:
            problems.append('Tempest CR is in namespace %r, rbac.yaml\'s %s '
                            'in %r' % (namespace, doc.get('kind'), theirs))
            break
    if spec.get('privileged'):
        return problems
    secret = _token_secret(rbac_docs)
    volumes = {}
    mounts = []
    for extra in spec.get('extraMounts') or []:
        for vol in extra.get('extraVol') or []:
            for volume in vol.get('volumes') or []:
                name = (volume.get('secret') or {}).get('secretName')
                volumes[volume.get('name')] = name
            mounts.extend(vol.get('mounts') or [])
    mounted = [m for m in mounts if m.get('mountPath') == TOKEN_DIR]
    if secret is None:
        problems.append('rbac.yaml has no service-account-token Secret and '
                        'the CR is not privileged: the pod has no token')
    elif not any(volumes.get(m.get('name')) == secret for m in mounted):
        problems.append('the CR is not privileged and does not mount '
                        'Secret %s at %s: the pod would have no token'
                        % (secret, TOKEN_DIR))
    return problems
