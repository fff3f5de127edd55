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
unpacked, gunzipped and hashed in one pass while its bytes are sent to
Glance; no file is written. The md5 is checked once the stream ended, and
the image is published only if it matches (workflow).
"""

import contextlib
import posixpath
import ssl
import urllib.parse

import requests
import requests.adapters

from glance_image_uploader import exitcodes
from glance_image_uploader import progress as progress_mod
from glance_image_uploader import streams
from glance_multiapi_kernel import deadlines
from glance_multiapi_kernel import errors

CONNECT_TIMEOUT = 15
READ_TIMEOUT = 120


def _source_error(message):
    return exitcodes.UploaderError(exitcodes.SOURCE_ERROR, message)


class _ExtraCAAdapter(requests.adapters.HTTPAdapter):
    """Trusts the given CA files on top of the usual bundle."""

    def __init__(self, ca_files):
        self._context = ssl.create_default_context()
        for path in ca_files:
            try:
                self._context.load_verify_locations(cafile=path)
            except (OSError, ssl.SSLError) as exc:
                raise exitcodes.UploaderError(
                    exitcodes.BAD_CONFIG,
                    'CA file %s (SSL_CERT_FILE/REQUESTS_CA_BUNDLE) cannot '
                    'be loaded: %s' % (path, getattr(exc, 'strerror', None)
                                       or exc))
        super().__init__()

    def init_poolmanager(self, *args, **kwargs):
        kwargs['ssl_context'] = self._context
        return super().init_poolmanager(*args, **kwargs)


def _trust(session, *, insecure, ca_files):
    # NOTE: verification is turned off per request (verify=False):
    # requests lets REQUESTS_CA_BUNDLE override a session's verify=False.
    if ca_files and not insecure:
        session.mount('https://', _ExtraCAAdapter(ca_files))
    return session


def stream(spec, *, insecure, ca_files, plain_http, log, timeout=3600.0):
    """A HashedStream of spec's image bytes, connected on first read.

    The source is contacted only once the stream is consumed, i.e. once
    the upload to Glance started: an uploader that lost the race never
    downloads. expected_size is set when the source tells the size.

    :param insecure: no TLS verification (INSECURE_CLIENT)
    :param ca_files: CA files trusted besides the default bundle
    :param timeout: the most seconds the download may take, from connect
        to the last byte (SOURCE_TIMEOUT)
    """
    verify = dict(insecure=insecure, ca_files=ca_files)
    shown = progress_mod.redact_url(spec.uri)
    hashed = streams.HashedStream(None)

    def chunks():
        log.info('%s: downloading %s' % (spec.key, shown))
        with _source_errors(spec, shown), deadlines.exchange(
                shown, timeout, 'GET'):
            if spec.uri.startswith('oci://'):
                response, total, layout = _open_oci(
                    spec, verify=verify, plain_http=plain_http)
            else:
                response, total, layout = _open_http(spec, verify)
            with response:
                if layout == 'plain':
                    hashed.expected_size = total
                # NOTE: the raw stream (no requests decoding) keeps a gzip
                # source compressed on the wire: it is inflated once, here.
                yield from streams.image_chunks(response.raw, layout, shown)
    hashed.chunks = chunks()
    return hashed


@contextlib.contextmanager
def _source_errors(spec, shown):
    try:
        yield
    except deadlines.DeadlineExceeded as exc:
        raise _source_error('%s: download of %s failed: %s'
                            % (spec.key, shown, exc.problem))
    except requests.exceptions.SSLError as exc:
        raise _source_error(
            '%s: TLS with %s failed (%s); give its CA in SSL_CERT_FILE or '
            'REQUESTS_CA_BUNDLE, or INSECURE_CLIENT=true'
            % (spec.key, shown, _cause(exc)))
    except (requests.exceptions.RequestException,
            # NOTE: urllib3 errors reach us raw from response.raw.read.
            requests.packages.urllib3.exceptions.HTTPError) as exc:
        raise _source_error('%s: download of %s failed: %s'
                            % (spec.key, shown, _cause(exc)))


def check_md5(spec, md5):
    if md5 != spec.md5:
        raise exitcodes.UploaderError(
            exitcodes.CHECKSUM_MISMATCH,
            '%s: md5 of the image from %s is %s, expected %s'
            % (spec.key, progress_mod.redact_url(spec.uri), md5, spec.md5))


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
    text = errors.one_line(reason)
    # NOTE: urllib3 prefixes "<...HTTPConnection object at 0x...>: ".
    if text.startswith('<') and '>: ' in text:
        text = text.split('>: ', 1)[1]
    return text[:200] or reason.__class__.__name__


def _check_status(response, what):
    if response.status_code >= 400:
        raise _source_error('%s answered HTTP %d %s'
                            % (what, response.status_code,
                               response.reason or ''))


def _open_http(spec, verify):
    shown = progress_mod.redact_url(spec.uri)
    session = _trust(requests.Session(), **verify)
    response = session.get(spec.uri, stream=True,
                           verify=not verify['insecure'],
                           timeout=(CONNECT_TIMEOUT, READ_TIMEOUT))
    try:
        _check_status(response, '%s: %s' % (spec.key, shown))
    except exitcodes.UploaderError:
        response.close()
        raise
    total = int(response.headers.get('Content-Length') or 0)
    name = posixpath.basename(urllib.parse.urlsplit(spec.uri).path)
    return response, total, streams.layout_for(name)


def parse_oci_uri(uri):
    """Split oci://host[:port]/repo[:tag|@digest] -> (host, reference)."""
    rest = uri[len('oci://'):]
    host, _, reference = rest.partition('/')
    if not host or not reference:
        raise exitcodes.UploaderError(
            exitcodes.BAD_CONFIG,
            '%s is not oci://REGISTRY/REPOSITORY[:TAG]' % uri)
    return host, reference


