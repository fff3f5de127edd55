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

"""Secrets kept out of everything the tools print, write and store.

The one redaction of every output path of the five commands and the
plugin: stdout, stderr, JSON reports, logs, the records and the
deployment map. What it masks, each with MASK:

* the userinfo of a URL: ``https://user:***@host/`` (a userinfo that is
  a name alone, which is how a token rides in a URL, becomes ``***@``);
  URLs are found in text and taken apart with urllib.parse, never by
  hand;
* the value of a known secret key (``is_secret_key``: password, token,
  secret, a private or client key, a signature, ...) wherever a document
  gives it: a YAML or JSON key of a value (``value``), a YAML, INI or
  JSON line, an option or a query parameter in text (``text``);
* every secret a command read and said so (``remember``: a password of
  tempest.conf or clouds.yaml, a kubeconfig's token), wherever it shows
  up again, e.g. in an exception of a library.

``stored_url`` is stricter, for a URL stored where others read it (the
uploader's image property on a community image): no userinfo at all and
no query, whose tokens (a presigned URL's signature) cannot be told from
its data. ``split_userinfo`` is for a client that must send a URL's
credentials: it gets them apart, to send as a header, and a URL whose
host is a host, so that no resolver is ever asked for
``user:password@host``.

Pure, but for the process-wide set of remembered secrets. Imports only
the standard library.
"""

import logging
import re
import threading
import urllib.parse

MASK = '***'
# NOTE: a remembered secret shorter than this would mask ordinary words
# ("admin", "secret"); one that short is still masked where it is a
# URL's userinfo or a secret key's value.
MIN_REMEMBERED = 8

# NOTE: the last word of a key (after camelCase and '-' became '_') that
# says its value is a secret: oslo.utils' strutils sanitize keys, the
# kubeconfig user fields (token, password, client-key-data, id-token,
# refresh-token), clouds.yaml's auth (password, token,
# application_credential_secret), S3 and Swift signed URLs
# (X-Amz-Signature, temp_url_sig).
_SECRET_KEY_RE = re.compile(
    r'(?:^|_)(?:password|passwd|passphrase|pwd|pass|secret|token|'
    r'credential|authorization|signature|sig|(?:api|private|access|'
    r'secret|auth|client|signing|encryption|ssh)_?key|key_?data)$')
_CAMEL_RE = re.compile(r'(?<=[a-z0-9])(?=[A-Z])')
# NOTE: a key or a scheme is at most this long; each pattern below
# starts where a word starts, so that text of any length is read in
# linear time (no long word is scanned again from each of its letters).
_KEY = r'[A-Za-z_][\w.-]{0,63}'
# NOTE: where a URL is in text, for urllib.parse to take apart: it ends
# at white space or a quote, but a userinfo may hold quotes (RFC 3986
# sub-delims), so an authority holding "@" is taken whole.
_URL_RE = re.compile(
    r'''(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,31}://'''
    r'''(?:[^\s/?#]*@)?[^\s<>"'`]*''')
# NOTE: a whole line "key = value" or "key: value" of INI or YAML: the
# value is the rest of the line, which may hold spaces.
_LINE_RE = re.compile(
    r'''(?m)^(?P<head>[ \t-]*(?P<q>["']?)(?P<key>%s)(?P=q)'''
    r'''[ \t]*[:=][ \t]*)(?P<value>[^\n]*)$''' % _KEY)
# NOTE: inside a line: key=value (an option, a query, an environment),
# "key": value (JSON), key: value and {Key: value} (YAML), and --key
# value (a command line). An unquoted key of a capital letter before a
# colon is prose ("a token Secret: ..."), left alone. Only the key and
# its separator are matched: the value of a secret key is then read
# (_VALUE_RE), so that the key of a value ("a=password=x") is looked at
# too.
_INLINE_RE = re.compile(
    r'''(?P<flow>(?<=[{,])[ \t]*)?(?P<dashes>(?<![\w-])--?)?(?P<q>["'])?'''
    r'''(?(dashes)|(?<![\w.-]))(?P<key>%s)(?(q)(?P=q))'''
    r'''(?P<sep>[ \t]*[=:][ \t]*|(?(dashes)[ \t]+|(?!)))''' % _KEY)
_VALUE_RE = re.compile(
    r'''"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s,;&}\])"']+''')
_QUOTED_RE = re.compile(r'"(?:[^"\\\n]|\\.)*"' + r"|'[^'\n]*'")

_REMEMBERED = set()
_LOCK = threading.Lock()


def is_secret_key(name):
    """Whether a key, option or parameter of that name holds a secret."""
    if not isinstance(name, str):
        return False
    words = _CAMEL_RE.sub('_', name.strip().strip('"\'').lstrip('-'))
    words = re.sub(r'[^a-z0-9]+', '_', words.lower()).strip('_')
    return bool(_SECRET_KEY_RE.search(words))


def remember(*secrets):
    """Mask these values wherever text() meets them from now on.

    Each one a command read as a secret: a password, a token, a key. A
    value of a URL's userinfo is remembered as written and as decoded.
    """
    with _LOCK:
        for secret in secrets:
            if not isinstance(secret, str) or len(secret) < MIN_REMEMBERED:
                continue
            _REMEMBERED.add(secret)
            decoded = urllib.parse.unquote(secret)
            if len(decoded) >= MIN_REMEMBERED:
                _REMEMBERED.add(decoded)
            quoted = urllib.parse.quote(secret, safe='')
            _REMEMBERED.add(quoted)


def forget_all():
    """Forget every remembered secret (for tests)."""
    with _LOCK:
        _REMEMBERED.clear()


