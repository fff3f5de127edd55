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
whose resource is in progress at that moment must still complete, and the
restart must be shown to have hit it.

The restart is made through the Kubernetes API (the heat-engine
Deployment's pods are deleted and it must roll out again: the deployment
access layer's restart, judged by common/rollout.py), which a
test-operator pod can do with its token, or by [consolidated_heat]
restart_command where one is given.
"""

import threading
import time

from oslo_log import log as logging
from testtools import content
from tempest import config
from tempest.lib import decorators

from glance_multiapi_kernel import polling
from glance_multiapi_kernel import redaction
from glance_multiapi_tests.common import commands
from glance_multiapi_tests.tests import disturbance as disturbance_mod
from glance_multiapi_tests.tests.heat import base
from glance_multiapi_tests.tests import waiters

CONF = config.CONF
LOG = redaction.logger(logging.getLogger(__name__))
SLOW = 'slow'
AFTER = 'after'
LOST_WORK_HINT = (
    'one known cause: with oslo.messaging\'s default queue handling (as '
    'the heat-operator ships heat.conf) a stopping heat-engine acks and '
    'drops the check_resource for the next resource that is sent while '
    'it drains; [oslo_messaging_rabbit] use_queue_manager = true avoids '
    'it; see the docs, consolidated-images, "heat-engine restart"')


class _Restart(threading.Thread):
    """Runs the restart while the test watches the stack.

    command: how it is said in messages; action: a callable returning
    what the restart printed or did.
    """

    def __init__(self, command, action):
        super().__init__(daemon=True)
        self.command = command
        self.action = action
        self.output = None
        self.error = None
        self.seconds = None

    def run(self):
        started = time.monotonic()
        try:
            self.output = self.action()
        except Exception as exc:
            self.error = exc
        self.seconds = time.monotonic() - started


def _by_kubernetes():
    """Whether the restart goes through the Kubernetes API."""
    return not CONF.consolidated_heat.restart_command


@decorators.serial
class HeatEngineRestartTest(base.HeatTest):
    """Restart heat-engine while a stack is being created."""

    credentials = ['primary', 'admin']
    result_checks = ('heat:heat-engine',)

    @classmethod
    def skip_checks(cls):
        """Skip without a way to restart heat-engine."""
        super().skip_checks()
        cls.skip_unless_opted_in('consolidated_heat',
                                 'run_heat_engine_restart',
                                 'restarts heat-engine')
        if _by_kubernetes() and not cls.access.restarts_pods:
            raise cls.skipException(
                'heat-engine is restarted through the Kubernetes API '
                '([glance_multiapi] kubernetes_api) or by '
                '[consolidated_heat] restart_command, and neither is set')

    @classmethod
    def setup_clients(cls):
        """heat-api as admin too: the engine service list."""
        super().setup_clients()
        cls.admin_heat = cls.os_admin.consolidated_heat.HeatClient()

    def _template(self):
        # NOTE: AFTER depends on SLOW, so the traversal must go on in the
        # restarted engine; it waits too, so the engine list can be seen
        # changed while the stack is still in progress.
        wait = CONF.consolidated_heat.in_progress_seconds
        return {
            'heat_template_version': base.TEMPLATE_VERSION,
            'resources': {
                SLOW: {'type': 'OS::Heat::TestResource', 'properties': {
                    'value': SLOW, 'action_wait_secs': {
                        'create': wait, 'delete': 0}}},
                AFTER: {'type': 'OS::Heat::TestResource',
                        'depends_on': SLOW, 'properties': {
                            'value': AFTER, 'action_wait_secs': {
                                'create': wait, 'delete': 0}}}}}

    def _resources(self, name, stack_id):
        return {r['resource_name']: r for r in
                self.heat.list_resources(name, stack_id)['resources']}

    def _stack(self, name, stack_id):
        return self.heat.show_stack(name, stack_id)['stack']

    def _engines(self):
        """{engine_id: 'hostname status updated_at'} of heat-engine rows."""
        binary = CONF.consolidated_heat.engine_binary
        return {s['engine_id']: '%s %s %s' % (
            s.get('hostname'), s.get('status'), s.get('updated_at'))
            for s in self.admin_heat.list_services()['services']
            if s.get('binary') == binary}

    def _wait_slow_in_progress(self, name, stack_id):
        opts = CONF.consolidated_heat

        def check():
            states = {k: r['resource_status'] for k, r in
                      self._resources(name, stack_id).items()}
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

    def _restart(self):
        """A _Restart (not started) of the configured kind."""
        opts = CONF.consolidated_heat
        if _by_kubernetes():
            def roll():
                return self.access.restart(
                    opts.restart_deployment,
                    timeout=opts.restart_timeout).describe()
            return _Restart('delete the pods of Deployment %s through the '
                            'Kubernetes API and wait for its rollout' %
                            opts.restart_deployment, roll)
        command = commands.render(opts.restart_command,
                                  option='restart_command',
                                  service=opts.restart_service)
        return _Restart(command, lambda: commands.run(
            command, timeout=opts.restart_timeout, what='restart command'))

    def _watch(self, name, stack_id, old, restart, window):
        """Poll stack and engines together until the stack settles.

        Returns (stack, changed, slow): changed is the timeline line in
        which a new engine was first listed while the stack was in
        progress, or None; slow is SLOW's status at the first resource
        list that answered. A 5xx or timeout of heat-api is "not yet"
        until terminal_timeout after the restart command returned
        (window). Fails when the stack is still in progress then, or
        heat-api still fails.
        """
        opts = CONF.consolidated_heat
        timeline = window.timeline
        state = {'changed': None, 'seen': None, 'slow': None}

        def check():
            failed = []

            def call(label, func, *args):
                ok, value = window.call(label, func, *args, record=False,
                                        last_seen=state['seen'])
                if not ok:
                    failed.append(value)
                return ok, value

            listed_ok, engines = call('engine list', self._engines)
            shown, stack = call('stack show', self._stack, name, stack_id)
            read, resources = (call('resource list', self._resources,
                                    name, stack_id) if shown else
                               (False, None))
            if not restart.is_alive():
                if restart.error is not None:
                    # NOTE: a restart that did not finish (a Deployment
                    # that never rolled out) is the verdict; the stack
                    # would only wait for an engine that is not coming.
                    self.fail('%s restart (%s) failed after %.1f s: %s; '
                              'timeline: %s' % (
                                  opts.restart_service, restart.command,
                                  restart.seconds, restart.error, timeline))
                window.settle('restart returned')
            if not (shown and read):
                # NOTE: one line per poll, so a run of the same failures
                # reads as one line with a count.
                timeline.add('; '.join(failed))
                return False, stack if shown else None
            if state['slow'] is None and SLOW in resources:
                state['slow'] = resources[SLOW]['resource_status']
            seen = '%s; %s' % (stack['stack_status'], ', '.join(
                '%s %s' % (k, resources[k]['resource_status'])
                for k in sorted(resources)))
            in_progress = stack['stack_status'].endswith('_IN_PROGRESS')
            new = set(engines) - set(old) if listed_ok else set()
            if listed_ok:
                seen += '; engines: %d new, %d old listed' % (
                    len(new), len(set(engines) & set(old)))
            state['seen'] = seen
            line = timeline.add('; '.join([seen] + failed))
            # NOTE: the stack is read after the engine list, so a new
            # engine listed while the stack is still in progress came
            # before the stack completed.
            if new and in_progress and state['changed'] is None:
                state['changed'] = line
            if restart.is_alive():
                return False, stack
            if in_progress and (time.monotonic() - window.settled_at >
                                opts.terminal_timeout):
                self.fail('%s restart (%s) took %.1f s, then stack %s (%s) '
                          'stayed in progress for %d s; timeline: %s; %s' % (
                              opts.restart_service, restart.command,
                              restart.seconds, name, stack_id,
                              opts.terminal_timeout, timeline,
                              LOST_WORK_HINT))
            return not in_progress, stack

        try:
            stack = polling.poll(
                check,
                timeout=opts.restart_timeout + opts.terminal_timeout + 60,
                interval=opts.build_interval,
                max_interval=opts.build_interval,
                what='%s restart to return and stack %s (%s) to leave '
                'IN_PROGRESS' % (opts.restart_service, name, stack_id),
                describe=lambda stack: ' | '.join(timeline.lines(last=5)))
        except disturbance_mod.StillFailing as exc:
            failing = str(exc)
        else:
            return stack, state['changed'], state['slow']
        # NOTE: outside the except clause, so the verdict comes without
        # the tracebacks it replaces.
        self.fail('%s restart (%s) took %s s, then heat-api kept failing: '
                  '%s' % (opts.restart_service, restart.command,
                          '%.1f' % restart.seconds
                          if restart.seconds is not None else '?', failing))

    @decorators.attr(type='slow')
    @decorators.attr(type='disruptive')
    @decorators.idempotent_id('759b0293-f857-4f98-bdbb-00eb28159096')
    def test_restart_engine_during_stack_create(self):
        """The restart hits a resource in progress; the stack completes."""
        opts = CONF.consolidated_heat
        name, stack_id = self.create_stack(self._template(),
                                           'heat-engine-restart')
        self._wait_slow_in_progress(name, stack_id)
        old = self._engines()
        restart = self._restart()
        command = restart.command
        # NOTE: heat-api relays every call to heat-engine over RPC; while
        # the engine restarts those calls may time out (500) or hang.
        window = disturbance_mod.Disturbance(
            '%s restart' % opts.restart_service,
            grace=opts.terminal_timeout)
        timeline = window.timeline
        timeline.add('engines before: %s' % '; '.join(
            '%s %s' % item for item in sorted(old.items())))
        restart.start()
        timeline.add('restart started')
        # NOTE: read right after the command started: the engine holding
        # SLOW was told to stop while SLOW was still in progress. If
        # heat-api fails right then, the first list that answers decides.
        read, resources = window.call('resource list', self._resources,
                                      name, stack_id)
        if read:
            timeline.add('%s %s' % (SLOW,
                                    resources[SLOW]['resource_status']))
        stack, changed, slow = self._watch(name, stack_id, old, restart,
                                           window)
        if read:
            slow = resources[SLOW]['resource_status']
        slow = slow or 'unknown (heat-api never listed the resources)'
        said = ' '.join((restart.output or '').split())[-200:]
        summary = ('%s restart took %.1f s (%s: %s); stack %s reached %s: '
                   '%s; timeline: %s' % (
                       opts.restart_service, restart.seconds, command,
                       restart.error or said or 'no output', name,
                       stack['stack_status'],
                       stack.get('stack_status_reason'), timeline))
        LOG.info(summary)
        self.addDetail('heat-engine-restart', content.text_content(summary))
        if restart.error is not None:
            self.fail('the restart failed: %s; %s' % (restart.error,
                                                      summary))
        self.assertWithinBounds(self.record_figure(
            'heat_engine_restart_seconds', restart.seconds,
            service=opts.restart_service))
        if slow != 'CREATE_IN_PROGRESS':
            self.fail('the restart did not hit %s in progress: it was %s '
                      'right after the restart command started (or at the '
                      'first resource list heat-api answered after that); '
                      'raise [consolidated_heat] in_progress_seconds; %s'
                      % (SLOW, slow, summary))
        if stack['stack_status'] != 'CREATE_COMPLETE':
            read, resources = window.call('resource list', self._resources,
                                          name, stack_id)
            failed = ['%s %s: %s' % (k, r['resource_status'],
                                     r.get('resource_status_reason'))
                      for k, r in sorted((resources if read else {}).items())
                      if not r['resource_status'].endswith('_COMPLETE')]
            if not read:
                failed = ['unreadable (%s)' % resources]
            self.fail('stack %s (%s) is %s after the restart; resources: '
                      '%s; %s' % (name, stack_id, stack['stack_status'],
                                  '; '.join(failed) or 'none failed',
                                  summary))
        if changed is None:
            self.fail('no new %s was listed while stack %s was still in '
                      'progress, so the restart did not overlap its work; '
                      '%s' % (opts.engine_binary, name, summary))
        # NOTE: the restarted engine must also act on the stack; heat-api
        # may still be inside the restart's window.
        self.delete_stack(name, stack_id, disturbance=window)
        self.wait_for_stack(name, stack_id, 'DELETE_COMPLETE', gone_ok=True,
                            disturbance=window)
