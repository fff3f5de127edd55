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

"""What the plugin knows of heat's images without a mapping file.

A test-operator pod has no CI checkout to read s2i's image-mappings.yaml
from, so the facts are kept here, each with where it comes from:

* **The groups s2i landed.** s2i-openstack-containers 913a6ff (2026-08-13)
  builds heat as two images: ``heat/heat-api`` serves ``heatAPIImage`` and
  ``heatCfnapiImage``, ``heat/heat-engine`` serves ``heatEngineImage``
  (``containers/image-mappings.yaml`` at 560e86c, 2026-08-21).
* **The fields.** openstack-operator's OpenStackVersion names heat's images
  ``heatAPIImage``, ``heatCfnapiImage`` and ``heatEngineImage``
  (``api/core/v1beta1/openstackversion_types.go``, ContainerTemplate; the
  same names in spec.customContainerImages and status.containerImages).
* **The names.** tcib builds ``openstack-heat-api``, ``openstack-heat-api-cfn``
  and ``openstack-heat-engine`` (``container-images/tcib/base/os/
  heat-base/``), which heat-operator and openstack-operator still default
  to (three images, ``RELATED_IMAGE_HEAT_{API,CFNAPI,ENGINE}_IMAGE_URL_
  DEFAULT``); s2i's targets build ``openstack-<image-dir>``.

Which of the fields are one image is NOT fixed here: without a mapping
file the deployment's own references say it (imagecheck/declared.py), so
each layout upstream has -- tcib's three images, s2i's two, all in one --
is judged as it is declared. A mapping file, when given, wins: its groups
are then demanded (a three-in-one file demands one image and digest).
"""

from glance_multiapi_kernel import image_mappings

S2I = ('s2i-openstack-containers 560e86c containers/image-mappings.yaml '
       '(heat landed in 913a6ff)')
WHERE = ('built-in heat fields (%s; fields of openstack-operator '
         'api/core/v1beta1/openstackversion_types.go)' % S2I)

API, CFNAPI, ENGINE = 'heatAPIImage', 'heatCfnapiImage', 'heatEngineImage'
# NOTE: build target (as s2i names it) -> the fields its one image serves.
GROUPS = (
    ('heat/heat-api', (API, CFNAPI)),
    ('heat/heat-engine', (ENGINE,)),
)
FIELDS = tuple(field for _name, fields in GROUPS for field in fields)
TCIB_NAMES = ('openstack-heat-api', 'openstack-heat-api-cfn',
              'openstack-heat-engine')
# NOTE: upstream's heat image names, a value for known_image_names: the
# check applies no name on its own (a product names its images
# openstack-heat-*-rhel9).
KNOWN_NAMES = frozenset(TCIB_NAMES) | frozenset(
    image_mappings.Target(name=name, fields=fields).image_name
    for name, fields in GROUPS)

# NOTE: every layout of heat's images upstream has: (image name, fields)
# per image. tcib is what the operators default to today; s2i is what
# s2i-openstack-containers landed; one is the first proposal (all three
# in heat-api), which heat-operator #705 / openstack-operator #2043 would
# not give either, but a mapping file or an override can declare.
LAYOUTS = {
    'tcib': (('openstack-heat-api', (API,)),
             ('openstack-heat-api-cfn', (CFNAPI,)),
             ('openstack-heat-engine', (ENGINE,))),
    's2i': (('openstack-heat-api', (API, CFNAPI)),
            ('openstack-heat-engine', (ENGINE,))),
    'one': (('openstack-heat-api', (API, CFNAPI, ENGINE)),),
}


def layout_named(partition):
    """The LAYOUTS name whose images group the fields as partition does.

    :param partition: an iterable of field tuples, one per image.
    :returns: 'tcib', 's2i', 'one', or None for another grouping.
    """
    wanted = sorted(tuple(sorted(fields)) for fields in partition)
    for name, images in LAYOUTS.items():
        if sorted(tuple(sorted(f)) for _image, f in images) == wanted:
            return name
    return None


def image_mapping(targets=None):
    """The s2i groups as an image_mappings.Mapping (those named, if any)."""
    return image_mappings.Mapping(where=WHERE, targets=tuple(
        image_mappings.Target(name=name, fields=fields) for name, fields in
        GROUPS
        if not targets or name in targets))