def _registry(host, *, verify, plain_http):
    # NOTE: oras retries every failed request 5 times with sleeps up to
    # 83 s; an unreachable registry must fail in seconds, so its retry
    # wrapper is bypassed and every request gets a timeout.
    import oras.provider

    class QuickRegistry(oras.provider.Registry):
        def do_request(self, *args, **kwargs):
            unwrapped = oras.provider.Registry.do_request.__wrapped__
            return unwrapped(self, *args, **kwargs)

    registry = QuickRegistry(hostname=host, insecure=plain_http,
                             tls_verify=not verify['insecure'])
    _trust(registry.session, **verify)
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


def _manifest(spec, *, verify, plain_http):
    """Return (registry, container, manifest) of spec's artifact.

    With verification off (INSECURE_CLIENT) and no plain-HTTP request,
    HTTPS is tried first and plain HTTP only if the registry does not
    speak TLS, as docker does for its insecure registries.
    """
    import oras.container

    host, reference = parse_oci_uri(spec.uri)
    shown = progress_mod.redact_url(spec.uri)
    schemes = [plain_http]
    if verify['insecure'] and not plain_http:
        schemes.append(True)
    for index, plain in enumerate(schemes):
        registry = _registry(host, verify=verify, plain_http=plain)
        container = oras.container.Container(reference, registry=host)
        url = '%s://%s' % (registry.prefix, container.manifest_url())
        try:
            response = registry.do_request(url, 'GET', headers={
                'Accept': ', '.join((
                    'application/vnd.oci.image.manifest.v1+json',
                    'application/vnd.docker.distribution.manifest.v2'
                    '+json'))})
        except requests.exceptions.SSLError:
            if index + 1 < len(schemes):
                continue
            raise
        break
    _check_status(response, '%s: manifest of %s' % (spec.key, shown))
    try:
        return registry, container, response.json()
    except ValueError:
        raise _source_error('%s: manifest of %s is not JSON'
                            % (spec.key, shown))


def _open_oci(spec, *, verify, plain_http):
    shown = progress_mod.redact_url(spec.uri)
    registry, container, manifest = _manifest(spec, verify=verify,
                                              plain_http=plain_http)
    layer, title = _pick_layer(manifest, '%s: %s' % (spec.key, shown))
    layout = streams.layout_for(title, layer.get('mediaType', ''))
    blob = registry.get_blob(container, layer['digest'], stream=True)
    try:
        _check_status(blob, '%s: blob %s of %s'
                      % (spec.key, layer['digest'][:19], shown))
    except exitcodes.UploaderError:
        blob.close()
        raise
    return blob, int(layer.get('size') or 0), layout
