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

import testtools

from tempest.lib import exceptions as lib_exc

from glance_multiapi_kernel import polling
from glance_multiapi_tests.tests import waiters


class _Client(object):
    """Plays back image states, then raises NotFound when they run out."""

    api_name = 'api1'

    def __init__(self, *states):
        self.states = list(states)

    def show_image(self, image_id):
        if not self.states:
            raise lib_exc.NotFound()
        state = self.states.pop(0) if len(self.states) > 1 else \
            self.states[0]
        return {'id': image_id, 'status': state}


class WaitersTest(testtools.TestCase):

    def test_reaches_status(self):
        image = waiters.wait_for_image_status(
            _Client('queued', 'saving', 'active'), 'img', 'active',
            timeout=5, interval=0.01)
        self.assertEqual('active', image['status'])

    def test_killed_fails_fast(self):
        exc = self.assertRaises(
            waiters.ImageFailed, waiters.wait_for_image_status,
            _Client('saving', 'killed'), 'img', 'active', timeout=30,
            interval=0.01)
        self.assertIn('image img went killed on api1', str(exc))

    def test_timeout_names_image_api_and_state(self):
        exc = self.assertRaises(
            polling.PollTimeout, waiters.wait_for_image_status,
            _Client('saving'), 'img', 'active', timeout=0.1,
            interval=0.02)
        self.assertIn('image img active through api1', str(exc))
        self.assertIn('last seen: status saving', str(exc))

    def test_deleted_on_not_found(self):
        client = _Client()
        waiters.wait_for_image_deleted(client, 'img', timeout=1,
                                       interval=0.01)
