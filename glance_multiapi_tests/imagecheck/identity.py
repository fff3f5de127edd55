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

"""Which image a reference names, and which build, as images are built.

A build system names an image by the last component of its repository
path: tcib builds ``openstack-heat-api``, s2i builds ``openstack-<image
dir>``, a product ``openstack-heat-api-rhel9``. The registry and the path
before the name only say where a copy is kept: a mirror (a disconnected
install, openstack-operator's docs) keeps the name and changes both. So:

* two references name **one image** when their image names are equal,
  whatever registry or path they come from;
* they name **one build** when their texts are equal, or when they pin
  the same digest of one image (a digest addresses the content, wherever
  it is kept). A tag names a build only in its own repository and only
  until it moves, so two tags are one build only when spelled alike.

Pure: the references come parsed (pullspec.Pullspec); the grammar of a
reference is pullspec.py's, not this module's.
"""

import collections

from glance_multiapi_kernel import image_mappings


def image_of(ref):
    """The image a reference names: its repository's last component."""
    return image_mappings.image_name(ref.repository)


def same_build(first, second):
    """Whether two references make the runtime run the same build."""
    if first.text == second.text:
        return True
    return bool(first.digest and first.digest == second.digest and
                image_of(first) == image_of(second))


def by_image(references, fields):
    """{image name: [field, ...]} of the fields' references, in order.

    :param references: {field: pullspec.Pullspec}; fields it lacks are
        left out.
    :param fields: the fields to group, in the order to keep.
    """
    found = collections.OrderedDict()
    for field in fields:
        ref = references.get(field)
        if ref is not None:
            found.setdefault(image_of(ref), []).append(field)
    return found
