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

"""Reading image endpoints out of a keystone v3 catalog and judging them.

URLs are compared normalised (scheme and host lower-cased, default port
made explicit, trailing slash dropped), so ``http://H:80/`` and
``http://h`` are the same endpoint.
"""

import urllib.parse

IMAGE_TYPE = 'image'


def normalise_url(url):
    """A comparable form of an endpoint URL."""
    parts = urllib.parse.urlsplit((url or '').strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or '').lower()
    if ':' in host:
        host = '[%s]' % host
    try:
        port = parts.port
    except ValueError:
        port = None
    port = port or {'http': 80, 'https': 443}.get(scheme)
    path = parts.path.rstrip('/')
    return '%s://%s:%s%s' % (scheme, host, port, path)


def image_services(catalog, service_type=IMAGE_TYPE):
    """The catalog's services of the image type."""
    return [svc for svc in catalog or [] if svc.get('type') == service_type]


def endpoints_by_interface(service, region=None):
    """{interface: [url, ...]} of one service, optionally one region."""
    found = {}
    for endpoint in service.get('endpoints') or []:
        if region and endpoint.get('region') not in (None, region):
            continue
        found.setdefault(endpoint.get('interface'), []).append(
            endpoint.get('url'))
    return found


def describe_service(service):
    return '%s (id %s)' % (service.get('name') or 'unnamed',
                           service.get('id') or '?')


def owner_index(deployment):
    """{normalised URL: (api name, interface)} of every known endpoint."""
    index = {}
    for api in deployment.apis.values():
        for interface, url in api.endpoints.items():
            index[normalise_url(url)] = (api.name, interface)
    return index


def owner_of(url, deployment):
    """Name of the API whose endpoint url is, or None."""
    found = owner_index(deployment).get(normalise_url(url))
    return found[0] if found else None


def ownership_problems(catalog, deployment, interfaces, region=None,
                       service_type=IMAGE_TYPE):
    """Everything wrong with the catalog's image services, as sentences.

    The catalog must hold exactly one image service, whose endpoint on each
    interface is the keystoneEndpoint API's, and no endpoint of any other
    API (an edge API's least of all). An empty list means all is well.
    """
    owner = deployment.keystone_api
    index = owner_index(deployment)
    services = image_services(catalog, service_type)
    problems = []
    if len(services) != 1:
        problems.append(
            'the catalog holds %d services of type %r (%s); expected '
            'exactly one, owned by %s (keystoneEndpoint)' % (
                len(services), service_type,
                ', '.join(describe_service(s) for s in services) or 'none',
                owner.name))
    for service in services:
        urls = endpoints_by_interface(service, region)
        for interface in interfaces:
            expected = owner.endpoints.get(interface)
            got = urls.get(interface, [])
            if expected is None:
                continue
            if not got:
                problems.append(
                    'service %s has no %s endpoint%s; expected %s\'s %s' % (
                        describe_service(service), interface,
                        ' in region %s' % region if region else '',
                        owner.name, expected))
                continue
            for url in got:
                if normalise_url(url) == normalise_url(expected):
                    continue
                api_name, api_interface = index.get(normalise_url(url),
                                                    (None, None))
                if api_name and deployment.apis[api_name].is_edge:
                    continue  # reported below, as an edge API
                if api_name is None:
                    whose = 'no known API\'s endpoint'
                else:
                    whose = '%s\'s %s endpoint' % (api_name, api_interface)
                problems.append(
                    'service %s %s endpoint is %s, %s; expected %s\'s %s '
                    '(keystoneEndpoint is %s)' % (
                        describe_service(service), interface, url, whose,
                        owner.name, expected, owner.name))
        for interface, got in sorted(urls.items()):
            for url in got:
                api_name, _ = index.get(normalise_url(url), (None, None))
                if api_name is None or api_name == owner.name:
                    continue
                api = deployment.apis[api_name]
                if api.is_edge:
                    problems.append(
                        'edge API %s appears in the catalog (service %s, '
                        '%s endpoint %s); edge APIs are never registered' %
                        (api_name, describe_service(service), interface,
                         url))
                elif interface not in interfaces:
                    problems.append(
                        'API %s appears in the catalog (service %s, %s '
                        'endpoint %s) but keystoneEndpoint is %s' % (
                            api_name, describe_service(service), interface,
                            url, owner.name))
    return problems


def image_targets(catalog, deployment, interfaces, region=None,
                  service_type=IMAGE_TYPE):
    """(owner label, interface, url) of every catalog image endpoint."""
    targets = []
    for service in image_services(catalog, service_type):
        for interface, urls in sorted(
                endpoints_by_interface(service, region).items()):
            if interface not in interfaces:
                continue
            for url in urls:
                owner = owner_of(url, deployment)
                label = 'catalog(%s%s)' % (
                    service.get('name') or 'image',
                    ', ' + owner if owner else '')
                targets.append((label, interface, url))
    return targets


def summary(catalog, region=None, service_type=IMAGE_TYPE):
    """A short text of the catalog's image services, for messages."""
    parts = []
    for service in image_services(catalog, service_type):
        urls = endpoints_by_interface(service, region)
        parts.append('%s: %s' % (describe_service(service), ', '.join(
            '%s=%s' % (i, ' '.join(u)) for i, u in sorted(urls.items()))))
    return '; '.join(parts) or 'no image service'


def snapshot(catalog, region=None, service_type=IMAGE_TYPE):
    """A comparable set of (type, interface, normalised URL) entries."""
    return frozenset(
        (service_type, interface, normalise_url(url))
        for service in image_services(catalog, service_type)
        for interface, urls in endpoints_by_interface(service,
                                                      region).items()
        for url in urls)


def from_v2(entries):
    """A keystone v2 catalog in the v3 shape, so one judge reads both."""
    # NOTE: keystone v2 lists publicURL/internalURL per region.
    services = []
    for entry in entries or []:
        endpoints = []
        for ep in entry.get('endpoints', []):
            for interface in ('public', 'internal', 'admin'):
                if ep.get(interface + 'URL'):
                    endpoints.append({'interface': interface,
                                      'region': ep.get('region'),
                                      'url': ep[interface + 'URL']})
        services.append({'type': entry.get('type'),
                         'name': entry.get('name'),
                         'id': entry.get('id'), 'endpoints': endpoints})
    return services


def interface_urls(catalog, interface, region=None, service_type=IMAGE_TYPE):
    """Every URL of one interface over the catalog's image services."""
    return [url for service in image_services(catalog, service_type)
            for url in endpoints_by_interface(service, region).get(
                interface, [])]


def interface_verdict(catalog, api, interface, deployment, region=None):
    """(matches, text): is the interface's catalog entry exactly api's URL?

    matches is None when api has no endpoint on that interface.
    """
    expected = api.endpoints.get(interface)
    if expected is None:
        return None, '%s has no %s endpoint' % (api.name, interface)
    urls = interface_urls(catalog, interface, region)
    if len(urls) == 1 and normalise_url(urls[0]) == normalise_url(expected):
        return True, 'catalog %s entry is %s, %s\'s' % (interface, urls[0],
                                                        api.name)
    if not urls:
        return False, 'no %s image entry in the catalog; expected %s\'s %s' \
            % (interface, api.name, expected)
    seen = ', '.join('%s (%s)' % (url, owner_of(url, deployment) or
                                  'no known API\'s') for url in urls)
    return False, 'catalog %s entry is %s; expected %s\'s %s' % (
        interface, seen, api.name, expected)
