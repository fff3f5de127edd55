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

"""Options of the glance-multiapi-tests Tempest plugin.

Each capability has its own group; ``OPT_GROUPS`` is the single list that
the plugin registers, reports to tempest and hands to the sample config
generator, so the three can never disagree.

On/off convention, the same in every group:

* ``[<group>] enabled`` (default true) switches a whole capability off.
* ``[service_available] <service>`` says whether the cloud has a service
  at all; it is tempest's own notion, read (and for heat registered) so
  that this suite agrees with every other plugin.
* ``run_<scenario>`` opts into one *disruptive* scenario, one that
  patches or restarts the deployment it checks (switchover, grow/shrink,
  heat-engine restart). Every one defaults to False: pointed at a
  production cluster, a run only reads the deployment and creates and
  deletes its own images unless asked for more. Off means "do not touch
  my cloud", not "broken". The embedded cloud's tempest.conf turns them
  all on.
* Everything else is an input, not a switch: a check whose command or
  file is unset skips, naming the option it needs.
"""

from oslo_config import cfg

glance_multiapi_group = cfg.OptGroup(
    name='glance_multiapi',
    title='Multi-API Glance deployment checks',
    help='Where the Glance APIs of a multi-API deployment are, which one '
         'the keystone catalog should hold, and how to switch it.')

