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

"""What the glance-operator's Glance CR means: the one place that knows.

API types and the endpoints each exposes, how ``spec.keystoneEndpoint``
defaults and which values the webhook refuses, and the stores an API gets
from ``customServiceConfig``. Discovery (reading a real CR) and the
embedded cloud (emulating the operator) both ask this module, so the
suite and its stand-in cannot disagree. Pure logic; callers word the
errors for their own source.

Upstream: glance-operator ``api/v1beta1/glance_types.go`` (types,
keystoneEndpoint) and ``api/v1beta1/glance_webhook.go`` (its checks).
"""

import configparser

API_TYPES = ('split', 'single', 'edge')
DEFAULT_TYPE = 'split'
# NOTE: an edge API only ever gets an internal endpoint; split and single
# expose both, so a missing one is a broken deployment, not a choice.
INTERFACES_BY_TYPE = {
    'split': ('public', 'internal'),
    'single': ('public', 'internal'),
    'edge': ('internal',),
}

# What keystone_endpoint_problem returns.
UNKNOWN_API = 'unknown'
EDGE_API = 'edge'


class ConfigError(ValueError):
    """A customServiceConfig snippet that cannot be read.

    ``field`` names the snippet (as the caller named it), ``problem``
    says what is wrong in one line.
    """

    def __init__(self, field, problem):
        super().__init__('%s: %s' % (field, problem))
        self.field = field
        self.problem = problem


def interfaces(api_type):
    """The endpoint interfaces an API of api_type exposes."""
    return INTERFACES_BY_TYPE[api_type]


def in_catalog_possible(api_type):
    """Whether an API of this type may be the keystoneEndpoint one."""
    return api_type != 'edge'


def default_keystone_endpoint(types):
    """The keystoneEndpoint the operator picks when it is unset.

    :param types: {API name: type}.
    :returns: the only non-edge API, or None when there is not exactly one.
    """
    candidates = [name for name, api_type in sorted(types.items())
                  if in_catalog_possible(api_type)]
    return candidates[0] if len(candidates) == 1 else None


def keystone_endpoint_problem(name, types):
    """Why the webhook refuses keystoneEndpoint name, else None.

    :returns: UNKNOWN_API (names no API) or EDGE_API (an edge API is
        never in the catalog).
    """
    if name not in types:
        return UNKNOWN_API
    if not in_catalog_possible(types[name]):
        return EDGE_API
    return None


def parse_ini(text, field):
    """A ConfigParser of one customServiceConfig snippet."""
    if text is not None and not isinstance(text, str):
        raise ConfigError(field, 'expected a string, got %s' %
                          type(text).__name__)
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    try:
        parser.read_string(text or '')
    except configparser.Error as exc:
        raise ConfigError(field, 'not valid INI: %s' %
                          str(exc).splitlines()[0])
    return parser


def backends(snippets):
    """(default_backend or None, [enabled backend names]) of an API.

    :param snippets: [(field, customServiceConfig text or None)], the
        top-level one first, then the API's own.
    NOTE: read as layered, the later snippet's options winning, as the
    operator's config files are read one after another.
    """
    default = None
    stores = []
    for field, text in snippets:
        if text is None:
            continue
        ini = parse_ini(text, field)
        if ini.has_option('DEFAULT', 'enabled_backends'):
            stores = []
            for item in ini.get('DEFAULT', 'enabled_backends').split(','):
                store = item.split(':', 1)[0].strip()
                if store:
                    stores.append(store)
        if ini.has_option('glance_store', 'default_backend'):
            default = ini.get('glance_store', 'default_backend').strip()
    return default or None, stores
