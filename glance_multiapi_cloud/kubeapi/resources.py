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

"""The resources a Kubernetes API stand-in serves, and its discovery.

A ``Resource`` is what a CRD (or Kubernetes' own types) declares of a
kind: group, version, plural, kind, singular, short names, scope and
verbs. ``Resources`` is the table one stand-in serves: it finds the
resource of a path and answers the discovery documents kubectl and the
kubernetes client read first (``/api``, ``/apis``, ``/apis/<group>``,
the APIResourceList of each group version).
"""

import collections

from glance_multiapi_cloud.kubeapi import objectmeta

Resource = collections.namedtuple(
    'Resource', 'group version plural kind singular short_names namespaced '
    'verbs')


def group_version(resource):
    """'apps/v1', or 'v1' for the core group."""
    if resource.group:
        return '%s/%s' % (resource.group, resource.version)
    return resource.version


def qualified(resource):
    """glances.glance.openstack.org, deployments.apps, configmaps."""
    if resource.group:
        return '%s.%s' % (resource.plural, resource.group)
    return resource.plural


def list_version(items):
    """A List's resourceVersion: decimal digits that change with items'."""
    return objectmeta.digits([(i.get('metadata') or {}).get(
        'resourceVersion') for i in items])


def object_list(resource, items, version=None):
    """The <Kind>List of items; version: its resourceVersion if known."""
    return {'apiVersion': group_version(resource),
            'kind': resource.kind + 'List',
            'metadata': {'resourceVersion': version or list_version(items)},
            'items': items}


class Resources(object):
    """The resources one stand-in serves, in the order discovery lists."""

    def __init__(self, resources):
        self.resources = tuple(resources)

    def __iter__(self):
        return iter(self.resources)

    def find(self, group, version, plural):
        """The Resource served at group/version/plural, else None."""
        for resource in self.resources:
            if (resource.group, resource.version, resource.plural) == (
                    group, version, plural):
                return resource
        return None

    def groups(self):
        """{group: [versions]} of the named API groups, in table order."""
        found = collections.OrderedDict()
        for resource in self.resources:
            if resource.group:
                versions = found.setdefault(resource.group, [])
                if resource.version not in versions:
                    versions.append(resource.version)
        return found

    # -- discovery documents --------------------------------------------------
    @staticmethod
    def api_versions(server_address):
        """/api: the core group's versions."""
        return {'kind': 'APIVersions', 'versions': ['v1'],
                'serverAddressByClientCIDRs': [{
                    'clientCIDR': '0.0.0.0/0',
                    'serverAddress': server_address}]}

    @staticmethod
    def api_group(name, versions):
        """One APIGroup of /apis (kind and apiVersion left to the caller)."""
        entries = [{'groupVersion': '%s/%s' % (name, v), 'version': v}
                   for v in versions]
        return {'name': name, 'versions': entries,
                'preferredVersion': entries[0]}

    def api_group_list(self):
        """/apis: every named group."""
        return {'kind': 'APIGroupList', 'apiVersion': 'v1',
                'groups': [self.api_group(name, versions)
                           for name, versions in self.groups().items()]}

    def resource_list(self, group, version):
        """The APIResourceList of group/version, or None when not served."""
        items = [r for r in self.resources
                 if (r.group, r.version) == (group, version)]
        if not items:
            return None
        return {'kind': 'APIResourceList', 'apiVersion': 'v1',
                'groupVersion': group_version(items[0]),
                'resources': [{'name': r.plural, 'singularName': r.singular,
                               'namespaced': r.namespaced, 'kind': r.kind,
                               'verbs': list(r.verbs),
                               'shortNames': list(r.short_names)}
                              for r in items]}

    def discovery(self, path, server_address):
        """The discovery document at path, else None (a 404)."""
        path = path.rstrip('/') or '/'
        if path == '/api':
            return self.api_versions(server_address)
        if path == '/apis':
            return self.api_group_list()
        parts = path.strip('/').split('/')
        groups = self.groups()
        if parts[0] == 'apis' and len(parts) == 2 and parts[1] in groups:
            return dict(self.api_group(parts[1], groups[parts[1]]),
                        kind='APIGroup', apiVersion='v1')
        if parts == ['api', 'v1']:
            return self.resource_list('', 'v1')
        if parts[0] == 'apis' and len(parts) == 3:
            return self.resource_list(parts[1], parts[2])
        return None
