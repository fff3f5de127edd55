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

"""Adding an API to spec.glanceAPIs and removing it again.

Two ways, by [glance_multiapi] grow_api_spec: given, the added API must
serve its own store (the uploads land there); unset, it copies what the
keystoneEndpoint API serves and stores in, so that it works on any
cluster, and it must only appear, answer and go away.
"""

import json
import time

from oslo_log import log as logging
from tempest import config
from tempest.lib import decorators
from tempest.lib import exceptions

from glance_multiapi_kernel import polling
from glance_multiapi_kernel import redaction
from glance_multiapi_tests.multiapi import catalog
from glance_multiapi_tests.multiapi import discovery
from glance_multiapi_tests.tests.multiapi import base
from glance_multiapi_tests.tests.multiapi import scenario_base
from glance_multiapi_tests.tests import option_values
from glance_multiapi_tests.tests import restoration
from glance_multiapi_tests.tests import waiters

CONF = config.CONF
LOG = redaction.logger(logging.getLogger(__name__))


# NOTE: what an API's spec says about what it serves and where it stores;
# its "override" (Service annotations often pinning LoadBalancer IPs) and
# "tls" (its own certificates) name that API's addresses and are not
# copied: a second API could not take them (glance-operator
# api/v1beta1/common_types.go GlanceAPITemplate).
COPIED_FIELDS = ('type', 'replicas', 'customServiceConfig',
                 'customServiceConfigSecrets', 'storage', 'resources',
                 'networkAttachments', 'nodeSelector', 'topologyRef',
                 'apiTimeout', 'imageCache')


def copied_spec(api):
    """The spec an added API copies from api (a discovery.Api)."""
    copied = {k: v for k, v in api.spec.items() if k in COPIED_FIELDS}
    # NOTE: the type must be given: an API's may be defaulted (split).
    copied['type'] = api.type
    return copied


def _given_spec(opts):
    """(spec, store) of [glance_multiapi] grow_api_spec."""
    try:
        spec = option_values.api_spec('glance_multiapi', 'grow_api_spec',
                                      opts.grow_api_spec)
    except option_values.OptionValueError as exc:
        raise exceptions.InvalidConfiguration(str(exc))
    store = opts.grow_api_store
    if not store:
        snippets = [('grow_api_spec customServiceConfig',
                     spec.get('customServiceConfig'))]
        try:
            store, _stores = discovery.backends(
                snippets, '[glance_multiapi] grow_api_spec', 'spec')
        except discovery.DiscoveryError as exc:
            raise exceptions.InvalidConfiguration(str(exc))
    if not store:
        raise exceptions.InvalidConfiguration(
            '[glance_multiapi] grow_api_spec names no default_backend and '
            'grow_api_store is unset: the store its uploads must land in '
            'is unknown')
    return spec, store


