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

"""Waiters of the multi-API checks, all built on polling.poll.

Tempest's own waiters are not a stable plugin interface; these fail fast on
a terminal state and time out with a message naming the image, the API,
the wanted and last seen state and how long they waited.
"""

from tempest.lib import exceptions as lib_exc

from glance_multiapi_tests.common import polling

# NOTE: glance never leaves these states on its own, so waiting on is
# pointless.
_TERMINAL = ('killed', 'deleted', 'deactivated')


class ImageFailed(Exception):
    """The image reached a state it cannot leave."""


def wait_for_image_status(client, image_id, status, *, timeout,
                          interval=0.5):
    """Poll show_image until status; return the image body."""
    where = getattr(client, 'api_name', 'catalog image endpoint')

    def check():
        image = client.show_image(image_id)
        if image['status'] in _TERMINAL and image['status'] != status:
            raise ImageFailed('image %s went %s on %s while waiting for %s'
                              % (image_id, image['status'], where, status))
        return image['status'] == status, image

    return polling.poll(
        check, what='image %s %s through %s' % (image_id, status, where),
        timeout=timeout, interval=interval,
        describe=lambda img: 'status %s' % (img or {}).get('status'))


def wait_for_image_deleted(client, image_id, *, timeout, interval=0.5):
    """Poll until show_image gives 404 (for cleanups)."""
    def check():
        try:
            image = client.show_image(image_id)
        except lib_exc.NotFound:
            return True, 'gone'
        return image['status'] == 'deleted', 'status %s' % image['status']

    polling.poll(check, what='image %s deleted' % image_id,
                 timeout=timeout, interval=interval, describe=str)


def wait_for(check, *, what, timeout, interval):
    """Poll a (ready, seen) check; the seen value is shown on timeout."""
    return polling.poll(check, what=what, timeout=timeout,
                        interval=interval, describe=str)
