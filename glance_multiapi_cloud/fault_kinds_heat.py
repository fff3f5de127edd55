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

"""The faults of the embedded cloud's heat, one small class each.

heat-engine not running, its Deployments and pods (kubeheat.py), the
OpenStackVersion's heat fields and heat-api's RPC to heat-engine. Each
is registered with @fault and overrides the one hook of fault_hooks.Fault
it breaks, as the others of fault_kinds.py.
"""

from glance_multiapi_cloud import errors
from glance_multiapi_cloud import fault_hooks
from glance_multiapi_cloud import kubeheat


@fault_hooks.fault
class HeatEngineDown(fault_hooks.Fault):
    name = 'heat-engine-down'
    needs_heat = True
    arg_kind = None
    help = ('heat-engine is not running (up --with-heat); heat-api still '
            'answers but nothing processes stacks')

    def starts_service(self, name):
        return name != 'heat-engine'


@fault_hooks.fault
class HeatImageDrift(fault_hooks.Fault):
    name = 'heat-image-drift'
    needs_heat = True
    arg_kind = 'deployment'
    help = ('that heat Deployment (heat-api, heat-cfnapi or heat-engine) '
            'runs another image digest than OpenStackVersion\'s status '
            'names for its field')

    def check_arg(self):
        if self.arg not in kubeheat.DEPLOYMENTS:
            raise errors.Invalid('fault %s needs one of %s, got %r' % (
                self.name, ', '.join(kubeheat.DEPLOYMENTS), self.arg))

    def image_drifts(self, deployment):
        return deployment == self.arg


# -- the OpenStackVersion and heat's pods (issue #30) ----------------------
# NOTE: the OpenStackVersion fields of heat's Deployments (kubeheat.py).
HEAT_FIELDS = tuple(heat.field for heat in kubeheat.DEPLOYMENTS.values())


class _VersionField(fault_hooks.Fault):
    needs_heat = True
    arg_kind = 'field'

    def check_arg(self):
        if self.arg not in HEAT_FIELDS:
            raise errors.Invalid('fault %s needs one of %s, got %r' % (
                self.name, ', '.join(HEAT_FIELDS), self.arg))


@fault_hooks.fault
class VersionFieldMissing(_VersionField):
    name = 'version-field-missing'
    help = ('status.containerImages of the OpenStackVersion lacks FIELD '
            '(heatAPIImage, heatCfnapiImage or heatEngineImage), as an '
            'operator that no longer knows the field would report')

    def version_image(self, field, reference):
        return None if field == self.arg else reference


@fault_hooks.fault
class VersionDigestDrift(_VersionField):
    name = 'version-digest-drift'
    help = ('status.containerImages.FIELD of the OpenStackVersion pins '
            'another digest of its image than the operator deploys (the '
            'Deployments keep running that one)')

    def version_image(self, field, reference):
        if field != self.arg or reference is None:
            return reference
        return kubeheat.redigested(reference, field)


@fault_hooks.fault
class VersionPartialOverride(_VersionField):
    name = 'version-partial-override'
    help = ('spec.customContainerImages of the OpenStackVersion overrides '
            'FIELD alone with another digest of its image, as a user who '
            'overrides one field of a consolidated image would; status and '
            'the Deployment of FIELD follow it, the image\'s other fields '
            'keep the default')

    def custom_image(self, field, default):
        if field != self.arg:
            return None
        return kubeheat.redigested(default, 'override of %s' % field)


class _HeatPods(fault_hooks.Fault):
    needs_heat = True
    arg_kind = 'deployment'

    def check_arg(self):
        if self.arg not in kubeheat.DEPLOYMENTS:
            raise errors.Invalid('fault %s needs one of %s, got %r' % (
                self.name, ', '.join(kubeheat.DEPLOYMENTS), self.arg))


@fault_hooks.fault
class PodNotReplaced(_HeatPods):
    name = 'pod-not-replaced'
    help = ('a deleted pod of that heat Deployment stops, and its '
            'replacement stays Pending (ImagePullBackOff): the service '
            'never comes back')

    def replaces_pod(self, deployment):
        return deployment != self.arg


@fault_hooks.fault
class PodDeleteIgnored(_HeatPods):
    name = 'pod-delete-ignored'
    help = ('a pod deletion of that heat Deployment is accepted and the pod '
            'marked, but nothing acts on it: the process runs on, no '
            'replacement starts (a restart that restarts nothing); '
            'clearing the fault forgets the deletion')

    def acts_on_delete(self, deployment):
        return deployment != self.arg


@fault_hooks.fault
class HeatRpcTimeout(fault_hooks.Fault):
    name = 'heat-rpc-timeout'
    needs_heat = True
    arg_kind = 'seconds[:delay]'
    # NOTE: the window that never ends on its own: it lasts until heat-api
    # relays the first stack delete after the restart began, so a test's
    # own cleanup ends it instead of waiting out a window long enough to
    # outlast any restart.
    UNTIL_DELETE = 'delete'
    help = ('for SECONDS after a "restart heat-engine" began (SECONDS '
            '"delete": until heat-api relays its first stack delete after '
            'it, which goes through), every call heat-api relays to '
            'heat-engine fails (after DELAY s, default 0) with '
            'MessagingTimeout, which heat-api answers with its own 500 body '
            '(an "error" without "message"), as when the engine does not '
            'answer within rpc_response_timeout; the cloud\'s own probes are '
            'spared; e.g. heat-rpc-timeout=20:2, heat-rpc-timeout=delete')

    def _numbers(self):
        seconds, _sep, delay = (self.arg or '').partition(':')
        if seconds == self.UNTIL_DELETE:
            return float('inf'), float(delay or 0)
        seconds = float(seconds)
        if seconds == float('inf'):
            raise ValueError(seconds)
        return seconds, float(delay or 0)

    def check_arg(self):
        try:
            seconds, delay = self._numbers()
        except ValueError:
            seconds = delay = -1
        if not seconds > 0 or not 0 <= delay < float('inf'):
            raise errors.Invalid('fault %s needs SECONDS[:DELAY], SECONDS '
                                 'above 0 or "%s", e.g. %s=20, %s=20:2 or '
                                 '%s=%s, got %r' % (
                                     self.name, self.UNTIL_DELETE, self.name,
                                     self.name, self.name, self.UNTIL_DELETE,
                                     self.arg))

    def _until_delete(self):
        return self._numbers()[0] == float('inf')

    def rpc_timeout(self, since_restart, lifted=False):
        seconds, delay = self._numbers()
        if since_restart is None or not 0 <= since_restart < seconds:
            return None
        if lifted and self._until_delete():
            return None
        return delay

    def lifted_by(self, method):
        return self._until_delete() and method == 'delete_stack'
