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

"""What the multi-API Glance deployment looks like. Pure: no I/O.

Two sources: explicit ``[glance_multiapi]`` options and a Glance CR, as
the deployment access layer (glance_multiapi_tests/deployment_access.py)
read it, through the Kubernetes API or as the JSON ``discovery_command``
prints (``load_cr``). ``parse_cr`` turns the CR into a Deployment,
whichever way it was read, so both fail alike; ``discover`` lets every
explicit option win over it.
"""

import dataclasses

from glance_multiapi_kernel import documents
from glance_multiapi_kernel import errors
from glance_multiapi_kernel import glance_cr
from glance_multiapi_kernel import kube
from glance_multiapi_kernel import values


class DiscoveryError(errors.OneLineError):
    """The deployment could not be learnt; the message names the source.

    ``api`` names the API a missing status.apiEndpoint key is of (what
    the operator's conditions may explain), else None.
    """

    api = None


@dataclasses.dataclass(frozen=True)
class Api:
    """One Glance API: its name, type, URL per interface, default store."""

    name: str
    type: str = glance_cr.DEFAULT_TYPE
    endpoints: dict = dataclasses.field(default_factory=dict)
    default_store: str = None
    # NOTE: the enabled_backends of its customServiceConfig, () when only
    # [glance_multiapi] options describe it (then unknown).
    stores: tuple = ()
    # NOTE: what the Glance CR says, for the results map; None and {}
    # when options describe the API.
    replicas: int = None
    store_types: dict = dataclasses.field(default_factory=dict)
    # NOTE: its spec.glanceAPIs entry as read, {} when options describe
    # it; the grow/shrink scenario copies from it.
    spec: dict = dataclasses.field(default_factory=dict, compare=False)

    @property
    def is_edge(self):
        return not glance_cr.in_catalog_possible(self.type)

    def url(self, preferred='public'):
        """The URL on the preferred interface, else any it has."""
        if preferred in self.endpoints:
            return self.endpoints[preferred]
        for interface in ('public', 'internal'):
            if interface in self.endpoints:
                return self.endpoints[interface]
        return None


@dataclasses.dataclass(frozen=True)
class Deployment:
    """The APIs of one Glance and which of them the catalog must hold."""

    apis: dict
    keystone_endpoint: str
    source: str
    # NOTE: every key of status.apiEndpoint, those of APIs no longer in
    # the spec too: a removed API's keys must go (glanceAPICleanup).
    status_keys: tuple = ()
    # NOTE: metadata of the Glance CR read, for the results map.
    namespace: str = None
    name: str = None

    @property
    def keystone_api(self):
        return self.apis[self.keystone_endpoint]

    def non_edge(self):
        return [api for api in self.apis.values() if not api.is_edge]

    def describe(self):
        return '%s (keystoneEndpoint %s; APIs %s)' % (
            self.source, self.keystone_endpoint, ', '.join(
                '%s[%s]' % (api.name, api.type)
                for api in self.apis.values()))


def _field_error(source, field, problem):
    return DiscoveryError('%s: %s: %s' % (source, field, problem))


def check_url(url, source, field):
    """Return url if it is an absolute http(s) URL, else DiscoveryError."""
    if not isinstance(url, str):
        raise _field_error(source, field, 'expected a URL string, got %s'
                           % documents.short(repr(url)))
    # NOTE: values.url_problem also refuses a NUL or a line break and an
    # unclosed "[" (urlsplit's ValueError), naming the field.
    problem = values.url_problem(url.strip())
    if problem:
        raise _field_error(source, field, problem)
    return url.strip()


def backends(snippets, source, field):
    """(default_backend, (enabled backends, the default among them)).

    The operator gives an API its own customServiceConfig when set, else
    the Glance one, never both (glance_cr.effective_config).
    """
    try:
        default, stores = glance_cr.backends(snippets)
    except glance_cr.ConfigError as exc:
        raise _field_error(source, exc.field, exc.problem)
    if default and default not in stores:
        stores.append(default)
    return default, tuple(stores)


