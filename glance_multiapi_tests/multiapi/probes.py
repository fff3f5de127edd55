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

"""Probing an image endpoint: DNS, TCP, TLS, then the version document.

DNS has its own bound; TCP, TLS and the version document are one
exchange, bounded from connect to the last byte (deadlines.py: an
endpoint that trickles its answer is cut at the bound, not at its
end). A failure names the stage and the error the operating system
gave, e.g. ``api1 public
http://glance-api1-public.openstack.svc:9292: DNS: Name or service not
known``, so a CI reader knows which endpoint broke and how. A TLS failure
names the certificate problem (``TLS: certificate verify failed: unable
to get local issuer certificate``): the endpoint is there and answers,
it is not trusted, which is never "not answering".
"""

import concurrent.futures
import dataclasses
import http.client
import json
import socket
import ssl
import threading
import urllib.parse

from glance_multiapi_kernel import deadlines

STAGES = ('DNS', 'TCP', 'TLS', 'HTTP')
# NOTE: a version document is a few hundred bytes; anything much larger is
# not one, and reading it all would only slow the probe down.
_MAX_BODY = 1 << 20


@dataclasses.dataclass(frozen=True)
class Target:
    """An endpoint to probe and who it belongs to, for the report."""

    owner: str
    interface: str
    url: str


@dataclasses.dataclass(frozen=True)
class Failure:
    """Why one target failed: the stage and the error text."""

    target: Target
    stage: str
    error: str

    def __str__(self):
        return '%s %s %s: %s: %s' % (self.target.owner,
                                     self.target.interface,
                                     self.target.url, self.stage,
                                     self.error)


class StageError(Exception):
    """One stage failed; args are (stage, error text)."""

    def __init__(self, stage, error):
        super().__init__(stage, error)
        self.stage = stage
        self.error = error


class TlsError(Exception):
    """A client met a TLS failure; the text names the certificate problem."""


def ssl_context(cafile=None, insecure=False):
    """The trust of https probes, from [identity]'s TLS options.

    cafile is ca_certificates_file, insecure is
    disable_ssl_certificate_validation: what tempest's clients use.
    """
    context = ssl.create_default_context(cafile=cafile or None)
    if insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


# NOTE: OpenSSL's reason codes a reader may not recognise, in words.
_TLS_REASONS = {
    'WRONG_VERSION_NUMBER': 'wrong version number (the server does not '
                            'speak TLS there: plain http?)',
    'UNEXPECTED_EOF_WHILE_READING': 'the server closed the connection '
                                    'during the handshake',
}


