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

"""Container image references (pullspecs), parsed without any I/O.

The grammar is the distribution reference one:
``[domain/]path[:tag][@algorithm:hex]``. References are compared as
written: no default registry or ``latest`` tag is filled in, because two
fields that are meant to share one image should be spelled the same way.
"""

import dataclasses
import re

from glance_multiapi_kernel import documents
from glance_multiapi_kernel import errors

_DOMAIN_COMPONENT = r'[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?'
_DOMAIN_RE = re.compile(
    r'(?:%s(?:\.%s)*|\[[0-9A-Fa-f:]+\])(?::[0-9]+)?$'
    % (_DOMAIN_COMPONENT, _DOMAIN_COMPONENT))
_PATH_COMPONENT_RE = re.compile(r'[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$')
_TAG_RE = re.compile(r'[\w][\w.-]{0,127}$')
_DIGEST_RE = re.compile(
    r'([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*):'
    r'([0-9a-fA-F]+)$')
# NOTE: registries reject digests of a registered algorithm whose length is
# wrong; catching it here names the field instead of failing at pull time.
_DIGEST_LENGTHS = {'sha256': 64, 'sha512': 128}


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
        if not _TAG_RE.match(tag):
            raise InvalidPullspec('%s has an invalid tag %s' % (
                _shown(text), _shown(tag)))
    _check_name(text, name)
    return Pullspec(text=text, repository=name, tag=tag, digest=digest)


def _check_digest(text, digest):
    match = _DIGEST_RE.match(digest)
    if not match:
        raise InvalidPullspec('%s has an invalid digest %s (expected '
                              'algorithm:hex)' % (_shown(text),
                                                  _shown(digest)))
    algorithm, hex_part = match.groups()
    wanted = _DIGEST_LENGTHS.get(algorithm)
    if (wanted and len(hex_part) != wanted) or len(hex_part) < 32:
        raise InvalidPullspec('%s has a %s digest of %d hex digits, not %s'
                              % (_shown(text), algorithm, len(hex_part),
                                 wanted or 'at least 32'))


def _check_name(text, name):
    parts = name.split('/')
    first = parts[0]
    if len(parts) > 1 and ('.' in first or ':' in first or
                           first == 'localhost' or first != first.lower()):
        if not _DOMAIN_RE.match(first):
            raise InvalidPullspec('%s has an invalid registry %s'
                                  % (_shown(text), _shown(first)))
        parts = parts[1:]
    for part in parts:
        if not _PATH_COMPONENT_RE.match(part):
            raise InvalidPullspec(
                '%s has an invalid repository path component %s (lower '
                'case letters, digits and . _ - separators only)'
                % (_shown(text), _shown(part)))
