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

"""Throw-away CAs and the serving certificates they sign, made in memory.

The embedded cloud's listeners (one CA a cloud, glance_multiapi_cloud/
certs.py; the Kubernetes API: kubectl, client-go's clientcmd, sends the
kubeconfig's credentials only over TLS) and the uploader scenarios'
registry gate (tests/gate_tls.py, a CA for one test) are signed here.
Both carry key identifiers and key usages, as OpenSSL's strict
verification (Python 3.13's default) wants them. cryptography is loaded
on first use only.
"""

import datetime
import ipaddress

VALID_DAYS = 365


def _crypto():
    """(x509, ec, hashes, serialization) of cryptography, on first use.

    Only ``up`` makes certificates, but every verb of the cloud's CLI
    imports this module (through certs); cryptography took about 0.1 of
    the 0.43 CPU-s of an idle ``get`` (the functional stage runs the CLI
    some hundreds of times).
    """
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives import serialization
    from cryptography import x509
    return x509, ec, hashes, serialization


def _name(common_name):
    x509 = _crypto()[0]
    return x509.Name([x509.NameAttribute(x509.NameOID.COMMON_NAME,
                                         common_name)])


def _pem_key(key):
    serialization = _crypto()[3]
    return key.private_bytes(serialization.Encoding.PEM,
                             serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _usage(**on):
    flags = dict.fromkeys(
        ('digital_signature', 'content_commitment', 'key_encipherment',
         'data_encipherment', 'key_agreement', 'key_cert_sign', 'crl_sign',
         'encipher_only', 'decipher_only'), False)
    flags.update(on)
    return _crypto()[0].KeyUsage(**flags)


def make_ca(common_name='glance-multiapi-cloud CA', days=VALID_DAYS):
    """(CA cert PEM, CA key PEM) of a new self-signed CA."""
    x509, ec, hashes, serialization = _crypto()
    start, end = _validity(days)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = _name(common_name)
    ca = (x509.CertificateBuilder()
          .subject_name(ca_name).issuer_name(ca_name)
          .public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number())
          .not_valid_before(start).not_valid_after(end)
          .add_extension(x509.BasicConstraints(ca=True, path_length=0),
                         critical=True)
          .add_extension(_usage(digital_signature=True, key_cert_sign=True,
                                crl_sign=True), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(
              ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    return ca.public_bytes(serialization.Encoding.PEM), _pem_key(ca_key)


def issue(ca_pem, ca_key_pem, common_name, hosts=('127.0.0.1',),
          dns_names=('localhost',), days=VALID_DAYS):
    """(server cert PEM, key PEM) for hosts, signed by the given CA."""
    x509, ec, hashes, serialization = _crypto()
    ca = x509.load_pem_x509_certificate(ca_pem)
    ca_key = serialization.load_pem_private_key(ca_key_pem, password=None)
    start, end = _validity(days)
    key = ec.generate_private_key(ec.SECP256R1())
    names = ([x509.IPAddress(ipaddress.ip_address(h)) for h in hosts] +
             [x509.DNSName(d) for d in dns_names])
    cert = (x509.CertificateBuilder()
            .subject_name(_name(common_name))
            .issuer_name(ca.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(start).not_valid_after(end)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None),
                           critical=True)
            .add_extension(_usage(digital_signature=True), critical=True)
            .add_extension(x509.ExtendedKeyUsage(
                [x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.SubjectAlternativeName(names),
                           critical=False)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(
                key.public_key()), critical=False)
            .add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(
                    ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    return cert.public_bytes(serialization.Encoding.PEM), _pem_key(key)


def _validity(days):
    now = datetime.datetime.now(datetime.timezone.utc)
    return (now - datetime.timedelta(minutes=5),
            now + datetime.timedelta(days=days))


def make(host='127.0.0.1'):
    """(CA cert PEM, server cert PEM, server key PEM) for host."""
    ca_pem, ca_key_pem = make_ca()
    cert_pem, key_pem = issue(ca_pem, ca_key_pem, 'kube-apiserver', (host,))
    return ca_pem, cert_pem, key_pem
