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
                    'store placement checks.'),
    cfg.FloatOpt('probe_timeout', default=5.0,
                 help='Seconds each probe stage (DNS, TCP, HTTP) may take.'),
    cfg.IntOpt('image_size', default=1048576,
               help='Bytes uploaded by each placement check.'),
    cfg.IntOpt('image_timeout', default=120,
               help='Seconds to wait for an image to become active.'),
    cfg.StrOpt('patch_command',
               help='Command template that applies a JSON merge patch to '
                    'the object owning the Glance spec; {patch} is replaced '
                    'by the shell-quoted patch, e.g. "oc patch '
                    'openstackcontrolplane openstack --type merge -p '
                    '{patch}". Unset skips the switchover and grow/shrink '
                    'scenarios.'),
    cfg.StrOpt('patch_spec_path', default='spec',
               help='Dotted path of the Glance spec inside the patched '
                    'object: "spec" for a Glance CR, '
                    '"spec.glance.template" for an OpenStackControlPlane.'),
    cfg.IntOpt('convergence_timeout', default=300,
               help='Seconds to wait for the catalog or an API to follow a '
                    'patch.'),
    cfg.FloatOpt('convergence_interval', default=1.0,
                 help='Initial seconds between polls while waiting for '
                      'convergence; it backs off up to 8 times that.'),
    cfg.BoolOpt('run_switchover', default=True,
                help='Run the keystoneEndpoint switchover scenario (needs '
                     'patch_command and two non-edge APIs).'),
    cfg.StrOpt('switchover_target',
               help='API to switch the catalog to; default: the first '
                    'non-edge API that is not the current one.'),
    cfg.BoolOpt('run_grow_shrink', default=False,
                help='Run the scenario that adds and removes an API.'),
    cfg.StrOpt('grow_api_name', default='apigrow',
               help='Name of the API the grow/shrink scenario adds.'),
    cfg.StrOpt('grow_api_spec',
               default='{"type": "split", "replicas": 1, '
                       '"customServiceConfig": "[DEFAULT]\\n'
                       'enabled_backends = cephgrow:file\\n'
                       '[glance_store]\\ndefault_backend = cephgrow\\n"}',
               help='JSON spec of the API the grow/shrink scenario adds.'),
    cfg.StrOpt('grow_api_store', default='cephgrow',
               help='Store the added API must place uploads in.'),
]

# NOTE: every group registered by the plugin goes in this one list; the
# plugin's register_opts/get_opt_lists and list_opts all read it.
OPT_GROUPS = [
    (glance_multiapi_group, GlanceMultiApiGroup),
]


def list_opts():
    """Return the option groups for oslo-config-generator."""
    return [(group, opts) for group, opts in OPT_GROUPS]
