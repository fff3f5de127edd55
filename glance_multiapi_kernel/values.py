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

"""Checks of single values, each saying what is wrong in a few words.

Each returns None for a good value, else the problem, which the caller
puts after the option or key it read the value from: the URL of an
endpoint option, the name of an image, a replica count. Pure.
"""

import math
import re
import urllib.parse

from glance_multiapi_kernel import documents

# NOTE: Kubernetes' replicas are int32 (apps/v1 DeploymentSpec.Replicas,
# and the operators' CRDs carry "format: int32").
INT32_MAX = 2 ** 31 - 1
# NOTE: a namespace is a DNS-1123 label (apimachinery
# pkg/api/validation/generic.go ValidateNamespaceName = NameIsDNSLabel;
# pkg/util/validation/validation.go IsDNS1123Label: dns1123LabelFmt,
# DNS1123LabelMaxLength 63).
DNS1123_LABEL_RE = re.compile(r'[a-z0-9](?:[-a-z0-9]*[a-z0-9])?')
DNS1123_LABEL_MAX = 63


def _control(text):
    """The first control character or white space of text, named."""
    for char in text:
        if char == '\0':
            return 'a NUL byte'
        if char in '\r\n':
            return 'a line break'
        if ord(char) < 0x20 or char == '\x7f':
            return 'the control character %r' % char
        if char.isspace():
            return 'white space'
    return None


def url_problem(url, schemes=('http', 'https')):
    """Why url cannot be reached (scheme, host, port, bytes), or None."""
    if not isinstance(url, str):
        return 'expected a URL string, got %s' % documents.short(repr(url))
    shown = documents.short(repr(url))
    bad = _control(url)
    if bad:
        return 'invalid URL %s: it holds %s' % (shown, bad)
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port
    except ValueError as exc:
        return 'invalid URL %s: %s' % (shown, documents.short(str(exc)))
    if schemes and parts.scheme not in schemes:
        return 'invalid URL %s: not %s' % (shown, ' or '.join(
            '%s://' % scheme for scheme in schemes))
    if not parts.hostname:
        return 'invalid URL %s: no host' % shown
    if parts.port == 0:
        return 'invalid URL %s: port 0 is no port a server listens on' % (
            shown)
    return None


def name_problem(name):
    """Why name cannot name an image (or a file, a key), or None."""
    if not isinstance(name, str):
        return 'expected a name, got %s' % documents.short(repr(name))
    if not name.strip():
        return 'the name is empty'
    bad = _control(name.replace(' ', '_'))
    if bad:
        return 'the name %s holds %s' % (documents.short(repr(name)), bad)
    if '/' in name:
        return 'the name %s holds a "/"' % documents.short(repr(name))
    if name in ('.', '..'):
        return 'the name %r names a folder, not an image' % name
    return None


def replicas_problem(value):
    """Why value is no Kubernetes replica count (int32, >= 0), or None."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        return '%s is not a non-negative integer' % documents.short(
            repr(value))
    if value > INT32_MAX:
        return '%s is more than Kubernetes allows (%d, int32)' % (
            documents.short(repr(value)), INT32_MAX)
    return None


def namespace_problem(name):
    """Why name is no Kubernetes namespace (a DNS-1123 label), or None.

    NOTE: a namespace goes into request paths (/api/v1/namespaces/NAME/
    ...); one that is no label would name another path, or none.
    """
    if not isinstance(name, str):
        return 'expected a namespace, got %s' % documents.short(repr(name))
    if len(name) > DNS1123_LABEL_MAX or not DNS1123_LABEL_RE.fullmatch(
            name):
        return '%s is not a valid namespace: a DNS-1123 label (at most ' \
            '%d lower-case letters, digits and "-", starting and ending ' \
            'with a letter or digit)' % (documents.short(repr(name)),
                                         DNS1123_LABEL_MAX)
    return None


def figure_problem(value):
    """Why value is no figure (a finite number of zero or more), or None.

    A duration or a rate: NaN, an infinity, a negative number, a bool or
    an integer too large for a float (an integer of 400 digits) is none.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return '%s is not a number' % documents.short(repr(value))
    try:
        number = float(value)
    except OverflowError:
        # NOTE: str() of a huge int may itself be refused (3.11's limit
        # of digits); its bits say how many digits it has.
        return 'a number of about %d digits is too large for a figure' % (
            int(value.bit_length() * math.log10(2)) + 1)
    if not math.isfinite(number):
        return '%s is not a finite number' % documents.short(repr(value))
    if number < 0:
        return '%s is negative; a duration or a rate is not' % (
            documents.short(repr(value)))
    return None
