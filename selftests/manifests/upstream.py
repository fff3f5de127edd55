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

"""The upstream facts the CRs, the plugin and the embedded cloud follow.

Each fact is a piece of text in one file of one upstream repository (the
openstack-k8s-operators ones, and openstack/requirements, whose
upper-constraints.txt the test-operator stage stands in for) at the
commit this project last read (COMMITS). When a newer
commit of that repository no longer holds the text, the rule built on it
may have moved: tools/check_upstream.py reads each file from a clone and
names every fact that is gone (doc/source/supported-versions.rst). A
name of BRANCHES is a release branch of a repository (the branch an
image users run is built from), read at that branch rather than at the
default one.
"""

import collections

Fact = collections.namedtuple('Fact', 'repo path text rule')

# NOTE: the commits the shipped files were read at (their dates in
# doc/source/supported-versions.rst).
COMMITS = {
    'test-operator': 'd0ef1c343d8cca281f2ab538da610a286e15edeb',
    'tcib': '4b51b3593706bc8c4457a0a05228e9971fae8ecf',
    'openstack-operator': '84322c772e2ecca5377edfd798711cbfd74827f6',
    'glance-operator': '65990ced6a8631919139f3b6453b67f6376b68cc',
    'heat-operator': 'e29bb0b954edf9fb14077aec7a317d7ef22fc337',
    's2i-openstack-containers': '560e86c309c3345ab227720084d013441b8b17df',
    # NOTE: openstack/requirements; tools/constraints/openstack-master.txt
    # is its upper-constraints.txt at this commit (its header says so,
    # and the unit tests hold the two to each other).
    'requirements': '3353677727f8351bc58ba98efafe6bc884a0257c',
    # NOTE: the commit glance-operator's go.mod pins (the pseudo-version
    # gives only these 12 digits; a fact below holds the pin). No
    # snapshot reachable here holds it: its facts were read at 0959e9d
    # (2026-06-26), the newest one, and glance-operator 65990ce builds
    # with fdcb3ee using exactly the names they hold. check_upstream.py
    # against a clone that has fdcb3ee checks them there.
    'lib-common': 'fdcb3ee3699d',
    # NOTE: test-operator's default image (podified-antelope-centos9) is
    # built from tcib's antelope branch, which installs plugins under the
    # 2023.1 upper-constraints: tools/constraints/openstack-2023.1.txt
    # is openstack/requirements' unmaintained/2023.1 at this commit (tag
    # 2023.1-eom).
    'tcib-antelope': '091167fcd472f1b38f53effd14593b1ee18a734b',
    'requirements-2023.1': 'f6aa88bc01d671c4511d6828f25037b2b3ba9a4d',
}

# NOTE: {name: (repository name, branch)} of the names read at a branch.
BRANCHES = {
    'tcib-antelope': ('tcib', 'antelope'),
    'requirements-2023.1': ('requirements', 'unmaintained/2023.1'),
}

