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
defaults, the specs the webhook refuses, the stores an API gets from
``customServiceConfig``, the GlanceAPI CRs the controller makes of an API
and the one pass of its reconcile loop over them (which API it stops at,
and what is left deployed). Discovery (reading a real CR) and the
embedded cloud (emulating the operator) both ask this module, so the
suite and its stand-in cannot disagree. Pure logic; callers word the
errors for their own source. The conditions both controllers write are
``conditions.py``'s.

Upstream (glance-operator 65990ce): ``api/v1beta1/glance_types.go``
(types, keystoneEndpoint, the location-API annotation),
``api/v1beta1/glance_webhook.go`` (its checks),
``api/v1beta1/conditions.go`` (their messages) and
``internal/controller/glance_controller.go`` (customServiceConfig
inheritance, the GlanceAPI CRs, the check done at reconcile).
"""

import collections
import configparser
import copy

from glance_multiapi_kernel import documents
from glance_multiapi_kernel import errors

API_TYPES = ('split', 'single', 'edge')
DEFAULT_TYPE = 'split'
# NOTE: an edge API only ever gets an internal endpoint; split and single
# expose both, so a missing one is a broken deployment, not a choice.
INTERFACES_BY_TYPE = {
    'split': ('public', 'internal'),
    'single': ('public', 'internal'),
    'edge': ('internal',),
}

WEBHOOK = 'glance-operator api/v1beta1/glance_webhook.go'
CONTROLLER = 'glance-operator internal/controller/glance_controller.go'
# NOTE: the operator's own wording (api/v1beta1/conditions.go), so a
# refusal reads the same here as from "oc apply".
SPLIT_FILE_MESSAGE = ('The GlanceAPI layout type: split cannot be used in '
                      'combination with File and NFS backend')
SINGLE_NOT_FILE_MESSAGE = ('glanceAPI layout type: single can only be used '
                           'in combination with File and NFS backend')
LAYOUT_UPDATE_MESSAGE = ('The GlanceAPI layout (type) cannot be modified. '
                         'To proceed, please add a new API with the '
                         'desired layout and then decommission the '
                         'previous API')
KEYSTONE_ENDPOINT_MESSAGE = ('KeystoneEndpoint is assigned to an invalid '
                             'GlanceAPI instance')

# NOTE: the Glance CR annotation that lets a single API run on any
# store (glance_types.go GlanceLocationAPILabel, since 1db4ec9);
# openstack-operator sets it from its OpenStackVersion's
# serviceDefaults.glanceLocationAPI, "false" by default.
LOCATION_API_ANNOTATION = 'glance.openstack.org/location-api'
# NOTE: Go's strconv.ParseBool, which GetBoolFromAnnotation
# (lib-common modules/common/annotations) reads the annotation with.
_PARSE_BOOL_TRUE = ('1', 't', 'T', 'TRUE', 'true', 'True')
# NOTE: the annotation (value "true") the controller puts on the
# GlanceAPI CR(s) of the keystoneEndpoint API (internal/glance/const.go
# KeystoneEndpoint); only those register the catalog's endpoints.
KEYSTONE_ENDPOINT_ANNOTATION = 'keystoneEndpoint'
# NOTE: the label naming the API of a GlanceAPI CR (glanceapi_types.go
# APINameLabel) beside "service: glance".
API_NAME_LABEL = 'api-name'
# NOTE: the GlanceAPI CRs apiDeployment makes of one API, in its order
# (a split API's external one first), and the interfaces the Services of
# each expose (internal/glanceapi/funcs.go GetGlanceEndpoints).
CHILD_TYPES = {
    'split': ('external', 'internal'),
    'single': ('single',),
    'edge': ('edge',),
}
CHILD_INTERFACES = {
    'external': ('public',),
    'internal': ('internal',),
    'single': ('public', 'internal'),
    'edge': ('internal',),
}

# What keystone_endpoint_problem returns.
UNKNOWN_API = 'unknown'
EDGE_API = 'edge'


Refusal = collections.namedtuple('Refusal', 'path reason rule')
Refusal.__doc__ = """Why the operator refuses a spec: field, words, where.

