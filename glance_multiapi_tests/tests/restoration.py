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

"""Putting back what a disruptive scenario changed, whatever ends it.

A disruptive test (a test class with the ``DisruptiveTest`` mixin before
its base, e.g. ``class T(restoration.DisruptiveTest,
scenario_base.MultiApiScenarioTest)``) calls ``self.guard(...)``
*before* it changes the deployment. The undo then runs once, at the first of:

* the test's cleanups: after a failed assertion, after a waiter timed
  out, after tempest's per-test timeout (OS_TEST_TIMEOUT) cut the test
  short -- each ends the test body, and then its cleanups run;
* SIGTERM or SIGINT of the worker process while the change is pending:
  ``tempest run`` killed as a process group (a CI job cancelled, GNU
  ``timeout``), or Ctrl-C. The handler undoes every pending change at
  once, then ends the test; its other cleanups (images, stacks) still
  run, and the worker then ends with that signal, so no later test
  starts;
* the death of ``tempest run`` (or ``stestr``) alone: it starts each
  worker through ``/bin/sh -c``, so the worker's parent is that shell,
  which outlives it, and PR_SET_PDEATHSIG would never fire. A watcher
  thread looks at the worker's parent and grandparent while a change is
  pending and sends the worker SIGTERM when either is gone;
* the deletion of the pod the run lives in: a test-operator pod's PID 1
  is bash (tcib's run_tempest.sh is the image's entrypoint), which
  ignores the SIGTERM of a pod deletion, and the kubelet SIGKILLs every
  process when the grace period ends. The same watcher reads the run's
  own Pod object (common/own_pod.py) and sends the worker SIGTERM as soon
  as it shows a deletionTimestamp, within that grace period.

When an undo fails, the error names the exact command that restores the
deployment by hand. Nothing here runs after SIGKILL itself.
"""

import os
import signal
import threading

from oslo_log import log as logging
import psutil
from tempest import config

from glance_multiapi_kernel import errors
from glance_multiapi_kernel import kube
from glance_multiapi_kernel import redaction
from glance_multiapi_tests import deployment_access
from glance_multiapi_tests.common import own_pod

CONF = config.CONF
LOG = redaction.logger(logging.getLogger(__name__))
SIGNALS = (signal.SIGTERM, signal.SIGINT)
# NOTE: how often the watcher looks at the worker's ancestors.
WATCH_INTERVAL = 0.5

# NOTE: one worker process runs one test at a time in its main thread,
# which is also where Python runs signal handlers; module state is enough.
_pending = []
_state = {'signal': None, 'restoring': False, 'handlers': None,
          'watcher': None, 'why': None, 'pod_watch': None}


class RestoreError(Exception):
    """An undo failed; str() names the change, why and the manual fix."""


class Terminated(Exception):
    """The worker was told to stop while a change was pending."""


class Change(object):
    """One pending change of the deployment and how to undo it."""

    def __init__(self, what, undo, by_hand):
        self.what = what
        self._undo = undo
        self._by_hand = by_hand
        self.done = False

    def by_hand(self):
        """The command restoring it by hand (best effort)."""
        try:
            return self._by_hand()
        except Exception as exc:  # noqa: B902 - the message must be made
            return 'unknown (%s: %s)' % (type(exc).__name__, exc)

    def undo(self):
        """Run the undo once; RestoreError naming the manual fix."""
        if self.done:
            return
        # NOTE: marked first: an undo that failed is not retried by the
        # next path (a cleanup after the signal handler), which would
        # only repeat the failure and hide the first message.
        self.done = True
        try:
            self._undo()
        except BaseException as exc:  # noqa: B902 - failures, timeouts too
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            raise RestoreError(
                'undoing %s failed: %s: %s; the deployment is still '
                'changed: restore it by hand with: %s' % (
                    self.what, type(exc).__name__,
                    errors.one_line(exc, 2000), self.by_hand())
            ) from None


def parent_of(pid):
    """The parent pid of pid, or None when it is gone (or a zombie)."""
    try:
        proc = psutil.Process(pid)
        with proc.oneshot():
            # NOTE: a zombie has exited already; its parent reaps it soon.
            if proc.status() in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD):
                return None
            return proc.ppid()
    except psutil.Error:
        return None


def ancestors(pid=None, depth=2):
    """[parent, grandparent, ...] of pid (this process), up to depth."""
    chain = []
    pid = os.getpid() if pid is None else pid
    while len(chain) < depth:
        pid = parent_of(pid)
        if not pid or pid == 1:
            break
        chain.append(pid)
    return chain


