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

"""The records and faults the embedded Kubernetes API's unit tests use."""

import copy
import uuid

from glance_multiapi_cloud.kubeapi.embedded import objects as kubeobjects
from glance_multiapi_cloud import record as record_mod

SPEC = {'keystoneEndpoint': 'api0', 'glanceAPIs': {
    name: {'type': 'split', 'replicas': 1, 'customServiceConfig': (
        '[DEFAULT]\nenabled_backends = %s:file,x:file\n[glance_store]\n'
        'default_backend = %s\n' % (store, store))}
    for name, store in (('api0', 'ceph0'), ('api1', 'ceph1'))}}
TOKEN = 'the-token'


class FakeFaults(object):
    """What world() asks of the faults."""

    def __init__(self, drifted=(), versions=None, custom=None, apart=(),
                 rolling=()):
        self.drifted = drifted
        self.versions = versions or {}
        self.custom = custom or {}
        self.apart = apart
        self.rolling = rolling

    def custom_image(self, field, default, deployed):
        return self.custom.get(field)

    def image_drifts(self, deployment):
        return deployment in self.drifted

    def pod_digest_drifts(self, deployment):
        return deployment in self.apart

    def rollout_stuck(self, deployment):
        return deployment in self.rolling

    def version_image(self, field, reference):
        return self.versions.get(field, reference)

    def statefulset_observed(self, api):
        return True


def state_json(heat=False, faults_=()):
    return {'spec': copy.deepcopy(SPEC), 'faults': [list(f) for f in faults_],
            'options': {'heat': heat}, 'ports': {'registry': 20001},
            'status': {'apiEndpoint': {'api0-public': 'http://x:1'}},
            'kube': {'token': TOKEN, 'tokens': {TOKEN: kubeobjects.ACCOUNT},
                     'rules': None, 'uid_seed': str(uuid.uuid4()),
                     'created': '2026-01-01T00:00:00Z', 'generation': 1,
                     'heat_digest': 'ab' * 32}}


def state_data(heat=False, faults_=()):
    return record_mod.Record.from_json(state_json(heat, faults_))
