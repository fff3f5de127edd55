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
and the objects themselves: the Glance CR and its GlanceAPI CRs
(glance.py), the OpenStackControlPlane that owns it, the
OpenStackVersion and, with heat, the three heat Deployments.
Pure logic: the caller passes the cloud's record (record.Record), the
``get`` document and
which processes run.
"""

import copy
import dataclasses
import json
import re
import uuid

from glance_multiapi_kernel import documents
from glance_multiapi_kernel import errors
from glance_multiapi_kernel import kube
from glance_multiapi_cloud.kubeapi import configmaps
from glance_multiapi_cloud.kubeapi import embedded
from glance_multiapi_cloud.kubeapi import objectmeta
from glance_multiapi_cloud.kubeapi import resources
from glance_multiapi_cloud.kubeapi.embedded import glance as kubeglance
from glance_multiapi_cloud.kubeapi.embedded import heat as kubeheat

NAMESPACE = embedded.NAMESPACE
GLANCE_NAME = 'glance'
CONTROLPLANE_NAME = 'openstack'
VERSION_NAME = 'openstack'
# NOTE: the version the operators report (the heat state update makes
# another available).
OPENSTACK_VERSION = kubeheat.VERSION
# NOTE: the service account the kubeconfig acts as when no RBAC
# manifest names one (rbac.yaml's).
ACCOUNT = 'glance-multiapi-tests'
_DNS_LABEL = re.compile(r'[a-z0-9]([-a-z0-9]*[a-z0-9])?$')


def valid_name(name):
    """Whether name is a DNS-1123 label, as a namespace name must be."""
    return bool(name) and len(name) <= 63 and bool(_DNS_LABEL.match(name))


def namespace_of(kube):
    """The namespace of the cloud's objects (kube: a record.Kube)."""
    return kube.namespace or NAMESPACE


def _served(resource, verbs):
    """The stand-in's entry of a resource the kernel declares (kube.py)."""
    return resources.Resource(resource.group, resource.version,
                              resource.plural, resource.kind,
                              resource.singular, resource.short_names,
                              resource.namespaced, verbs)


RESOURCES = (
    _served(kube.GLANCE, ('get', 'list', 'patch')),
    _served(kube.GLANCE_API, ('get', 'list')),
    _served(kube.CONTROLPLANE, ('get', 'list', 'patch')),
    _served(kube.VERSION, ('get', 'list')),
    _served(kube.DEPLOYMENT, ('get', 'list')),
    _served(kube.NAMESPACE, ('get', 'list')),
    configmaps.RESOURCE,
    # NOTE: heat's are played by its processes (heat.py), the others
    # stored (pods.py says why).
    _served(kube.POD, ('create', 'delete', 'get', 'list')),
)
# NOTE: what the embedded API serves, and its discovery documents.
SERVED = resources.Resources(RESOURCES)


# -- objects ------------------------------------------------------------------
def _metadata(kube, kind, name, namespaced=True, generation=1):
    seed = uuid.UUID(kube.uid_seed)
    meta = {'name': name, 'uid': str(uuid.uuid5(seed, kind + '/' + name)),
            'generation': generation,
            'creationTimestamp': kube.created}
    if namespaced:
        meta['namespace'] = namespace_of(kube)
    return meta


def _condition(ready, message):
    return {'type': 'Ready', 'status': 'True' if ready else 'False',
            'reason': 'Ready' if ready else 'Requested',
            'severity': '' if ready else 'Info',
            'message': message}


def _services(options):
    """{service: {'enabled': ...}} of the control plane's other services.

    NOTE: an option of up that turns a service on says which in its
    declaration (components.Setting.controlplane), kept in the metadata
    of its field of record.Options.
    """
    found = {}
    for field in dataclasses.fields(options):
        setting = field.metadata.get('setting')
        if setting is not None and setting.controlplane:
            found[setting.controlplane] = {'enabled': bool(
                getattr(options, field.name))}
    return found


def controlplane(record):
    kube = record.kube
    obj = {'apiVersion': 'core.openstack.org/v1beta1',
           'kind': 'OpenStackControlPlane',
           'metadata': _metadata(kube, 'OpenStackControlPlane',
                                 CONTROLPLANE_NAME,
                                 generation=kube.generation),
           'spec': dict({'glance': {'enabled': True,
                                    'template': copy.deepcopy(record.spec)}},
                        **_services(record.options)),
           'status': {'deployedVersion': OPENSTACK_VERSION,
                      'conditions': [_condition(
                          True, 'Setup complete')]}}
    return objectmeta.versioned(obj)


def glance(record, document):
    """The Glance CR: the ``get`` document with Kubernetes metadata.

    Its status and conditions are glance.py's.
    """
    kube = record.kube
    owner = controlplane(record)['metadata']
    obj = copy.deepcopy(document)
    annotations = (document.get('metadata') or {}).get('annotations')
    obj['metadata'] = _metadata(kube, 'Glance', GLANCE_NAME,
                                generation=kube.generation)
    if annotations:
        obj['metadata']['annotations'] = dict(annotations)
    obj['metadata']['ownerReferences'] = [{
        'apiVersion': 'core.openstack.org/v1beta1',
        'kind': 'OpenStackControlPlane', 'name': owner['name'],
        'uid': owner['uid'], 'controller': True,
        'blockOwnerDeletion': True}]
    return objectmeta.versioned(obj)


def glanceapis(record, document, glance_obj, now=None, faults=None):
    """The GlanceAPI CRs the Glance CR owns (glance.py)."""
    kube = record.kube
    return [objectmeta.versioned(obj) for obj in kubeglance.glanceapis(
        record, document, glance_obj['metadata'],
        lambda name, generation: _metadata(kube, 'GlanceAPI', name,
                                           generation=generation),
        record.reconciled_at, now, faults)]


