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

"""The embedded cloud's Kubernetes-style API server (loopback HTTPS).

It is the project's one Kubernetes API stand-in (..) serving
the objects of objects.py, built from the state dir on every
request, to kubectl and the ``kubernetes`` Python client: the discovery
documents, get and list (JSON, or a Table for kubectl), and merge
patches of the OpenStackControlPlane and the Glance CR. A patch of the
control plane runs the CLI's ``patch`` verb, so it is reconciled before
the answer. Requests carry a bearer token: the kubeconfig's, or one of a
token Secret of the RBAC manifests of ``up --kube-role``, which then
authorise each request by the token's service account. Every resource
request is appended to kubeapi-audit.log.

This module authenticates, authorises, audits and routes; what a request
asks, the shape of an answer and the stored ConfigMaps are the
stand-in's (..), the stored Pods pods.py's, the merge patches
patch.py's.

Run as ``python -m glance_multiapi_cloud.kubeapi.embedded.server
--state-dir DIR --port PORT --cert CERT --key KEY``.
"""

import argparse
import hmac
import json
import os
import threading
import time

from glance_multiapi_cloud.kubeapi import configmaps
from glance_multiapi_cloud.kubeapi import request as kube_request
from glance_multiapi_cloud.kubeapi import server
from glance_multiapi_cloud.kubeapi import status
from glance_multiapi_cloud import errors
from glance_multiapi_cloud.kubeapi.embedded import glance as kubeglance
from glance_multiapi_cloud.kubeapi.embedded import objects as kubeobjects
from glance_multiapi_cloud.kubeapi.embedded import pods as kubepods
from glance_multiapi_cloud.kubeapi.embedded import rbac as kuberbac
from glance_multiapi_cloud.kubeapi.embedded import heatpods as kubeapi_heatpods
from glance_multiapi_cloud.kubeapi.embedded import patch as kubeapi_patch
from glance_multiapi_cloud import state as state_mod

# NOTE: state-dir folder of the ConfigMaps clients write (one JSON file
# per object under <namespace>/), e.g. the uploader's UUID map.
CONFIGMAPS_DIR = 'kube-configmaps'


class Api(server.Api):
    """Answers requests from the state dir of one cloud."""

    expected_errors = (errors.CloudError,)

    def __init__(self, state_dir, server_address=None):
        super().__init__(kubeobjects.SERVED, server_address)
        self.root = os.path.abspath(state_dir)
        self.audit_lock = threading.Lock()
        self.configmaps = configmaps.Store(os.path.join(self.root,
                                                        CONFIGMAPS_DIR))
        self.pods = kubepods.Store(self.root)

    def begin(self):
        """The cloud's state, read afresh for each request."""
        return state_mod.State(self.root).load()

    def authenticate(self, state, headers):
        """The service account the bearer token is of, else 401."""
        tokens = state.record.kube.tokens
        given = server.bearer_token(headers)
        for token, account in tokens.items():
            if given and hmac.compare_digest(given, token):
                return account
        raise kube_request.Response(401, status.unauthorized())

    def authorize(self, state, request, account):
        request.user = kuberbac.user(
            kubeobjects.namespace_of(state.record.kube), account)
        res = request.resource
        faults = state.faults
        allowed = faults.kube_allows(request.verb, res.plural)
        rules = state.record.kube.rules
        if allowed and rules is not None:
            # NOTE: a Role grants nothing outside its namespace, nor at
            # the cluster scope.
            allowed = (request.namespace == kubeobjects.namespace_of(
                state.record.kube) and kuberbac.allows(
                    rules.get(account) or [], request.verb, res.group,
                    res.plural, request.name))
        if not allowed:
            raise kube_request.Response(403, status.forbidden(
                request.user, request.verb, res.group, res.plural,
                request.name, request.namespace))

    def answered(self, state, request, code):
        """Append the request and its answer to kubeapi-audit.log."""
        line = json.dumps(request.audit(code), sort_keys=True) + '\n'
        with self.audit_lock:
            fd = os.open(os.path.join(self.root, kuberbac.AUDIT_LOG),
                         os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            with os.fdopen(fd, 'a') as f:
                f.write(line)

    # -- resources ----------------------------------------------------------
    def _world(self, state):
        faults = state.faults
        return kubeobjects.world(state.record, kubeglance.document(state),
                                 kubeapi_heatpods.facts(state), time.time(),
                                 faults)

    def serve(self, state, request, headers, body):
        res = request.resource
        if res.plural == 'configmaps':
            return configmaps.answer(self.configmaps, request, headers, body)
        if res.plural == 'pods':
            return self._serve_pods(state, request, headers, body)
        items = self._world(state)[res.plural]
        if request.namespace not in (None, kubeobjects.namespace_of(
                state.record.kube)):
            items = []
        if request.verb == 'list':
            return 200, kube_request.listing(res, items, headers, request)
        found = [i for i in items if i['metadata']['name'] == request.name]
        if not found:
            raise kube_request.Response(404, status.not_found(
                res.group, res.plural, request.name))
        if request.verb == 'get':
            return 200, kube_request.listing(res, found, headers, request,
                                             single=True)
        return kubeapi_patch.serve_patch(self.root, state, request,
                                         found[0], headers, body)

    def _serve_pods(self, state, request, headers, body):
        """heat's pods (played by processes), then the stored ones."""
        namespace = kubeobjects.namespace_of(state.record.kube)
        heat_pods = []
        if request.namespace in (None, namespace):
            heat_pods = self._world(state)['pods']
        if request.verb == 'list':
            stored = self.pods.list(request.namespace)
            return 200, kube_request.listing(
                request.resource, heat_pods + stored, headers, request)
        mine = [p for p in heat_pods
                if p['metadata']['name'] == request.name]
        if mine and request.verb == 'get':
            return 200, kube_request.listing(
                request.resource, mine, headers, request, single=True)
        if mine and request.verb == 'delete':
            grace = kubepods.grace_of(request, body)
            kubeapi_heatpods.delete(state, request.name, grace)
            found = [p for p in self._world(state)['pods']
                     if p['metadata']['name'] == request.name]
            return 200, found[0] if found else mine[0]
        return kubepods.serve_pods(self.pods, request, headers, body)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--state-dir', required=True)
    parser.add_argument('--port', type=int, required=True)
    parser.add_argument('--cert', required=True)
    parser.add_argument('--key', required=True)
    args = parser.parse_args(argv)
    os.umask(0o077)
    server.make_server(Api(args.state_dir), args.port, cert=args.cert,
                       key=args.key, log_requests=True).serve_forever()


if __name__ == '__main__':
    main()
