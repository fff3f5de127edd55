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

"""An images client bound to one Glance API's URL instead of the catalog.

Tempest's clients find their endpoint in the keystone catalog, which holds
one API at most; the placement checks must talk to every API. This client
keeps tempest's ImagesClient methods and authenticates with the same
credentials' token, but sends every request to a fixed base URL. The
plugin registers it with tempest (plugin.get_service_clients), so a test
gets one as ``cls.os_primary.glance_apis.FixedUrlImagesClient(
api_url=..., api_name=...)``, with tempest's TLS, timeout and tracing
settings.
"""

from tempest.lib.services.image.v2 import images_client

from glance_multiapi_tests.services import error_bodies


class FixedUrlImagesClient(error_bodies.ReadableErrors,
                           images_client.ImagesClient):
    """ImagesClient that talks to one API URL, whatever the catalog says.

    An error body tempest cannot read raises a tempest error naming the
    API, status and body (error_bodies), not a KeyError. service, region
    and endpoint_type are accepted as every tempest client accepts them,
    and unused: they choose a catalog entry.
    """

    def __init__(self, auth_provider, service, region, *, api_url,
                 api_name, **kwargs):
        super().__init__(auth_provider, service, region, **kwargs)
        self.api_url = api_url.rstrip('/')
        self.api_name = api_name

    @property
    def base_url(self):
        return '%s/%s' % (self.api_url, self.api_version)

    def error_service_name(self):
        return 'Glance API %s' % self.api_name

    def __str__(self):
        return 'images client of %s at %s' % (self.api_name, self.api_url)

    def _request(self, method, url, headers=None, body=None, chunked=False):
        # NOTE: same as RestClient._request minus the catalog lookup: the
        # token still comes from the auth provider, the URL does not.
        req_headers = dict(headers or {})
        req_headers['X-Auth-Token'] = self.auth_provider.get_token()
        req_url = '%s/%s' % (self.base_url, url.lstrip('/'))
        resp, resp_body = self.raw_request(req_url, method,
                                           headers=req_headers, body=body,
                                           chunked=chunked)
        self.response_checker(method, resp, resp_body)
        return resp, resp_body
