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

r"""Container image references (pullspecs), parsed without any I/O.

The grammar is the distribution reference one (distribution/reference
reference.go, regexp.go): ``[domain[:port]/]path[:tag][@digest]``, with
what the registries and the runtime hold it to beside it:

* path components and the tag as the OCI distribution spec (spec.md,
  "Pulling manifests") writes them: ``[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*``
  and ``[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}`` (ASCII only: Go's ``\w`` is,
  Python's is not);
* the digest as the OCI image spec (descriptor.md, "Digests") and
  go-digest's Digest.Validate, which reference.Parse calls: an algorithm
  of ``[a-z0-9]+([+._-][a-z0-9]+)*`` that go-digest knows, and its
  encoded part in lower-case hex of that algorithm's length. An
  upper-case digest is no pin (a registry refuses it), and the same
  digest written in two cases would compare unequal;
* a registry port within 1-65535 (a TCP port), and at most 255
  characters for the name (reference.go's NameTotalLengthMax).

References are compared as written: no default registry or ``latest``
tag is filled in, because two fields that are meant to share one image
should be spelled the same way. This module is where every reference
the image check reads is parsed.
"""

import dataclasses
import re

from glance_multiapi_kernel import documents
from glance_multiapi_kernel import errors

_DOMAIN_COMPONENT = r'[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?'
_DOMAIN_RE = re.compile(
    r'(?:%s(?:\.%s)*|\[[0-9A-Fa-f:]+\])(?::(?P<port>[0-9]+))?'
    % (_DOMAIN_COMPONENT, _DOMAIN_COMPONENT))
_PATH_COMPONENT_RE = re.compile(r'[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*')
_TAG_RE = re.compile(r'[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}')
_ALGORITHM_RE = re.compile(r'[a-z0-9]+(?:[+._-][a-z0-9]+)*')
_HEX = frozenset('0123456789abcdef')
# NOTE: go-digest's algorithms (algorithm.go: SHA256, SHA384, SHA512)
# and BLAKE3, which the OCI image spec registers; hex digits of each.
DIGEST_LENGTHS = {'sha256': 64, 'sha384': 96, 'sha512': 128, 'blake3': 64}
NAME_TOTAL_LENGTH_MAX = 255
PORT_MAX = 65535


class InvalidPullspec(errors.OneLineError, ValueError):
    """The text is not an image reference; str() says why."""


@dataclasses.dataclass(frozen=True)
class Pullspec:
    """One image reference, split into its parts."""

    text: str
    repository: str
    tag: str = None
    digest: str = None

    @property
    def image_name(self):
        """Last path component, the name the build system gives an image."""
        return self.repository.rsplit('/', 1)[-1]

    @property
    def without_digest(self):
        """The repository and tag, as shown beside a separate digest."""
        if self.tag:
            return '%s:%s' % (self.repository, self.tag)
        return self.repository


def _shown(text):
    # NOTE: a reference is at most a few hundred characters; a field of
    # another operator version may hold anything, shown cut.
    return documents.short(repr(text), 100)


def parse(text):
    """Return the Pullspec of ``text``; raise InvalidPullspec if it is none."""
    if not isinstance(text, str):
        raise InvalidPullspec('expected an image reference string, got %s'
                              % type(text).__name__)
    if not text or text != text.strip() or any(c.isspace() for c in text):
        raise InvalidPullspec('%s is not an image reference (empty or '
                              'contains white space)' % _shown(text))
    name, _, digest = text.partition('@')
    digest = digest or None
    if digest is not None:
        _check_digest(text, digest)
    tag = None
    last_slash = name.rfind('/')
    colon = name.rfind(':')
    if colon > last_slash:
        name, tag = name[:colon], name[colon + 1:]
        if not _TAG_RE.fullmatch(tag):
            raise InvalidPullspec(
                '%s has an invalid tag %s (1 to 128 of the ASCII letters, '
                'digits, "_", "." and "-", not starting with "." or "-")'
                % (_shown(text), _shown(tag)))
    _check_name(text, name)
    return Pullspec(text=text, repository=name, tag=tag, digest=digest)


def _check_digest(text, digest):
    algorithm, sep, encoded = digest.partition(':')
    if not sep or not encoded or not _ALGORITHM_RE.fullmatch(algorithm):
        raise InvalidPullspec('%s has an invalid digest %s (expected '
                              'algorithm:hex)' % (_shown(text),
                                                  _shown(digest)))
    wanted = DIGEST_LENGTHS.get(algorithm)
    if wanted is None:
        raise InvalidPullspec(
            '%s has a digest of algorithm %s, which no registry verifies '
            '(known: %s)' % (_shown(text), _shown(algorithm), ', '.join(
                sorted(DIGEST_LENGTHS))))
    if not set(encoded) <= _HEX:
        upper = set(encoded) <= _HEX | set('ABCDEF')
        raise InvalidPullspec(
            '%s has a %s digest that is not lower-case hex%s' % (
                _shown(text), algorithm,
                ' (write it in lower case: registries refuse upper-case '
                'digests, and two spellings of one digest compare unequal)'
                if upper else ''))
    if len(encoded) != wanted:
        raise InvalidPullspec('%s has a %s digest of %d hex digits, not %d'
                              % (_shown(text), algorithm, len(encoded),
                                 wanted))


def _check_name(text, name):
    if len(name) > NAME_TOTAL_LENGTH_MAX:
        raise InvalidPullspec('%s has a name of %d characters, more than '
                              'the %d a reference may have' % (
                                  _shown(text), len(name),
                                  NAME_TOTAL_LENGTH_MAX))
    parts = name.split('/')
    first = parts[0]
    if len(parts) > 1 and ('.' in first or ':' in first or
                           first == 'localhost' or first != first.lower()):
        domain = _DOMAIN_RE.fullmatch(first)
        if not domain:
            raise InvalidPullspec('%s has an invalid registry %s'
                                  % (_shown(text), _shown(first)))
        port = domain.group('port')
        if port is not None and not 1 <= int(port) <= PORT_MAX:
            raise InvalidPullspec(
                '%s has a registry port %s out of range (1-%d)' % (
                    _shown(text), _shown(port), PORT_MAX))
        parts = parts[1:]
    for part in parts:
        if not _PATH_COMPONENT_RE.fullmatch(part):
            raise InvalidPullspec(
                '%s has an invalid repository path component %s (lower '
                'case letters, digits and . _ - separators only)'
                % (_shown(text), _shown(part)))