``rule`` names the upstream file and function, so a reader can check it.
"""


class ConfigError(errors.OneLineError, ValueError):
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


# NOTE: the CRD's schema of apiTimeout, of the Glance spec and of each
# API (api/v1beta1/glance_types.go and common_types.go:
# "+kubebuilder:validation:Minimum=1", a Go int: the API server's
# "type: integer", an int64); the API server refuses anything else before
# the webhook sees it.
API_TIMEOUT_MIN = 1
INT64_MAX = 2 ** 63 - 1


def api_timeout_problem(value):
    """Why value is no apiTimeout the API server takes, else None."""
    if isinstance(value, bool) or not isinstance(value, int):
        return '%s is not an integer number of seconds' % documents.short(
            repr(value))
    if value < API_TIMEOUT_MIN:
        return '%d is less than the minimum %d' % (value, API_TIMEOUT_MIN)
    if value > INT64_MAX:
        return 'an integer of %d bits is more than the API server holds ' \
            '(int64)' % value.bit_length()
    return None


def in_catalog_possible(api_type):
    """Whether an API of this type may be the keystoneEndpoint one."""
    return api_type != 'edge'


def default_keystone_endpoint(types):
    """The keystoneEndpoint the webhook gives a spec that leaves it unset.

    As GlanceSpecCore.Default (glance_webhook.go): the only API when
    spec.glanceAPIs has exactly one, whatever its type (an edge one is
    then refused by keystone_endpoint_problem); with two or more, None:
    it stays unset, and the webhook refuses the spec.

    :param types: {API name: type}.
    """
    return next(iter(types)) if len(types) == 1 else None


def keystone_endpoint_problem(name, types):
    """Why the webhook refuses keystoneEndpoint name, else None.

    :returns: UNKNOWN_API (names no API) or EDGE_API (an edge API is
        never in the catalog).
    """
    # NOTE: a CR of another operator version may hold any JSON here.
    if not isinstance(name, str) or name not in types:
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


def effective_config(top, own):
    """The customServiceConfig an API runs with: its own, else the top one.

    NOTE: not layered. The controller copies the top-level snippet into the
    GlanceAPI only when the API's own is empty, and the API pods mount only
    that one snippet (glance_controller.go apiDeployment).
    """
    return own if own else (top or '')


def backends(snippets):
    """(default_backend or None, [enabled backend names]) of an API.

    :param snippets: [(field, customServiceConfig text or None)], the
        top-level one first, then the API's own.
    The last non-empty snippet is the whole config (see effective_config);
    the others are not read at all.
    """
    chosen = [(field, text) for field, text in snippets if text]
    if not chosen:
        return None, []
    field, text = chosen[-1]
    ini = parse_ini(text, field)
    stores = []
    if ini.has_option('DEFAULT', 'enabled_backends'):
        for item in ini.get('DEFAULT', 'enabled_backends').split(','):
            store = item.split(':', 1)[0].strip()
            if store:
                stores.append(store)
    default = None
    if ini.has_option('glance_store', 'default_backend'):
        default = ini.get('glance_store', 'default_backend').strip()
    return default or None, stores


def backend_types(snippets):
    """{store: backend type} of an API's enabled_backends (ceph0:rbd).

    Read from the same snippet as backends(); a store named without a
    type is left out.
    """
    chosen = [(field, text) for field, text in snippets if text]
    if not chosen:
        return {}
    field, text = chosen[-1]
    ini = parse_ini(text, field)
    types = {}
    if ini.has_option('DEFAULT', 'enabled_backends'):
        for item in ini.get('DEFAULT', 'enabled_backends').split(','):
            store, _sep, kind = item.partition(':')
            if store.strip() and kind.strip():
                types[store.strip()] = kind.strip()
    return types


def enabled_backends(text):
    """The "store:type" items of the first enabled_backends line of text.

    Read line by line, sections ignored, as the webhook's
    GetEnabledBackends (api/v1beta1/common_types.go) reads it; the rules
    below must see what the webhook sees, not what glance would parse.
    """
    for line in (text or '').split('\n'):
        key, _sep, value = line.strip().partition('=')
        key = key.replace(' ', '')
        if not key or key.startswith('#'):
            continue
        if key == 'enabled_backends':
            return [item.strip() for item in value.strip().split(',')]
    return []


def is_file_backend(text, top_level):
    """The webhook's IsFileBackend: one store, of type file.

    :param top_level: for the top-level snippet True; for an API's, whether
        the top-level one counts as file (an empty API snippet then does).
    """
    items = enabled_backends(text)
    if not items and top_level:
        return True
    if len(items) == 1:
        parts = items[0].split(':', 1)
        return len(parts) == 2 and parts[1] == 'file'
    return False


def refusals(spec, old=None):
    """Every Refusal of spec, [] when the operator's webhook takes it.

    :param spec: a Glance spec with each API's type and replicas defaulted.
    :param old: the spec it replaces (an update), else None (a create).
    A single API on a non-file store is not refused here: the webhook
    takes it and the controller does not deploy it (blocks_deployment).
    """
    found = []
    top = spec.get('customServiceConfig') or ''
    top_is_file = is_file_backend(top, True)
    old_apis = (old or {}).get('glanceAPIs') or {}
    for name in sorted(spec['glanceAPIs']):
        api = spec['glanceAPIs'][name]
        path = 'spec.glanceAPIs.%s' % name
        api_type = api.get('type') or DEFAULT_TYPE
        own = api.get('customServiceConfig') or ''
        if name in old_apis and api_type != (
                old_apis[name].get('type') or DEFAULT_TYPE):
            found.append(Refusal(path + '.type', LAYOUT_UPDATE_MESSAGE,
                                 WEBHOOK + ' ValidateUpdate'))
        # NOTE: replicas 0 means no backend chosen yet; the webhook lets
        # it through (isInvalidBackend).
        if (api_type == 'split' and api.get('replicas') != 0
                and is_file_backend(own, top_is_file)):
            found.append(Refusal(path, SPLIT_FILE_MESSAGE,
                                 WEBHOOK + ' isInvalidBackend'))
    types = {name: api.get('type') or DEFAULT_TYPE
             for name, api in spec['glanceAPIs'].items()}
    keystone_endpoint = spec.get('keystoneEndpoint')
    problem = keystone_endpoint_problem(keystone_endpoint, types)
    if problem:
        if not keystone_endpoint:
            detail = ('unset: Default sets it only when there is '
                      'exactly one API')
        elif problem == UNKNOWN_API:
            detail = '%s names no API' % documents.short(
                repr(keystone_endpoint))
        else:
            detail = '%s names an edge API, never in the catalog' % (
                documents.short(repr(keystone_endpoint)))
        # NOTE: the webhook's words first, as "oc apply" prints them
        # (field.Invalid), then what it does not say: why.
        found.append(Refusal(
            'spec.keystoneEndpoint', '%s (%s)' % (invalid_value(
                keystone_endpoint, KEYSTONE_ENDPOINT_MESSAGE), detail),
            WEBHOOK + ' isValidKeystoneEP'))
    return found


def invalid_value(value, message):
    """The body of a field.Invalid error, as the API server words it.

    'Invalid value: "x": message' (k8s.io/apimachinery field.Error: a
    string value quoted; an unset string is Go's "").
    """
    if value is None:
        value = ''
    shown = ('"%s"' % documents.short(value) if isinstance(value, str)
             else documents.short(repr(value)))
    return 'Invalid value: %s: %s' % (shown, message)


# -- what the controller deploys ----------------------------------------------
def location_api(annotations):
    """Whether the Glance CR's location-API annotation turns it on.

    As Glance.GetLocationAPI (glance_types.go): absent is off, and so is
    a value Go's strconv.ParseBool refuses (the controller marks
    GlanceAPIReady False for it, which every API it then reconciles
    overwrites, and goes on as if off).
    """
    value = (annotations or {}).get(LOCATION_API_ANNOTATION)
    return isinstance(value, str) and value in _PARSE_BOOL_TRUE


def blocks_deployment(spec, name, location_api_on):
    """Whether the controller refuses to deploy API name of spec.

    glance_controller.go apiDeployment, since 1db4ec9: a single API on
    anything but one file store (is_file_backend, the top-level snippet
    counting for an API without its own) unless the location API is on.
    It then sets GlanceAPIReady False (Error, Warning,
    SINGLE_NOT_FILE_MESSAGE) and returns ErrInvalidBackend.
    """
    api = spec['glanceAPIs'][name]
    top_is_file = is_file_backend(spec.get('customServiceConfig') or '',
                                  True)
    return (not location_api_on
            and (api.get('type') or DEFAULT_TYPE) == 'single'
            and not is_file_backend(api.get('customServiceConfig') or '',
                                    top_is_file))


def reconcile_pass(spec, location_api_on, previous=None):
    """What one pass of the Glance controller leaves deployed.

    The controller reconciles the APIs in name order (reconcileNormal);
    at one it refuses (blocks_deployment) it returns, so that API and
    every API after it is not reconciled in that pass: on a fresh Glance
    they do not exist; a GlanceAPI CR one of them had before stays as it
    was (its spec, and its keystoneEndpoint annotation); and
    glanceAPICleanup, which runs after the loop, does not remove the APIs
    that left the spec.

    :param previous: what the pass before left (this function's result),
        or None on a fresh Glance.
    :returns: {'apis': {API: its entry as its GlanceAPI CRs hold it (the
        effective customServiceConfig, see effective_config)},
        'keystoneEndpoint': [APIs whose CRs carry the annotation],
        'reconciled': [the APIs this pass reconciled, in its order],
        'stoppedAt': the API refused, or None}.
    """
    previous = previous or {}
    old_apis = previous.get('apis') or {}
    old_annotated = set(previous.get('keystoneEndpoint') or ())
    top = spec.get('customServiceConfig') or ''
    apis, annotated, stopped, reconciled = {}, set(), None, []

    def keep(name):
        if name in old_apis:
            apis[name] = copy.deepcopy(old_apis[name])
            if name in old_annotated:
                annotated.add(name)

    for name in sorted(spec['glanceAPIs']):
        if stopped is None and blocks_deployment(spec, name,
                                                 location_api_on):
            stopped = name
        if stopped is not None:
            keep(name)
            continue
        entry = copy.deepcopy(spec['glanceAPIs'][name])
        entry['customServiceConfig'] = effective_config(
            top, entry.get('customServiceConfig'))
        apis[name] = entry
        reconciled.append(name)
        if name == spec.get('keystoneEndpoint'):
            annotated.add(name)
    if stopped is not None:
        for name in sorted(old_apis):
            if name not in spec['glanceAPIs']:
                keep(name)
    return {'apis': apis, 'keystoneEndpoint': sorted(annotated),
            'reconciled': reconciled, 'stoppedAt': stopped}


def glanceapi_crs(glance_name, api, api_type):
    """[(name, apiType)] of the GlanceAPI CRs of one API.

    In the order apiDeployment makes them, named
    ``<glance>-<api>-<apiType>``.
    """
    return [('%s-%s-%s' % (glance_name, api, child), child)
            for child in CHILD_TYPES[api_type or DEFAULT_TYPE]]


def child_interfaces(child_type):
    """The interfaces the Services of a GlanceAPI of child_type expose."""
    return CHILD_INTERFACES[child_type]


def describe(refusal):
    """One line for a Refusal: field, the operator's words, where."""
    return '%s: %s [%s]' % refusal
