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

"""The Kubernetes objects of the embedded cloud, built from its state.

Which resources the embedded Kubernetes-style API serves (their group,
kind, verbs and names, as the CRDs of openstack-operator declare them),
and the objects themselves: the Glance CR, the OpenStackControlPlane that
owns it, the OpenStackVersion and, with heat, the three heat Deployments.
Pure logic: the caller passes the state data, the ``get`` document and
which processes run.
"""

import collections
import copy
import hashlib
import json
import uuid

from glance_multiapi_tests.common import documents
from glance_multiapi_tests.common import errors

NAMESPACE = 'openstack'
GLANCE_NAME = 'glance'
CONTROLPLANE_NAME = 'openstack'
VERSION_NAME = 'openstack'
# NOTE: the version the operators would report; nothing compares it.
OPENSTACK_VERSION = '0.0.1'
USER = 'system:serviceaccount:openstack:glance-multiapi-tests'

Resource = collections.namedtuple(
    'Resource', 'group version plural kind singular short_names namespaced '
    'verbs')

# NOTE: names, short names and scope as in openstack-operator's and
# glance-operator's CRDs (config/crd/bases) and Kubernetes' own types.
RESOURCES = (
    Resource('glance.openstack.org', 'v1beta1', 'glances', 'Glance',
             'glance', (), True, ('get', 'list', 'patch')),
    Resource('core.openstack.org', 'v1beta1', 'openstackcontrolplanes',
             'OpenStackControlPlane', 'openstackcontrolplane',
             ('osctlplane', 'osctlplanes', 'oscp', 'oscps'), True,
             ('get', 'list', 'patch')),
    Resource('core.openstack.org', 'v1beta1', 'openstackversions',
             'OpenStackVersion', 'openstackversion', ('osv', 'osvs'), True,
             ('get', 'list')),
    Resource('apps', 'v1', 'deployments', 'Deployment', 'deployment',
             ('deploy',), True, ('get', 'list')),
    Resource('', 'v1', 'namespaces', 'Namespace', 'namespace', ('ns',),
             False, ('get', 'list')),
    Resource('', 'v1', 'configmaps', 'ConfigMap', 'configmap', ('cm',),
             True, ('create', 'delete', 'get', 'list', 'patch', 'update')),
    # NOTE: stored, not played by a process (kubepods.py says why).
    Resource('', 'v1', 'pods', 'Pod', 'pod', ('po',), True,
             ('create', 'delete', 'get', 'list')),
)

# NOTE: Deployment names from heat-operator (internal/heatapi/const.go,
# internal/heatcfnapi/const.go, internal/heatengine/deployment.go), each
# with the local process that plays its pod.
HEAT_DEPLOYMENTS = collections.OrderedDict((
    ('heat-api', ('heat-api', 'heatAPIImage')),
    ('heat-cfnapi', ('heat-api-cfn', 'heatCfnapiImage')),
    ('heat-engine', ('heat-engine', 'heatEngineImage')),
))
# NOTE: the consolidated image is built by s2i's heat/heat-api target.
HEAT_IMAGE_NAME = 'openstack-heat-api'
HEAT_TARGET = 'heat/heat-api'


def group_version(resource):
    if resource.group:
        return '%s/%s' % (resource.group, resource.version)
    return resource.version


def qualified(resource):
    """glances.glance.openstack.org, deployments.apps, configmaps."""
    if resource.group:
        return '%s.%s' % (resource.plural, resource.group)
    return resource.plural


def find(group, version, plural):
    for resource in RESOURCES:
        if (resource.group, resource.version, resource.plural) == (
                group, version, plural):
            return resource
    return None


def groups():
    """{group: [versions]} of the named API groups, in RESOURCES order."""
    found = collections.OrderedDict()
    for resource in RESOURCES:
        if resource.group:
            versions = found.setdefault(resource.group, [])
            if resource.version not in versions:
                versions.append(resource.version)
    return found


# -- discovery documents ------------------------------------------------------
def api_versions(server_address):
    return {'kind': 'APIVersions', 'versions': ['v1'],
            'serverAddressByClientCIDRs': [{
                'clientCIDR': '0.0.0.0/0', 'serverAddress': server_address}]}