def heat_images(record, faults=None):
    """(overrides, deployed) of heat's OpenStackVersion fields.

    overrides: {field: reference} of spec.customContainerImages, the heat
    state's (kubeheat.STATES) and a fault's; deployed: {field: reference}
    the operator deploys, the override else the default of the target
    version. What status says is deployed() passed through the faults'
    version_image.
    """
    overrides, deployed = {}, {}
    if not record.options.heat:
        return overrides, deployed
    state = kubeheat.declared(kubeheat.images_of(record))
    plain = dict(state.defaults, **state.custom)
    for heat in kubeheat.DEPLOYMENTS.values():
        field = heat.field
        custom = state.custom.get(field)
        if faults is not None:
            custom = faults.custom_image(field, plain[field],
                                         plain) or custom
        if custom is not None:
            overrides[field] = custom
        deployed[field] = custom or state.defaults[field]
    return overrides, deployed


def openstackversion(record, faults=None):
    """The OpenStackVersion; faults may change a field's reference.

    As openstack-operator keeps it: each version's defaults in
    status.containerImageVersionDefaults, status.containerImages from
    the overrides, else the target version's defaults; an update makes
    a newer version available (availableVersion) before targetVersion
    moves to it.
    """
    kube = record.kube
    overrides, deployed = heat_images(record, faults)
    images = {}
    for field, reference in deployed.items():
        if faults is not None:
            reference = faults.version_image(field, reference)
        if reference is not None:
            images[field] = reference
    status = {'availableVersion': OPENSTACK_VERSION,
              'deployedVersion': OPENSTACK_VERSION,
              'containerImages': images,
              'conditions': [_condition(True, 'Setup complete')]}
    if record.options.heat:
        state = kubeheat.declared(kubeheat.images_of(record))
        by_version = {OPENSTACK_VERSION: dict(state.defaults)}
        if state.next is not None:
            status['availableVersion'] = kubeheat.NEXT_VERSION
            by_version[kubeheat.NEXT_VERSION] = dict(state.next)
        status['containerImageVersionDefaults'] = by_version
    obj = {'apiVersion': 'core.openstack.org/v1beta1',
           'kind': 'OpenStackVersion',
           'metadata': _metadata(kube, 'OpenStackVersion', VERSION_NAME),
           'spec': {'targetVersion': OPENSTACK_VERSION,
                    'customContainerImages': overrides},
           'status': status}
    return objectmeta.versioned(obj)


def heat_objects(record, pods, now, drifted=(), faults=None):
    """(Deployments, Pods) of heat: pods is {Deployment: [PodFact]}.

    Each Deployment runs what the operator deploys for its field
    (heat_images), or another digest of it when drifted names it; its
    pods what a fault makes of that (a stuck rollout, a tag resolved
    apart).
    """
    _overrides, deployed = heat_images(record, faults)
    images = kubeheat.images_of(record)
    apart = [name for name in kubeheat.DEPLOYMENTS
             if faults is not None and faults.pod_digest_drifts(name)]
    rolling = [name for name in kubeheat.DEPLOYMENTS
               if faults is not None and faults.rollout_stuck(name)]
    deployments, items = [], []
    for name, heat in kubeheat.DEPLOYMENTS.items():
        run = kubeheat.running(images, name, deployed.get(heat.field),
                               drifted, apart, rolling)
        facts = pods.get(name, [])
        meta = _metadata(record.kube, 'Deployment', name)
        deployments.append(objectmeta.versioned(kubeheat.deployment(
            name, facts, now, meta, run)))
        for fact in facts:
            pod_meta = _metadata(record.kube, 'Pod', fact.name)
            del pod_meta['generation']
            if fact.started:
                pod_meta['creationTimestamp'] = objectmeta.timestamp(
                    fact.started)
            items.append(objectmeta.versioned(kubeheat.pod(
                images, name, fact, now, pod_meta, run)))
    return deployments, items


def namespace_object(kube):
    obj = {'apiVersion': 'v1', 'kind': 'Namespace',
           'metadata': _metadata(kube, 'Namespace', namespace_of(kube),
                                 namespaced=False),
           'spec': {'finalizers': ['kubernetes']},
           'status': {'phase': 'Active'}}
    del obj['metadata']['generation']
    return objectmeta.versioned(obj)


def world(record, document, heat_pods=None, now=None, faults=None):
    """{plural: [objects]} of everything served, from the cloud's record.

    document: the Glance ``get`` document; heat_pods: {heat Deployment:
    [kubeheat.PodFact]} of the processes that play its pods; now:
    time.time(); faults: what a fault makes differ (image_drifts,
    version_image, custom_image, pod_digest_drifts, rollout_stuck), else
    None.
    """
    drifted = [name for name in kubeheat.DEPLOYMENTS
               if faults is not None and faults.image_drifts(name)]
    glance_obj = glance(record, document)
    objects = {
        'glances': [glance_obj],
        'glanceapis': glanceapis(record, document, glance_obj, now,
                                 faults),
        'openstackcontrolplanes': [controlplane(record)],
        'openstackversions': [openstackversion(record, faults)],
        'deployments': [],
        'namespaces': [namespace_object(record.kube)],
        'configmaps': [],
        'pods': [],
    }
    if record.options.heat:
        objects['deployments'], objects['pods'] = heat_objects(
            record, heat_pods or {}, now or 0, drifted, faults)
    return objects


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
