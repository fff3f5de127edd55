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

"""[consolidated_images]: one image serving several OpenStackVersion
fields (heat-api, heat-api-cfn, heat-engine) must be pinned the same
way everywhere. Checked by glance_multiapi_tests.imagecheck.
"""

from oslo_config import cfg

consolidated_images_group = cfg.OptGroup(
    name='consolidated_images',
    title='Consolidated service image checks',
    help='Where the image mapping and the deployed image references are, '
         'for the check that the fields of one consolidated image agree.')

ConsolidatedImagesGroup = [
    cfg.BoolOpt('enabled', default=True,
                help='Run the consolidated image checks at all.'),
    cfg.StrOpt('mappings_file',
               help='s2i-openstack-containers containers/image-mappings.yaml '
                    '(build target to the OpenStackVersion fields it '
                    'serves); its targets are then demanded. Unset: heat\'s '
                    'fields (heatAPIImage, heatCfnapiImage, heatEngineImage) '
                    'are judged as the deployment declares them -- fields '
                    'naming one repository are one image and must pin one '
                    'digest -- so tcib\'s three images, s2i\'s two and one '
                    'image all pass when consistent, under any registry, '
                    'mirror or vendor name (openstack-heat-api-rhel9). In a '
                    'pod, mount a file from a ConfigMap (extraMounts) to '
                    'name one.'),
    cfg.BoolOpt('kubernetes_api', default=False,
                help='Read the OpenStackVersion and the running Deployments '
                     'through the Kubernetes API, with the access '
                     '[glance_multiapi] configures (kubeconfig, '
                     'kubernetes_context, namespace, kubernetes_timeout). '
                     'version_command and version_file must then be unset. '
                     'False skips the running image check.'),
    cfg.StrOpt('openstackversion_name',
               help='Name of the OpenStackVersion CR read through the '
                    'Kubernetes API. Unset: the only one in the namespace '
                    '(listed).'),
    cfg.IntOpt('rollout_timeout', default=120, min=0,
               help='Seconds the running image check waits for the '
                    'running_deployments to roll out (status.'
                    'observedGeneration, updatedReplicas, '
                    'availableReplicas; and an update of the '
                    'OpenStackVersion, deployedVersion != targetVersion) '
                    'before it reads which digests their pods run; one '
                    'still rolling out then is a "rollout" finding, not '
                    'drift. 0: not waited for.'),
    cfg.DictOpt('running_deployments',
                default={'heat-api': 'heatAPIImage',
                         'heat-cfnapi': 'heatCfnapiImage',
                         'heat-engine': 'heatEngineImage'},
                help='Deployment name to the OpenStackVersion field its '
                     'image must match (the container named like the '
                     'Deployment, else its only container). Its pods '
                     '(found by its spec.selector) are read too: the '
                     'digest each runs (status.containerStatuses[].imageID) '
                     'must be the one of every pod of the same image, and '
                     'the one status pins. Empty skips the running image '
                     'check.'),
    cfg.StrOpt('version_command',
               help='Command printing the OpenStackVersion CR as JSON, e.g. '
                    '"oc get openstackversion openstack -o json"; its '
                    'status.containerImages and spec.customContainerImages '
                    'are checked. Exclusive with version_file and '
                    'kubernetes_api.'),
    cfg.StrOpt('version_file',
               help='OpenStackVersion CR as a JSON or YAML file.'),
    cfg.StrOpt('env_file',
               help='RELATED_IMAGE_*_URL_DEFAULT listing of '
                    'openstack-operator: NAME=VALUE lines, comma-separated '
                    'pairs or a JSON/YAML list of {name, value}.'),
    cfg.StrOpt('env_list',
               help='The same listing inline, comma-separated '
                    '(NAME=VALUE,NAME=VALUE). Exclusive with env_file.'),
    cfg.ListOpt('known_image_names', default=[],
                help='Image names the build system knows, e.g. '
                     'openstack-heat-api,openstack-heat-api-cfn,'
                     'openstack-heat-engine: a name check you opt into; '
                     'an image no name holds is then a finding of '
                     'test_image_mapping_assigns_fields_once_to_known_images. '
                     'Empty (and no known_image_names_file) skips the name '
                     'check, with a mapping file or without: no name is '
                     'built in.'),
    cfg.StrOpt('known_image_names_file',
               help='File of known image names, one a line.'),
    cfg.ListOpt('targets', default=[],
                help='Build targets to check, e.g. heat/heat-api; empty '
                     'checks every target of the mapping. Without '
                     'mappings_file: s2i\'s heat targets, heat/heat-api and '
                     'heat/heat-engine, select their fields.'),
    cfg.IntOpt('command_timeout', default=60,
               help='Seconds version_command may run.'),
]
