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

"""The deployment spec of the embedded cloud, shaped like a Glance CR spec.

Loading (a spec, or a whole Glance CR with the annotations the operator
reads), the validation the glance-operator webhook does, what the
stand-in cannot play, JSON merge patch (RFC 7386) and reading each
API's stores out of its customServiceConfig. Pure logic: nothing here
touches a process or the network.
"""

import copy
import re

from glance_multiapi_kernel import documents
from glance_multiapi_kernel import errors
from glance_multiapi_kernel import jsonmerge
from glance_multiapi_kernel import values
from glance_multiapi_kernel import glance_cr

# NOTE: GlanceAPI CRs are named <glance>-<api>-<type> and the Services
# glance-<api>-public; a DNS-1123 label keeps both legal.
_API_NAME = re.compile(r'^[a-z0-9]([-a-z0-9]{0,28}[a-z0-9])?$')
_STORE_NAME = re.compile(r'^[A-Za-z0-9_]{1,40}$')


class SpecError(errors.OneLineError):
    """A spec or patch the operator's webhook would refuse (one line)."""


def load(text, source):
    """Parse YAML or JSON text into a validated, defaulted spec."""
    return load_cr(text, source)[0]


def load_cr(text, source):
    """(spec, annotations) of a spec, or of a whole Glance CR.

    A whole Glance CR (e.g. from "oc get glance -o yaml") is read for its
    spec and its metadata.annotations ({} for a bare spec), which carry
    what openstack-operator tells glance-operator beside the spec (the
    location-API annotation, glance_cr.LOCATION_API_ANNOTATION).
    """
    try:
        data = documents.load_yaml(text)
    except documents.DocumentError as exc:
        raise SpecError('%s: %s' % (source, exc)) from None
    annotations = {}
    if isinstance(data, dict) and 'spec' in data and 'glanceAPIs' not in data:
        annotations = _annotations(data, source)
        data = data['spec']
    spec = normalize(data, source)
    check_stand_in(spec, annotations, source)
    return spec, annotations


def _annotations(cr, source):
    metadata = cr.get('metadata')
    if metadata is None:
        return {}
    if not isinstance(metadata, dict):
        raise SpecError('%s: metadata must be a mapping, got %s' % (
            source, type(metadata).__name__))
    found = metadata.get('annotations')
    if found is None:
        return {}
    if not isinstance(found, dict) or not all(
            isinstance(k, str) and isinstance(v, str)
            for k, v in found.items()):
        raise SpecError('%s: metadata.annotations must map strings to '
                        'strings (quote "true")' % source)
    return dict(found)


def check_stand_in(spec, annotations, source='spec'):
    """SpecError for what the operator deploys and the stand-in cannot.

    With the location-API annotation on, the operator deploys a single
    API on any store (glance_cr.blocks_deployment). The embedded cloud
    plays every store with a file store, which stands in for a split or
    edge API's store but not for a single API serving a shared store
    through glance's location API, so it refuses that spec.
    """
    if not glance_cr.location_api(annotations):
        return
    for name in sorted(spec['glanceAPIs']):
        api = spec['glanceAPIs'][name]
        if api['type'] != 'single':
            continue
        kinds = glance_cr.backend_types([
            ('spec', spec.get('customServiceConfig')),
            ('spec', api.get('customServiceConfig'))])
        other = sorted('%s:%s' % item for item in kinds.items()
                       if item[1] != 'file')
        if other:
            raise SpecError(
                '%s: spec.glanceAPIs.%s: the embedded cloud cannot run a '
                'single API on %s with the location API (metadata.'
                'annotations %s: "true"); it plays only file stores: give '
                'it one file store or type split, or drop the annotation'
                % (source, name, ', '.join(other),
                   glance_cr.LOCATION_API_ANNOTATION))


