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

"""The heat objects of the embedded Kubernetes API: Deployments and Pods.

heat-operator runs heat-api, heat-api-cfn and heat-engine as three
Deployments of one replica (internal/heatapi, heatcfnapi and heatengine
deployment.go): labels ``service: heat`` and ``component: api | cfnapi |
engine`` (lib-common's AppSelector and ComponentSelector) select their
pods, terminationGracePeriodSeconds is 60 (oslo.service's graceful
shutdown), and heat-engine's readiness probe (``pgrep -r DRST
heat-engine``) starts after 10 s. Here a local process plays each pod;
the facts about those processes come in as PodFacts and the objects are
built from them, so a Deployment's status counts its pods as the
Deployment controller does: terminating pods are not replicas, and a pod
is ready when its probe would pass. Which image each Deployment runs
follows the cloud's heat layout (imagecheck/heat_images.py LAYOUTS: tcib's
three images, s2i's two, or one) and the OpenStackVersion's overrides.
Pure logic.
"""

import collections
import hashlib

from glance_multiapi_kernel import heat_images
from glance_multiapi_cloud.kubeapi import objectmeta

Heat = collections.namedtuple('Heat', 'process field component')

# NOTE: Deployment names from heat-operator (internal/heatapi/const.go,
# internal/heatcfnapi/const.go, internal/heatengine/deployment.go), each
# with the local process that plays its pod.
DEPLOYMENTS = collections.OrderedDict((
    ('heat-api', Heat('heat-api', 'heatAPIImage', 'api')),
    ('heat-cfnapi', Heat('heat-api-cfn', 'heatCfnapiImage', 'cfnapi')),
    ('heat-engine', Heat('heat-engine', 'heatEngineImage', 'engine')),
))
# NOTE: the layout the cloud's operator defaults to unless up names one.
DEFAULT_LAYOUT = heat_images.DEFAULT_LAYOUT
LAYOUTS = tuple(sorted(heat_images.LAYOUTS))
GRACE_SECONDS = 60
# NOTE: heat-engine's readiness probe: initialDelaySeconds 10; the API
# pods' HTTP probes are taken as passing while their process runs.
READY_AFTER = {'heat-engine': 10}

# A pod as its process (or its absence) shows it. name: the pod's;
# started: time.time() its container started (None while Pending);
# alive: whether the process runs; deleted_at: time.time() of its
# deletion, else None; grace: the deletion's grace period; waiting: why
# a Pending pod does not start (e.g. ImagePullBackOff), else None.
PodFact = collections.namedtuple(
    'PodFact', 'name started alive deleted_at grace waiting')


def labels(name):
    return {'service': 'heat', 'component': DEPLOYMENTS[name].component}


def selector(name):
    """The label selector of the Deployment, as a query string says it."""
    return ','.join('%s=%s' % item for item in sorted(labels(name).items()))


# What heat's image references are made of: the layout (LAYOUTS), the
# digest the cloud names its images by, and the registry's port.
HeatImages = collections.namedtuple('HeatImages',
                                    'layout digest registry_port')


def images_of(record):
    """The HeatImages of a cloud's record (record.Record)."""
    return HeatImages(record.options.heat_layout or DEFAULT_LAYOUT,
                      record.kube.heat_digest,
                      record.ports.get('registry', 5000))


def layout_images(name):
    """[(image name, fields)] of layout name, as heat_images.LAYOUTS has it."""
    return heat_images.LAYOUTS[name]


def image_name(images, field):
    """The image that serves OpenStackVersion field in the cloud's layout."""
    for name, fields in layout_images(images.layout):
        if field in fields:
            return name
    raise KeyError(field)


def default_reference(images, field):
    """The reference the cloud's operator defaults field to.

    NOTE: each image gets a digest of its own, made from the installed
    heat's RECORD and the image's name, so two images of a layout never
    share one and one image's fields always do.
    """
    name = image_name(images, field)
    digest = hashlib.sha256(('%s %s' % (images.digest, name)
                             ).encode()).hexdigest()
    return '127.0.0.1:%d/podified/%s@sha256:%s' % (
        images.registry_port, name, digest)


def image(images, deployment, drifted=(), reference=None):
    """The image reference a heat Deployment runs.

    reference: what the OpenStackVersion's status names for its field
    (the default when None); drifted: the Deployments a fault makes run
    another digest than that.
    """
    if reference is None:
        reference = default_reference(images,
                                      DEPLOYMENTS[deployment].field)
    if deployment not in drifted:
        return reference
    return redigested(reference, deployment)


