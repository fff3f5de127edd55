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

"""[consolidated_heat]: heat-api, heat-api-cfn and heat-engine from one
consolidated image must still work together, and a rebuild (which
restarts heat-engine) must not leave stacks stuck. Read by
glance_multiapi_tests.tests.api.test_heat_services and
tests.scenario.test_heat_engine_restart; also the [service_available]
heat option they read, which this plugin shares with
heat-tempest-plugin (see below).
"""

from oslo_config import cfg

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
                     'stacks see the restart). It deletes the pods of '
                     'restart_deployment through the Kubernetes API '
                     '([glance_multiapi] kubernetes_api and its access; '
                     'needs "list" and "delete" on pods, which '
                     'rbac-disruptive.yaml grants) and waits for the '
                     'Deployment to roll out again; or runs '
                     'restart_command when that is set.'),
    cfg.StrOpt('restart_deployment', default='heat-engine',
               help='Deployment whose pods the restart deletes (chosen by '
                    'its own spec.selector); it must then roll out again '
                    'within restart_timeout: its deleted pods gone, new '
                    'pods Ready, status.readyReplicas back.'),
    cfg.StrOpt('restart_command',
               help='Instead of the Kubernetes API: a command restarting '
                    'heat-engine the way a rebuild of the consolidated '
                    'image does; {service} is replaced by restart_service, '
                    'e.g. "oc -n openstack rollout restart '
                    'deployment/heat-engine" or "glance-multiapi-cloud '
                    '--state-dir DIR restart {service}". It should return '
                    'once the new engine runs.'),
    cfg.StrOpt('restart_service', default='heat-engine',
               help='Name put in place of {service} in restart_command.'),
    cfg.IntOpt('restart_timeout', default=300,
               help='Seconds the restart may take: the rollout, or '
                    'restart_command (heat-engine drains in-progress '
                    'stacks before it exits).'),
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
                      '(how long the restart took while a stack was in '
                      'progress: the rollout, or restart_command); unset: '
                      'recorded only.'),
]

# NOTE: the heat checks also read [service_available] heat, which tempest
# itself does not define but heat-tempest-plugin does (BoolOpt, default
# True, its own help text). oslo.config refuses a second, different
# definition of one option with DuplicateOptError, and whichever plugin
# loads second then loses the rest of its register_opts. So this option is
# SHARED, not owned: the plugin registers it only when no other plugin will
# (see plugin.register_shared_opts and config.SHARED_OPT_OWNERS), the way
# cinder-tempest-plugin registers [service_available] barbican only
# without barbican's plugin.
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
