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
is ready when its probe would pass.

Which images the OpenStackVersion declares and the Deployments and pods
run follows the cloud's heat state (STATES, ``up`` or ``patch
--heat-state``), each one real clusters are in: upstream's default,
tcib's three images by tag; s2i's two images given through
spec.customContainerImages, pinned or by their rolling tag; all three in
one; a product's names; a field moved onto another image through a
mirror; an update that made the next version available. A pod's imageID
is what its reference resolved to: its digest, or, for a tag, the build
the cloud names after the image and tag. Pure logic.
"""

import collections
import hashlib

from glance_multiapi_kernel import heat_images
from glance_multiapi_kernel import image_mappings
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


# NOTE: where upstream's images live. tcib's, as openstack-operator ships
# them (config/operator/default_images.yaml: three images by the tag
# current-podified); s2i's published builds (s2i-openstack-containers
# docs/design.md: quay.io/openstack-k8s-operators, the rolling tag
# master-latest beside immutable ones); a product's (openstack-operator's
# disconnected-install doc: registry.redhat.io/rhoso/openstack-<service>
# -rhel9). The references are data: nothing pulls them.
TCIB = 'quay.io/podified-antelope-centos9/'
TCIB_TAG = ':current-podified'
S2I = 'quay.io/openstack-k8s-operators/'
S2I_TAG = ':master-latest'
PRODUCT = 'registry.redhat.io/rhoso/'
TCIB_NAMES = dict(zip(heat_images.FIELDS, heat_images.TCIB_NAMES))
# NOTE: the manager env openstack-operator takes its defaults from
# (config/operator/default_images.yaml), and the variable of its version.
ENV_NAMES = {heat_images.API: 'RELATED_IMAGE_HEAT_API_IMAGE_URL_DEFAULT',
             heat_images.CFNAPI:
                 'RELATED_IMAGE_HEAT_CFNAPI_IMAGE_URL_DEFAULT',
             heat_images.ENGINE:
                 'RELATED_IMAGE_HEAT_ENGINE_IMAGE_URL_DEFAULT'}
ENV_VERSION = 'OPENSTACK_RELEASE_VERSION'
API, CFNAPI, ENGINE = heat_images.API, heat_images.CFNAPI, heat_images.ENGINE
VERSION = '0.0.1'
# NOTE: the version an operator update makes available (state update).
NEXT_VERSION = '0.0.2'

# What heat's image references are made of: the state (STATES), the
# digest the cloud names its builds by, and the registry's port (the
# mirror of state mirror is there).
HeatImages = collections.namedtuple('HeatImages',
                                    'state digest registry_port')

# What the OpenStackVersion holds in one heat state: defaults {field:
# reference} of spec.targetVersion, custom: spec.customContainerImages;
# with next: an update made it available (availableVersion NEXT_VERSION,
# its defaults next, targetVersion still VERSION).
Declared = collections.namedtuple('Declared', 'defaults custom next')


def images_of(record):
    """The HeatImages of a cloud's record (record.Record)."""
    return HeatImages(record.options.heat_state or DEFAULT_STATE,
                      record.kube.heat_digest,
                      record.ports.get('registry', 5000))


def digest_of(images, build):
    """sha256:... of one build the cloud names (its image and tag).

    NOTE: made from the installed heat's RECORD and what the build is, so
    two builds never share a digest and one build always has one.
    """
    return 'sha256:' + hashlib.sha256(('%s %s' % (images.digest, build)
                                       ).encode()).hexdigest()


def _pinned(images, repository):
    return '%s@%s' % (repository, digest_of(images, repository))


def _tcib(_images):
    return {field: TCIB + name + TCIB_TAG
            for field, name in TCIB_NAMES.items()}


def _s2i(images, tag=None):
    api = S2I + 'openstack-heat-api'
    engine = S2I + 'openstack-heat-engine'
    if tag:
        api, engine = api + tag, engine + tag
    else:
        api, engine = _pinned(images, api), _pinned(images, engine)
    return {API: api, CFNAPI: api, ENGINE: engine}


def _product(images):
    return {field: _pinned(images, PRODUCT + name + '-rhel9')
            for field, name in TCIB_NAMES.items()}


def _mirror(images):
    """heat-cfnapi moved onto heat-api's product image, through a mirror."""
    api = _product(images)[API].rsplit('/', 1)[1]
    return {CFNAPI: '127.0.0.1:%d/rhoso/%s' % (images.registry_port, api)}