def _mapping(value, source, field):
    if not isinstance(value, dict):
        raise _field_error(source, field, 'expected a mapping, got %s' %
                           type(value).__name__)
    return value


def load_cr(text, source):
    """The JSON document a command printed (DiscoveryError naming it)."""
    try:
        return documents.load_json(text or '')
    except documents.DocumentError as exc:
        first = (text or '').strip().splitlines()[:1]
        raise DiscoveryError('%s: output is not JSON (%s); it starts with '
                             '%r' % (source, exc, first[0][:80] if first
                                     else '')) from None


def parse_cr(doc, source, strict=True):
    """The Deployment a Glance CR (a dict, as read) describes.

    :param source: names where the CR was read, for error messages
        (e.g. "discovery command 'oc get glance glance -o json'").
    :param strict: when False, an API whose status.apiEndpoint entries are
        still missing is kept without them instead of refused, which is
        what a waiter needs while an added API comes up.
    :raises DiscoveryError: naming source and the offending field.
    """
    _mapping(doc, source, 'document')
    spec = _mapping(doc.get('spec'), source, 'spec')
    apis_spec = _mapping(spec.get('glanceAPIs'), source, 'spec.glanceAPIs')
    if not apis_spec:
        raise _field_error(source, 'spec.glanceAPIs', 'no API is defined')
    status = doc.get('status') or {}
    _mapping(status, source, 'status')
    endpoints = _mapping(status.get('apiEndpoint') or {}, source,
                         'status.apiEndpoint')
    apis = {}
    for name in sorted(apis_spec):
        field = 'spec.glanceAPIs.%s' % name
        api_spec = _mapping(apis_spec[name] or {}, source, field)
        api_type = api_spec.get('type') or glance_cr.DEFAULT_TYPE
        if api_type not in glance_cr.API_TYPES:
            raise _field_error(source, field + '.type', '%s is not one of '
                               '%s' % (documents.short(repr(api_type)),
                                       ', '.join(glance_cr.API_TYPES)))
        urls = {}
        for interface in glance_cr.interfaces(api_type):
            key = '%s-%s' % (name, interface)
            if key in endpoints:
                urls[interface] = check_url(
                    endpoints[key], source, 'status.apiEndpoint.%s' % key)
            elif strict:
                error = _field_error(
                    source, 'status.apiEndpoint.%s' % key,
                    'missing: API %s of type %s must expose a %s endpoint '
                    '(present keys: %s)' % (
                        name, api_type, interface,
                        documents.short(', '.join(sorted(endpoints)), 300)
                        or 'none'))
                error.api = name
                raise error
        snippets = [
            ('spec.customServiceConfig', spec.get('customServiceConfig')),
            (field + '.customServiceConfig',
             api_spec.get('customServiceConfig'))]
        store, stores = backends(snippets, source, field)
        replicas = api_spec.get('replicas')
        apis[name] = Api(name=name, type=api_type, endpoints=urls,
                         default_store=store, stores=stores,
                         replicas=replicas if isinstance(replicas, int)
                         else None,
                         store_types=glance_cr.backend_types(snippets),
                         spec=dict(api_spec))
    keystone_endpoint = spec.get('keystoneEndpoint')
    if keystone_endpoint is None:
        keystone_endpoint = glance_cr.default_keystone_endpoint(
            _types(apis))
        if keystone_endpoint is None:
            raise _field_error(source, 'spec.keystoneEndpoint',
                               'missing, and the webhook defaults it only '
                               'when spec.glanceAPIs has exactly one API')
    namespace = kube.metadata(doc).get('namespace')
    deployment = Deployment(apis=apis, keystone_endpoint=keystone_endpoint,
                            source=source,
                            status_keys=tuple(sorted(endpoints)),
                            namespace=namespace if isinstance(
                                namespace, str) else None,
                            name=kube.name_of(doc))
    validate(deployment, 'spec.keystoneEndpoint')
    return deployment


def _types(apis):
    return {name: api.type for name, api in apis.items()}


