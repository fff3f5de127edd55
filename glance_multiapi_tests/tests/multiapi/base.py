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

"""Base class of the multi-API Glance checks.

``MultiApiTest`` learns the deployment once per class and offers the
image helpers every check uses (create, upload, hash, clean up through
the API that made the image), each API reached by the plugin's
registered images client bound to its URL; it records the deployment and
the catalog each class saw for the results map (``tests.recording``).
A finding that an API is missing, does not answer or is not in the
catalog ends with what the operator says of that API
(``operator_note``: its CRs' conditions that are not Ready).
The scenarios that change the cloud build on ``scenario_base``.
"""

import contextlib
import hashlib
import http.client
import io
import time

from oslo_log import log as logging
from tempest import config
from tempest.lib.common.utils import data_utils
from tempest.lib.common.utils import test_utils
from tempest.lib import exceptions as lib_exc
from urllib3 import exceptions as urllib3_exc

from glance_multiapi_kernel import imagedata
from glance_multiapi_kernel import redaction
from glance_multiapi_tests.multiapi import catalog
from glance_multiapi_tests.multiapi import discovery
from glance_multiapi_tests.multiapi import probes
from glance_multiapi_tests.services import image as image_services
from glance_multiapi_tests.tests import base
from glance_multiapi_tests.tests import waiters

CONF = config.CONF
LOG = redaction.logger(logging.getLogger(__name__))


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def image_stores(image):
    """The store ids of an image (glance gives a comma-separated string)."""
    return sorted(s.strip() for s in (image.get('stores') or '').split(',')
                  if s.strip())


def interface_of(api, client):
    """The interface of api whose URL client talks to ('unknown')."""
    url = (getattr(client, 'api_url', None) or '').rstrip('/')
    return next((interface for interface, found in sorted(
        api.endpoints.items()) if found.rstrip('/') == url), 'unknown')


def _causes(exc):
    """exc and every exception it was raised from or wraps, once each."""
    seen, todo = [], [exc]
    while todo and len(seen) < 20:
        item = todo.pop()
        if not isinstance(item, BaseException) or item in seen:
            continue
        seen.append(item)
        todo.extend([item.__cause__, item.__context__,
                     getattr(item, 'reason', None)] + list(item.args))
    return seen


def read_refusal(exc):
    """How a download was refused, from its exception; None if it hung.

    An HTTP answer of 400 or more, or a connection the API closed without
    answering: glance 33 does not catch the UnknownScheme of a location in
    a store it is not configured for (glance/api/v2/image_data.py
    download), and under uwsgi the request ends with no response at all;
    a proxy in front (httpd, a Route) turns that into a 5xx.
    :returns: text saying how, or None for a timeout or anything else.
    """
    status = getattr(getattr(exc, 'resp', None), 'status', None)
    if isinstance(exc, lib_exc.RestClientException) and status:
        return 'HTTP %s' % status if int(status) >= 400 else None
    causes = _causes(exc)
    if any(isinstance(c, (urllib3_exc.TimeoutError, TimeoutError))
           for c in causes):
        return None
    if any(isinstance(c, (http.client.RemoteDisconnected,
                          ConnectionResetError, urllib3_exc.ProtocolError))
           for c in causes):
        return 'connection closed without a response'
    return None


