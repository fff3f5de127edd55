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

"""The objects the embedded Kubernetes-style API stores rather than
derives from the state dir: ConfigMaps (configmaps.Store, e.g. the
uploader's UUID map) and Pods (kubepods.Store, whose delete only marks
them). Each function answers one request on its store.
"""

from glance_multiapi_tests.common import configmaps
from glance_multiapi_tests.localcloud import kubeobjects
from glance_multiapi_tests.localcloud import kubepods
from glance_multiapi_tests.localcloud import kuberbac
from glance_multiapi_tests.localcloud.runtime import kubeapi_request

# NOTE: on a ConfigMap (string data, no lists) a strategic merge patch is
# a merge patch; the kubernetes client sends either for a dict body.
CONFIGMAP_PATCHES = (kubeapi_request.MERGE_PATCH,
                     'application/strategic-merge-patch+json')

Response = kubeapi_request.Response


def serve_configmaps(store, request, headers, body):
    """ConfigMaps are stored, not derived: any namespace, all verbs.

    NOTE: unlike a real cluster, a namespace exists as soon as a
    ConfigMap is written into it, so a client may use its own.
    """
    ns, name = request.namespace, request.name
    try:
        if request.verb == 'list':
            items = store.list(ns)
            if 'as=Table' in (headers.get('Accept') or ''):
                return 200, kubeapi_request.listing(
                    request.resource, items, headers, request)
            listing = kubeobjects.object_list(request.resource, items)
            listing['metadata'] = {
                'resourceVersion': store.resource_version()}
            return 200, listing
        if request.verb == 'get':
            return 200, kubeapi_request.listing(
                request.resource, [store.get(ns, name)], headers, request,
                single=True)
        if request.verb == 'delete':
            return 200, store.delete(ns, name)
        if request.verb == 'patch':
            kind = (headers.get('Content-Type') or '').split(';')[0]
            if kind.strip() not in CONFIGMAP_PATCHES:
                raise Response(415, kuberbac.unsupported_media_type(
                    kind))
        document = kubeapi_request.json_body(body)
        if request.verb == 'create':
            return 201, store.create(ns, document)
        if request.verb == 'update':
            return 200, store.replace(ns, name, document)
        return 200, store.patch(ns, name, document)
    except configmaps.StoreError as exc:
        raise Response(exc.code, exc.status(name))


def stored_pods(store, request):
    """The stored Pods a list asks for."""
    return store.list(request.namespace)


def grace_of(request, body):
    """gracePeriodSeconds of a delete (query or DeleteOptions), or None."""
    grace = request.query.get('gracePeriodSeconds', [None])[0]
    options = kubeapi_request.json_body(body) if body else None
    if grace is None and isinstance(options, dict):
        grace = options.get('gracePeriodSeconds')
    try:
        return None if grace is None else int(grace)
    except (TypeError, ValueError):
        raise Response(400, kuberbac.bad_request(
            'gracePeriodSeconds %r is not a number' % grace))


def serve_pods(store, request, headers, body):
    """Pods are stored; a delete marks them (kubepods.py)."""
    ns, name = request.namespace, request.name
    try:
        if request.verb == 'list':
            return 200, kubeapi_request.listing(
                request.resource, store.list(ns), headers, request)
        if request.verb == 'get':
            return 200, kubeapi_request.listing(
                request.resource, [store.get(ns, name)], headers, request,
                single=True)
        if request.verb == 'create':
            return 201, store.create(ns, kubeapi_request.json_body(body))
        return 200, store.delete(ns, name, grace_of(request, body))
    except kubepods.StoreError as exc:
        raise Response(exc.code, exc.body)
