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

"""Every waiter of the Tempest tests, all built on polling.poll.

Tempest's own waiters are not a stable plugin interface; these follow
their style: a waiter takes the client first and, unless told otherwise,
waits as long as the client's build_timeout, polling from its
build_interval (for the plugin's registered clients, from their option
group). They fail fast on a terminal state and time out
(polling.PollTimeout) with a message naming the image or stack, the API,
the wanted and last seen state and how long they waited. Tests wait
through this module only: wait_for for any other condition. A client's
TLS failure while waiting ends the wait at once as probes.TlsError,
naming what was awaited and the certificate problem. A waiter given a
disturbance (tests/disturbance.py) counts a 5xx answer or a timeout of
the disturbed service as "not yet" while the disturbance's window is
open; its timeout message then names the failure and what was seen
before it.
"""

import functools

from tempest.lib import exceptions as lib_exc

from glance_multiapi_kernel import polling
from glance_multiapi_tests.multiapi import probes

# NOTE: glance never leaves these states on its own, so waiting on is
# pointless.
_TERMINAL = ('killed', 'deleted', 'deactivated')


_NOTHING = object()


class _Transient(str):
    """A transient failure seen in place of a value."""


class ImageFailed(Exception):
    """The image reached a state it cannot leave."""


class StackFailed(Exception):
    """A stack reached a FAILED state while another one was wanted."""


def _poll(check, *, what, describe=repr, disturbance=None, **kwargs):
    """polling.poll, with a TLS failure of check() named as one.

    With a disturbance, a transient failure of check() is "not yet"
    while its window is open (see tests/disturbance.py).
    """
    good = {'value': _NOTHING}

    def described(value):
        if not isinstance(value, _Transient):
            return describe(value)
        if good['value'] is _NOTHING:
            return str(value)
        return '%s; before that: %s' % (value, describe(good['value']))

    @functools.wraps(check)
    def checked():
        try:
            result = check()
        except Exception as exc:
            problem = probes.tls_problem(exc)
            if problem is not None:
                raise probes.TlsError('waiting for %s: TLS: %s' % (
                    what, problem))
            if disturbance is None:
                raise
            seen = (None if good['value'] is _NOTHING
                    else describe(good['value']))
            line = disturbance.absorb(what, exc, last_seen=seen)
            if line is None:
                raise
            return False, _Transient(line)
        if isinstance(result, tuple) and len(result) == 2:
            good['value'] = result[1]
        return result
    return polling.poll(checked, what=what, describe=described, **kwargs)


def _timeout_of(client, timeout):
    return client.build_timeout if timeout is None else timeout


def wait_for_image_status(client, image_id, status, *, timeout=None,
                          interval=0.5, disturbance=None):
    """Poll show_image until status; return the image body.

    timeout: the client's build_timeout unless given.
    """
    where = getattr(client, 'api_name', 'catalog image endpoint')

    def check():
        image = client.show_image(image_id)
        if image['status'] in _TERMINAL and image['status'] != status:
            raise ImageFailed('image %s went %s on %s while waiting for %s'
                              % (image_id, image['status'], where, status))
        return image['status'] == status, image

    return _poll(
        check, what='image %s %s through %s' % (image_id, status, where),
        timeout=_timeout_of(client, timeout), interval=interval,
        disturbance=disturbance,
        describe=lambda img: 'status %s' % (img or {}).get('status'))


def wait_for_image_deleted(client, image_id, *, timeout=None,
                           interval=0.5, disturbance=None):
    """Poll until show_image gives 404 (for cleanups).

    timeout: the client's build_timeout unless given.
    """
    def check():
        try:
            image = client.show_image(image_id)
        except lib_exc.NotFound:
            return True, 'gone'
        return image['status'] == 'deleted', 'status %s' % image['status']

    _poll(check, what='image %s deleted' % image_id,
          timeout=_timeout_of(client, timeout), interval=interval,
          describe=str,
          disturbance=disturbance)


def wait_for(check, *, what, timeout, interval=0.2, max_interval=None,
             disturbance=None):
    """Poll a (ready, seen) check; the seen value is shown on timeout."""
    return _poll(check, what=what, timeout=timeout,
                 interval=interval, max_interval=max_interval,
                 describe=str, disturbance=disturbance)


def _describe(stack):
    if stack is None:
        return 'gone (404)'
    return '%s (%s)' % (stack['stack_status'],
                        stack.get('stack_status_reason') or 'no reason')


def wait_for_stack(client, name, stack_id, *, wanted, gone_ok=False,
                   timeout=None, interval=None, disturbance=None):
    """Poll a stack until its status is wanted; return the stack.

    A FAILED status other than wanted raises StackFailed at once; with
    gone_ok a 404 counts as reached (a deleted stack may vanish).
    timeout and interval: the client's build_timeout and build_interval
    unless given.
    """
    def check():
        try:
            stack = client.show_stack(name, stack_id)['stack']
        except lib_exc.NotFound:
            if gone_ok:
                return True, None
            raise
        status = stack['stack_status']
        if status == wanted:
            return True, stack
        if status.endswith('_FAILED'):
            raise StackFailed('stack %s (%s): wanted %s, got %s' % (
                name, stack_id, wanted, _describe(stack)))
        return False, stack

    return _poll(
        check, timeout=_timeout_of(client, timeout),
        interval=client.build_interval if interval is None else interval,
        what='stack %s (%s) to be %s at %s' % (name, stack_id, wanted,
                                               client.base_url),
        describe=_describe, disturbance=disturbance)