def _parts(url):
    """urllib.parse's SplitResult of url, or None when it is none."""
    try:
        return urllib.parse.urlsplit(url)
    except ValueError:
        return None


def _host_part(parts):
    """The netloc of parts without its userinfo (host and port)."""
    # NOTE: as urllib.parse reads it (SplitResult.hostname, .port): the
    # userinfo ends at the last "@".
    return parts.netloc.rpartition('@')[2]


def url(text):
    """text with the userinfo of the URL it is masked; else unchanged.

    ``https://user:pw@host/x`` -> ``https://user:***@host/x``;
    ``https://token@host/x`` -> ``https://***@host/x``.
    """
    if not isinstance(text, str) or '@' not in text:
        return text
    parts = _parts(text)
    if parts is None:
        # NOTE: what urllib.parse cannot take apart (a bracket left open)
        # may still hold a password before its "@".
        return MASK
    if '@' not in parts.netloc:
        return text
    user = parts.username
    if parts.password is not None:
        shown = '%s:%s' % (user, MASK)
    else:
        shown = MASK
    return urllib.parse.urlunsplit(parts._replace(
        netloc='%s@%s' % (shown, _host_part(parts))))


def stored_url(text):
    """The URL to store where others read it: no userinfo, no query.

    Neither can be told from data: a query may carry a presigned URL's
    signature or a token, so a query is shown as "?..." and never kept.
    The fragment never reaches a server.
    """
    parts = _parts(text) if isinstance(text, str) else None
    if parts is None:
        return MASK
    return urllib.parse.urlunsplit(
        (parts.scheme, _host_part(parts), parts.path,
         '...' if parts.query else '', ''))


def remember_url(text):
    """remember() what url() masks of a URL: its password, or a name alone.

    For a URL a command read that a library may quote back in full.
    """
    parts = _parts(text) if isinstance(text, str) else None
    if parts is None or '@' not in parts.netloc:
        return
    remember(parts.password if parts.password is not None
             else parts.username)


def split_userinfo(text):
    """(URL without userinfo, user, password) of a URL.

    user and password are percent-decoded, None when the URL has none;
    the URL is what a client may connect to: its host is a host.
    """
    parts = _parts(text)
    if parts is None or '@' not in parts.netloc:
        return text, None, None
    user = parts.username
    password = parts.password
    remember_url(text)
    clean = urllib.parse.urlunsplit(parts._replace(
        netloc=_host_part(parts)))
    return (clean, urllib.parse.unquote(user or ''),
            None if password is None else urllib.parse.unquote(password))


def _masked(value):
    """MASK for value, its quotes (and what follows them) kept."""
    quoted = _QUOTED_RE.match(value)
    if quoted:
        return value[0] + MASK + value[0] + value[quoted.end():]
    return MASK


def _line(match):
    value = match.group('value')
    shown = value.rstrip(' \t\r')
    if not is_secret_key(match.group('key')) or not shown:
        return match.group(0)
    return match.group('head') + _masked(shown) + value[len(shown):]


def _prose(match):
    """Whether an inline match is a word of prose before a colon."""
    key = match.group('key')
    return (':' in match.group('sep') and not match.group('q') and
            match.group('flow') is None and key != key.lower())


def _inline(text):
    out, last = [], 0
    for match in _INLINE_RE.finditer(text):
        if match.start() < last or not is_secret_key(
                match.group('key')) or _prose(match):
            continue
        value = _VALUE_RE.match(text, match.end())
        if value is None:
            continue
        out.append(text[last:value.start()])
        out.append(_masked(value.group(0)))
        last = value.end()
    out.append(text[last:])
    return ''.join(out)


def text(value):
    """Free text (a message, a command line, a document) with no secret.

    URLs lose their userinfo (url), secret keys their values (a YAML,
    INI or JSON line, key=value, --key value) and every remembered
    secret is masked.
    """
    if not isinstance(value, str):
        return value
    if '://' in value:
        value = _URL_RE.sub(lambda m: url(m.group(0)), value)
    value = _LINE_RE.sub(_line, value)
    value = _inline(value)
    with _LOCK:
        remembered = sorted(_REMEMBERED, key=len, reverse=True)
    for secret in remembered:
        if secret in value:
            value = value.replace(secret, MASK)
    return value


def value(data):
    """A JSON-shaped value with no secret: a copy, data is not changed.

    Tuples become lists, as JSON has them.

    Every string (keys too) goes through text(), and the value of a
    secret key (is_secret_key) is MASK, whatever it held.
    """
    if isinstance(data, str):
        return text(data)
    if isinstance(data, dict):
        return {text(k): (MASK if is_secret_key(k) and v not in (None, '')
                          else value(v))
                for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [value(item) for item in data]
    return data


class Filter(logging.Filter):
    """Redacts each record of the logger it is on (text())."""

    def filter(self, record):
        try:
            message = record.getMessage()
        except Exception:  # noqa: B902 - the handler reports a bad format
            return True
        record.msg, record.args = text(message), ()
        if record.exc_info and not record.exc_text:
            record.exc_text = text(logging.Formatter().formatException(
                record.exc_info))
        return True


_FILTER = Filter()


def logger(name):
    """A logger whose records are each redacted (text()).

    name: a logger's name (logging.getLogger's), or a logger or an
    adapter of one (oslo.log's getLogger), returned as it is.
    """
    found = logging.getLogger(name) if isinstance(name, str) else name
    underlying = getattr(found, 'logger', found)
    if _FILTER not in underlying.filters:
        underlying.addFilter(_FILTER)
    return found
