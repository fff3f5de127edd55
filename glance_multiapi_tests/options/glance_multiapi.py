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

"""[glance_multiapi]: the Glance APIs of a multi-API deployment.

Where they are (learnt through the Kubernetes API or a discovery
command, or named option by option), which one the keystone catalog
should hold, how to switch it (the disruptive switchover and
grow/shrink scenarios), where a run leaves its results and the
bounds its figures are held to. Read by the multi-API checks
(tests/api, tests/scenario) and, for results_dir, by every test.
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
    cfg.StrOpt('namespace',
               help='Namespace of the Glance CR, the OpenStackControlPlane, '
                    'the OpenStackVersion and the Deployments read through '
                    'the Kubernetes API. Unset: in a pod, the pod\'s own '
                    '(the service-account namespace file: a test-operator '
                    'pod runs beside the control plane); else the '
                    'kubeconfig context\'s namespace; else "openstack".'),
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
                 help='Seconds one Kubernetes API request may take, from '
                      'connect to its last byte; a kubeconfig\'s exec '
                      'credential plugin may run as long.'),
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
                 help='Seconds the DNS stage of a probe may take, and its '
                      'TCP, TLS and HTTP stages together, from connect to '
                      'the last byte.'),
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
                    '1, ignores it). Needs "get" on that pod '
                    '(rbac-disruptive.yaml grants it on the namespace\'s '
                    'pods, whatever the Tempest CR is called). Unset: the '
                    'pod\'s hostname, which is its name ($HOSTNAME, else '
                    'the kernel\'s), when KUBERNETES_SERVICE_HOST is set and '
                    'no kubeconfig is, else no pod is watched.'),
    cfg.FloatOpt('pod_watch_interval', default=2.0,
                 help='Seconds between two looks at the pod (pod_name) '
                      'while a disruptive change is pending.'),
    cfg.StrOpt('switchover_target',
               help='API to switch the catalog to; default: the first '
                    'non-edge API that is not the current one.'),
    cfg.BoolOpt('run_grow_shrink', default=False,
                help='Run the scenario that adds and removes an API '
                     '(disruptive: it patches spec.glanceAPIs of the live '
                     'deployment, and the guard removes the API whatever '
                     'ends the test).'),
    cfg.StrOpt('grow_api_name', default='apigrow',
               help='Name of the API the grow/shrink scenario adds.'),
    cfg.StrOpt('grow_api_spec',
               help='JSON spec of the API the grow/shrink scenario adds; '
                    'its uploads must then land in grow_api_store (its '
                    'default_backend when unset). Unset: the added API '
                    'copies what the keystoneEndpoint API\'s spec says it '
                    'serves and stores in (type, replicas, '
                    'customServiceConfig and its Secrets, storage, '
                    'networks; not its service overrides or TLS, which name '
                    'that API\'s own addresses and certificates), so its '
                    'stores exist on any cluster, and the scenario checks '
                    'only that it appears, answers and goes away.'),
    cfg.StrOpt('grow_api_store',
               help='Store the API of grow_api_spec must place uploads in. '
                    'Unset: the default_backend of grow_api_spec.'),
    # --- results: what a run leaves for people and dashboards
    # (glance_multiapi_tests.results). Read by every test of the plugin.
    cfg.StrOpt('results_dir',
               help='Folder the tests write their records into while they '
                    'run (its glance-multiapi-records/ subfolder), from '
                    'which glance-multiapi-report builds deployment-'
                    'map.html, deployment-map.json, metrics.json and '
                    'metrics.prom once the run has ended, with the run\'s '
                    'subunit stream. Unset: tempest\'s [DEFAULT] log_dir '
                    '(in a test-operator pod the logs volume, beside '
                    'tempest_results.subunit), else the working '
                    'directory.'),
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
