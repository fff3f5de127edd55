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

"""The consolidated image groups the plugin knows without a mapping file.

A test-operator pod has no CI checkout to read s2i's image-mappings.yaml
from, so the groups this project checks are known here: heat-api,
heat-api-cfn and heat-engine run from one image, whose OpenStackVersion
fields are ``heatAPIImage``, ``heatCfnapiImage`` and ``heatEngineImage``
(openstack-operator ``api/core/v1beta1/openstackversion_types.go``,
ContainerTemplate; the same names in spec.customContainerImages and
status.containerImages). The names tcib builds for them are known too
(tcib ``container-images/tcib/base/os/heat-base/``: heat-api,
heat-api-cfn, heat-engine, each ``openstack-<dir>``). A mapping file,
when one is given, wins: it is how s2i's transitions are checked.
"""

from glance_multiapi_tests.imagecheck import mapping

WHERE = ('built-in image groups (fields of openstack-operator '
         'api/core/v1beta1/openstackversion_types.go)')

# NOTE: build target (as s2i names it) -> the fields its one image serves.
GROUPS = (
    ('heat/heat-api', ('heatAPIImage', 'heatCfnapiImage',
                       'heatEngineImage')),
)
KNOWN_NAMES = frozenset(['openstack-heat-api', 'openstack-heat-api-cfn',
                         'openstack-heat-engine'])


def image_mapping():
    """The built-in groups as a mapping.Mapping."""
    return mapping.Mapping(where=WHERE, targets=tuple(
        mapping.Target(name=name, fields=fields) for name, fields in GROUPS))