class _Watcher(threading.Thread):
    """SIGTERMs this process when an ancestor or its pod is gone.

    pod: an own_pod.Watch (or None), read every pod_interval seconds.
    """

    def __init__(self, pod=None, pod_interval=2.0):
        super().__init__(name='restoration-watcher', daemon=True)
        self.chain = ancestors()
        self.stopped = threading.Event()
        self.pod = pod
        self.pod_interval = pod_interval

    def gone(self):
        """The first ancestor that is no longer one, else None."""
        pid = os.getpid()
        for ancestor in self.chain:
            if parent_of(pid) != ancestor:
                return ancestor
            pid = ancestor
        return None

    def _stop_worker(self, why):
        _state['why'] = why
        LOG.warning('%s: SIGTERM to restore the deployment', why)
        os.kill(os.getpid(), signal.SIGTERM)

    def run(self):
        next_pod = 0.0
        waited = 0.0
        while not self.stopped.wait(WATCH_INTERVAL):
            waited += WATCH_INTERVAL
            lost = self.gone()
            if lost is not None:
                self._stop_worker('process %d that ran this worker is gone'
                                  % lost)
                return
            if self.pod is not None and waited >= next_pod:
                next_pod = waited + self.pod_interval
                why = self.pod.reason()
                if why:
                    self._stop_worker(why)
                    return


def _install(pod=None, pod_interval=2.0):
    if _state['handlers'] is None:
        _state['handlers'] = {sig: signal.signal(sig, _on_signal)
                              for sig in SIGNALS}
    if _state['watcher'] is None and psutil.pid_exists(os.getpid()):
        _state['watcher'] = _Watcher(pod, pod_interval)
        _state['watcher'].start()


def _uninstall():
    handlers, _state['handlers'] = _state['handlers'], None
    for sig, handler in (handlers or {}).items():
        signal.signal(sig, handler)
    watcher, _state['watcher'] = _state['watcher'], None
    if watcher is not None:
        watcher.stopped.set()


def undo_pending():
    """Undo every pending change, newest first; the failure messages."""
    failures = []
    _state['restoring'] = True
    try:
        for change in reversed(list(_pending)):
            try:
                change.undo()
            except RestoreError as exc:
                failures.append(str(exc))
    finally:
        _state['restoring'] = False
    return failures


def _on_signal(signum, frame):
    name = signal.Signals(signum).name
    first = _state['signal'] is None
    _state['signal'] = _state['signal'] or signum
    if _state['restoring'] or not first:
        # NOTE: an undo is running in this thread right now (a cleanup,
        # or this handler itself); let it finish.
        LOG.warning('%s while restoring the deployment: the restore goes '
                    'on, the worker stops after it', name)
        return
    what = ', '.join(c.what for c in _pending if not c.done) or 'nothing'
    if _state['why']:
        name = '%s (%s)' % (name, _state['why'])
    LOG.warning('%s: undoing %s before stopping', name, what)
    failures = undo_pending()
    if failures:
        message = '%s: stopping; %s' % (name, '; '.join(failures))
    else:
        message = '%s: undid %s, then stopped' % (name, what)
    LOG.error(message)
    raise Terminated(message)


def _exit_if_signalled():
    """The last cleanup: end the worker as the signal asked."""
    signum = _state['signal']
    if signum is None:
        return
    _uninstall()
    LOG.warning('ending the worker: %s', signal.Signals(signum).name)
    # NOTE: restore the default action so the exit status says which
    # signal ended the worker, as it would have without this module.
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def pending():
    """The changes not undone yet (for tests and diagnostics)."""
    return [c for c in _pending if not c.done]


class DisruptiveTest(object):
    """Mixin of a test that changes the deployment and must put it back.

    Put it before the test's base class (tests.base.BasePluginTest or a
    subclass), whose setUp and addCleanup it uses.
    """

    def setUp(self):
        super().setUp()
        # NOTE: the first cleanup runs last, after the undo and the
        # test's own cleanups (images, stacks).
        self.addCleanup(_exit_if_signalled)

    def guard(self, what, undo, by_hand):
        """Register undo for a change about to be made; call it FIRST.

        :param what: the change, e.g. "keystoneEndpoint api1 -> api0".
        :param undo: callable putting it back; it may wait for the
            deployment to follow, and it fails by raising.
        :param by_hand: callable returning the command that restores the
            deployment by hand, for the message when undo fails.
        """
        if _state['signal'] is not None:
            self.fail('not changing the deployment (%s): the worker was '
                      'told to stop (%s)' % (
                          what, signal.Signals(_state['signal']).name))
        change = Change(what, undo, by_hand)
        _pending.append(change)
        _install(self._pod_watch(),
                 CONF.glance_multiapi.pod_watch_interval)
        self.addCleanup(self._undo, change)
        return change

    @staticmethod
    def _pod_watch():
        """The run's own pod to watch (own_pod.Watch), once a process."""
        if _state['pod_watch'] is None:
            opts = CONF.glance_multiapi
            name = own_pod.pod_name(opts)
            # NOTE: through the Kubernetes API whatever kubernetes_api says
            # (only the API tells a pod's deletion), on a connection of
            # its own: the watcher reads from its thread.
            watch = own_pod.Watch(deployment_access.KubernetesAccess(
                kube.Settings.from_opts(opts)), name) if name else None
            _state['pod_watch'] = watch if watch and watch.start() else False
        return _state['pod_watch'] or None

    @staticmethod
    def _undo(change):
        try:
            _state['restoring'] = True
            try:
                change.undo()
            finally:
                _state['restoring'] = False
        finally:
            _pending.remove(change)
            if not _pending:
                _uninstall()