def validate(deployment, keystone_field):
    """Refuse a Deployment whose keystoneEndpoint is unknown or edge."""
    name = deployment.keystone_endpoint
    problem = glance_cr.keystone_endpoint_problem(
        name, _types(deployment.apis))
    if problem == glance_cr.UNKNOWN_API:
        raise _field_error(deployment.source, keystone_field,
                           '%s names no API (APIs: %s)' % (
                               documents.short(repr(name)), documents.short(
                                   ', '.join(sorted(deployment.apis)), 300)))
    if problem == glance_cr.EDGE_API:
        raise _field_error(deployment.source, keystone_field,
                           '%s is an edge API, which is never in the '
                           'catalog' % repr(name))
    return deployment


def _unknown_keys(mapping, names, source, option):
    unknown = sorted(set(mapping) - set(names))
    if unknown:
        raise _field_error(source, option, 'names unknown API(s) %s; known '
                           'APIs: %s' % (', '.join(unknown),
                                         ', '.join(sorted(names)) or 'none'))


def apply_options(base, opts):
    """Overlay explicit [glance_multiapi] options on a Deployment.

    :param base: the discovered Deployment, or None without a command.
    :param opts: the option group (anything with the option attributes).
    """
    source = '[glance_multiapi]'
    if base is not None:
        source = '%s with %s overrides' % (base.source, source)
    apis = dict(base.apis) if base else {}
    if opts.api_names:
        apis = {name: apis.get(name, Api(name=name))
                for name in opts.api_names}
    names = list(apis)
    for option in ('api_types', 'public_endpoints', 'internal_endpoints',
                   'default_stores'):
        _unknown_keys(getattr(opts, option) or {}, names, source,
                      option)
    for name, api in list(apis.items()):
        api_type = (opts.api_types or {}).get(name, api.type)
        if api_type not in glance_cr.API_TYPES:
            raise _field_error(source, 'api_types', '%s: %r is not one of '
                               '%s' % (name, api_type,
                                       ', '.join(glance_cr.API_TYPES)))
        urls = dict(api.endpoints)
        for interface in ('public', 'internal'):
            given = (getattr(opts, interface + '_endpoints') or {}).get(name)
            if given:
                urls[interface] = check_url(
                    given, source, '%s_endpoints.%s' % (interface, name))
        if not urls:
            raise _field_error(source, 'public_endpoints', 'API %s has no '
                               'endpoint: set public_endpoints or '
                               'internal_endpoints for it, or read the '
                               'Glance CR (kubernetes_api or '
                               'discovery_command)' % name)
        store = (opts.default_stores or {}).get(name, api.default_store)
        apis[name] = Api(name=name, type=api_type, endpoints=urls,
                         default_store=store, stores=api.stores,
                         replicas=api.replicas, store_types=api.store_types)
    if not apis:
        raise DiscoveryError('%s: no API known: set kubernetes_api, '
                             'discovery_command or api_names' % source)
    keystone_endpoint = opts.keystone_endpoint or (
        base.keystone_endpoint if base else None)
    if keystone_endpoint is None:
        keystone_endpoint = glance_cr.default_keystone_endpoint(
            _types(apis))
        if keystone_endpoint is None:
            raise _field_error(source, 'keystone_endpoint', 'unset, and '
                               'it defaults (as the webhook does) only to '
                               'the one API of a deployment with exactly one')
    return validate(Deployment(
        apis=apis, keystone_endpoint=keystone_endpoint, source=source,
        status_keys=base.status_keys if base else (),
        namespace=base.namespace if base else None,
        name=base.name if base else None), 'keystone_endpoint')


def discover(opts, glance=None, source=None):
    """The Deployment: the Glance CR's (if one was read), options on top.

    :param glance: the Glance CR as read (a dict), or None when the
        options alone describe the deployment; source: where it was read.
    """
    base = parse_cr(glance, source) if glance is not None else None
    if base is not None and not _has_overrides(opts):
        return base
    return apply_options(base, opts)


def _has_overrides(opts):
    return bool(opts.api_names or opts.api_types or opts.public_endpoints
                or opts.internal_endpoints or opts.default_stores
                or opts.keystone_endpoint)
