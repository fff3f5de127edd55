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

"""The one CA of an embedded cloud and the certificates it signs.

Like the control plane's CA on a cluster (openstack-operator's
rootca-public/rootca-internal), every https listener of one cloud is
signed by one CA whose certificate sits at ``<state dir>/tls/ca.crt``:
that is the file tempest.conf's ``[identity] ca_certificates_file``,
clouds.yaml's ``cacert`` and the uploader's ``SSL_CERT_FILE`` name.
"""

import os

from glance_multiapi_kernel import certmint

TLS_DIR = 'tls'


def _write_private(path, data):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, 'wb') as f:
        f.write(data)


def ca_path(state):
    """The CA certificate file of this cloud (made on first use)."""
    path = state.path(TLS_DIR, 'ca.crt')
    if not os.path.exists(path):
        state.makedirs(TLS_DIR)
        ca_pem, key_pem = certmint.make_ca()
        _write_private(state.path(TLS_DIR, 'ca.key'), key_pem)
        _write_private(path, ca_pem)
    return path


def issue(state, name, hosts=('127.0.0.1',), dns_names=('localhost',)):
    """(cert path, key path) of listener name, signed by the cloud's CA.

    Issued once per state dir; later calls return the same files.
    """
    cert_path = state.path(TLS_DIR, name + '.crt')
    key_path = state.path(TLS_DIR, name + '.key')
    if not (os.path.exists(cert_path) and os.path.exists(key_path)):
        with open(ca_path(state), 'rb') as f:
            ca_pem = f.read()
        with open(state.path(TLS_DIR, 'ca.key'), 'rb') as f:
            ca_key = f.read()
        cert_pem, key_pem = certmint.issue(ca_pem, ca_key, name, hosts,
                                           dns_names)
        _write_private(key_path, key_pem)
        _write_private(cert_path, cert_pem)
    return cert_path, key_path


def issue_untrusted(state, name, hosts=('127.0.0.1',),
                    dns_names=('localhost',)):
    """(cert path, key path) signed by a CA the cloud does not trust.

    For fault injection: a listener whose certificate no client that
    trusts ca_path() accepts.
    """
    ca_pem, ca_key = certmint.make_ca('not the glance-multiapi-cloud CA')
    cert_pem, key_pem = certmint.issue(ca_pem, ca_key, name, hosts,
                                       dns_names)
    state.makedirs(TLS_DIR)
    cert_path = state.path(TLS_DIR, name + '.untrusted.crt')
    key_path = state.path(TLS_DIR, name + '.untrusted.key')
    _write_private(key_path, key_pem)
    _write_private(cert_path, cert_pem)
    return cert_path, key_path
