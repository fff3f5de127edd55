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

"""meta.k8s.io/v1 Tables of the Kubernetes API stand-in, for kubectl get.

kubectl asks the server for a Table and prints its columns; these are
the CRDs' additionalPrinterColumns (plus Name and Age, as the API server
adds them) and, for Deployments, the columns of Kubernetes' own printer.
Pure logic.
"""

import datetime

from glance_multiapi_cloud.kubeapi import objectmeta

_NAME = {'name': 'Name', 'type': 'string', 'format': 'name',
         'description': 'Name must be unique within a namespace.',
         'priority': 0}
_AGE = {'name': 'Age', 'type': 'date', 'format': '',
        'description': 'CreationTimestamp of the object.', 'priority': 0}


def _column(name, priority=0):
    return {'name': name, 'type': 'string', 'format': '', 'description': '',
            'priority': priority}


def _first_condition(obj, key):
    conditions = obj.get('status', {}).get('conditions') or [{}]
    return conditions[0].get(key, '')


def _deployment_cells(obj):
    status = obj.get('status', {})
    spec = obj['spec']
    containers = spec['template']['spec']['containers']
    selector = ','.join('%s=%s' % item for item in sorted(
        spec['selector'].get('matchLabels', {}).items()))
    return ['%d/%d' % (status.get('readyReplicas', 0), spec['replicas']),
            status.get('updatedReplicas', 0),
            status.get('availableReplicas', 0),
            ','.join(c['name'] for c in containers),
            ','.join(c['image'] for c in containers), selector]


def _pod_cells(obj):
    status = obj.get('status') or {}
    containers = status.get('containerStatuses') or []
    shown = status.get('phase', '')
    for container in containers:
        waiting = (container.get('state') or {}).get('waiting') or {}
        shown = waiting.get('reason') or shown
    if obj['metadata'].get('deletionTimestamp'):
        shown = 'Terminating'
    return ['%d/%d' % (sum(1 for c in containers if c.get('ready')),
                       len(containers)), shown,
            sum(c.get('restartCount', 0) for c in containers)]


# NOTE: the columns between Name and Age (CRDs: additionalPrinterColumns
# of openstack-operator's config/crd/bases; Deployments: kubectl's).
COLUMNS = {
    'Glance': ([_column('Status'), _column('Message')],
               lambda o: [_first_condition(o, 'status'),
                          _first_condition(o, 'message')]),
    # NOTE: glance-operator api/v1beta1/glanceapi_types.go's columns;
    # the stand-in's GlanceAPIs have no network attachments.
    'GlanceAPI': ([_column('NetworkAttachments'), _column('Status'),
                   _column('Message')],
                  lambda o: ['', _first_condition(o, 'status'),
                             _first_condition(o, 'message')]),
    'OpenStackControlPlane': ([_column('Status'), _column('Message')],
                              lambda o: [_first_condition(o, 'status'),
                                         _first_condition(o, 'message')]),
    'OpenStackVersion': ([_column('Target Version'),
                          _column('Available Version'),
                          _column('Deployed Version')],
                         lambda o: [o['spec'].get('targetVersion', ''),
                                    o['status'].get('availableVersion', ''),
                                    o['status'].get('deployedVersion', '')]),
    'Deployment': ([_column('Ready'), dict(_column('Up-to-date'),
                                           type='integer'),
                    dict(_column('Available'), type='integer'),
                    _column('Containers', 1), _column('Images', 1),
                    _column('Selector', 1)], _deployment_cells),
    'Pod': ([_column('Ready'), _column('Status'),
             dict(_column('Restarts'), type='integer')], _pod_cells),
    'Namespace': ([_column('Status')],
                  lambda o: [o['status'].get('phase', '')]),
}


def age(created, now):
    """Kubernetes' short duration: 42s, 5m, 3h, 2d."""
    then = datetime.datetime.strptime(created, objectmeta.TIME_FORMAT)
    then = then.replace(tzinfo=datetime.timezone.utc)
    seconds = max(0, int((now - then).total_seconds()))
    for unit, size in (('d', 86400), ('h', 3600), ('m', 60)):
        if seconds >= 2 * size:
            return '%d%s' % (seconds // size, unit)
    return '%ds' % seconds


def table(resource, items, now, include='Metadata'):
    """The Table of items (includeObject: None, Metadata or Object)."""
    middle, cells = COLUMNS.get(resource.kind, ([], lambda o: []))
    extra = [c for c in middle if c['priority']]
    columns = [_NAME] + [c for c in middle if not c['priority']] + [_AGE]
    columns += extra
    rows = []
    for obj in items:
        values = cells(obj)
        main = [v for v, c in zip(values, middle) if not c['priority']]
        wide = [v for v, c in zip(values, middle) if c['priority']]
        row = {'cells': [obj['metadata']['name']] + main + [
            age(obj['metadata']['creationTimestamp'], now)] + wide}
        if include == 'Object':
            row['object'] = obj
        elif include != 'None':
            row['object'] = {'kind': 'PartialObjectMetadata',
                             'apiVersion': 'meta.k8s.io/v1',
                             'metadata': obj['metadata']}
        rows.append(row)
    return {'kind': 'Table', 'apiVersion': 'meta.k8s.io/v1',
            'metadata': {'resourceVersion': ''}, 'columnDefinitions': columns,
            'rows': rows}