GlanceMultiApiGroup = [
    cfg.BoolOpt('enabled', default=True,
                help='Run the multi-API Glance checks at all.'),
    cfg.BoolOpt('kubernetes_api', default=False,
                help='Learn and patch the deployment through the Kubernetes '
                     'API (the python "kubernetes" client) instead of '
                     'commands: the Glance CR is read with get (or list, '
                     'see glance_name) and patched as patch_object says. '
                     'discovery_command, patch_command and patch_spec_path '
                     'are then not used. False uses the commands.'),
    cfg.StrOpt('kubeconfig',
               help='kubeconfig file for the Kubernetes API. Unset: the '
                    'pod\'s service account (in-cluster config) when '
                    'KUBERNETES_SERVICE_HOST is set, else $KUBECONFIG or '
                    '~/.kube/config.'),
    cfg.StrOpt('kubernetes_context',
               help='Context of the kubeconfig to use. Unset: its '
                    'current-context.'),
    cfg.StrOpt('namespace', default='openstack',
               help='Namespace of the Glance CR, the OpenStackControlPlane, '
                    'the OpenStackVersion and the Deployments read through '
                    'the Kubernetes API.'),
    cfg.StrOpt('glance_name',
               help='Name of the Glance CR. Unset: the only Glance CR in '
                    'the namespace (listed; two or more is an error naming '
                    'them).'),
    cfg.StrOpt('patch_object', default='openstackcontrolplane',
               choices=[('openstackcontrolplane',
                         'patch spec.glance.template of the '
                         'OpenStackControlPlane owning the Glance CR'),
                        ('glance', 'patch spec of the Glance CR itself '
                                   '(only where no control plane owns it)')],
               help='Object the Kubernetes API patches (JSON merge patch) '
                    'to change the Glance spec.'),
    cfg.StrOpt('controlplane_name',
               help='Name of the OpenStackControlPlane to patch. Unset: '
                    'the controller ownerReference of the Glance CR.'),
    cfg.FloatOpt('kubernetes_timeout', default=30.0,
                 help='Seconds one Kubernetes API request may take.'),
    cfg.StrOpt('discovery_command',
               help='Command that prints the Glance CR as JSON, e.g. '
                    '"oc get glance glance -o json" or '
                    '"glance-multiapi-cloud --state-dir DIR get -o json". '
                    'spec.glanceAPIs, spec.keystoneEndpoint and '
                    'status.apiEndpoint are read from it. Explicit options '
                    'below win over what it reports.'),
    cfg.IntOpt('command_timeout', default=120,
               help='Seconds a discovery or patch command may run.'),
    cfg.ListOpt('api_names', default=[],
                help='Names of the Glance APIs (keys of spec.glanceAPIs).'),
    cfg.DictOpt('api_types', default={},
                help='API name to type (split, single or edge).'),
    cfg.DictOpt('public_endpoints', default={},
                help='API name to its public endpoint URL.'),
    cfg.DictOpt('internal_endpoints', default={},
                help='API name to its internal endpoint URL.'),
    cfg.DictOpt('default_stores', default={},
                help='API name to the store id its uploads must land in.'),
    cfg.StrOpt('keystone_endpoint',
               help='Name of the API the keystone catalog must hold as the '
                    'image service (spec.keystoneEndpoint).'),
    cfg.ListOpt('catalog_interfaces', default=['public', 'internal'],
                help='Interfaces of the image service to probe and check.'),
    cfg.StrOpt('probe_api_interface', default='public',
               choices=['public', 'internal'],
               help='Interface used to reach each API directly for the '
                    'store placement checks. When its URL does not answer '
                    'and the other interface of the same API does, the '
                    'other one is used (the endpoint probe test reports '
                    'the unreachable one).'),
    cfg.FloatOpt('probe_timeout', default=5.0,
                 help='Seconds each probe stage (DNS, TCP, TLS, HTTP) may '
                      'take.'),
    cfg.IntOpt('image_size', default=1048576,
               help='Bytes uploaded by each placement check.'),
    cfg.IntOpt('image_timeout', default=120,
               help='Seconds to wait for an image to become active.'),
    cfg.StrOpt('patch_command',
               help='Command template that applies a JSON merge patch to '
                    'the object owning the Glance spec; {patch} is replaced '
                    'by the shell-quoted patch, e.g. "oc patch '
                    'openstackcontrolplane openstack --type merge -p '
                    '{patch}". Unset (and kubernetes_api False) skips the '
                    'switchover and grow/shrink scenarios.'),
    cfg.StrOpt('patch_spec_path', default='spec',
               help='Dotted path of the Glance spec inside the object '
                    'patch_command patches: "spec" for a Glance CR, '
                    '"spec.glance.template" for an OpenStackControlPlane. '
                    'Not used with kubernetes_api (patch_object decides).'),
    cfg.IntOpt('convergence_timeout', default=300,
               help='Seconds to wait for the catalog or an API to follow a '
                    'patch.'),
    cfg.FloatOpt('convergence_interval', default=1.0,
                 help='Initial seconds between polls while waiting for '
                      'convergence; it backs off up to 8 times that.'),
    cfg.BoolOpt('run_switchover', default=False,
                help='Run the keystoneEndpoint switchover scenario '
                     '(disruptive: it patches keystoneEndpoint of the live '
                     'deployment, so every user\'s image endpoint moves '
                     'to another API until it is restored; needs '
                     'kubernetes_api or patch_command, and two non-edge '
                     'APIs).'),
    cfg.StrOpt('pod_name',
               help='The pod this run lives in, watched while a disruptive '
                    'scenario has the deployment changed: once the pod is '
                    'being deleted (metadata.deletionTimestamp), the change '
                    'is undone within the grace period, since no process '
                    'of a test-operator pod is sent SIGTERM (bash, its PID '
                    '1, ignores it). Needs "get" on that pod (rbac.yaml '
                    'grants it for the pod of '
                    'tempest-glance-multiapi-disruptive.yaml). Unset: '
                    '$HOSTNAME (a pod\'s name) when KUBERNETES_SERVICE_HOST '
                    'is set and no kubeconfig is, else no pod is watched.'),
    cfg.FloatOpt('pod_watch_interval', default=2.0,
                 help='Seconds between two looks at the pod (pod_name) '
                      'while a disruptive change is pending.'),
    cfg.StrOpt('switchover_target',
               help='API to switch the catalog to; default: the first '
                    'non-edge API that is not the current one.'),
    cfg.BoolOpt('run_grow_shrink', default=False,
                help='Run the scenario that adds and removes an API '
                     '(disruptive: it patches spec.glanceAPIs of the live '
                     'deployment; needs a grow_api_spec whose store exists '
                     'on the cluster).'),
    cfg.StrOpt('grow_api_name', default='apigrow',
               help='Name of the API the grow/shrink scenario adds.'),
    cfg.StrOpt('grow_api_spec',
               default='{"type": "split", "replicas": 1, '
                       '"customServiceConfig": "[DEFAULT]\\n'
                       'enabled_backends = cephgrow:rbd\\n'
                       '[glance_store]\\ndefault_backend = cephgrow\\n"}',
               help='JSON spec of the API the grow/shrink scenario adds.'),
    cfg.StrOpt('grow_api_store', default='cephgrow',
               help='Store the added API must place uploads in.'),
    # --- results: what a run leaves for people and dashboards
    # (glance_multiapi_tests.results). Read by every test of the plugin.
    cfg.StrOpt('results_dir',
               help='Folder the plugin writes deployment-map.html, '
                    'deployment-map.json, metrics.json and metrics.prom '
                    'into, rebuilt after every test from the records the '
                    'tests write (in its glance-multiapi-records/ '
                    'subfolder) while they run. Unset: tempest\'s '
                    '[DEFAULT] log_dir (in a test-operator pod the logs '
                    'volume, beside tempest_results.html), else the '
                    'working directory.'),
    # NOTE: bounds are unset by default: a figure is then only recorded.
    cfg.FloatOpt('max_switchover_seconds', min=0,
                 help='Bound of glance_multiapi_switchover_convergence_'
                      'seconds: when an interface\'s catalog entry takes '
                      'longer to show the target API\'s URL, the '
                      'switchover fails naming the figure, its value, '
                      'this bound and this option. Unset: recorded only.'),
    cfg.FloatOpt('max_grow_seconds', min=0,
                 help='Bound of glance_multiapi_grow_answer_seconds (from '
                      'the patch adding an API until every endpoint of it '
                      'answers); unset: recorded only.'),
    cfg.FloatOpt('max_shrink_seconds', min=0,
                 help='Bound of glance_multiapi_shrink_gone_seconds (from '
                      'the patch removing an API until it left the Glance '
                      'CR and stopped answering); unset: recorded only.'),
    cfg.FloatOpt('min_upload_mib_per_second', min=0,
                 help='Lower bound, in MiB/s, of glance_multiapi_upload_'
                      'bytes_per_second (an upload through each API\'s own '
                      'URL in test_upload_lands_in_api_default_store); '
                      'unset: recorded only.'),
]

