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
value of each key named like a password, secret, token or key (INI, and
YAML or JSON as parsed, so flow mappings and block scalars too;
kubeconfig's token and client-key-data included), the password of a URL,
a token or password given on a command line or in an Authorization
header, and every such value wherever else it shows up (a log line, a
JSON document). A YAML or JSON file stays one that parses.
"""

import glob
import json
import os
import re

import yaml

MASK = '***'
SECRET_WORDS = frozenset(['password', 'passwd', 'secret', 'secrets',
                          'token', 'key', 'keys'])
# NOTE: shorter values are too common to mask everywhere ("key = 1").
MIN_SECRET_LEN = 4
# NOTE: "use_token = True" names a switch, not a secret.
NOT_SECRETS = frozenset(['true', 'false', 'none', 'null', '~'])
# Larger texts (service logs) are not parsed as a document: they never
# are one, and parsing megabytes of log only to fail costs seconds.
MAX_DOCUMENT = 1 << 20

# "key = value" (INI) and "key: value" (YAML, "- key: value" too).
_SETTING = re.compile(
    r'''^(?P<lead>\s*(?:-\s+)?)(?P<q>["']?)(?P<key>[\w.\-]+)(?P=q)'''
    r'''(?P<sep>\s*=\s*|\s*:\s+)(?P<value>\S.*?)\s*$''')
# A YAML block scalar's header ("|", ">-", "|2+"), its text on the lines
# below.
_BLOCK = re.compile(r'^[|>][0-9+\-]*(?:\s+#.*)?$')
# NOTE: a password may hold a "/", so it runs to the "@" that ends the
# authority; "host:port/path@x" (digits then "/") is a port, not one,
# and a quote ends it (compact JSON: "http://h:80","a@b").
_URL_PASSWORD = re.compile(
    r'''(\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^/\s:@"']+:)(?!\d+[/?#])'''
    r'''([^\s@"'<>]+)(@)''')
# "--token=X", "--os-password X" and, in a JSON argv, "--token", "X".
_OPTION = re.compile(
    r'''(?<![\w-])(?P<lead>--(?P<name>[A-Za-z][\w\-]*)'''
    r'''(?:=|[ \t]+|"\s*,\s*"|'\s*,\s*'))'''
    r'''(?!--)(?P<value>"[^"\n]*"|'[^'\n]*'|[^\s'",;]+)''')
_HEADER = re.compile(
    r'''(?i)(\b(?:authorization|x-(?:auth|subject|service)-token)'''
    r'''["']?[ \t]*[:=][ \t]*["']?(?:(?:bearer|basic|token)[ \t]+)?)'''
    r'''([^\s'",;]+)''')
_BEARER = re.compile(r'''(?i)(\bbearer[ \t]+)([^\s'",;]+)''')
# An OpenShift API token, whatever carries it.
_SHA256_TOKEN = re.compile(r'\bsha256~[\w\-]+')
_WORDS = re.compile(r'[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])')
_Dumper = getattr(yaml, 'CSafeDumper', yaml.SafeDumper)

# (source glob in the state dir, destination in the artifacts folder);
# a destination ending in "/" keeps the source's file name.
CONFIGS = [
    ('tempest/etc/tempest.conf', 'tempest.conf'),
    ('clouds.yaml', 'clouds.yaml'),
]
LOGS = [
    ('tempest/logs/tempest.log', 'tempest.log'),
    # NOTE: the main job's OCI-source pass logs beside the main pass.
    ('tempest/logs/tempest-oci.log', 'tempest-oci.log'),
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


def _hidden(value):
    """Whether a secret setting's value is worth masking (not a switch)."""
    return value.strip().lower() not in NOT_SECRETS


def _mask_lines(text):
    """mask_settings() line by line: INI, block YAML, JSON lines."""
    found = set()
    lines = []
    block = None
    for line in text.splitlines(True):
        body = line.rstrip('\r\n')
        if block is not None:
            # NOTE: the text of a block scalar under a secret key is
            # dropped, its key line already says '***'.
            indent = len(body) - len(body.lstrip())
            if not body.strip() or indent > block:
                if len(body.strip()) >= MIN_SECRET_LEN:
                    found.add(body.strip())
                continue
            block = None
        body = _mask_json_line(body, found)
        match = _SETTING.match(body)
        if (match and secret_key(match.group('key')) and
                _hidden(match.group('value'))):
            value = match.group('value')
            if _BLOCK.match(value):
                block = len(match.group('lead'))
                value = ''
            # NOTE: a JSON or quoted YAML value keeps its quotes and comma,
            # so that the masked document still parses.
            comment = ''
            if ':' in match.group('sep') and ' #' in value:
                value, comment = value.split(' #', 1)
                value, comment = value.rstrip(), '  #' + comment
            comma = ',' if value.endswith(',') else ''
            value = value[:len(value) - len(comma)]
            quote = value[:1] if value[:1] in ('"', "'") else ''
            if quote and len(value) > 1 and value.endswith(quote):
                value = value[1:-1]
            elif ':' in match.group('sep'):
                # NOTE: a plain *** is a YAML alias, not a string.
                quote = "'"
            else:
                quote = ''
            if value and value != MASK:
                found.add(value)
            body = (match.group('lead') + match.group('q') +
                    match.group('key') + match.group('q') +
                    match.group('sep') + quote + MASK + quote + comma +
                    comment)
        lines.append(body + line[len(line.rstrip('\r\n')):])
    return ''.join(lines), found


def _mask_json_line(body, found):
    """A line that is a JSON object (an audit event) with secrets masked."""
    stripped = body.strip()
    if not (stripped.startswith('{') and stripped.endswith('}')):
        return body
    try:
        event = json.loads(stripped)
    except ValueError:
        return body
    masked = _mask_node(event, found)
    if masked == event:
        return body
    return body[:len(body) - len(body.lstrip())] + json.dumps(masked)


def _mask_node(node, found, hide=False):
    """A parsed document with every value under a secret key masked."""
    if isinstance(node, dict):
        return {k: _mask_node(v, found, hide or (
            isinstance(k, str) and secret_key(k))) for k, v in node.items()}
    if isinstance(node, list):
        return [_mask_node(v, found, hide) for v in node]
    if hide and isinstance(node, (str, int, float)) and not isinstance(
            node, bool) and _hidden(str(node)):
        value = str(node)
        if value and value != MASK:
            found.add(value)
        return MASK
    if isinstance(node, str) and '\n' in node:
        # NOTE: a configuration file embedded in a YAML string.
        text, more = _mask_lines(node)
        found |= more
        return text
    return node


class _Loader(getattr(yaml, 'CSafeLoader', yaml.SafeLoader)):
    """The safe loader, refusing a key given twice (a log, not a file)."""

    def construct_mapping(self, node, deep=False):
        keys = [key.value for key, _value in node.value
                if isinstance(key, yaml.ScalarNode)]
        if len(keys) != len(set(keys)):
            raise yaml.constructor.ConstructorError(
                None, None, 'a key given twice', node.start_mark)
        return super().construct_mapping(node, deep)


def _load(text):
    """('json' or 'yaml', documents) when text is such a document."""
    if len(text) > MAX_DOCUMENT:
        return None
    if text.lstrip().startswith(('{', '[')):
        try:
            return 'json', [json.loads(text)]
        except ValueError:
            pass
    try:
        documents = list(yaml.load_all(text, Loader=_Loader))
    except (yaml.YAMLError, ValueError, RecursionError):
        return None
    # NOTE: a log or an INI file parses, if at all, as one plain string.
    if not any(isinstance(d, (dict, list)) for d in documents):
        return None
    return 'yaml', documents


def _dump(kind, documents, original):
    """The documents written back as JSON or YAML (block style)."""
    if kind == 'json':
        text = json.dumps(documents[0], indent=2)
        return text + '\n' if original.endswith('\n') else text
    return yaml.dump_all(documents, Dumper=_Dumper, sort_keys=False,
                         default_flow_style=False, allow_unicode=True,
                         explicit_start=len(documents) > 1)


def mask_settings(text):
    """(text with secret settings' values masked, the values masked).

    A YAML or JSON document is masked as parsed (flow mappings and block
    scalars included) and stays one; its layout and comments are kept
    unless masking it line by line would not give the same document.
    """
    lined, found = _mask_lines(text)
    loaded = _load(text)
    if loaded is None:
        return lined, found
    kind, documents = loaded
    masked = [_mask_node(d, found) for d in documents]
    again = _load(lined)
    if again is not None and again[1] == masked:
        return lined, found
    return _dump(kind, masked, text), found


def mask_text(text, secrets=()):
    """text with URL passwords, tokens and every value in secrets masked."""
    text = _URL_PASSWORD.sub(r'\1' + MASK + r'\3', text)
    text = _OPTION.sub(_mask_option, text)
    text = _HEADER.sub(r'\1' + MASK, text)
    text = _BEARER.sub(r'\1' + MASK, text)
    text = _SHA256_TOKEN.sub(MASK, text)
    values = sorted((s for s in set(secrets) if len(s) >= MIN_SECRET_LEN),
                    key=len, reverse=True)
    if values:
        text = re.sub('|'.join(re.escape(v) for v in values), MASK, text)
    return text


def _mask_option(match):
    """A command line option named like a secret with its value masked."""
    if not secret_key(match.group('name')):
        return match.group(0)
    value = match.group('value')
    quote = value[0] if value[0] in '\'"' else ''
    return match.group('lead') + quote + MASK + quote


def mask_document(text, secrets=(), log=False):
    """(text fully masked, the secret values found in it).

    mask_settings() then mask_text(); a YAML or JSON document stays one.
    A log (log=True) is only ever masked line by line.
    """
    text, found = _mask_lines(text) if log else mask_settings(text)
    return _mask_more(text, set(secrets) | found, log), found


def _mask_more(text, secrets, log=False):
    """mask_text() of a settings-masked text, keeping a document parseable."""
    masked = mask_text(text, secrets)
    if masked == text or log:
        return masked
    loaded = _load(text)
    if loaded is None or _load(masked) is not None:
        return masked
    kind, documents = loaded
    return _dump(kind, [_mask_strings(d, secrets) for d in documents], text)


def _mask_strings(node, secrets):
    """mask_text() on every string of a parsed document."""
    if isinstance(node, dict):
        return {k: _mask_strings(v, secrets) for k, v in node.items()}
    if isinstance(node, list):
        return [_mask_strings(v, secrets) for v in node]
    if isinstance(node, str):
        return mask_text(node, secrets)
    return node


def is_log(path):
    """Whether a file is a log (masked line by line, never parsed)."""
    name = path.replace(os.sep, '/')
    return name.endswith('.log') or '/logs/' in '/' + name


def mask_file_in_place(path, secrets=()):
    """Rewrite the text file at path masked; return the secrets it held."""
    text, found = mask_document(_read(path), secrets, log=is_log(path))
    _write(path, text)
    return found


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
    os.makedirs(os.path.dirname(path) or '.', exist_ok=True)
    with open(path, 'wb') as f:
        f.write(text.encode('utf-8', errors='surrogateescape'))


def collect(state_dir, dest, logs):
    """Copy the state dir's configuration (and logs) masked into dest.

    Returns the destination paths written, relative to dest.
    """
    pairs = plan(state_dir, logs)
    texts = {source: _read(source) for source, _target in pairs}
    secrets = state_secrets(state_dir)
    for source, target in pairs:
        masked, found = (_mask_lines if is_log(target) else mask_settings)(
            texts[source])
        texts[source] = masked
        secrets |= found
    written = []
    for source, target in pairs:
        _write(os.path.join(dest, target),
               _mask_more(texts[source], secrets, is_log(target)))
        written.append(target)
    return written
