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

"""Which CAs a client verifies with when the configuration names none.

tempest's own clients (urllib3) and this plugin's probes (ssl) then use
OpenSSL's default verify paths: the system bundle, where test-operator
mounts the control plane's CA (internal/tempest/volumes.go: the
combined-ca-bundle Secret over
/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem). python-requests from
PyPI does not: it verifies with certifi's bundle, which never holds that
CA, so requests, keystoneauth and openstacksdk (the uploader, the held
upload of the race scenarios) need the system bundle named.
"""

import os
import ssl


def system_ca():
    """OpenSSL's default CA file (or folder), None when there is none.

    Honours SSL_CERT_FILE and SSL_CERT_DIR, as OpenSSL does.
    """
    paths = ssl.get_default_verify_paths()
    for path in (paths.cafile, paths.openssl_cafile):
        if path and os.path.isfile(path):
            return path
    for path in (paths.capath, paths.openssl_capath):
        if path and os.path.isdir(path):
            return path
    return None


def requests_verify(ca_file=None, insecure=False):
    """requests' ``verify`` trusting what tempest's clients trust.

    False when insecure, else ca_file, else the system CAs (system_ca),
    else True (certifi, when the system has no CA file at all).
    """
    if insecure:
        return False
    return ca_file or system_ca() or True