class MultiApiTest(base.BasePluginTest):
    """Learns the deployment and offers image helpers per API."""

    required_services = ('glance',)
    enabled_group = 'glance_multiapi'
    # NOTE: every class reads the Glance CR first; its failure fails them.
    result_setup_checks = ('glance',)

    @classmethod
    def skip_checks(cls):
        """Skip without Glance, when disabled, or with nothing to read."""
        super().skip_checks()
        if not cls.access.has_source():
            raise cls.skipException(
                '[glance_multiapi] sets none of kubernetes_api, '
                'discovery_command, api_names, so the Glance APIs are '
                'unknown')

    @classmethod
    def setup_clients(cls):
        """The catalog images client of the primary credentials."""
        super().setup_clients()
        cls.images_client = cls.os_primary.image_client_v2

    @classmethod
    def resource_setup(cls):
        """Learn the deployment (errors name the command and field)."""
        super().resource_setup()
        try:
            cls.deployment = cls.access.discover()
        except discovery.DiscoveryError as exc:
            # NOTE: an API without status.apiEndpoint keys is often one
            # the operator did not deploy, and its conditions say why.
            if exc.api is None:
                raise
            raise discovery.DiscoveryError(str(exc) + cls.operator_note(
                exc.api, one_line=True)) from None
        LOG.info('%s: deployment %s', cls.__name__,
                 cls.deployment.describe())
        cls.record_deployment(cls.deployment,
                              'discovered by %s' % cls.__name__)
        try:
            found = cls.fetch_catalog()
        except Exception as exc:  # noqa: B902 - the tests will say why
            LOG.warning('%s: the catalog could not be read for the '
                        'results map: %s', cls.__name__, exc)
        else:
            cls.record_catalog(found, cls.deployment,
                               'seen by %s' % cls.__name__, steady=True,
                               region=cls.region())

    @classmethod
    def result_elements(cls):
        """The map's element ids of the deployment this class learnt."""
        deployment = getattr(cls, 'deployment', None)
        if deployment is None:
            return None
        owner = deployment.apis.get(deployment.keystone_endpoint)
        ids = ['glance', 'keystone_endpoint', 'catalog']
        ids += ['catalog:%s' % i for i in cls.interfaces()
                if owner is not None and i in owner.endpoints]
        for name, api in sorted(deployment.apis.items()):
            ids.append('api:%s' % name)
            ids += ['endpoint:%s:%s' % (name, i)
                    for i in sorted(api.endpoints)]
            ids.append('store:%s' % name)
        return ids

    @classmethod
    def operator_note(cls, *apis, one_line=False):
        """What the operator's CRs say of apis that is not Ready, or ''.

        Appended to a finding about those APIs; never raises, and adds
        nothing when every CR read is Ready. The Glance CR is the one the
        class read last: a failure reads it no second time.
        """
        return cls.access.note(apis, one_line=one_line)

    @classmethod
    def region(cls):
        return CONF.image.region or CONF.identity.region or None

    @classmethod
    def interfaces(cls):
        return list(CONF.glance_multiapi.catalog_interfaces)

    @classmethod
    def fetch_catalog(cls, fresh=False):
        """The primary credentials' catalog; fresh=True takes a new token."""
        provider = cls.os_primary.auth_provider
        if fresh:
            provider.set_auth()
        auth_data = provider.get_auth()[1]
        if 'catalog' in auth_data:
            return auth_data['catalog']
        return catalog.from_v2(auth_data.get('serviceCatalog'))

    @classmethod
    def ssl_context(cls):
        """The trust of the probes: [identity]'s, as tempest's clients."""
        return probes.ssl_context(
            CONF.identity.ca_certificates_file,
            CONF.identity.disable_ssl_certificate_validation)

    @classmethod
    def api_client(cls, api):
        """An images client bound to the API's own URL.

        probe_api_interface is preferred; when its URL does not answer and
        another interface of the same API does, that one is used, so that
        an unreachable endpoint fails the probe test alone and the store
        checks still judge the stores. An API none of whose endpoints
        passes TLS fails here, the certificate problem named: its
        client would only fail later with a less readable error.
        """
        opts = CONF.glance_multiapi
        context = cls.ssl_context()
        tls_failures = []
        preferred = opts.probe_api_interface
        # NOTE: an edge API exposes only its internal endpoint (the DCN
        # layout), so the preferred interface may not exist at all.
        order = [i for i in [preferred] + sorted(set(api.endpoints))
                 if i in api.endpoints]
        order = sorted(set(order), key=order.index)
        if not order:
            raise cls.failureException(
                '%s has no endpoint to reach it by (%s)%s' % (
                    api.name, cls.deployment.describe(),
                    cls.operator_note(api.name)))
        for interface in order:
            failed = probes.failure(api.endpoints[interface],
                                    opts.probe_timeout, context)
            if failed is None:
                return cls.client_for(api, interface)
            why = '%s: %s' % (failed.stage, failed.error)
            if failed.stage == 'TLS':
                tls_failures.append('%s %s' % (api.endpoints[interface],
                                               why))
            LOG.warning('%s %s endpoint %s fails the probe (%s); trying '
                        'another interface', api.name, interface,
                        api.endpoints[interface], why)
        if tls_failures:
            raise cls.failureException(
                '%s: no endpoint passes TLS (trusting [identity] '
                'ca_certificates_file=%s): %s%s' % (
                    api.name, CONF.identity.ca_certificates_file or
                    'the system CAs', '; '.join(tls_failures),
                    cls.operator_note(api.name)))
        return cls.client_for(api, order[0])

    @classmethod
    def client_for(cls, api, interface):
        """The plugin's images client bound to api's URL on interface."""
        return cls.os_primary.glance_apis.FixedUrlImagesClient(
            api_url=api.url(interface), api_name=api.name)

    @classmethod
    def locations_client(cls, api, client):
        """Where an API reveals image locations: its internal endpoint.

        NOTE: the glance-operator sets show_image_direct_url and
        show_multiple_locations on internal, single and edge GlanceAPIs
        and hides both on a split API's external one
        (glanceapi_controller.go), so the public URL may hide them.
        """
        url = api.endpoints.get('internal')
        if url and url != getattr(client, 'api_url', None) and \
                probes.answers(url, CONF.glance_multiapi.probe_timeout,
                               cls.ssl_context())[0]:
            return cls.client_for(api, 'internal')
        return client

    def offered_stores(self, client):
        """The store ids an API serves, from its /v2/info/stores."""
        with self.fail_on_client_error(client, 'GET /v2/info/stores'):
            stores = client.info_stores().get('stores', [])
        return sorted(s['id'] for s in stores)

    def endpoint_of(self, client):
        """Text naming where a client sends requests, for messages."""
        if isinstance(client, image_services.FixedUrlImagesClient):
            return '%s (%s)' % (client.api_name, client.api_url)
        return 'the catalog image endpoint'

    @contextlib.contextmanager
    def fail_on_client_error(self, client, doing):
        """Turn a client error into a failure naming the API and action."""
        try:
            yield
        except lib_exc.RestClientException as exc:
            # NOTE: tempest's HTTP errors subclass AssertionError, so they
            # must be caught before the failures that pass through.
            self.fail('%s through %s failed: HTTP %s %s: %s%s' % (
                doing, self.endpoint_of(client),
                getattr(getattr(exc, 'resp', None), 'status', '?'),
                type(exc).__name__, exc.resp_body,
                self.operator_note(getattr(client, 'api_name', None))))
        except (self.failureException, self.skipException):
            raise
        except Exception as exc:
            self.fail('%s through %s failed: %s: %s%s' % (
                doing, self.endpoint_of(client), type(exc).__name__, exc,
                self.operator_note(getattr(client, 'api_name', None))))

    def image_data(self):
        return imagedata.raw(CONF.glance_multiapi.image_size)

    def create_image(self, client, name):
        """Create an image through client; it is deleted at cleanup."""
        image = client.create_image(
            name=data_utils.rand_name(prefix=CONF.resource_name_prefix,
                                      name=name),
            container_format='bare', disk_format='raw',
            visibility='private')
        self.addCleanup(self._cleanup_image, client, image['id'])
        return image

    def _cleanup_image(self, client, image_id):
        if image_id in self.__dict__.get('_deleted_images', ()):
            return
        test_utils.call_and_ignore_notfound_exc(client.delete_image,
                                                image_id)
        waiters.wait_for_image_deleted(
            client, image_id, timeout=CONF.glance_multiapi.image_timeout)

    def delete_image(self, client, image_id):
        """Delete now and wait, e.g. before the API that has it goes."""
        client.delete_image(image_id)
        waiters.wait_for_image_deleted(
            client, image_id, timeout=CONF.glance_multiapi.image_timeout)
        self.__dict__.setdefault('_deleted_images', set()).add(image_id)

    def upload_image(self, client, name, data):
        """Create, upload and wait active; return the active image.

        The seconds the upload itself (the PUT of the data) took are kept
        in self.upload_seconds[image id].
        """
        image = self.create_image(client, name)
        started = time.monotonic()
        client.store_image_file(image['id'], io.BytesIO(data))
        self.__dict__.setdefault('upload_seconds', {})[image['id']] = (
            time.monotonic() - started)
        return waiters.wait_for_image_status(
            client, image['id'], 'active',
            timeout=CONF.glance_multiapi.image_timeout)

    def download_sha256(self, client, image_id):
        return sha256(client.show_image_file(image_id).data)

    def assertRoundTrip(self, client, image_id, data):
        """The image downloads through client as the bytes uploaded."""
        got = self.download_sha256(client, image_id)
        self.assertEqual(
            sha256(data), got,
            'image %s downloaded through %s does not hash to the %d bytes '
            'uploaded (sha256 sent %s, got %s)' % (
                image_id, self.endpoint_of(client), len(data),
                sha256(data), got))