def redigested(reference, why):
    """reference with another digest of its image, the same for why."""
    name, _sep, digest = reference.partition('@sha256:')
    return '%s@sha256:%s' % (name, other_digest(digest, why))


def other_digest(digest, why):
    """A digest that is not digest, the same every time for why."""
    return hashlib.sha256(('%s drifted for %s' % (digest, why)).encode()
                          ).hexdigest()


def template_hash(images, name, drifted=()):
    """pod-template-hash of the Deployment's ReplicaSet."""
    return hashlib.sha256(image(images, name, drifted).encode()).hexdigest()[
        :10]


def pod_name(images, name, seed, drifted=()):
    """<deployment>-<template hash>-<5 characters>, as a ReplicaSet names."""
    suffix = hashlib.sha256(str(seed).encode()).hexdigest()[:5]
    return '%s-%s-%s' % (name, template_hash(images, name, drifted),
                         suffix)


def is_ready(name, fact, now):
    if not fact.alive or fact.deleted_at is not None or fact.waiting:
        return False
    return now - (fact.started or now) >= READY_AFTER.get(name, 0)


def pod(images, name, fact, now, metadata, drifted=(), reference=None):
    """The Pod object of one PodFact of Deployment name.

    metadata: the namespace, uid and creationTimestamp to use;
    reference: the image its field is deployed from (image()).
    """
    pod_hash = template_hash(images, name, drifted)
    meta = dict(metadata, name=fact.name,
                labels=dict(labels(name), **{'pod-template-hash': pod_hash}),
                ownerReferences=[{
                    'apiVersion': 'apps/v1', 'kind': 'ReplicaSet',
                    'name': '%s-%s' % (name, pod_hash),
                    'controller': True, 'blockOwnerDeletion': True}])
    if fact.deleted_at is not None:
        meta['deletionTimestamp'] = objectmeta.timestamp(
            fact.deleted_at + fact.grace)
        meta['deletionGracePeriodSeconds'] = int(fact.grace)
    ready = is_ready(name, fact, now)
    if fact.waiting:
        phase, state = 'Pending', {'waiting': {'reason': fact.waiting}}
    else:
        phase = 'Running'
        state = {'running': {'startedAt': objectmeta.timestamp(
            fact.started or now)}}
    running = image(images, name, drifted, reference)
    container = {'name': name, 'image': running,
                 'ready': ready, 'started': not fact.waiting,
                 'restartCount': 0, 'state': state}
    return {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': meta,
            'spec': {'containers': [{'name': name, 'image': running}],
                     'terminationGracePeriodSeconds': GRACE_SECONDS},
            'status': {'phase': phase,
                       'conditions': [{'type': 'Ready',
                                       'status': str(ready)}],
                       'containerStatuses': [container]}}


def deployment_status(name, facts, now):
    """status of a one-replica Deployment whose pods are facts.

    NOTE: as the Deployment controller counts: a terminating pod is no
    replica; counts of zero are left out (omitempty).
    """
    live = [f for f in facts if f.deleted_at is None]
    ready = sum(1 for f in live if is_ready(name, f, now))
    status = {'observedGeneration': 1}
    for key, value in (('replicas', len(live)),
                       ('updatedReplicas', len(live)),
                       ('readyReplicas', ready),
                       ('availableReplicas', ready),
                       ('unavailableReplicas', max(0, 1 - ready))):
        if value:
            status[key] = value
    return status


def deployment(images, name, facts, now, metadata, drifted=(),
               reference=None):
    """The Deployment object of heat service name (reference: image())."""
    selected = labels(name)
    return {'apiVersion': 'apps/v1', 'kind': 'Deployment',
            'metadata': dict(metadata, labels=dict(selected)),
            'spec': {'replicas': 1,
                     'selector': {'matchLabels': dict(selected)},
                     'strategy': {'type': 'RollingUpdate'},
                     'template': {
                         'metadata': {'labels': dict(selected)},
                         'spec': {
                             'containers': [{
                                 'name': name,
                                 'image': image(images, name, drifted,
                                                reference)}],
                             'terminationGracePeriodSeconds':
                                 GRACE_SECONDS}}},
            'status': deployment_status(name, facts, now)}


def record_digest(distribution='openstack-heat'):
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
