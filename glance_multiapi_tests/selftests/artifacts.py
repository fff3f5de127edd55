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

"""What of an embedded cloud's state dir a CI run keeps, secrets masked.

The runners tear the cloud down when they end; before that they copy its
configuration (always) and its logs (when the run failed, or always when
asked) into the results. Every copied text has its secrets masked: the
value of each key named like a password, secret, token or key (INI and
YAML alike, kubeconfig's token and client-key-data included), the
password of a URL, and every such value wherever else it shows up (a
log line, a JSON document).
"""

import glob
import json
import os
import re

MASK = '***'
SECRET_WORDS = frozenset(['password', 'passwd', 'secret', 'secrets',
                          'token', 'key', 'keys'])
# NOTE: shorter values are too common to mask everywhere ("key = 1").
MIN_SECRET_LEN = 4

# "key = value" (INI) and "key: value" (YAML, "- key: value" too).
_SETTING = re.compile(
    r'''^(?P<lead>\s*(?:-\s+)?)(?P<q>["']?)(?P<key>[\w.\-]+)(?P=q)'''
    r'''(?P<sep>\s*=\s*|\s*:\s+)(?P<value>\S.*?)\s*$''')
_URL_PASSWORD = re.compile(
    r'(\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^/\s:@]+:)([^/\s@]+)(@)')
_WORDS = re.compile(r'[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])')

# (source glob in the state dir, destination in the artifacts folder);
# a destination ending in "/" keeps the source's file name.
CONFIGS = [
    ('tempest/etc/tempest.conf', 'tempest.conf'),
    ('clouds.yaml', 'clouds.yaml'),
]
LOGS = [
    ('tempest/logs/tempest.log', 'tempest.log'),
    ('kubeapi-audit.log', 'kubeapi-audit.log'),
    ('logs/*', 'logs/'),
    ('rabbitmq/log/*', 'logs/rabbitmq/'),
    ('kubeconfig', 'etc/kubeconfig'),
    ('kube-role.yaml', 'etc/kube-role.yaml'),
    ('state.json', 'etc/state.json'),
    ('keystone/keystone.conf', 'etc/keystone.conf'),
    ('glance/apis/*/glance-api.conf', 'etc/glance-{parent}.conf'),
    ('heat/heat.conf', 'etc/heat.conf'),
    ('registry/config.yml', 'etc/registry.yml'),
]


def secret_key(name):
    """Whether a setting's name says its value is a secret.

    The last word decides (admin_password, client-key-data, authToken),
    so password_hash_rounds or keystone_endpoint stay readable.
    """
    words = [w.lower() for w in _WORDS.findall(name)]
    if len(words) > 1 and words[-1] == 'data':
        words.pop()
    return bool(words) and words[-1] in SECRET_WORDS


def mask_settings(text):
    """(text with secret settings' values masked, the values masked)."""
    found = set()
    lines = []
    for line in text.splitlines(True):
        body = line.rstrip('\r\n')
        match = _SETTING.match(body)
        if match and secret_key(match.group('key')):
            value = match.group('value')
            # NOTE: a JSON or quoted YAML value keeps its quotes and comma,
            # so that the masked document still parses.
            comma = ',' if value.endswith(',') else ''
            value = value[:len(value) - len(comma)]
            quote = value[0] if value[0] in '\'"' else ''
            if quote and len(value) > 1 and value.endswith(quote):
                value = value[1:-1]
            else:
                quote = ''
            if value and value != MASK:
                found.add(value)
            body = (match.group('lead') + match.group('q') +
                    match.group('key') + match.group('q') +
                    match.group('sep') + quote + MASK + quote + comma)
        lines.append(body + line[len(line.rstrip('\r\n')):])
    return ''.join(lines), found


def mask_text(text, secrets=()):
    """text with URL passwords and every value in secrets masked."""
    text = _URL_PASSWORD.sub(r'\1' + MASK + r'\3', text)
    values = sorted((s for s in set(secrets) if len(s) >= MIN_SECRET_LEN),
                    key=len, reverse=True)
    if values:
        text = re.sub('|'.join(re.escape(v) for v in values), MASK, text)
    return text


def state_secrets(state_dir):
    """The passwords and token the cloud made (its state.json)."""
    try:
        with open(os.path.join(state_dir, 'state.json')) as f:
            state = json.load(f)
    except (OSError, ValueError):
        return set()
    found = set(v for v in (state.get('passwords') or {}).values()
                if isinstance(v, str))
    token = (state.get('kube') or {}).get('token')
    if isinstance(token, str):
        found.add(token)
    return found


def plan(state_dir, logs):
    """[(source path, destination relative path)] that exist now."""
    pairs = []
    for pattern, dest in CONFIGS + (LOGS if logs else []):
        for source in sorted(glob.glob(os.path.join(state_dir, pattern))):
            if not os.path.isfile(source):
                continue
            target = dest.format(parent=os.path.basename(
                os.path.dirname(source)))
            if target.endswith('/'):
                target += os.path.basename(source)
            pairs.append((source, target))
    return pairs


def _read(path):
    with open(path, 'rb') as f:
        return f.read().decode('utf-8', errors='surrogateescape')


def _write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'wb') as f:
        f.write(text.encode('utf-8', errors='surrogateescape'))


def collect(state_dir, dest, logs):
    """Copy the state dir's configuration (and logs) masked into dest.

    Returns the destination paths written, relative to dest.
    """
    pairs = plan(state_dir, logs)
    texts = {source: _read(source) for source, _target in pairs}
    secrets = state_secrets(state_dir)
    for source, text in list(texts.items()):
        masked, found = mask_settings(text)
        texts[source] = masked
        secrets |= found
    written = []
    for source, target in pairs:
        _write(os.path.join(dest, target), mask_text(texts[source], secrets))
        written.append(target)
    return written
