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

"""The TLS of the registry gate: a throw-away CA, and the uploader's bundle.

The gate (gates.RegistryGate) stands on loopback in front of a
registry whose key the suite does not have, so it serves a certificate of
its own, for 127.0.0.1 and localhost, signed by a CA made for the one
test. The uploader under test trusts it through the variables it is given
anyway (SSL_CERT_FILE, REQUESTS_CA_BUNDLE): a bundle holding what they
named before (registry_ca_file, or the system CAs) and that CA.
"""

import os

from glance_multiapi_kernel import certmint

# NOTE: a test's life; the clocks of the suite and the uploader are one.
VALID_DAYS = 1


def _private(path, data):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, 'wb') as f:
        f.write(data)


def serving_files(folder, hosts=('127.0.0.1',), dns_names=('localhost',)):
    """(CA PEM, cert path, key path): a new CA and a cert it signed."""
    ca_pem, ca_key = certmint.make_ca(
        'glance-multiapi-tests registry gate CA', days=VALID_DAYS)
    cert_pem, key_pem = certmint.issue(
        ca_pem, ca_key, 'glance-multiapi-tests registry gate', hosts,
        dns_names, days=VALID_DAYS)
    cert_path = os.path.join(folder, 'gate.crt')
    key_path = os.path.join(folder, 'gate.key')
    _private(cert_path, cert_pem)
    _private(key_path, key_pem)
    return ca_pem, cert_path, key_path


def _pem_text(path):
    """The certificates of a CA file, or of the files of a CA folder."""
    if os.path.isfile(path):
        names = [path]
    elif os.path.isdir(path):
        names = sorted(os.path.join(path, n) for n in os.listdir(path))
    else:
        return b''
    parts = []
    for name in names:
        if not os.path.isfile(name):
            continue
        with open(name, 'rb') as f:
            data = f.read()
        if b'-----BEGIN CERTIFICATE-----' in data:
            parts.append(data.rstrip(b'\n') + b'\n')
    return b''.join(parts)


def bundle(dest, trusted, extra_pem):
    """Write dest: the CAs of trusted (file, folder or None) + extra_pem.

    Returns dest. What the uploader trusted before stays trusted: its
    other connections (a realm of token auth, a redirect to the
    registry's storage) verify as they did.
    """
    _private(dest, (_pem_text(trusted) if trusted else b'') + extra_pem)
    return dest
