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

"""Whether an embedded cloud serves https (``up --tls``), and with what.

Every listener asks here for its scheme, URL and certificate, so one
flag turns keystone, the Glance APIs and their routes to https at once,
like openstack-operator's TLS defaults do on a cluster.
"""

from glance_multiapi_cloud import certs


def enabled(state):
    """Whether this cloud was brought up with --tls."""
    return bool(state.record.options.tls)


def scheme(state):
    return 'https' if enabled(state) else 'http'


def url(state, port, path=''):
    """'<scheme>://127.0.0.1:<port><path>' of a listener of this cloud."""
    return '%s://127.0.0.1:%d%s' % (scheme(state), port, path)


def cert_for(state, name):
    """(cert path, key path) listener name serves.

    Signed by the cloud's CA, unless a fault (untrusted-cert) says that
    listener serves one the CA did not sign.
    """
    faults = state.faults
    if faults.untrusted_cert(name):
        return certs.issue_untrusted(state, name)
    return certs.issue(state, name)


def verify(state):
    """What the cloud's own clients pass as requests' verify=."""
    if not enabled(state):
        return False
    return certs.ca_path(state)
