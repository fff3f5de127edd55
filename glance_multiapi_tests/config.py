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

Each capability has its own group, defined in a module of its own under
``glance_multiapi_tests/options/``; ``OPT_GROUPS`` here is the single
list that the plugin registers, reports to tempest and hands to the
sample config generator, so the three can never disagree.

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

from glance_multiapi_tests.options import consolidated_heat
from glance_multiapi_tests.options import consolidated_images
from glance_multiapi_tests.options import glance_multiapi
from glance_multiapi_tests.options import image_uploader

# NOTE: every group registered by the plugin goes in this one list; the
# plugin's register_opts/get_opt_lists and list_opts all read it.
OPT_GROUPS = [
    (glance_multiapi.glance_multiapi_group,
     glance_multiapi.GlanceMultiApiGroup),
    (consolidated_images.consolidated_images_group,
     consolidated_images.ConsolidatedImagesGroup),
    (image_uploader.image_uploader_group, image_uploader.ImageUploaderGroup),
    (consolidated_heat.consolidated_heat_group,
     consolidated_heat.ConsolidatedHeatGroup),
]

# Installed tempest plugins (entry point module prefixes) that register a
# shared option themselves: {(group, option): (module prefix, ...)}.
SHARED_OPT_OWNERS = {
    ('service_available', 'heat'): ('heat_tempest_plugin',),
}

# NOTE: the (group, options) pairs registered only when nobody else owns
# them; not in OPT_GROUPS, which holds what this plugin always owns.
SHARED_OPT_GROUPS = [
    (consolidated_heat.service_available_group,
     consolidated_heat.SharedServiceAvailableOpts),
]


def list_opts():
    """Return the option groups for oslo-config-generator."""
    return [(group, opts) for group, opts in OPT_GROUPS + SHARED_OPT_GROUPS]
