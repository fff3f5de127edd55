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

"""The s2i-openstack-containers image mapping, parsed without any I/O.

s2i keeps ``containers/image-mappings.yaml``::

    openstack_version:
      custom_container_images:
        heat/heat-api:
          - heatAPIImage
          - heatCfnapiImage

Each key is a build target (``<service>/<image-dir>``); its list holds the
OpenStackVersion fields that image serves. The same map without the two
enclosing keys is accepted too. The image a target builds is named
``openstack-<image-dir>`` (``heat/heat-api`` builds ``openstack-heat-api``).
"""

import collections
import dataclasses
import re

from glance_multiapi_kernel import documents
from glance_multiapi_kernel import image_errors

IMAGE_NAME_PREFIX = 'openstack-'
_FIELD_RE = re.compile(r'[a-z][A-Za-z0-9]*$')
_NESTING = ('openstack_version', 'custom_container_images')


@dataclasses.dataclass(frozen=True)
class Target:
    """One build target and the OpenStackVersion fields it serves."""

    name: str
    fields: tuple

    @property
    def image_name(self):
        """Name of the image the target builds (openstack-<image-dir>)."""
        return IMAGE_NAME_PREFIX + self.name.rstrip('/').rsplit('/', 1)[-1]


@dataclasses.dataclass(frozen=True)
class Mapping:
    """All targets of one mapping file, in file order."""

    where: str
    targets: tuple

    def target(self, name):
        for target in self.targets:
            if target.name == name:
                return target
        return None

    def owners(self):
        """Map each field to the targets listing it, once per listing."""
        owners = collections.defaultdict(list)
        for target in self.targets:
            for field in target.fields:
                owners[field].append(target.name)
        return dict(owners)


def image_name(reference):
    """The image a reference names: its repository's last component.

    Without tag or digest: the name the build system gave the image
    (openstack-heat-api), whatever registry or mirror path keeps it.
    """
    repository = reference.split('@', 1)[0]
    return repository.rsplit('/', 1)[-1].split(':', 1)[0]


def load_yaml(text, where):
    """Parse YAML (or JSON) text, refusing duplicate keys and alias bombs."""
    try:
        return documents.load_yaml(text)
    except documents.DocumentError as exc:
        raise image_errors.MalformedInput(where, None, str(exc)) from None


def parse_mapping(text, where):
    """Return the Mapping held by ``text``; ``where`` names it in errors."""
    document = load_yaml(text, where)
    path = ''
    if isinstance(document, dict) and _NESTING[0] in document:
        for key in _NESTING:
            path = '%s.%s' % (path, key) if path else key
            if not isinstance(document, dict) or key not in document:
                raise image_errors.MalformedInput(
                    where, path, 'missing; expected %s' % '.'.join(_NESTING))
            document = document[key]
    if not isinstance(document, dict) or not document:
        raise image_errors.MalformedInput(
            where, path or None, 'expected a non-empty map of build target '
            'to a list of OpenStackVersion fields, got %s'
            % _describe(document))
    targets = []
    for name, fields in document.items():
        here = documents.short('%s.%s' % (path, name) if path else str(name))
        if not isinstance(name, str) or not name.strip('/'):
            raise image_errors.MalformedInput(
                where, here, 'a build target must be a non-empty string '
                'such as heat/heat-api')
        if not isinstance(fields, list) or not fields:
            raise image_errors.MalformedInput(
                where, here, 'expected a non-empty list of OpenStackVersion '
                'fields, got %s' % _describe(fields))
        for index, field in enumerate(fields):
            if not isinstance(field, str) or not _FIELD_RE.match(field):
                raise image_errors.MalformedInput(
                    where, '%s[%d]' % (here, index),
                    'expected an OpenStackVersion field name such as '
                    'heatAPIImage, got %s' % documents.short(repr(field)))
        targets.append(Target(name=name, fields=tuple(fields)))
    return Mapping(where=where, targets=tuple(targets))


def _describe(value):
    if value is None:
        return 'nothing'
    if isinstance(value, (dict, list)) and not value:
        return 'an empty %s' % ('map' if isinstance(value, dict) else 'list')
    return 'a %s' % type(value).__name__
