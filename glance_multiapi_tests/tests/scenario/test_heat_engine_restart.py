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

"""A rebuild of the consolidated heat image restarts heat-engine; a stack
in progress at that moment must still end COMPLETE or FAILED."""

import time

from oslo_log import log as logging
from testtools import content
from tempest import config
from tempest.lib import decorators

from glance_multiapi_tests.common import commands
from glance_multiapi_tests.tests import heat_base
from glance_multiapi_tests.tests import waiters

CONF = config.CONF
LOG = logging.getLogger(__name__)
SLOW = 'slow'
LOST_WORK_HINT = (
    'one known cause: with oslo.messaging\'s default queue handling a '
    'stopping heat-engine acks and drops the check_resource for the next '
    'resource that is sent while it drains (the embedded cloud avoids it '
    'with [oslo_messaging_rabbit] use_queue_manager = true; see README, '
    '"heat-engine restart")')


@decorators.serial
class HeatEngineRestartTest(heat_base.HeatTest):
    """Restart heat-engine while a stack is being created."""

    @classmethod
    def skip_checks(cls):
        """Skip without a restart command."""
        super().skip_checks()
        if not CONF.consolidated_heat.restart_command:
            raise cls.skipException('[consolidated_heat] restart_command '
                                    'is not set')

    def _template(self):
        # NOTE: "after" depends on "slow", so the traversal must go on
        # in the restarted engine for the stack to complete.
        return {
            'heat_template_version': heat_base.TEMPLATE_VERSION,
            'resources': {
                SLOW: {'type': 'OS::Heat::TestResource', 'properties': {
                    'value': 'slow', 'action_wait_secs': {
                        'create': CONF.consolidated_heat.in_progress_seconds,
                        'delete': 0}}},
                'after': {'type': 'OS::Heat::RandomString',
                          'depends_on': SLOW}}}

    def _wait_slow_in_progress(self, name, stack_id):
        opts = CONF.consolidated_heat

        def check():
            states = {r['resource_name']: r['resource_status'] for r in
                      self.heat.list_resources(name, stack_id)}
            if states.get(SLOW) == 'CREATE_COMPLETE':
                self.fail('stack %s (%s): %s completed before the restart; '
                          'raise [consolidated_heat] in_progress_seconds '
                          '(%d)' % (name, stack_id, SLOW,
                                    opts.in_progress_seconds))
            return states.get(SLOW) == 'CREATE_IN_PROGRESS', states

        waiters.wait_for(check, timeout=opts.build_timeout, interval=0.2,
                         max_interval=1,
                         what='resource %s of stack %s (%s) to be '
                         'CREATE_IN_PROGRESS' % (SLOW, name, stack_id))

    def _resource_states(self, name, stack_id):
        return ', '.join(sorted('%s %s' % (r['resource_name'],
                                           r['resource_status'])
                                for r in self.heat.list_resources(
                                    name, stack_id)))

    def _restart(self):
        opts = CONF.consolidated_heat
        command = commands.render(opts.restart_command,
                                  option='restart_command',
                                  service=opts.restart_service)
        started = time.monotonic()
        output = commands.run(command, timeout=opts.restart_timeout,
                              what='restart command')
        said = ' '.join(output.split())[-200:]
        return '%s: %s' % (command, said or 'no output'), (
            time.monotonic() - started)

    @decorators.attr(type='slow')
    @decorators.attr(type='disruptive')
    @decorators.idempotent_id('759b0293-f857-4f98-bdbb-00eb28159096')
    def test_restart_engine_during_stack_create(self):
        """The stack in progress ends COMPLETE or FAILED, not stuck."""
        opts = CONF.consolidated_heat
        name, stack_id = self.create_stack(self._template(),
                                           'heat-engine-restart')
        self._wait_slow_in_progress(name, stack_id)
        command, restart_seconds = self._restart()
        after_restart = time.monotonic()
        try:
            stack = waiters.wait_for_terminal(
                self.heat, name, stack_id, timeout=opts.terminal_timeout,
                interval=opts.build_interval)
        except waiters.Timeout as exc:
            self.fail('%s restart took %.1f s (%s), then stack %s (%s) '
                      'stayed in progress; resources: %s; %s; %s' % (
                          opts.restart_service, restart_seconds, command,
                          name, stack_id, self._resource_states(
                              name, stack_id), exc, LOST_WORK_HINT))
        settle_seconds = time.monotonic() - after_restart
        summary = ('%s restart took %.1f s (%s); stack %s reached %s %.1f s '
                   'later: %s' % (
                       opts.restart_service, restart_seconds, command, name,
                       stack['stack_status'], settle_seconds,
                       stack.get('stack_status_reason')))
        LOG.info(summary)
        self.addDetail('heat-engine-restart', content.text_content(summary))
        self.assertIn(stack['stack_status'],
                      ('CREATE_COMPLETE', 'CREATE_FAILED'), summary)
        # NOTE: the restarted engine must also act on the stack.
        self.heat.delete_stack(name, stack_id)
        self.wait_for_stack(name, stack_id, 'DELETE_COMPLETE', gone_ok=True)