# NOTE: every group registered by the plugin goes in this one list; the
# plugin's register_opts/get_opt_lists and list_opts all read it.
OPT_GROUPS = [
    (glance_multiapi_group, GlanceMultiApiGroup),
]

# --- [consolidated_images]: one image serving several OpenStackVersion
# fields (heat-api, heat-api-cfn, heat-engine) must be pinned the same way
# everywhere. Checked by glance_multiapi_tests.imagecheck.
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
                    'serves). Unset skips the consolidated image checks, '
                    'except the running image check, which then compares '
                    'each Deployment with status.containerImages only.'),
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
    cfg.DictOpt('running_deployments',
                default={'heat-api': 'heatAPIImage',
                         'heat-cfnapi': 'heatCfnapiImage',
                         'heat-engine': 'heatEngineImage'},
                help='Deployment name to the OpenStackVersion field its '
                     'image must match (the container named like the '
                     'Deployment, else its only container). Empty skips '
                     'the running image check.'),
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
                     'openstack-heat-engine. Empty (and no '
                     'known_image_names_file) skips the name check.'),
    cfg.StrOpt('known_image_names_file',
               help='File of known image names, one a line.'),
    cfg.ListOpt('targets', default=[],
                help='Build targets to check, e.g. heat/heat-api; empty '
                     'checks every target of the mapping.'),
    cfg.IntOpt('command_timeout', default=60,
               help='Seconds version_command may run.'),
]

