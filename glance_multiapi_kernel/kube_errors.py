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

"""What a failed Kubernetes API call means, in one line.

The explanations glance_multiapi_kernel/kube.py's Client puts after
"Kubernetes API
SERVER: VERB RESOURCE in namespace NS:": what an HTTP status means for
this plugin, and why the server could not be reached. Pure functions.
"""

import re
import ssl

from glance_multiapi_kernel import documents

_ERRNO_RE = re.compile(r'\[Errno -?\d+\][^\'")]*')


def one_line(exc):
    text = ' '.join(str(exc).split())
    return text or type(exc).__name__


def unreachable(exc, timeout):
    """Why a request got no HTTP answer (timeout, TLS, refused, DNS)."""
    import urllib3
    reason = getattr(exc, 'reason', None) or exc
    # NOTE: urllib3 2 makes NewConnectionError a ConnectTimeoutError.
    timed_out = isinstance(reason, (urllib3.exceptions.TimeoutError,
                                    TimeoutError)) and not isinstance(
        reason, urllib3.exceptions.NewConnectionError)
    if timed_out:
        return 'no answer within %s s (API server unreachable or ' \
               'overloaded)' % timeout
    if isinstance(reason, (urllib3.exceptions.SSLError, ssl.SSLError)):
        return 'TLS with the API server failed (is the kubeconfig\'s ' \
               'certificate-authority the one that signed it?): %s' % (
                   one_line(reason))
    text = str(reason)
    match = _ERRNO_RE.search(text)
    return 'API server unreachable: %s' % (
        match.group(0).strip() if match else one_line(reason))


# NOTE: what explain() says of a 404 for the object itself (kube.py's
# KubeError.missing tells it from a resource type the server lacks).
MISSING = 'the object is missing'


def explain(exc, verb, resource, name, namespace, credentials, in_cluster):
    """What the API server's refusal (an ApiException) means."""
    status = exc.status or 0
    message, details = status_message(exc.body)
    head = '%d %s' % (status, exc.reason or '')
    if status == 0:
        # NOTE: the client reports TLS failures as status 0.
        return 'TLS or request failure: %s' % one_line(exc.reason)
    if status == 401:
        return '%s: the API server refused %s (token or client ' \
               'certificate not accepted)%s' % (
                   head, credentials, server_says(message))
    if status == 403:
        who = ('the service account' if in_cluster
               else "the kubeconfig's user")
        return '%s: %s lacks "%s" on "%s" in API group "%s"%s' % (
            head, who, verb, resource.plural, resource.group,
            server_says(message))
    if status == 404:
        if name and ((details or {}).get('name') == name or
                     '"%s" not found' % name in (message or '')):
            return '%s: %s: no %s "%s" in namespace "%s"' % (
                head, MISSING, resource.kind, name, namespace)
        return '%s: the API server does not serve %s/%s (is its CRD ' \
               'installed?)%s' % (head, resource.full_name,
                                  resource.version, server_says(message))
    if status == 422:
        return '%s: the API server refused the change%s' % (
            head, server_says(message))
    return '%s%s' % (head, server_says(message))


def status_message(body):
    """(message, details) of a Kubernetes Status body, else its text."""
    if isinstance(body, bytes):
        body = body.decode('utf-8', 'replace')
    if not body:
        return None, None
    try:
        doc = documents.load_json(body)
    except documents.DocumentError:
        return one_line(body)[:300], None
    if not isinstance(doc, dict):
        return one_line(body)[:300], None
    message, details = doc.get('message'), doc.get('details')
    # NOTE: a Status of another server may carry anything in them.
    return (documents.short(message, 300) if isinstance(message, str)
            else None), (details if isinstance(details, dict) else None)


def server_says(message):
    return ': %s' % one_line(message) if message else ''
