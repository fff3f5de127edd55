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

"""keystoneauth's deadlock on a keystone that answers 401 to discovery.

An identity plugin fetches its token under a lock of its own (a plain
threading.Lock, ``BaseIdentityPlugin._lock``, in keystoneauth1 5.1.3 as
in 5.18). A generic plugin (what a clouds.yaml ``password`` auth gives)
first discovers the identity versions with a GET that carries no token;
when that GET answers 401, keystoneauth's ``get_version_data`` retries it
with ``authenticated=True``, which asks the same plugin for a token, in
the same thread, under the lock it already holds: the doctor and the
uploader then waited forever, on no socket a deadline could cut.

``guard`` gives the plugin a lock that knows its owner: the same thread
asking again is refused with keystoneauth's DiscoveryFailure naming the
URL, which keystoneauth itself handles as a failed discovery (it falls
back to the version in the URL's path, else says why it cannot).
Another thread still waits for the token as before.
"""

import threading


class OwnedLock(object):
    """A non-reentrant lock that refuses, not deadlocks, its own thread."""

    def __init__(self, refusal):
        self._lock = threading.Lock()
        self._owner = None
        self._refusal = refusal

    def acquire(self, blocking=True, timeout=-1):
        if self._owner == threading.get_ident():
            raise self._refusal()
        acquired = self._lock.acquire(blocking, timeout)
        if acquired:
            self._owner = threading.get_ident()
        return acquired

    def release(self):
        self._owner = None
        self._lock.release()

    def locked(self):
        return self._lock.locked()

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc_info):
        self.release()


def guard(auth, auth_url):
    """Give the identity plugin auth a lock that cannot deadlock; auth.

    A plugin without the lock (another library's, a later keystoneauth
    that dropped it) is left as it is.
    """
    if not isinstance(getattr(auth, '_lock', None),
                      type(threading.Lock())):
        return auth

    def refusal():
        from keystoneauth1 import exceptions
        return exceptions.DiscoveryFailure(
            'keystone %s answered 401 Unauthorized to its version '
            'discovery, a request that needs no token' % auth_url)
    auth._lock = OwnedLock(refusal)
    return auth