OPT_GROUPS.append((consolidated_images_group, ConsolidatedImagesGroup))


# --- [image_uploader]: the uploader scenarios drive any Sylva-compatible
# uploader through a command template against real Glance, registry and a
# loopback HTTP source. Written by glance_multiapi_tests.tests.scenario.
# test_uploader and its fixtures.
image_uploader_group = cfg.OptGroup(
    name='image_uploader',
    title='Image uploader scenarios',
    help='Which uploader the scenarios run, how it gets its input and what '
         'it must produce.')

ImageUploaderGroup = [
    cfg.BoolOpt('enabled', default=True,
                help='Run the image uploader scenarios.'),
    cfg.StrOpt('command',
               default='{python} -m glance_multiapi_tests.uploader.cli',
               help='Command template of the uploader under test, split '
                    'like a shell would. Placeholders: {python} (the '
                    'interpreter running tempest), {info} (the images info '
                    'YAML), {clouds} (a clouds.yaml with the primary '
                    'credentials), {cloud} (its cloud name), {temp_dir} '
                    '(the temp dir the uploader must leave empty), {output} '
                    '(the UUID map file, uuid_output = file). It runs in an '
                    'empty working directory that must stay empty. The '
                    'Sylva environment (OS_IMAGES_INFO_PATH, OS_CLOUD, '
                    'OS_CLIENT_CONFIG_FILE, TMPDIR, WAIT_QUEUED_IMAGE, '
                    'IMAGE_IN_PROGRESS_TIMEOUT, IMAGE_IN_PROGRESS_INTERVAL, '
                    'FOREIGN_QUEUED_POLICY; TARGET_NAMESPACE and KUBECONFIG '
                    'in configmap mode; SSL_CERT_FILE and REQUESTS_CA_BUNDLE '
                    'or INSECURE_CLIENT) is always set too.'),
    cfg.DictOpt('extra_env', default={},
                help='More environment for the uploader, e.g. '
                     'OCI_PLAIN_HTTP:true for a registry on plain HTTP.'),
    cfg.StrOpt('uuid_output', default='stdout',
               choices=[('stdout', 'the os_images UUID map on stdout'),
                        ('file', 'written to the file {output} of command '
                                 'names (the command must use {output})'),
                        ('configmap', 'written to ConfigMap configmap_name '
                                      '(data key configmap_key) in the '
                                      'namespace TARGET_NAMESPACE of the '
                                      'Kubernetes API of KUBECONFIG'),
                        ('none', 'not checked; Glance only')],
               help='Where the uploader reports the os_images UUID map. '
                    'configmap: every scenario gets its own namespace '
                    '(TARGET_NAMESPACE) on the API of kubeconfig, or on a '
                    'loopback ConfigMap API the suite serves itself when '
                    'kubeconfig is unset; the ConfigMap is deleted '
                    'afterwards. The bundled uploader is told the mode by '
                    'UUID_OUTPUT, which other uploaders ignore.'),
    cfg.StrOpt('kubeconfig',
               help='kubeconfig of a Kubernetes API where the scenarios may '
                    'create a namespace (or, on the embedded cloud, just '
                    'use one) and the uploader may write its ConfigMap; '
                    'given to the uploader as KUBECONFIG. Unset: the suite '
                    'serves a loopback ConfigMap API of its own.'),
    cfg.StrOpt('configmap_name', default='openstack-images-uuids',
               help='ConfigMap the uploader writes in configmap mode.'),
    cfg.StrOpt('configmap_key', default='values.yaml',
               help='Data key of that ConfigMap holding the os_images '
                    'UUID map (YAML).'),
    cfg.StrOpt('name_format',
               default='{name}-sylva-diskimage-builder-{commit_tag}',
               help='Glance name of an image with a commit-tag.'),
    cfg.StrOpt('tag_format', default='sylva-md5-{md5}',
               help='Tag marking an image with its md5.'),
    cfg.StrOpt('property_prefix', default='sylva/',
               help='Prefix of the properties copied from the info keys; '
                    'empty skips the property check.'),
    cfg.StrOpt('foreign_queued_policy', default='refuse',
               choices=[('refuse', 'exit foreign_queued_exit_code, upload '
                                   'nothing, name the foreign image id'),
                        ('ignore', 'upload our own copy; exit 0')],
               help='What the uploader does about another project\'s '
                    'queued image of the same name and tag; either way '
                    'the foreign image must stay untouched. Passed to the '
                    'uploader as FOREIGN_QUEUED_POLICY.'),
    cfg.IntOpt('foreign_queued_exit_code', default=1,
               help='Exit code expected when another project holds a '
                    'queued image of the same name and tag (refuse).'),
    cfg.StrOpt('source', default='http', choices=['http', 'oci'],
               help='Where every scenario\'s image comes from: a loopback '
                    'HTTP server of the suite, or an OCI artifact pushed '
                    'to registry.'),
    cfg.StrOpt('registry',
               help='host:port of an OCI registry (HTTPS) the scenarios '
                    'may push to; unset skips the OCI scenarios (and '
                    'source = oci skips them all).'),
    cfg.StrOpt('registry_ca_file',
               help='CA bundle verifying the registry; given to the '
                    'uploader as SSL_CERT_FILE and REQUESTS_CA_BUNDLE. '
                    'Unset: the system CAs.'),
    cfg.BoolOpt('insecure_client', default=False,
                help='Give the uploader INSECURE_CLIENT=true (no TLS '
                     'verification) instead of registry_ca_file.'),
    cfg.IntOpt('image_size', default=4 * 1024 * 1024,
               help='Bytes of each generated image.'),
    cfg.IntOpt('run_timeout', default=300,
               help='Seconds one uploader run may take; then it is killed '
                    'and the test fails reporting it hung, with its last '
                    'output line.'),
    cfg.IntOpt('wait_queued_image', default=3,
               help='WAIT_QUEUED_IMAGE given to the uploader.'),
    cfg.IntOpt('in_progress_interval', default=1,
               help='IMAGE_IN_PROGRESS_INTERVAL given to the uploader.'),
    cfg.IntOpt('in_progress_timeout', default=120,
               help='IMAGE_IN_PROGRESS_TIMEOUT given to the uploader.'),
    cfg.IntOpt('saving_hold', default=8,
               help='Seconds a throttled upload keeps an image saving '
                    'after the uploader under test has downloaded its '
                    'source; the uploader must still be waiting then.'),
    cfg.FloatOpt('max_saving_wait_seconds', min=0,
                 help='Bound of glance_multiapi_uploader_saving_wait_'
                      'seconds (an uploader run while another upload of '
                      'its image is saving, until it exits; it includes '
                      'saving_hold); unset: recorded only.'),
]

