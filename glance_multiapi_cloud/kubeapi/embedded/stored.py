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

"""The Pods the embedded Kubernetes-style API stores rather than derives
from the state dir (pods.Store, whose delete only marks them); each
function answers one request on that store. ConfigMaps, the other stored
objects, are the stand-in's own (../configmaps.py).
"""

from glance_multiapi_cloud.kubeapi import request as kube_request
from glance_multiapi_cloud.kubeapi import status
from glance_multiapi_cloud.kubeapi.embedded import pods as kubepods


def stored_pods(store, request):
    """The stored Pods a list asks for."""
    return store.list(request.namespace)


def grace_of(request, body):
    """gracePeriodSeconds of a delete (query or DeleteOptions), or None."""
    grace = request.query.get('gracePeriodSeconds', [None])[0]
    options = kube_request.json_body(body) if body else None
    if grace is None and isinstance(options, dict):
        grace = options.get('gracePeriodSeconds')
    try:
        return None if grace is None else int(grace)
    except (TypeError, ValueError):
        raise kube_request.Response(400, status.bad_request(
            'gracePeriodSeconds %r is not a number' % grace))


def serve_pods(store, request, headers, body):
    """Pods are stored; a delete marks them (pods.py)."""
    ns, name = request.namespace, request.name
    try:
        if request.verb == 'list':
            return 200, kube_request.listing(
                request.resource, store.list(ns), headers, request)
        if request.verb == 'get':
            return 200, kube_request.listing(
                request.resource, [store.get(ns, name)], headers, request,
                single=True)
        if request.verb == 'create':
            return 201, store.create(ns, kube_request.json_body(body))
        return 200, store.delete(ns, name, grace_of(request, body))
    except kubepods.StoreError as exc:
        raise kube_request.Response(exc.code, exc.body)