def _proposed(images):
    """Defaults with heat-cfnapi on the heat-api image, as proposed.

    heat-operator #705 and openstack-operator #2043 (open) point the
    cfnapi default at openstack-heat-api; pinned by digest, as a released
    bundle pins the images it relates.
    """
    refs = {field: _pinned(images, TCIB + name)
            for field, name in TCIB_NAMES.items()}
    refs[CFNAPI] = refs[API]
    return refs


def _hotfix(images):
    """heat-api overridden by a build of its own, pinned."""
    return {API: '%sopenstack-heat-api@%s' % (
        TCIB, digest_of(images, 'a hotfix of openstack-heat-api'))}


# NOTE: state -> (help, Declared maker). Each is a state real clusters
# are in; what status deploys is the override, else the default.
STATES = collections.OrderedDict((
    ('tcib', ('the operators\' defaults: tcib\'s three images by tag '
              '(openstack-operator config/operator/default_images.yaml)',
              lambda i: Declared(_tcib(i), {}, None))),
    ('s2i', ('tcib defaults; spec.customContainerImages gives s2i\'s two '
             'images, pinned: heat-api and heat-api-cfn from '
             'openstack-heat-api, heat-engine from its own',
             lambda i: Declared(_tcib(i), _s2i(i), None))),
    ('s2i-latest', ('as s2i, by s2i\'s rolling tag master-latest',
                    lambda i: Declared(_tcib(i), _s2i(i, S2I_TAG), None))),
    ('one', ('tcib defaults; all three overridden to s2i\'s heat-api image '
             '(the first proposal)',
             lambda i: Declared(_tcib(i), {f: _s2i(i)[API]
                                           for f in heat_images.FIELDS},
                                None))),
    ('proposed', ('the defaults heat-operator #705 and openstack-operator '
                  '#2043 propose: heat-cfnapi on the heat-api image, '
                  'pinned as a released bundle pins them',
                  lambda i: Declared(_proposed(i), {}, None))),
    ('product', ('a product\'s defaults: registry.redhat.io/rhoso/'
                 'openstack-heat-{api,api-cfn,engine}-rhel9, pinned',
                 lambda i: Declared(_product(i), {}, None))),
    ('mirror', ('product defaults; heat-api-cfn overridden to heat-api\'s '
                'image and pin through a mirror (the layout s2i landed)',
                lambda i: Declared(_product(i), _mirror(i), None))),
    ('update', ('an operator update made %s available (heat-cfnapi on '
                'the heat-api image, as heat-operator #705 proposes) while '
                'targetVersion stays %s; heat-api overridden by a hotfix'
                % (NEXT_VERSION, VERSION),
                lambda i: Declared(_tcib(i), _hotfix(i), _proposed(i)))),
))
DEFAULT_STATE = 'tcib'


def declared(images):
    """The Declared of the cloud's heat state."""
    return STATES[images.state][1](images)


def deployed(images):
    """{field: reference} the operator deploys: the override, else default."""
    found = declared(images)
    return dict(found.defaults, **found.custom)


def by_image(references):
    """[(image name, [field, ...])] of {field: reference}, fields in order."""
    found = collections.OrderedDict()
    for field in heat_images.FIELDS:
        if field in references:
            found.setdefault(image_mappings.image_name(references[field]),
                             []).append(field)
    return list(found.items())


def manager_env(images):
    """The operator's manager env: its version and heat's defaults.

    The version it ships is the available one: the next one after an
    update (state update), whose defaults it then holds.
    """
    found = declared(images)
    version = NEXT_VERSION if found.next is not None else VERSION
    defaults = found.next if found.next is not None else found.defaults
    return [(ENV_VERSION, version)] + [
        (ENV_NAMES[field], defaults[field]) for field in heat_images.FIELDS]


def resolved(images, reference):
    """The imageID a pod of reference runs: repository@digest.

    A digest is its own; a tag resolves to the build the cloud names
    after the image and tag (the same for every pod of one tag).
    """
    name, _sep, digest = reference.partition('@')
    repository = name
    tail = name.rsplit('/', 1)[-1]
    if ':' in tail:
        repository = name[:-len(tail)] + tail.split(':', 1)[0]
    if not digest:
        digest = digest_of(images, '%s %s' % (
            repository.rsplit('/', 1)[-1], tail.split(':', 1)[-1]))
    return '%s@%s' % (repository, digest)