OPT_GROUPS.append((image_uploader_group, ImageUploaderGroup))


# --- [consolidated_heat]: heat-api, heat-api-cfn and heat-engine from one
# consolidated image must still work together, and a rebuild (which
# restarts heat-engine) must not leave stacks stuck. Read by
# glance_multiapi_tests.tests.api.test_heat_services and
# tests.scenario.test_heat_engine_restart.
#
# They also read [service_available] heat, which tempest itself does not
# define but heat-tempest-plugin does (BoolOpt, default True, its own help
# text). oslo.config refuses a second, different definition of one option
# with DuplicateOptError, and whichever plugin loads second then loses the
# rest of its register_opts. So this option is SHARED, not owned: the plugin
# registers it only when no other plugin will (see
# plugin.register_shared_opts), the way cinder-tempest-plugin registers
# [service_available] barbican only without barbican's plugin.
service_available_group = cfg.OptGroup(
    name='service_available', title='Available OpenStack Services')

SharedServiceAvailableOpts = [
    cfg.BoolOpt('heat', default=False,
                help='Whether Heat (orchestration) is expected to be '
                     'available; false skips the consolidated heat checks. '
                     'Registered by this plugin only when no other '
                     'installed tempest plugin (heat-tempest-plugin) '
                     'registers it; that one defaults to true.'),
]