FACTS = (
    Fact('heat-operator', 'internal/heat/const.go',
         'EngineComponent = "engine"',
         "heat-engine's pods carry component=engine "
         "(kubeapi/embedded/heat.py)"),
    Fact('heat-operator', 'internal/controller/heatengine_controller.go',
         'common.ComponentSelector: heat.EngineComponent',
         "the heat-engine Deployment selects its pods by component"),
    Fact('heat-operator', 'internal/heatengine/deployment.go',
         'terminationGracePeriod := int64(60)',
         'a deleted heat-engine pod has 60 s to drain '
         '(kubeapi/embedded/heat.py)'),
    Fact('heat-operator', 'internal/heatengine/deployment.go',
         '"/usr/bin/pgrep", "-r", "DRST", "heat-engine"',
         "heat-engine's readiness is its process running"),
    Fact('heat-operator', 'internal/heatengine/deployment.go',
         'InitialDelaySeconds: 10',
         'a new heat-engine pod is Ready 10 s after it starts'),
    Fact('openstack-operator', 'api/core/v1beta1/openstackversion_types.go',
         'json:"heatAPIImage,omitempty"',
         'heat\'s fields judged without a mapping (the kernel\'s '
         'heat_images.py)'),
    Fact('openstack-operator', 'api/core/v1beta1/openstackversion_types.go',
         'json:"heatCfnapiImage,omitempty"',
         'heat\'s fields judged without a mapping (the kernel\'s '
         'heat_images.py)'),
    Fact('openstack-operator', 'api/core/v1beta1/openstackversion_types.go',
         'json:"heatEngineImage,omitempty"',
         'heat\'s fields judged without a mapping (the kernel\'s '
         'heat_images.py)'),
    Fact('s2i-openstack-containers', 'containers/image-mappings.yaml',
         '    heat/heat-api:\n      - heatAPIImage\n      - heatCfnapiImage\n'
         '    heat/heat-engine:\n      - heatEngineImage\n',
         's2i builds heat as two images (the kernel\'s heat_images.py '
         'GROUPS, the embedded cloud\'s heat state s2i)'),
    Fact('s2i-openstack-containers', 'docs/design.md',
         'Container images are published to '
         '`quay.io/openstack-k8s-operators/`',
         "where the embedded cloud's s2i states name s2i's images "
         '(kubeapi/embedded/heat.py S2I)'),
    Fact('s2i-openstack-containers', 'docs/design.md', '`master-latest`',
         "s2i's rolling tag, the embedded cloud's state s2i-latest"),
    Fact('s2i-openstack-containers', 'containers/image-mappings.yaml',
         '    manila/manila-share:\n      - manilaShareImage\n',
         "s2i's file lists manilaShareImage, which the image check reports "
         'and does not judge (kernel openstackversion_fields.py)'),
    Fact('openstack-operator', 'api/core/v1beta1/openstackversion_types.go',
         'ManilaShareImage  *string `json:"manilaShareImage,omitempty"`',
         'only the defaults name manilaShareImage; overrides and status '
         'hold manilaShareImages per backend (openstackversion_fields.py)'),
    Fact('openstack-operator', 'config/operator/default_images.yaml',
         'openstack-heat-api-cfn:current-podified',
         'the operators default heat to three tcib images by tag (the '
         'embedded cloud\'s default heat state, kubeapi/embedded/heat.py)'),
    Fact('openstack-operator',
         'internal/controller/core/openstackversion_controller.go',
         'instance.Status.ContainerImageVersionDefaults[envAvailableVersion]'
         ' = defaults',
         "each version's defaults are kept in status."
         'containerImageVersionDefaults (imagecheck/check.py settle)'),
    Fact('openstack-operator',
         'internal/controller/core/openstackversion_controller.go',
         'val, ok := instance.Status.ContainerImageVersionDefaults['
         'instance.Spec.TargetVersion]',
         'status.containerImages are the overrides, else the defaults of '
         'spec.targetVersion: what overrides are judged against '
         '(sources.DEFAULTS)'),
    Fact('openstack-operator',
         'internal/controller/core/openstackversion_controller.go',
         'if envArr[0] == "OPENSTACK_RELEASE_VERSION" {',
         'the RELATED_IMAGE env belongs to its OPENSTACK_RELEASE_VERSION '
         '(sources.ENV_VERSION; judged only for that version)'),
    Fact('openstack-operator', 'api/core/v1beta1/openstackversion_types.go',
         'ContainerImageVersionDefaults map[string]*ContainerDefaults '
         '`json:"containerImageVersionDefaults,omitempty"`',
         'the version map the image check reads (sources.parse_version)'),
    Fact('openstack-operator',
         'docs/assemblies/proc_deploying-in-disconnected-environments.adoc',
         'registry.redhat.io/rhoso/openstack-frr-rhel9',
         'product images are registry.redhat.io/rhoso/openstack-<service>'
         '-rhel9: no image name is built in (imagecheck/identity.py)'),
    Fact('openstack-operator',
         'api/core/v1beta1/openstackcontrolplane_webhook.go',
         'Only one OpenStackControlPlane instance per namespace',
         "rbac-disruptive.yaml's patch rule names no control plane"),
    Fact('glance-operator', 'api/v1beta1/glance_webhook.go',
         'if api.Type != APIEdge && r.KeystoneEndpoint == name {',
         'keystoneEndpoint must name a non-edge API'),
    Fact('glance-operator', 'api/v1beta1/glance_types.go',
         '// +kubebuilder:validation:Minimum=1\n\t// Default APITimeout',
         "the spec's apiTimeout is an integer of at least 1 "
         '(glance_cr.api_timeout_problem)'),
    Fact('glance-operator', 'api/v1beta1/common_types.go',
         '// +kubebuilder:validation:Minimum=1\n\t// APITimeout for '
         'HAProxy',
         "an API's apiTimeout is an integer of at least 1 "
         '(glance_cr.api_timeout_problem)'),
    Fact('glance-operator', 'api/v1beta1/glance_webhook.go',
         'if r.KeystoneEndpoint == "" && len(r.GlanceAPIs) == 1 {',
         'an unset keystoneEndpoint defaults only with exactly one API '
         '(glance_cr.default_keystone_endpoint)'),
    Fact('glance-operator', 'api/v1beta1/conditions.go',
         'KeystoneEndpointErrorMessage = "KeystoneEndpoint is assigned to '
         'an invalid GlanceAPI instance"',
         "the webhook's words for it (glance_cr.refusals)"),
    Fact('glance-operator', 'api/v1beta1/common_types.go',
         'Override APIOverrideSpec `json:"override,omitempty"`',
         'grow/shrink does not copy an API\'s service overrides'),
    Fact('glance-operator', 'internal/controller/glance_controller.go',
         'if !locationAPI && current.Type == glancev1.APISingle && '
         '!glancev1.IsFileBackend(current.CustomServiceConfig, '
         'topLevelFileBackend) {',
         'a single API not on one file store is not deployed without the '
         'location API (glance_cr.blocks_deployment)'),
    Fact('glance-operator', 'internal/controller/glance_controller.go',
         'return ErrInvalidBackend',
         'the pass stops at that API: later ones are not reconciled '
         '(glance_cr.reconcile_pass)'),
    Fact('glance-operator', 'api/v1beta1/conditions.go',
         'InvalidBackendErrorMessageSingle = "glanceAPI layout type: '
         'single can only be used in combination with File and NFS '
         'backend"', "GlanceAPIReady's words for it (glance_cr.py)"),
    Fact('glance-operator', 'api/v1beta1/glance_types.go',
         'GlanceLocationAPILabel = "glance.openstack.org/location-api"',
         'the annotation that lets a single API run on any store'),
    Fact('glance-operator', 'internal/glance/const.go',
         'KeystoneEndpoint = "keystoneEndpoint"',
         "the keystoneEndpoint API's GlanceAPI annotation "
         "(kubeapi/embedded/glance.py)"),
    Fact('glance-operator', 'internal/controller/glance_controller.go',
         'Name:        fmt.Sprintf("%s-%s-%s", instance.Name, apiName, '
         'apiType),',
         'GlanceAPI CRs are <glance>-<api>-<apiType> (deployment_access.py '
         'reads them by name)'),
    Fact('glance-operator', 'internal/controller/glance_controller.go',
         'apiCondition = condition.GetHigherPrioCondition('
         'internalAPICondition, apiCondition).DeepCopy()',
         "GlanceAPIReady: a split API's two CRs, the more severe "
         '(conditions.api_ready)'),
    Fact('glance-operator', 'internal/controller/glanceapi_controller.go',
         'if instance.Status.ReadyCount == *instance.Spec.Replicas {',
         'DeploymentReady is True when readyCount equals replicas '
         '(conditions.glanceapi_conditions)'),
    Fact('glance-operator', 'go.mod',
         'lib-common/modules/common v0.6.1-0.20260813160234-fdcb3ee3699d',
         "the lib-common commit the condition rules follow (COMMITS)"),
    Fact('glance-operator', 'internal/controller/glance_controller.go',
         'instance.Status.ObservedGeneration = instance.Generation',
         'observedGeneration is written with the pass over that '
         'generation (conditions.generation_lag, deployed.observe)'),
    Fact('glance-operator', 'internal/controller/glanceapi_controller.go',
         'instance.Status.ObservedGeneration = instance.Generation',
         "a GlanceAPI's observedGeneration likewise (readiness.py)"),
    Fact('glance-operator', 'internal/controller/glance_controller.go',
         'if item.Generation != item.Status.ObservedGeneration {',
         'Glance holds Ready back until every GlanceAPI is observed '
         '(conditions.glance_conditions)'),
    Fact('glance-operator', 'internal/controller/glanceapi_controller.go',
         'if depl.GetStatefulSet().Generation == '
         'depl.GetStatefulSet().Status.ObservedGeneration {',
         'DeploymentReady stays Unknown while the StatefulSet is not '
         'observed (conditions.glanceapi_conditions)'),
    Fact('openstack-operator', 'internal/openstack/glance.go',
         'glance.GetAnnotations()[glancev1.GlanceLocationAPILabel] = '
         '"false"',
         'the location-API annotation is rewritten on every reconcile '
         '(troubleshooting: not a remedy a user has)'),
    Fact('openstack-operator', 'api/core/v1beta1/openstackversion_types.go',
         'ServiceDefaults ServiceDefaults `json:"serviceDefaults,omitempty"`',
         'glanceLocationAPI is status of the OpenStackVersion'),
    Fact('lib-common', 'modules/common/condition/conditions.go',
         'DeploymentReadyInitMessage = "Deployment not started"',
         "an unobserved StatefulSet's DeploymentReady (conditions.py)"),
    Fact('lib-common', 'modules/common/condition/conditions.go',
         'ReadyInitMessage = "Setup started"',
         "Ready's words while a pass is unfinished (conditions.py)"),
    Fact('lib-common', 'modules/common/condition/conditions.go',
         'DeploymentReadyRunningMessage = "Deployment in progress"',
         "a GlanceAPI's words for pods not all ready (conditions.py)"),
    Fact('lib-common', 'modules/common/condition/conditions.go',
         'ReadyMessage = "Setup complete"',
         "Ready's words when every condition is True (conditions.py)"),
    Fact('lib-common', 'modules/common/condition/funcs.go',
         'func (conditions *Conditions) Mirror(t Type) *Condition {',
         'Ready mirrors the most severe condition (conditions.mirror)'),
    Fact('test-operator', 'internal/controller/common.go',
         'instanceNameLabel          = "instanceName"',
         "results-reader.yaml finds the logs PVC by instanceName"),
    Fact('test-operator', 'internal/controller/common_controller.go',
         'operatorNameLabel:  "test-operator"',
         'results-reader.yaml finds the logs PVC by operator'),
    Fact('test-operator', 'internal/tempest/volumes.go',
         '"/var/lib/tempest/external_files"',
         "the results land on the logs volume's external_files"),
    Fact('test-operator', 'api/v1beta1/common_webhook.go',
         'openstack-tempest-all:current-podified',
         'the default tempest image (the gate CR names it)'),
    Fact('tcib', 'container-images/tcib/base/os/heat-base/heat-engine/'
         'heat-engine.yaml', 'tcib_actions',
         'tcib builds openstack-heat-engine (heat_images.TCIB_NAMES, the '
         "embedded cloud's tcib state)"),
    Fact('tcib', 'container-images/tcib/base/os/tempest/run_tempest.sh',
         'generate_test_results',
         'the stage plays run_tempest.sh (tools/test-operator-pod.sh)'),
    Fact('tcib', 'container-images/tcib/base/os/tempest/run_tempest.sh',
         'pip install -chttps://opendev.org/openstack/requirements/raw/'
         'branch/master/upper-constraints.txt "./${plugin_name}"\n'
         '    done',
         "an externalPlugin is pip-installed under OpenStack master's "
         'upper-constraints, and a failed install does not stop the '
         'script (test-operator-pod.sh, constraints/openstack-master.txt)'),
    Fact('test-operator', 'api/v1beta1/common_webhook.go',
         'quay.io/podified-antelope-centos9/openstack-tempest-all',
         "the default tempest image is tcib antelope's, CentOS Stream 9, "
         "Python 3.9 (the stage's first pod)"),
    Fact('tcib-antelope',
         'container-images/tcib/base/os/tempest/run_tempest.sh',
         'pip install -chttps://releases.openstack.org/constraints/upper/'
         '2023.1 "./${plugin_name}"',
         "the default image installs an externalPlugin under the 2023.1 "
         "upper-constraints (the stage's first pod, "
         "constraints/openstack-2023.1.txt)"),
    Fact('tcib-antelope',
         'container-images/tcib/base/os/tempest/run_tempest.sh',
         'python3 -m venv "${VENV_DIR}"',
         "the plugin's venv is a fresh one of the image's python3"),
    Fact('requirements-2023.1', 'upper-constraints.txt',
         'openstacksdk===1.0.2',
         'the plugin installs with openstacksdk 1.0.2 (its floor, the '
         "Python matrix's py39-antelope case)"),
    Fact('requirements-2023.1', 'upper-constraints.txt',
         'kubernetes===24.2.0',
         'the plugin installs with kubernetes 24.2.0 (its floor)'),
    Fact('test-operator', 'internal/controller/common.go',
         'imageKey := strings.ToLower(kind) + "-image"',
         'a namespace may name its tempest image in ConfigMap '
         'test-operator-config, key tempest-image (the CRs\' comments)'),
    Fact('requirements', 'upper-constraints.txt', 'oslo.config===10.7.0',
         'oslo.config 10.7.0 needs Python 3.11: a Python 3.9 image of '
         "tcib's main branch (podified-master-centos9) cannot install "
         "the plugin (the stage's master_python39_pod, pod_install.py)"),
)


def check(repo, read):
    """[(Fact, problem)] of repo's facts; read(path) gives a file's text.

    read raises KeyError for a file that is not there.
    """
    gone = []
    for fact in FACTS:
        if fact.repo != repo:
            continue
        try:
            text = read(fact.path)
        except KeyError:
            gone.append((fact, 'file %s is gone' % fact.path))
            continue
        if fact.text not in text:
            gone.append((fact, '%s no longer holds %r' % (fact.path,
                                                          fact.text)))
    return gone