def image(images, deployment, drifted=(), reference=None):
    """The image reference a heat Deployment runs.

    reference: what the OpenStackVersion's status names for its field
    (the state's when None); drifted: the Deployments a fault makes run
    another digest than that.
    """
    if reference is None:
        reference = deployed(images)[DEPLOYMENTS[deployment].field]
    if deployment not in drifted:
        return reference
    return redigested(reference, deployment)


def redigested(reference, why):
    """reference pinned to another digest of its image, the same for why.

    A tagged reference keeps its tag and gains the digest, as a pin of
    one build of that tag would.
    """
    name, _sep, digest = reference.partition('@')
    return '%s@sha256:%s' % (name, other_digest(digest or name, why))


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


# What one heat Deployment runs: image, its template's; pod_image, what
# its pods run (the previous template's while its rollout is stuck);
# image_id, the digest those resolved to; rolling, whether it is stuck.
Running = collections.namedtuple('Running',
                                 'image pod_image image_id rolling')


def running(images, name, reference=None, drifted=(), apart=(),
            rolling=()):
    """The Running of Deployment name.

    reference: status's for its field (the state's when None); drifted,
    apart, rolling: the Deployments whose template runs another digest
    (heat-image-drift), whose pod resolved another digest than its
    image's other pods (pod-digest-drift), whose rollout never ends
    (heat-rollout-stuck).
    """
    template = image(images, name, drifted, reference)
    on_pods = template
    if name in rolling:
        on_pods = redigested(template, 'the rollout before %s' % name)
    image_id = resolved(images, on_pods)
    if name in apart:
        repository, _sep, digest = image_id.partition('@')
        image_id = '%s@sha256:%s' % (repository, other_digest(
            digest, 'a pull of %s' % name))
    return Running(template, on_pods, image_id, name in rolling)


def pod(images, name, fact, now, metadata, run=None):
    """The Pod object of one PodFact of Deployment name.

    metadata: the namespace, uid and creationTimestamp to use; run: the
    Deployment's Running (the state's when None).
    """
    run = run or running(images, name)
    pod_hash = hashlib.sha256(run.pod_image.encode()).hexdigest()[:10]
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
    container = {'name': name, 'image': run.pod_image,
                 'ready': ready, 'started': not fact.waiting,
                 'restartCount': 0}
    if fact.waiting:
        # NOTE: the kubelet reports no imageID before the image is pulled.
        phase = 'Pending'
        container.update(imageID='', state={
            'waiting': {'reason': fact.waiting}})
    else:
        phase = 'Running'
        container.update(imageID=run.image_id, state={'running': {
            'startedAt': objectmeta.timestamp(fact.started or now)}})
    return {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': meta,
            'spec': {'containers': [{'name': name, 'image': run.pod_image}],
                     'terminationGracePeriodSeconds': GRACE_SECONDS},
            'status': {'phase': phase,
                       'conditions': [{'type': 'Ready',
                                       'status': str(ready)}],
                       'containerStatuses': [container]}}


def deployment_status(name, facts, now, rolling=False):
    """status of a one-replica Deployment whose pods are facts.

    NOTE: as the Deployment controller counts: a terminating pod is no
    replica; counts of zero are left out (omitempty). A rollout that
    does not progress (rolling) has observed its new template, generation
    2, but none of the pods runs it.
    """
    live = [f for f in facts if f.deleted_at is None]
    ready = sum(1 for f in live if is_ready(name, f, now))
    status = {'observedGeneration': 2 if rolling else 1}
    for key, value in (('replicas', len(live)),
                       ('updatedReplicas', 0 if rolling else len(live)),
                       ('readyReplicas', ready),
                       ('availableReplicas', ready),
                       ('unavailableReplicas', max(0, 1 - ready))):
        if value:
            status[key] = value
    return status


def deployment(name, facts, now, metadata, run):
    """The Deployment object of heat service name (run: its Running)."""
    selected = labels(name)
    meta = dict(metadata, labels=dict(selected))
    if run.rolling:
        # NOTE: its template changed once: the rollout that is stuck.
        meta['generation'] = 2
    return {'apiVersion': 'apps/v1', 'kind': 'Deployment',
            'metadata': meta,
            'spec': {'replicas': 1,
                     'selector': {'matchLabels': dict(selected)},
                     'strategy': {'type': 'RollingUpdate'},
                     'template': {
                         'metadata': {'labels': dict(selected)},
                         'spec': {
                             'containers': [{
                                 'name': name, 'image': run.image}],
                             'terminationGracePeriodSeconds':
                                 GRACE_SECONDS}}},
            'status': deployment_status(name, facts, now, run.rolling)}


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