def tls_text(exc):
    """The certificate problem of an ssl.SSLError, in one line."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        return 'certificate verify failed: %s' % (
            exc.verify_message or exc.reason)
    reason = getattr(exc, 'reason', None)
    if reason in _TLS_REASONS:
        return _TLS_REASONS[reason]
    if isinstance(exc, ssl.CertificateError):
        return 'certificate verify failed: %s' % exc
    return (reason or str(exc) or type(exc).__name__).replace('_', ' ')


def tls_problem(exc):
    """tls_text() of the SSL error behind exc (requests, urllib3), or None.

    Clients wrap the ssl module's error several layers deep (urllib3's
    MaxRetryError.reason, requests' SSLError args, __cause__).
    """
    seen = set()
    todo = [exc]
    while todo and len(seen) < 20:
        item = todo.pop(0)
        if item is None or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, ssl.SSLError):
            return tls_text(item)
        if isinstance(item, BaseException):
            todo += [getattr(item, 'reason', None), item.__cause__,
                     item.__context__]
            todo += [a for a in item.args if isinstance(a, BaseException)]
    return None


def _os_error_text(exc):
    if isinstance(exc, socket.timeout):
        return 'timed out'
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def resolve(host, port, timeout):
    """getaddrinfo bounded by timeout; returns [(family, sockaddr)]."""
    # NOTE: getaddrinfo takes no timeout, and a dead resolver can block
    # it for the resolver's own retries; run it in a daemon thread and stop
    # waiting at the bound.
    result = {}

    def lookup():
        try:
            result['infos'] = socket.getaddrinfo(
                host, port, type=socket.SOCK_STREAM)
        except OSError as exc:
            result['error'] = exc

    worker = threading.Thread(target=lookup, daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        raise StageError('DNS', 'no answer for %s within %.1f s' %
                         (host, timeout))
    if 'error' in result:
        raise StageError('DNS', _os_error_text(result['error']))
    if not result['infos']:
        raise StageError('DNS', 'no address for %s' % host)
    return [(info[0], info[4]) for info in result['infos']]


def connect(addresses, timeout):
    """Open a TCP connection to the first address that accepts one."""
    errors = []
    for family, sockaddr in addresses:
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect(sockaddr)
            return sock
        except OSError as exc:
            sock.close()
            errors.append('%s port %s: %s' % (sockaddr[0], sockaddr[1],
                                              _os_error_text(exc)))
    raise StageError('TCP', '; '.join(errors))


def parse_versions(status, body):
    """Return the version ids a version document offers, or StageError."""
    if status not in (200, 300):
        raise StageError('HTTP', 'GET returned %d, expected 300 or 200 with '
                         'a version document' % status)
    try:
        doc = json.loads(body)
        versions = doc['versions']
        ids = [str(v['id']) for v in versions]
    except (ValueError, KeyError, TypeError):
        raise StageError('HTTP', 'GET returned %d but no version document '
                         '(body starts %r)' % (status, body[:60]))
    return ids


def check_v2(ids):
    if not any(i.startswith('v2') for i in ids):
        raise StageError('HTTP', 'version document offers no v2 (offers: '
                         '%s)' % (', '.join(ids) or 'nothing'))


def http_get(sock, parts, timeout, ssl_context, reached=None):
    """GET the URL's path over an already connected socket.

    reached: a list the stage under way is appended to (TLS, HTTP).
    """
    reached = [] if reached is None else reached
    host = parts.hostname
    port = parts.port or (443 if parts.scheme == 'https' else 80)
    if parts.scheme == 'https':
        reached.append('TLS')
        context = ssl_context or ssl.create_default_context()
        try:
            sock = context.wrap_socket(sock, server_hostname=host)
        except ssl.SSLError as exc:
            sock.close()
            raise StageError('TLS', tls_text(exc))
        except OSError as exc:
            sock.close()
            raise StageError('TLS', 'handshake: %s' % _os_error_text(exc))
    reached.append('HTTP')
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    conn.sock = sock
    try:
        conn.request('GET', parts.path or '/',
                     headers={'Accept': 'application/json'})
        resp = conn.getresponse()
        return resp.status, resp.read(_MAX_BODY).decode('utf-8', 'replace')
    except (OSError, http.client.HTTPException) as exc:
        raise StageError('HTTP', _os_error_text(exc))
    finally:
        conn.close()


def probe(url, timeout, ssl_context=None):
    """Probe one endpoint URL; return the version ids or raise StageError."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ('http', 'https') or not parts.hostname:
        raise StageError('URL', 'not an http(s) URL')
    port = parts.port or (443 if parts.scheme == 'https' else 80)
    addresses = resolve(parts.hostname, port, timeout)
    reached = ['TCP']
    try:
        with deadlines.exchange(url, timeout, 'GET'):
            sock = connect(addresses, timeout)
            status, body = http_get(sock, parts, timeout, ssl_context,
                                    reached)
    except deadlines.DeadlineExceeded as exc:
        # NOTE: a peer that sent nothing reads as the other stages word a
        # silent one; a trickle says how much it sent in that time.
        raise StageError(reached[-1], exc.problem if exc.received
                         else 'timed out') from None
    ids = parse_versions(status, body)
    check_v2(ids)
    return ids


def probe_all(targets, timeout, ssl_context=None, workers=4):
    """Probe every target; return the Failures, in the targets' order.

    Each distinct URL is probed once, a few at a time, so the whole run
    takes about one probe's worst case rather than the sum.
    """
    urls = list(dict.fromkeys(t.url for t in targets))

    def one(url):
        try:
            probe(url, timeout, ssl_context)
        except StageError as exc:
            return exc
        return None

    with concurrent.futures.ThreadPoolExecutor(
            max_workers=max(1, min(workers, len(urls) or 1))) as pool:
        outcome = dict(zip(urls, pool.map(one, urls)))
    return [Failure(t, outcome[t.url].stage, outcome[t.url].error)
            for t in targets if outcome[t.url] is not None]


def answers(url, timeout, ssl_context=None):
    """(True, None) when the URL serves a v2 version doc, else (False, why)."""
    failed = failure(url, timeout, ssl_context)
    if failed is None:
        return True, None
    return False, '%s: %s' % (failed.stage, failed.error)


def failure(url, timeout, ssl_context=None):
    """The StageError probing the URL gives, or None when it answers."""
    try:
        probe(url, timeout, ssl_context)
    except StageError as exc:
        return exc
    return None
