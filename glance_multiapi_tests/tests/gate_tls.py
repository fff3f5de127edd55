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

The gate (uploader_gates.RegistryGate) stands on loopback in front of a
registry whose key the suite does not have, so it serves a certificate of
its own, for 127.0.0.1 and localhost, signed by a CA made for the one
test. The uploader under test trusts it through the variables it is given
anyway (SSL_CERT_FILE, REQUESTS_CA_BUNDLE): a bundle holding what they
named before (registry_ca_file, or the system CAs) and that CA.
"""

import datetime
import ipaddress
import os

# NOTE: a test's life; the clocks of the suite and the uploader are one.
VALID = datetime.timedelta(days=1)


def _private(path, data):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, 'wb') as f:
        f.write(data)


def serving_files(folder, hosts=('127.0.0.1',), dns_names=('localhost',)):
    """(CA PEM, cert path, key path): a new CA and a cert it signed.

    The CA and the certificate carry key identifiers and key usages, as
    OpenSSL's strict verification (Python 3.13's default) wants them.
    """
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives import serialization
    from cryptography import x509
    from cryptography.x509.oid import ExtendedKeyUsageOID
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.timezone.utc)
    start, end = now - datetime.timedelta(minutes=5), now + VALID

    def name(text):
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])

    def usage(**on):
        flags = dict.fromkeys(
            ('digital_signature', 'content_commitment', 'key_encipherment',
             'data_encipherment', 'key_agreement', 'key_cert_sign',
             'crl_sign', 'encipher_only', 'decipher_only'), False)
        flags.update(on)
        return x509.KeyUsage(**flags)

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_id = x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key())
    ca = (x509.CertificateBuilder()
          .subject_name(name('glance-multiapi-tests registry gate CA'))
          .issuer_name(name('glance-multiapi-tests registry gate CA'))
          .public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number())
          .not_valid_before(start).not_valid_after(end)
          .add_extension(x509.BasicConstraints(ca=True, path_length=0),
                         critical=True)
          .add_extension(usage(key_cert_sign=True, crl_sign=True),
                         critical=True)
          .add_extension(ca_id, critical=False)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    alt = ([x509.IPAddress(ipaddress.ip_address(h)) for h in hosts] +
           [x509.DNSName(d) for d in dns_names])
    cert = (x509.CertificateBuilder()
            .subject_name(name('glance-multiapi-tests registry gate'))
            .issuer_name(ca.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(start).not_valid_after(end)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None),
                           critical=True)
            .add_extension(usage(digital_signature=True), critical=True)
            .add_extension(x509.ExtendedKeyUsage(
                [ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.SubjectAlternativeName(alt), critical=False)
            .add_extension(
                x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                critical=False)
            .add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(
                    ca_id), critical=False)
            .sign(ca_key, hashes.SHA256()))
    cert_path = os.path.join(folder, 'gate.crt')
    key_path = os.path.join(folder, 'gate.key')
    _private(cert_path, cert.public_bytes(serialization.Encoding.PEM))
    _private(key_path, key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()))
    return ca.public_bytes(serialization.Encoding.PEM), cert_path, key_path


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
