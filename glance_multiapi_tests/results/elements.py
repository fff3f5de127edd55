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

"""The elements of the deployment map: their ids, titles and patterns.

Ids: ``glance`` (the Glance CR), ``keystone_endpoint``, ``catalog`` (the
image service), ``catalog:<interface>``, ``endpoint:<api>:<interface>``,
``store:<api>`` (its default store), ``api:<name>`` (an API a scenario
judges as a whole), ``heat:<service>``, ``uploader`` and
``consolidated_images``. A test's checks are fnmatch patterns over those
ids (``endpoint:*``).
"""

import fnmatch

STATIC_ELEMENTS = ('glance', 'keystone_endpoint', 'catalog',
                   'heat:heat-api', 'heat:heat-api-cfn', 'heat:heat-engine',
                   'uploader', 'consolidated_images')


def title_of(element):
    """A short human name of an element id."""
    parts = element.split(':')
    kind = parts[0]
    if kind == 'endpoint' and len(parts) == 3:
        return '%s %s endpoint' % (parts[1], parts[2])
    if kind == 'catalog' and len(parts) == 2:
        return 'catalog %s entry' % parts[1]
    if kind == 'api':
        return 'API %s' % parts[1]
    if kind == 'store':
        return 'default store of %s' % parts[1]
    if kind == 'heat':
        return parts[1]
    return {'glance': 'Glance CR', 'keystone_endpoint': 'keystoneEndpoint',
            'catalog': 'image service in the catalog',
            'uploader': 'image uploader',
            'consolidated_images': 'consolidated heat images'}.get(
                element, element)


def element_ids(glance, apis, catalog):
    """(every element id, the ids of the deployment as first learnt).

    An API a scenario added has only its api: element (its URLs are
    shown, judged by that scenario as a whole); the api: element of the
    others is there only when a test judged it.
    """
    ids = list(STATIC_ELEMENTS)
    interfaces = []
    for snapshot in catalog[:1]:
        for entry in snapshot['entries']:
            if entry.get('interface') not in interfaces:
                interfaces.append(entry.get('interface'))
    if not interfaces and glance:
        for api in apis:
            if api['name'] == glance.get('keystone_endpoint'):
                interfaces = sorted(api.get('endpoints') or {})
    ids.extend('catalog:%s' % i for i in interfaces)
    added = []
    for api in apis:
        if api.get('added_by'):
            added.append('api:%s' % api['name'])
            continue
        ids.extend('endpoint:%s:%s' % (api['name'], i)
                   for i in sorted(api.get('endpoints') or {}))
        ids.append('store:%s' % api['name'])
    return ids + added, ids


def resolve(patterns, element_ids):
    """The element ids matching any of the patterns, in element order."""
    return [e for e in element_ids
            if any(fnmatch.fnmatchcase(e, p) for p in patterns or ())]