def api_group(name, versions):
    entries = [{'groupVersion': '%s/%s' % (name, v), 'version': v}
               for v in versions]
    return {'name': name, 'versions': entries,
            'preferredVersion': entries[0]}


def api_group_list():
    return {'kind': 'APIGroupList', 'apiVersion': 'v1',
            'groups': [api_group(name, versions)
                       for name, versions in groups().items()]}


def resource_list(group, version):
    """The APIResourceList of group/version, or None when not served."""
    items = [r for r in RESOURCES
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


# -- objects ------------------------------------------------------------------
def _digits(value):
    """A resourceVersion: decimal digits that change with value."""
    text = json.dumps(value, sort_keys=True).encode()
    return str(int(hashlib.sha256(text).hexdigest()[:12], 16))


def _metadata(kube, kind, name, namespace=NAMESPACE, generation=1):
    seed = uuid.UUID(kube['uid_seed'])
    meta = {'name': name, 'uid': str(uuid.uuid5(seed, kind + '/' + name)),
            'generation': generation,
            'creationTimestamp': kube['created']}
    if namespace:
        meta['namespace'] = namespace
    return meta


def _finish(obj):
    """Set metadata.resourceVersion from everything else of obj."""
    obj['metadata'].pop('resourceVersion', None)
    obj['metadata']['resourceVersion'] = _digits(obj)
    return obj


def _condition(ready, message):
    return {'type': 'Ready', 'status': 'True' if ready else 'False',
            'reason': 'Ready' if ready else 'Requested',
            'severity': '' if ready else 'Info',
            'message': message}


def controlplane(data):
    kube = data['kube']
    obj = {'apiVersion': 'core.openstack.org/v1beta1',
           'kind': 'OpenStackControlPlane',
           'metadata': _metadata(kube, 'OpenStackControlPlane',
                                 CONTROLPLANE_NAME,
                                 generation=kube.get('generation', 1)),
           'spec': {'glance': {'enabled': True,
                               'template': copy.deepcopy(data['spec'])},
                    'heat': {'enabled': bool(
                        data.get('options', {}).get('heat'))}},
           'status': {'deployedVersion': OPENSTACK_VERSION,
                      'conditions': [_condition(
                          True, 'Setup complete')]}}
    return _finish(obj)


def glance(data, document):
    """The Glance CR: the ``get`` document with Kubernetes metadata."""
    kube = data['kube']
    owner = controlplane(data)['metadata']
    obj = copy.deepcopy(document)
    obj['metadata'] = _metadata(kube, 'Glance', GLANCE_NAME,
                                generation=kube.get('generation', 1))
    obj['metadata']['ownerReferences'] = [{
        'apiVersion': 'core.openstack.org/v1beta1',
        'kind': 'OpenStackControlPlane', 'name': owner['name'],
        'uid': owner['uid'], 'controller': True,
        'blockOwnerDeletion': True}]
    counts = obj['status'].get('glanceAPIReadyCounts', {})
    wanted = [api for api, item in obj['spec']['glanceAPIs'].items()
              if item.get('replicas', 1) > 0]
    ready = all(counts.get(api) for api in wanted)
    obj['status']['conditions'] = [_condition(
        ready, 'Setup complete' if ready else 'GlanceAPI not ready: %s' %
        ', '.join(sorted(a for a in wanted if not counts.get(a))))]
    return _finish(obj)


def heat_image(data, deployment=None, drifted=()):
    """The image reference heat runs from (deployment drifted or not)."""
    kube = data['kube']
    digest = kube['heat_digest']
    if deployment in drifted:
        digest = hashlib.sha256(('%s drifted for %s' % (
            digest, deployment)).encode()).hexdigest()
    return '127.0.0.1:%d/podified/%s@sha256:%s' % (
        data.get('ports', {}).get('registry', 5000), HEAT_IMAGE_NAME,
        digest)


def openstackversion(data):
    kube = data['kube']
    images = {}
    if data.get('options', {}).get('heat'):
        images = {field: heat_image(data)
                  for _proc, field in HEAT_DEPLOYMENTS.values()}
    obj = {'apiVersion': 'core.openstack.org/v1beta1',
           'kind': 'OpenStackVersion',
           'metadata': _metadata(kube, 'OpenStackVersion', VERSION_NAME),
           'spec': {'targetVersion': OPENSTACK_VERSION,
                    'customContainerImages': {}},
           'status': {'availableVersion': OPENSTACK_VERSION,
                      'deployedVersion': OPENSTACK_VERSION,
                      'containerImages': images,
                      'conditions': [_condition(True, 'Setup complete')]}}
    return _finish(obj)


def deployment(data, name, running, drifted=()):
    """A heat Deployment; ready when its process runs."""
    kube = data['kube']
    process, _field = HEAT_DEPLOYMENTS[name]
    labels = {'service': 'heat', 'component': name}
    status = {'observedGeneration': 1, 'replicas': 1, 'updatedReplicas': 1}
    # NOTE: like the API server, counts of zero are left out (omitempty).
    if process in running:
        status.update(readyReplicas=1, availableReplicas=1)
    else:
        status['unavailableReplicas'] = 1
    obj = {'apiVersion': 'apps/v1', 'kind': 'Deployment',
           'metadata': dict(_metadata(kube, 'Deployment', name),
                            labels=labels),
           'spec': {'replicas': 1,
                    'selector': {'matchLabels': dict(labels)},
                    'strategy': {'type': 'RollingUpdate'},
                    'template': {
                        'metadata': {'labels': dict(labels)},
                        'spec': {'containers': [{
                            'name': name,
                            'image': heat_image(data, name, drifted)}]}}},
           'status': status}
    return _finish(obj)


def namespace_object(data):
    obj = {'apiVersion': 'v1', 'kind': 'Namespace',
           'metadata': _metadata(data['kube'], 'Namespace', NAMESPACE,
                                 namespace=None),
           'spec': {'finalizers': ['kubernetes']},
           'status': {'phase': 'Active'}}
    del obj['metadata']['generation']
    return _finish(obj)


def world(data, document, running, drifted=()):
    """{plural: [objects]} of everything served, from the state data.

    document: the Glance ``get`` document; running: the names of the
    processes up; drifted: Deployments whose image is made to differ.
    """
    objects = {
        'glances': [glance(data, document)],
        'openstackcontrolplanes': [controlplane(data)],
        'openstackversions': [openstackversion(data)],
        'deployments': [],
        'namespaces': [namespace_object(data)],
        'configmaps': [],
        'pods': [],
    }
    if data.get('options', {}).get('heat'):
        objects['deployments'] = [deployment(data, name, running, drifted)
                                  for name in HEAT_DEPLOYMENTS]
    return objects


def object_list(resource, items):
    return {'apiVersion': group_version(resource),
            'kind': resource.kind + 'List',
            'metadata': {'resourceVersion': _digits(
                [i['metadata']['resourceVersion'] for i in items])},
            'items': items}


# -- the Glance spec behind the control plane ---------------------------------
class PatchError(errors.OneLineError):
    """A patch body the embedded API refuses (one line)."""


def template_patch(body):
    """The merge patch of the Glance spec inside an OSCP merge patch.

    Returns the patch of ``spec.glance.template`` (a dict), or None when
    the body does not touch it; PatchError for what cannot be applied.
    """
    if not isinstance(body, dict):
        raise PatchError('a merge patch must be a JSON object')
    spec = body.get('spec')
    if spec is not None and not isinstance(spec, dict):
        raise PatchError('spec: must be an object')
    glance_part = (spec or {}).get('glance')
    if glance_part is None:
        return None
    if not isinstance(glance_part, dict):
        raise PatchError('spec.glance: must be an object')
    if glance_part.get('enabled') is False:
        raise PatchError('spec.glance.enabled: the embedded cloud always '
                         'runs glance')
    if 'template' not in glance_part:
        return None
    template = glance_part['template']
    if not isinstance(template, dict):
        raise PatchError('spec.glance.template: must be an object, not %s'
                         % documents.short(json.dumps(template)))
    return template


def heat_record_digest(distribution='openstack-heat'):
    """sha256 of the installed heat's RECORD: a digest of its code.

    RECORD lists every file the distribution installed with the file's
    own sha256, so it changes whenever any of heat's code does: the local
    analogue of the manifest digest of the one heat container image.
    """
    from importlib import metadata
    try:
        text = metadata.distribution(distribution).read_text('RECORD')
    except metadata.PackageNotFoundError:
        text = None
    if not text:
        text = 'no %s installed' % distribution
    return hashlib.sha256(text.encode()).hexdigest()
