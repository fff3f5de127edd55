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

import time

from oslo_log import log as logging
from tempest import config
from tempest import exceptions
from tempest.lib import decorators
import testtools

from glance_multiapi_kernel import redaction
from glance_multiapi_tests.tests.multiapi import base
from glance_multiapi_tests.tests.multiapi import scenario_base
from glance_multiapi_tests.tests import restoration

CONF = config.CONF
LOG = redaction.logger(logging.getLogger(__name__))


@decorators.serial
class KeystoneEndpointSwitchoverTest(
        restoration.DisruptiveTest,
        scenario_base.MultiApiScenarioTest):
    """Moving the catalog to another API moves where uploads land."""

    result_checks = ('keystone_endpoint', 'catalog:*')

    @classmethod
    def skip_checks(cls):
        """Skip unless the switchover is enabled."""
        super().skip_checks()
        cls.skip_unless_opted_in(
            'glance_multiapi', 'run_switchover',
            'patches keystoneEndpoint (every user\'s image endpoint moves)')

    @classmethod
    def resource_setup(cls):
        """Pick the API to switch to (skip with fewer than two)."""
        super().resource_setup()
        deployment = cls.deployment
        wanted = CONF.glance_multiapi.switchover_target
        if wanted:
            api = deployment.apis.get(wanted)
            if api is None or api.is_edge or (
                    wanted == deployment.keystone_endpoint):
                raise exceptions.InvalidConfiguration(
                    '[glance_multiapi] switchover_target %r must name a '
                    'non-edge API other than keystoneEndpoint %s; APIs: %s'
                    % (wanted, deployment.keystone_endpoint,
                       deployment.describe()))
            cls.target = api
            return
        others = [api for api in deployment.non_edge()
                  if api.name != deployment.keystone_endpoint]
        if not others:
            raise cls.skipException('the switchover needs two non-edge '
                                    'APIs; %s' % deployment.describe())
        cls.target = others[0]

    def _restore(self, original, switched_from):
        LOG.info('restoring keystoneEndpoint %s', original)
        started = time.monotonic()
        self.patch_spec({'keystoneEndpoint': original})
        # NOTE: its figures are recorded, never bounded or judged: a slow
        # restore in a cleanup is not what this test checks.
        took, _fresh, _ = self.wait_for_catalog_owner(
            original, since=started, switched_from=switched_from,
            judge=False)
        LOG.info('catalog back on %s after %.1f s', original, took)

    def _restore_by_hand(self, original):
        return self.access.manual_patch({'keystoneEndpoint': original})

    @staticmethod
    def _moves(before, after):
        """Which API URLs changed, e.g. 'api0 public: R0 -> S0'."""
        lines = []
        for name, api in sorted(after.apis.items()):
            old = before.apis.get(name)
            for interface, url in sorted(api.endpoints.items()):
                was = old.endpoints.get(interface) if old else None
                if was != url:
                    lines.append('%s %s: %s -> %s' % (name, interface, was,
                                                      url))
        return '\n'.join(lines) or 'no URL moved'

    @decorators.attr(type='slow')
    @decorators.attr(type='disruptive')
    @decorators.idempotent_id('e94a2746-b258-4dd7-8a70-b58408735d4b')
    def test_switch_keystone_endpoint(self):
        """Patch keystoneEndpoint; catalog, uploads and old images follow.

        The catalog is judged against the Glance CR re-read after the
        patch: on OpenShift the public URL moves with the Route. The
        pre-switch image is downloaded through the new owner when it has
        that image's store. Each interface's convergence is a figure,
        held to [glance_multiapi] max_switchover_seconds when set.
        """
        with self.checking('keystone_endpoint'):
            self._switch()

    def _switch(self):
        before = self.rediscover()
        original = before.keystone_endpoint
        target = self.target
        problems, _ = self.catalog_problems(original, before)
        if problems:
            self.fail('the catalog is wrong before any switch, so the '
                      'switchover cannot be judged:\n%s' %
                      '\n'.join(problems))
        before_data = self.image_data()
        with self.fail_on_client_error(self.images_client,
                                       'uploading before the switch'):
            before_image = self.upload_image(self.images_client,
                                             'pre-switch', before_data)
        # NOTE: guarded before the patch, so that a failing patch or wait,
        # a timeout or a SIGTERM still puts the original API back.
        change = 'the switch of keystoneEndpoint from %s to %s' % (
            original, target.name)
        self.guard(change, lambda: self._restore(original, target.name),
                   lambda: self._restore_by_hand(original))
        started = time.monotonic()
        self.patch_spec({'keystoneEndpoint': target.name})
        took, after, over_bounds = self.wait_for_catalog_owner(
            target.name, since=started, switched_from=original)
        LOG.info('catalog moved from %s to %s in %.1f s', original,
                 target.name, took)
        self.addDetail('convergence', testtools.content.text_content(
            '%s -> %s: %.1f s\n%s' % (
                original, target.name, took, self._moves(before, after))))
        self.assertWithinBounds(*over_bounds)
        target = after.apis[target.name]
        data = self.image_data()
        with self.checking('store:%s' % target.name):
            with self.fail_on_client_error(self.images_client,
                                           'uploading after the switch'):
                image = self.upload_image(self.images_client, 'post-switch',
                                          data)
            self.assertEqual(
                [target.default_store], base.image_stores(image),
                'after switching keystoneEndpoint %s -> %s, image %s '
                'uploaded through the catalog landed in store(s) %r; '
                'expected %s, the default store of %s' % (
                    original, target.name, image['id'],
                    image.get('stores'), target.default_store,
                    target.name))
        old_stores = set(base.image_stores(before_image))
        if target.stores and not old_stores & set(target.stores):
            # NOTE: one cluster per API: the new owner cannot have the
            # bytes; test_image_readable_exactly_where_api_has_store
            # judges that refusal.
            LOG.info('pre-switch image %s is in %s, which %s lacks (it has '
                     '%s): not downloaded through the catalog',
                     before_image['id'],
                     ', '.join(sorted(old_stores)), target.name,
                     ', '.join(target.stores))
            return
        with self.fail_on_client_error(self.images_client,
                                       'downloading the pre-switch image'):
            self.assertRoundTrip(self.images_client, before_image['id'],
                                 before_data)