@decorators.serial
class GrowShrinkTest(restoration.DisruptiveTest,
                     scenario_base.MultiApiScenarioTest):
    """Adding and removing an API leaves the catalog alone."""

    result_checks = ('catalog',)

    @classmethod
    def skip_checks(cls):
        """Skip unless enabled and the added API can be discovered."""
        super().skip_checks()
        cls.skip_unless_opted_in('glance_multiapi', 'run_grow_shrink',
                                 'adds and removes an API in '
                                 'spec.glanceAPIs')
        if not cls.access.reads_glance:
            raise cls.skipException('grow/shrink needs [glance_multiapi] '
                                    'kubernetes_api or discovery_command '
                                    'to learn the added API\'s endpoints')

    @classmethod
    def resource_setup(cls):
        """Check the added API's name and spec before touching anything."""
        super().resource_setup()
        opts = CONF.glance_multiapi
        if opts.grow_api_name in cls.deployment.apis:
            raise exceptions.InvalidConfiguration(
                '[glance_multiapi] grow_api_name %r already exists: %s' % (
                    opts.grow_api_name, cls.deployment.describe()))
        if opts.grow_api_spec:
            cls.grow_spec, cls.grow_store = _given_spec(opts)
        else:
            cls.grow_spec = copied_spec(cls.deployment.keystone_api)
            cls.grow_store = None
        LOG.info('grow/shrink adds API %s: %s', opts.grow_api_name,
                 json.dumps(cls.grow_spec, sort_keys=True))

    def _discovered(self, name):
        def check():
            try:
                found = self.access.fetch(strict=True)
            except discovery.DiscoveryError as exc:
                found, seen = None, [str(exc)]
            else:
                api = found.apis.get(name)
                seen = [] if api else ['not in %s' % found.describe()]
            behind = self.generation_behind()
            if found is not None and not seen and behind is None:
                return True, api
            return False, '; '.join(seen + [behind] if behind else seen)

        return waiters.wait_for(
            check, what='API %s in the discovery output%s' % (
                name, self.OBSERVED),
            timeout=CONF.glance_multiapi.convergence_timeout,
            interval=CONF.glance_multiapi.convergence_interval)

    def _remove(self, name, api_holder):
        self.patch_spec({'glanceAPIs': {name: None}})
        if api_holder:
            self.wait_for_answers(api_holder[0], up=False)

    def _wait_removed(self, name):
        """Poll the Glance CR until name is gone from spec AND status.

        The glance-operator deletes a removed API's status.apiEndpoint
        keys (glance_controller.go glanceAPICleanup); keys left behind
        point discovery and tempestconf at an API that is gone.
        """
        keys = {'%s-public' % name, '%s-internal' % name}

        def check():
            try:
                found = self.access.fetch()
            except discovery.DiscoveryError as exc:
                return False, 'the Glance CR could not be read: %s' % exc
            left = sorted(keys & set(found.status_keys))
            behind = self.generation_behind()
            if name in found.apis or left or behind:
                return False, '%s; status.apiEndpoint still has %s%s' % (
                    'spec.glanceAPIs still has %s' % name
                    if name in found.apis else 'gone from spec.glanceAPIs',
                    ', '.join(left) or 'none of its keys',
                    '; %s' % behind if behind else '')
            return True, found

        return waiters.wait_for(
            check, what='API %s to leave the Glance CR (spec.glanceAPIs '
            'and its status.apiEndpoint keys %s)%s' % (
                name, ', '.join(sorted(keys)), self.OBSERVED),
            timeout=CONF.glance_multiapi.convergence_timeout,
            interval=CONF.glance_multiapi.convergence_interval)

    def _assert_catalog_unchanged(self, before, when):
        """Fail unless the catalog is before and the fresh status's.

        Exactly the keystoneEndpoint API's URLs as the Glance CR gives
        them now, and the same endpoints as before.
        """
        fresh = self.rediscover()
        problems, found = self.catalog_problems(fresh.keystone_endpoint,
                                                fresh)
        after = catalog.snapshot(found, self.region())
        self.record_catalog(found, fresh, when, test=self.id(),
                            steady=when.startswith('before'),
                            region=self.region())
        if problems or after != before:
            self.fail('the catalog changed %s: %s\nnow: %s\nbefore: %s\n'
                      'status.apiEndpoint of %s now: %s' % (
                          when, '; '.join(problems) or 'different endpoints',
                          catalog.summary(found, self.region()),
                          sorted(before), fresh.keystone_endpoint,
                          fresh.keystone_api.endpoints))

    @decorators.attr(type='slow')
    @decorators.attr(type='disruptive')
    @decorators.idempotent_id('809a6c7c-4b90-4eae-9a13-9d6b31e3fb2f')
    def test_add_and_remove_api(self):
        """Add an API: it answers (and serves its store); remove it.

        After each patch the Glance CR is re-read: the catalog must still
        be exactly the keystoneEndpoint API's URLs of the fresh status,
        and a removed API's status.apiEndpoint keys must be gone.
        """
        opts = CONF.glance_multiapi
        name = opts.grow_api_name
        before = catalog.snapshot(self.fetch_catalog(fresh=True),
                                  self.region())
        with self.checking('catalog'):
            self._assert_catalog_unchanged(before, 'before anything was '
                                           'patched')
        api_holder = []
        # NOTE: guarded first so it runs last, after the image made
        # through the added API is deleted through that same API; a
        # SIGTERM removes the API at once.
        removal = {'glanceAPIs': {name: None}}
        self.guard('the addition of API %s to spec.glanceAPIs' % name,
                   lambda: self._remove(name, api_holder),
                   lambda: self.access.manual_patch(removal))
        with self.checking('api:%s' % name):
            api = self._grow(name, api_holder)
        with self.checking('catalog'):
            self._assert_catalog_unchanged(before, 'after adding %s' % name)
        with self.checking('api:%s' % name):
            self._shrink(name, api)
        with self.checking('catalog'):
            self._assert_catalog_unchanged(before,
                                           'after removing %s' % name)

    def _grow(self, name, api_holder):
        """Add the API; it answers and serves its own store (figure)."""
        started = time.monotonic()
        self.patch_spec({'glanceAPIs': {name: self.grow_spec}})
        api = self._discovered(name)
        api_holder.append(api)
        self.wait_for_answers(api, up=True)
        answered = time.monotonic() - started
        self.record_deployment(
            discovery.Deployment(apis={name: api}, keystone_endpoint=None,
                                 source=self.deployment.source),
            'added by the grow/shrink scenario', added=True, test=self.id())
        over_bound = self.record_figure('grow_answer_seconds', answered,
                                        api=name)
        self._grown_client = self._grown_image = None
        if self.grow_store is None:
            # NOTE: a copy serves the stores of the API it copies; where
            # its uploads land says nothing of its own.
            self.assertWithinBounds(over_bound)
            return api
        client = self.api_client(api)
        data = self.image_data()
        with self.fail_on_client_error(client, 'uploading an image'):
            image = self.upload_image(client, 'grown-%s' % name, data)
        self.assertEqual(
            [self.grow_store], base.image_stores(image),
            'image %s uploaded through added API %s landed in store(s) %r; '
            'expected %s' % (image['id'], self.endpoint_of(client),
                             image.get('stores'), self.grow_store))
        with self.fail_on_client_error(client, 'downloading the image'):
            self.assertRoundTrip(client, image['id'], data)
        self.assertWithinBounds(over_bound)
        self._grown_client, self._grown_image = client, image
        return api

    def _shrink(self, name, api):
        """Remove the API: it leaves the Glance CR, stops (figure)."""
        if self._grown_image is not None:
            with self.fail_on_client_error(self._grown_client,
                                           'deleting the image'):
                self.delete_image(self._grown_client,
                                  self._grown_image['id'])
        started = time.monotonic()
        self.patch_spec({'glanceAPIs': {name: None}})
        try:
            self._wait_removed(name)
        except polling.PollTimeout as exc:
            self.fail('after removing %s: %s' % (name, exc))
        self.wait_for_answers(api, up=False)
        self.assertWithinBounds(self.record_figure(
            'shrink_gone_seconds', time.monotonic() - started, api=name))
