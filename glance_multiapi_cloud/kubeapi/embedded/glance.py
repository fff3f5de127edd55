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

"""The Glance CR's status and its GlanceAPI CRs, as the operator keeps them.

Built from what the embedded cloud knows: the last pass of the
controller (deployed.py: which APIs it deployed, which carry the
keystoneEndpoint annotation, where it stopped), which APIs answer, and
the ``get`` document's ``status.apiEndpoint``. The conditions and their
words are ``glance_multiapi_kernel/conditions.py``'s, the CR names and
annotations
``glance_multiapi_kernel/glance_cr.py``'s; the generations and the
observed ones are deployed.py's. Pure logic, but for document(),
which reads the state dir and asks each API whether it answers.
"""

import time

from glance_multiapi_cloud.components import glance
from glance_multiapi_cloud import deployed
from glance_multiapi_cloud.kubeapi import objectmeta
from glance_multiapi_kernel import conditions
from glance_multiapi_kernel import glance_cr

GLANCE_NAME = 'glance'
# NOTE: glance_controller.go apiDeploymentCreateOrUpdate: the deployment
# mode annotation (true unless the Glance CR says otherwise) beside the
# keystoneEndpoint one, and the labels "service: glance" + api-name.
WSGI_ANNOTATION = 'glance.openstack.org/wsgi'
SERVICE_LABEL = 'service'


def document(state):
    """The Glance CR-shaped document of ``get``, as the stand-in serves it.

    Its status as glance-operator keeps it: the endpoints and ready
    counts of the APIs the last pass deployed, and the conditions; an
    API's pods are ready when its process answers (glance.api_ready).
    """
    state.load()
    record = state.record
    status = dict(record.status)
    passed = deployed.current(state)
    answering = {api: entry['replicas'] > 0 and glance.api_ready(
        state, api) for api, entry in passed['apis'].items()}
    status['glanceAPIReadyCounts'] = ready_counts(passed, answering)
    status['conditions'] = glance_conditions(passed, answering,
                                             record.reconciled_at,
                                             state.faults)
    # NOTE: as "oc get -o json" shows them; omitted when 0, as the
    # operator's status omits an empty observedGeneration.
    observed = deployed.observed(record, time.time())['glance']
    if observed:
        status['observedGeneration'] = observed
    metadata = {'name': GLANCE_NAME, 'namespace': 'openstack',
                'generation': record.kube.generation}
    if record.annotations:
        metadata['annotations'] = dict(record.annotations)
    return {'apiVersion': 'glance.openstack.org/v1beta1', 'kind': 'Glance',
            'metadata': metadata, 'spec': record.spec, 'status': status}


def ready_counts(passed, answering):
    """status.glanceAPIReadyCounts: each deployed API's readyCount.

    The controller copies the first GlanceAPI's (external, single or
    edge) readyCount: all its replicas when the API answers, else 0.
    """
    return {api: entry['replicas'] if answering.get(api) else 0
            for api, entry in sorted(passed['apis'].items())}


def _stamped(conds, when):
    """conds with lastTransitionTime: the stand-in's last reconcile."""
    stamp = objectmeta.timestamp(when) if when is not None else None
    return [dict(c, lastTransitionTime=stamp) if stamp else dict(c)
            for c in conds]


def _statefulset_observed(faults, api):
    return faults is None or faults.statefulset_observed(api)


def crs(passed, answering, glance_name=GLANCE_NAME, faults=None):
    """Every GlanceAPI CR, in the controller's order.

    [(api, CR name, apiType, readyCount, conditions)]. faults: what a
    fault makes differ (statefulset_observed), else None.
    """
    found = []
    for api in sorted(passed['apis']):
        entry = passed['apis'][api]
        count = entry['replicas'] if answering.get(api) else 0
        for name, child in glance_cr.glanceapi_crs(glance_name, api,
                                                   entry['type']):
            found.append((api, name, child, count,
                          conditions.glanceapi_conditions(
                              count, entry['replicas'],
                              _statefulset_observed(faults, api))))
    return found


def glance_conditions(passed, answering, when=None, faults=None):
    """The Glance CR's status.conditions after the last pass.

    NOTE: while its observedGeneration is behind, the Glance CR shows
    the conditions of the pass before; the embedded cloud plays them as
    that pass would have found what runs, every GlanceAPI observed
    (glance-operator's rule holding Ready back for an unobserved
    GlanceAPI is conditions.glance_conditions', kept for the real ones).
    """
    per_api = {}
    for api, _name, _child, _count, conds in crs(passed, answering,
                                                 faults=faults):
        per_api.setdefault(api, []).append(conds)
    readies = [conditions.api_ready(per_api[api])
               for api in passed['reconciled'] if api in per_api]
    return _stamped(conditions.glance_conditions(
        readies, passed['stoppedAt']), when)


def glanceapis(record, document, owner, metadata, when=None, now=None,
               faults=None):
    """The GlanceAPI CRs the Glance CR owns.

    document: the ``get`` document (its glanceAPIReadyCounts say which
    APIs answer, its status.apiEndpoint their URLs); owner: the Glance
    CR's metadata; metadata(name, generation): a new object's metadata;
    now: time.time() (which observedGeneration the status says);
    faults: what a fault makes differ, else None.
    """
    passed = deployed.of_record(record)
    status = document.get('status') or {}
    counts = status.get('glanceAPIReadyCounts') or {}
    urls = status.get('apiEndpoint') or {}
    answering = {api: counts.get(api, 0) > 0 for api in passed['apis']}
    generations = deployed.generations(record)['apis']
    observed = deployed.observed(record, time.time() if now is None
                                 else now)['apis']
    items = []
    for api, name, child, count, conds in crs(passed, answering,
                                              owner['name'], faults):
        entry = passed['apis'][api]
        annotations = {WSGI_ANNOTATION: 'true'}
        if api in passed['keystoneEndpoint']:
            annotations[glance_cr.KEYSTONE_ENDPOINT_ANNOTATION] = 'true'
        meta = metadata(name, generations[api])
        meta.update(
            labels={SERVICE_LABEL: 'glance', glance_cr.API_NAME_LABEL: api},
            annotations=annotations,
            ownerReferences=[{
                'apiVersion': 'glance.openstack.org/v1beta1',
                'kind': 'Glance', 'name': owner['name'],
                'uid': owner['uid'], 'controller': True,
                'blockOwnerDeletion': True}])
        endpoints = {iface: urls['%s-%s' % (api, iface)]
                     for iface in glance_cr.child_interfaces(child)
                     if '%s-%s' % (api, iface) in urls}
        items.append({
            'apiVersion': 'glance.openstack.org/v1beta1',
            'kind': 'GlanceAPI', 'metadata': meta,
            'spec': {'apiType': child, 'type': entry['type'],
                     'replicas': entry['replicas'],
                     'customServiceConfig': entry.get(
                         'customServiceConfig', ''),
                     'serviceUser': 'glance'},
            'status': dict({'readyCount': count, 'apiEndpoint': endpoints,
                            'conditions': _stamped(conds, when)}, **(
                {'observedGeneration': observed[api]}
                if observed.get(api) else {}))})
    return items
