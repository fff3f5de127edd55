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

"""The embedded cloud's Kubernetes API: the stand-in serving the cloud.

What the stand-in (..) serves for an embedded cloud, built from its
state dir on every request, as the operators and the API server keep it:

* ``server``: the API (``python -m
  glance_multiapi_cloud.kubeapi.embedded.server``), which authenticates,
  authorises (``rbac``: the RBAC manifests of ``up --kube-role``), audits
  and routes each request;
* ``objects``: the resources served and the objects, from the cloud's
  record: the control plane, the Glance CR and its GlanceAPI CRs
  (``glance``, as glance-operator keeps them), the OpenStackVersion and
  heat's Deployments and pods (``heat``, as heat-operator deploys them);
* ``heatpods``: heat's pods played by its processes (a kubelet and a
  ReplicaSet); ``pods``: the other Pods, stored and deleted gracefully,
  and the answers to requests for them;
* ``patch``: merge patches, answered as the operators would (a patch of
  the control plane reconciles the cloud through its CLI's ``patch``).

The component that starts it (components/kubeapi.py) depends on it,
never the reverse: nothing here imports the component nor the
orchestrator (cloud.py, cli.py), as the unit tests check.
"""

# NOTE: the namespace the control plane lives in unless ``up
# --kube-namespace`` names another (the manifests carry none), as in the
# operators' deployments.
NAMESPACE = 'openstack'
