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

"""The OCI side of the uploader scenarios: real artifacts in a real registry.

An image is pushed as an OCI artifact holding <name>.gz in a tar.gz (the
layout the Sylva uploaders read), and made unavailable by deleting its
layer blobs through the registry's own API, as a registry with deletes
enabled serves it. Every request names the suite (User-Agent), so a
registry's log tells these from the uploader's.
"""

import gzip
import io
import os
import tarfile
import tempfile

import requests


def push_oci_artifact(registry, repository, tag, member_name, data, *,
                      verify=True, cut=False):
    """Push an artifact holding <member_name>.gz in a tar.gz; return uri.

    verify: True (system CAs), a CA bundle path, or False. cut: push
    only the first half of the tar.gz, which breaks mid-unpacking.
    """
    import oras.provider

    with tempfile.TemporaryDirectory(prefix='uploader-oci-') as work:
        blob = os.path.join(work, member_name + '.tar.gz')
        with tarfile.open(blob, 'w:gz', compresslevel=1) as archive:
            inner = gzip.compress(data, compresslevel=1)
            info = tarfile.TarInfo(member_name + '.gz')
            info.size = len(inner)
            archive.addfile(info, io.BytesIO(inner))
        if cut:
            with open(blob, 'r+b') as f:
                f.truncate(os.path.getsize(blob) // 2)
        client = oras.provider.Registry(hostname=registry, insecure=False,
                                        tls_verify=verify)
        client.push(target='%s/%s:%s' % (registry, repository, tag),
                    files=[blob], disable_path_validation=True, quiet=True)
    return 'oci://%s/%s:%s' % (registry, repository, tag)


_MANIFEST_TYPES = ('application/vnd.oci.image.manifest.v1+json, '
                   'application/vnd.docker.distribution.manifest.v2+json')
# NOTE: the suite's own registry requests say so, so a registry's log
# tells them from the uploader's.
_AGENT = {'User-Agent': 'glance-multiapi-tests'}


def _oci_base(uri):
    """(https://HOST/v2/REPOSITORY, TAG) of an oci:// uri."""
    host, _, rest = uri[len('oci://'):].partition('/')
    repository, _, tag = rest.rpartition(':')
    return 'https://%s/v2/%s' % (host, repository), tag


def answer(response):
    """'HTTP 404 BLOB_UNKNOWN': a registry's status and first error code."""
    code = ''
    if response.status_code < 400:
        return 'HTTP %d' % response.status_code
    try:
        errors = response.json().get('errors') or []
        code = ' ' + errors[0]['code'] if errors else ''
    except (ValueError, AttributeError, KeyError, TypeError, IndexError):
        pass
    return 'HTTP %d%s' % (response.status_code, code)


def oci_manifest(uri, *, verify=True):
    """(answer, manifest or None) of GET of uri's manifest by its tag."""
    base, tag = _oci_base(uri)
    response = requests.get('%s/manifests/%s' % (base, tag), timeout=30,
                            headers=dict(_AGENT, Accept=_MANIFEST_TYPES),
                            verify=verify)
    if response.status_code != 200:
        return answer(response), None
    return answer(response), response.json()


def remove_oci_layers(uri, *, verify=True):
    """Make the image's bytes unavailable; keep its manifest and config.

    Deletes each layer blob of uri's artifact from its repository
    (DELETE /v2/<name>/blobs/<digest>, which any OCI distribution
    registry serves when deletes are enabled); later GETs of it get 404.
    Returns the blob URLs. A registry that refuses is one readable
    AssertionError.
    """
    base, _tag = _oci_base(uri)
    seen, manifest = oci_manifest(uri, verify=verify)
    if manifest is None:
        raise AssertionError('cannot read the manifest of %s (%s) to make '
                             'its layers unavailable' % (uri, seen))
    urls = []
    for layer in manifest.get('layers') or []:
        url = '%s/blobs/%s' % (base, layer['digest'])
        response = requests.delete(url, verify=verify, timeout=30,
                                   headers=_AGENT)
        if response.status_code not in (202, 404):
            raise AssertionError(
                'the registry refused to delete blob %s of %s (%s): the '
                'rerun scenarios make an image\'s bytes unavailable that '
                'way, which needs a registry with deletes enabled (docker '
                'distribution: storage.delete.enabled)'
                % (layer['digest'], uri, answer(response)))
        urls.append(url)
    return urls


def blob_answer(url, *, verify=True):
    """What a GET of a blob URL gets now ('HTTP 404 BLOB_UNKNOWN')."""
    # NOTE: streamed, so a blob that is still there is not downloaded.
    response = requests.get(url, verify=verify, timeout=30, stream=True,
                            headers=_AGENT)
    try:
        return answer(response)
    finally:
        response.close()