def normalize(data, source='spec', old=None):
    """Return a deep copy of data with defaults filled in, or SpecError.

    old is the spec data replaces (an update), else None (a create).
    """
    if not isinstance(data, dict):
        raise SpecError('%s: the spec must be a mapping with glanceAPIs, '
                        'got %s' % (source, type(data).__name__))
    spec = copy.deepcopy(data)
    _check_api_timeout(spec, '%s: spec' % source)
    apis = spec.get('glanceAPIs')
    if not isinstance(apis, dict) or not apis:
        raise SpecError('%s: spec.glanceAPIs must be a non-empty mapping of '
                        'API name to API spec' % source)
    for name, api in list(apis.items()):
        where = '%s: spec.glanceAPIs.%s' % (source, name)
        if not isinstance(name, str) or not _API_NAME.match(name):
            raise SpecError('%s: invalid API name %s: lower-case letters, '
                            'digits and "-", at most 30 characters' %
                            (source, documents.short(repr(name))))
        if api is None:
            api = {}
        if not isinstance(api, dict):
            raise SpecError('%s: must be a mapping, got %s' %
                            (where, type(api).__name__))
        api.setdefault('type', glance_cr.DEFAULT_TYPE)
        api.setdefault('replicas', 1)
        if api['type'] not in glance_cr.API_TYPES:
            raise SpecError('%s.type: %s is not one of %s' % (
                where, documents.short(repr(api['type'])),
                ', '.join(glance_cr.API_TYPES)))
        problem = values.replicas_problem(api['replicas'])
        if problem:
            raise SpecError('%s.replicas: %s' % (where, problem))
        _check_api_timeout(api, where)
        csc = api.get('customServiceConfig', '')
        if not isinstance(csc, str):
            raise SpecError('%s.customServiceConfig must be a string' % where)
        apis[name] = api
        api_stores(spec, name, source)
    types = {name: api['type'] for name, api in apis.items()}
    # NOTE: the webhook's Default: an unset keystoneEndpoint becomes the
    # API only when there is exactly one; otherwise it stays unset and
    # its validation refuses the spec below, as it refuses
    # {central: split, edge1: edge} without one.
    if not spec.get('keystoneEndpoint'):
        default = glance_cr.default_keystone_endpoint(types)
        if default is not None:
            spec['keystoneEndpoint'] = default
    # NOTE: the webhook's own rules, worded as it words them; a spec it
    # would refuse must not become a cloud. One the controller takes and
    # does not deploy becomes one as broken as the operator's
    # (glance_cr.reconcile_pass).
    found = glance_cr.refusals(spec, old)
    if found:
        raise SpecError('%s: %s' % (source, glance_cr.describe(found[0])))
    return spec


def _check_api_timeout(spec, where):
    """SpecError for an apiTimeout the API server's schema refuses."""
    if spec.get('apiTimeout') is None:
        return
    problem = glance_cr.api_timeout_problem(spec['apiTimeout'])
    if problem:
        raise SpecError('%s.apiTimeout: %s (glance-operator\'s CRD: an '
                        'integer of at least %d)' % (
                            where, problem, glance_cr.API_TIMEOUT_MIN))


def api_stores(spec, name, source='spec'):
    """Return (default store, [store names]) of one API of the spec.

    An API's own customServiceConfig, when set, replaces the top-level one
    (glance_cr.effective_config).
    """
    where = '%s: spec.glanceAPIs.%s' % (source, name)
    try:
        default, stores = glance_cr.backends(
            [(where, spec.get('customServiceConfig', '')),
             (where, spec['glanceAPIs'][name].get('customServiceConfig',
                                                  ''))])
    except glance_cr.ConfigError as exc:
        raise SpecError('%s.customServiceConfig: %s' % (where, exc.problem))
    if not default:
        raise SpecError('%s: customServiceConfig sets no [glance_store] '
                        'default_backend' % where)
    for store in stores + [default]:
        if not _STORE_NAME.match(store):
            raise SpecError('%s: invalid store name %s' % (
                where, documents.short(repr(store))))
    if default not in stores:
        stores.append(default)
    return default, stores


def all_stores(spec):
    """Every store named by any API of the spec, sorted."""
    names = set()
    for name in spec['glanceAPIs']:
        names.update(api_stores(spec, name)[1])
    return sorted(names)


def apply_patch(spec, patch_text, source='patch'):
    """Apply a JSON merge patch of the Glance object to spec.

    The patch is the object patch that ``oc patch --type merge -p`` takes:
    ``{"spec": {...}}``. Returns the new validated spec; raises SpecError and
    leaves spec untouched when the result would be refused.
    """
    try:
        patch = documents.load_json(patch_text)
    except documents.DocumentError as exc:
        raise SpecError('%s: %s' % (source, exc)) from None
    if not isinstance(patch, dict) or set(patch) - {'spec'}:
        raise SpecError('%s: only {"spec": {...}} can be patched, got %s' % (
            source, 'keys %s' % documents.short(', '.join(
                repr(key) for key in sorted(patch)), 200)
            if isinstance(patch, dict) else type(patch).__name__))
    if 'spec' not in patch:
        return normalize(spec, source)
    new = jsonmerge.merge_patch(spec, patch['spec'])
    # NOTE: an explicit keystoneEndpoint is kept as given so that the webhook
    # check below refuses a patch that removes the catalog's API.
    return normalize(new, source, old=spec)
