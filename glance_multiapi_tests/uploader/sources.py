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

"""Download an image from an http(s) URL or an oci:// artifact.

Both sources end in streams.image_chunks, so an OCI tar.gz is pulled,
unpacked, gunzipped and hashed in one pass, straight into the one file the
upload reads. The md5 is checked before anything reaches Glance.
"""

import os
import posixpath
import urllib.parse

import requests

from glance_multiapi_tests.uploader import exitcodes
from glance_multiapi_tests.uploader import progress as progress_mod
from glance_multiapi_tests.uploader import streams

CONNECT_TIMEOUT = 15
READ_TIMEOUT = 120


def _source_error(message):
    return exitcodes.UploaderError(exitcodes.SOURCE_ERROR, message)


def fetch(spec, directory, *, insecure, plain_http, log):
    """Download spec's image into directory; return (path, size)."""
    path = os.path.join(directory, 'image.%s' % spec.disk_format)
    shown = progress_mod.redact_url(spec.uri)
    log.info('%s: downloading %s' % (spec.key, shown))
    try:
        if spec.uri.startswith('oci://'):
            md5, size = _fetch_oci(spec, path, insecure=insecure,
                                   plain_http=plain_http, log=log)
        else:
            md5, size = _fetch_http(spec, path, insecure=insecure, log=log)
    except requests.exceptions.SSLError as exc:
        raise _source_error(
            '%s: TLS with %s failed (%s); a plain-HTTP registry needs '
            '--plain-http, an untrusted certificate INSECURE_CLIENT=true'
            % (spec.key, shown, _cause(exc)))
    except requests.exceptions.RequestException as exc:
        raise _source_error('%s: download of %s failed: %s'
                            % (spec.key, shown, _cause(exc)))
    if md5 != spec.md5:
        raise exitcodes.UploaderError(
            exitcodes.CHECKSUM_MISMATCH,
            '%s: md5 of the image from %s is %s, expected %s; nothing '
            'uploaded' % (spec.key, shown, md5, spec.md5))
    return path, size


def _cause(exc):
    """The innermost reason of a requests error, on one short line."""
    reason = exc
    for _ in range(4):
        inner = getattr(reason, 'reason', None)
        if inner is None and reason.args and isinstance(reason.args[0],
                                                        Exception):
            inner = reason.args[0]
        if inner is None or inner is reason:
            break
        reason = inner
    text = ' '.join(str(reason).split())
    # NOTE: urllib3 prefixes "<...HTTPConnection object at 0x...>: ".
    if text.startswith('<') and '>: ' in text:
        text = text.split('>: ', 1)[1]
    return text[:200] or reason.__class__.__name__


def _check_status(response, what):
    if response.status_code >= 400:
        raise _source_error('%s answered HTTP %d %s'
                            % (what, response.status_code,
                               response.reason or ''))


def _fetch_http(spec, path, *, insecure, log):
    shown = progress_mod.redact_url(spec.uri)
    with requests.get(spec.uri, stream=True, verify=not insecure,
                      timeout=(CONNECT_TIMEOUT, READ_TIMEOUT)) as response:
        _check_status(response, '%s: %s' % (spec.key, shown))
        total = int(response.headers.get('Content-Length') or 0)
        name = posixpath.basename(urllib.parse.urlsplit(spec.uri).path)
        return _pull_into(response, total, streams.layout_for(name),
                          path, '%s: download' % spec.key, shown, log)


def _pull_into(response, total, layout, path, label, source, log):
    meter = log.progress(label, total)
    # NOTE: the raw stream (no requests decoding) keeps a gzip source
    # compressed on the wire, so it is inflated exactly once, by us.
    reader = streams.CountingReader(response.raw, meter.update)
    md5, size = streams.store(
        streams.image_chunks(reader, layout, source), path)
    meter.finish()
    return md5, size


def parse_oci_uri(uri):
    """Split oci://host[:port]/repo[:tag|@digest] -> (host, reference)."""
    rest = uri[len('oci://'):]
    host, _, reference = rest.partition('/')
    if not host or not reference:
        raise exitcodes.UploaderError(
            exitcodes.BAD_CONFIG,
            '%s is not oci://REGISTRY/REPOSITORY[:TAG]' % uri)
    return host, reference


def _registry(host, *, insecure, plain_http):
    # NOTE: oras retries every failed request 5 times with sleeps up to
    # 83 s; an unreachable registry must fail in seconds, so its retry
    # wrapper is bypassed and every request gets a timeout.
    import oras.provider

    class QuickRegistry(oras.provider.Registry):
        def do_request(self, *args, **kwargs):
            unwrapped = oras.provider.Registry.do_request.__wrapped__
            return unwrapped(self, *args, **kwargs)

    registry = QuickRegistry(hostname=host, insecure=plain_http,
                             tls_verify=not insecure)
    original = registry.session.request

    def request(method, url, **kwargs):
        kwargs.setdefault('timeout', (CONNECT_TIMEOUT, READ_TIMEOUT))
        return original(method, url, **kwargs)

    registry.session.request = request
    return registry


def _pick_layer(manifest, source):
    layers = manifest.get('layers') or []
    if not layers:
        raise _source_error('%s: the artifact has no layers' % source)
    for layer in layers:
        title = (layer.get('annotations') or {}).get(
            'org.opencontainers.image.title', '')
        low = title.lower()
        if low.endswith(streams.IMAGE_SUFFIXES + streams.TAR_SUFFIXES):
            return layer, title
    if len(layers) == 1:
        return layers[0], ''
    raise _source_error('%s: no layer is a tar.gz, .gz, .raw or .qcow2 '
                        'file' % source)


def _fetch_oci(spec, path, *, insecure, plain_http, log):
    import oras.container

    host, reference = parse_oci_uri(spec.uri)
    registry = _registry(host, insecure=insecure, plain_http=plain_http)
    container = oras.container.Container(reference, registry=host)
    shown = progress_mod.redact_url(spec.uri)
    manifest_url = '%s://%s' % (registry.prefix, container.manifest_url())
    response = registry.do_request(
        manifest_url, 'GET', headers={'Accept': ', '.join((
            'application/vnd.oci.image.manifest.v1+json',
            'application/vnd.docker.distribution.manifest.v2+json'))})
    _check_status(response, '%s: manifest of %s' % (spec.key, shown))
    try:
        manifest = response.json()
    except ValueError:
        raise _source_error('%s: manifest of %s is not JSON'
                            % (spec.key, shown))
    layer, title = _pick_layer(manifest, '%s: %s' % (spec.key, shown))
    layout = streams.layout_for(title, layer.get('mediaType', ''))
    blob = registry.get_blob(container, layer['digest'], stream=True)
    with blob:
        _check_status(blob, '%s: blob %s of %s'
                      % (spec.key, layer['digest'][:19], shown))
        return _pull_into(blob, int(layer.get('size') or 0), layout, path,
                          '%s: download' % spec.key, shown, log)
