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

"""The one Kubernetes API stand-in: pure Python, on loopback.

There is no kube-apiserver to be had here, so three users share one
stand-in that answers as an API server does (paths, verbs, discovery
documents, Status errors, Tables for kubectl): the embedded cloud's
Kubernetes API (``embedded``), the loopback ConfigMap API the uploader
scenarios run when no kubeconfig is given (loopback.py) and the unit
tests' stub API (selftests/unit/kube_stub.py). Each brings its own
objects and access rules; what a request asks, how it is answered and
the HTTP server are here:

* ``status``: the Status documents of every refusal;
* ``resources``: the resources served and their discovery documents;
* ``objectmeta``: the times and resourceVersions of every object's
  metadata;
* ``request``: a request's verb, resource, namespace and name, and the
  body of a get or list (JSON, or a Table: ``tables``);
* ``configmaps``: namespaced ConfigMaps kept in a directory, and the
  answer to a request for them;
* ``server``: the Api every user subclasses (authenticate, discovery,
  dispatch) and the HTTP server it runs in (http or https);
* ``loopback``: the ConfigMap API as a command (``python -m
  glance_multiapi_cloud.kubeapi.loopback --dir DIR``);
* ``embedded/``: what the embedded cloud's API serves, from its state
  dir (see its ``__init__``).

The modules of this folder import nothing outside the standard library,
PyYAML and the kernel (``glance_multiapi_kernel``), and nothing of
``embedded/``, so a test-operator pod runs its loopback API with the
plugin's requirements alone.
"""