# Installed tempest plugins (entry point module prefixes) that register a
# shared option themselves: {(group, option): (module prefix, ...)}.
SHARED_OPT_OWNERS = {
    ('service_available', 'heat'): ('heat_tempest_plugin',),
}

# NOTE: the (group, options) pairs registered only when nobody else owns
# them; not in OPT_GROUPS, which holds what this plugin always owns.
SHARED_OPT_GROUPS = [
    (service_available_group, SharedServiceAvailableOpts),
]

consolidated_heat_group = cfg.OptGroup(
    name='consolidated_heat',
    title='Consolidated heat image checks',
    help='How to reach the heat services of one consolidated image and '
         'how to restart heat-engine the way a rebuild does.')

ConsolidatedHeatGroup = [
    cfg.BoolOpt('enabled', default=True,
                help='Run the consolidated heat checks at all (they also '
                     'need [service_available] heat).'),
    cfg.StrOpt('catalog_type', default='orchestration',
               help='Catalog type of heat-api.'),
    cfg.StrOpt('cfn_catalog_type', default='cloudformation',
               help='Catalog type of heat-api-cfn.'),
    cfg.StrOpt('endpoint_type', default='public',
               choices=['public', 'internal', 'admin'],
               help='Catalog interface used to reach both heat APIs.'),
    cfg.StrOpt('engine_binary', default='heat-engine',
               help='Binary name of the engine in the service list.'),
    cfg.IntOpt('min_engines', default=1,
               help='heat-engine workers that must be up and reporting.'),
    cfg.IntOpt('build_timeout', default=180,
               help='Seconds a stack may take to be created or deleted.'),
    cfg.FloatOpt('build_interval', default=1.0,
                 help='Initial seconds between stack status polls; it '
                      'backs off up to 8 times that.'),
    cfg.BoolOpt('run_heat_engine_restart', default=False,
                help='Run the scenario that restarts heat-engine while a '
                     'stack is being created (disruptive: every user\'s '
                     'stacks see the restart; needs restart_command).'),
    cfg.StrOpt('restart_command',
               help='Command restarting heat-engine the way a rebuild of '
                    'the consolidated image does; {service} is replaced by '
                    'restart_service, e.g. "oc -n openstack rollout restart '
                    'deployment/heat-engine" or "glance-multiapi-cloud '
                    '--state-dir DIR restart {service}". It should return '
                    'once the new engine runs. Unset skips the restart '
                    'scenario.'),
    cfg.StrOpt('restart_service', default='heat-engine',
               help='Name put in place of {service} in restart_command.'),
    cfg.IntOpt('restart_timeout', default=300,
               help='Seconds restart_command may run (heat-engine drains '
                    'in-progress stacks before it exits).'),
    cfg.IntOpt('in_progress_seconds', default=20,
               help='Seconds the scenario stack stays CREATE_IN_PROGRESS '
                    '(OS::Heat::TestResource create wait) so the restart '
                    'hits it mid-action; keep it under the engine\'s '
                    'graceful shutdown timeout.'),
    cfg.IntOpt('terminal_timeout', default=300,
               help='Seconds after the restart within which the stack must '
                    'reach a COMPLETE or FAILED state.'),
    cfg.FloatOpt('max_restart_seconds', min=0,
                 help='Bound of glance_multiapi_heat_engine_restart_seconds '
                      '(how long restart_command took while a stack was in '
                      'progress); unset: recorded only.'),
]

OPT_GROUPS.append((consolidated_heat_group, ConsolidatedHeatGroup))


def list_opts():
    """Return the option groups for oslo-config-generator."""
    return [(group, opts) for group, opts in OPT_GROUPS + SHARED_OPT_GROUPS]
