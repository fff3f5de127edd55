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

"""The image fields of the OpenStackVersion, as openstack-operator names them.

From ``api/core/v1beta1/openstackversion_types.go`` at 84322c77
(2026-08-19): ``ContainerTemplate``, the one-image fields that
``spec.customContainerImages``, ``status.containerImages`` and each
version's defaults share. Two services run one image per backend: the
defaults name it once (``ContainerDefaults``: ``cinderVolumeImage``,
``manilaShareImage``), but the overrides and the deployed images hold a
map per backend (``cinderVolumeImages``, ``manilaShareImages``). An image
mapping (s2i's lists ``manilaShareImage``) may name a field no override
can set; the image check reports it and judges the rest.
"""

WHERE = ('openstack-operator api/core/v1beta1/openstackversion_types.go '
         'at 84322c77')

IMAGE_FIELDS = frozenset((
    'agentImage', 'ansibleeeImage', 'aodhAPIImage', 'aodhEvaluatorImage',
    'aodhListenerImage', 'aodhNotifierImage', 'apacheImage',
    'barbicanAPIImage', 'barbicanKeystoneListenerImage',
    'barbicanWorkerImage', 'ceilometerCentralImage',
    'ceilometerComputeImage', 'ceilometerIpmiImage',
    'ceilometerNotificationImage', 'ceilometerSgcoreImage',
    'ceilometerMysqldExporterImage', 'cinderAPIImage', 'cinderBackupImage',
    'cinderSchedulerImage', 'cloudkittyAPIImage', 'cloudkittyProcImage',
    'designateAPIImage', 'designateBackendbind9Image',
    'designateCentralImage', 'designateMdnsImage', 'designateProducerImage',
    'designateUnboundImage', 'designateWorkerImage', 'edpmFrrImage',
    'edpmIscsidImage', 'edpmLogrotateCrondImage', 'edpmMultipathdImage',
    'edpmNeutronDhcpAgentImage', 'edpmNeutronMetadataAgentImage',
    'edpmNeutronOvnAgentImage', 'edpmNeutronSriovAgentImage',
    'edpmOvnBgpAgentImage', 'edpmNodeExporterImage', 'edpmKeplerImage',
    'edpmPodmanExporterImage', 'edpmOpenstackNetworkExporterImage',
    'openstackNetworkExporterImage', 'glanceAPIImage', 'heatAPIImage',
    'heatCfnapiImage', 'heatEngineImage', 'horizonImage',
    'infraDnsmasqImage', 'infraMemcachedImage', 'infraRedisImage',
    'ironicAPIImage', 'ironicConductorImage', 'ironicInspectorImage',
    'ironicNeutronAgentImage', 'ironicPxeImage', 'ironicPythonAgentImage',
    'keystoneAPIImage', 'ksmImage', 'manilaAPIImage',
    'manilaSchedulerImage', 'mariadbImage', 'netUtilsImage',
    'neutronAPIImage', 'novaAPIImage', 'novaComputeImage',
    'novaConductorImage', 'novaNovncImage', 'novaSchedulerImage',
    'octaviaAPIImage', 'octaviaHealthmanagerImage',
    'octaviaHousekeepingImage', 'octaviaWorkerImage', 'octaviaRsyslogImage',
    'openstackClientImage', 'osContainerImage', 'ovnControllerImage',
    'ovnControllerOvsImage', 'ovnNbDbclusterImage', 'ovnNorthdImage',
    'ovnSbDbclusterImage', 'placementAPIImage', 'rabbitmqImage',
    'swiftAccountImage', 'swiftContainerImage', 'swiftObjectImage',
    'swiftProxyImage', 'telemetryNodeExporterImage', 'testTempestImage',
    'testTobikoImage', 'testHorizontestImage', 'testAnsibletestImage',
    'watcherAPIImage', 'watcherApplierImage', 'watcherDecisionEngineImage',
))

# NOTE: default field -> the map per backend that overrides and deploys it.
PER_BACKEND = {'cinderVolumeImage': 'cinderVolumeImages',
               'manilaShareImage': 'manilaShareImages'}


def not_a_field(field, deployed=()):
    """Why field is no OpenStackVersion image field, or None if it is one.

    :param deployed: the fields a deployed OpenStackVersion names (an
        operator newer than the list above may serve more).
    """
    if field in IMAGE_FIELDS or field in deployed:
        return None
    if field in PER_BACKEND:
        return ('the defaults name it, but spec.customContainerImages and '
                'status.containerImages hold %s, a map per backend'
                % PER_BACKEND[field])
    return 'not a field of the OpenStackVersion (%s) nor of the deployed ' \
           'one' % WHERE
