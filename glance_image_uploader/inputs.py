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

"""The images info file and the settings, as Sylva's uploader reads them.

Everything here but the reading of files (read_info_file, check_files,
through glance_multiapi_kernel/input_files.py) is pure: it turns a file, the
environment
and the parsed flags into values, or raises UploaderError with code 2
(file missing or not a regular file) or 22 (anything malformed). Flags
win over the environment.
"""

import dataclasses
import math
import re
import ssl

from glance_multiapi_kernel import documents
from glance_multiapi_kernel import input_files
from glance_multiapi_kernel import redaction
from glance_multiapi_kernel import values
from glance_image_uploader import exitcodes

DEFAULT_INFO_PATH = '/opt/config/os-images-info.yaml'
DISK_FORMATS = ('raw', 'qcow2', 'vmdk', 'vdi', 'vhd', 'vhdx', 'iso',
                'ploop', 'ami', 'ari', 'aki')
REQUIRED_KEYS = ('uri', 'md5', 'image-format')
SOURCE_SCHEMES = ('http://', 'https://', 'oci://')
TAG_PREFIX = 'sylva-md5-'
PROPERTY_PREFIX = 'sylva/'
NAME_SUFFIX = '-sylva-diskimage-builder-'
_MD5 = re.compile(r'^[0-9a-fA-F]{32}$')
FOREIGN_QUEUED_POLICIES = ('refuse', 'ignore')
_TRUE = ('1', 'true', 'yes', 'on')
_FALSE = ('0', 'false', 'no', 'off', '')
# NOTE: glance refuses property values and names over 255 characters.
_MAX_PROPERTY = 255


def _bad(message):
    return exitcodes.UploaderError(exitcodes.BAD_CONFIG, message)


@dataclasses.dataclass(frozen=True)
class ImageSpec:
    """One entry of os_images, validated."""

    key: str
    uri: str
    md5: str
    disk_format: str
    commit_tag: str
    info: dict

    @property
    def glance_name(self):
        if self.commit_tag:
            return '%s%s%s' % (self.key, NAME_SUFFIX, self.commit_tag)
        return self.key

    @property
    def tag(self):
        return TAG_PREFIX + self.md5

    @property
    def properties(self):
        """The sylva/<key> properties for every key of the info entry.

        NOTE: the image is a community image, which every project can
        read: the source URL is stored without its userinfo and query
        (redaction.stored_url), and a key that names a secret (a
        password, a token) is not stored at all.
        """
        return {PROPERTY_PREFIX + str(key): (
            redaction.stored_url(_as_text(value)) if str(key) == 'uri'
            else _as_text(value))
            for key, value in sorted(self.info.items(),
                                     key=lambda item: str(item[0]))
            if not redaction.is_secret_key(str(key))}


def _as_text(value):
    if isinstance(value, bool):
        return 'true' if value else 'false'
    return str(value)


@dataclasses.dataclass(frozen=True)
class Settings:
    """What the run needs besides the images, after env and flags."""

    info_path: str
    cloud: str
    client_config_file: str
    in_progress_timeout: float
    in_progress_interval: float
    wait_queued: float
    insecure: bool
    plain_http: bool
    foreign_queued_policy: str = 'refuse'
    ca_files: tuple = ()
    # NOTE: each exchange from connect to its last byte: a request to
    # keystone, Glance or the Kubernetes API; one image's download (for
    # oci://, its manifest and layer; its upload into Glance: both).
    request_timeout: float = 120.0
    source_timeout: float = 3600.0


def parse_bool(name, text):
    low = str(text).strip().lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    raise _bad('%s=%s is not a boolean (use true or false)' % (
        name, documents.short(repr(text))))


def parse_seconds(name, text, *, minimum=0.0):
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise _bad('%s=%s is not a number of seconds' % (
            name, documents.short(repr(text))))
    if not math.isfinite(value):
        raise _bad('%s=%s is not a finite number of seconds' % (
            name, documents.short(repr(text))))
    if value < minimum:
        raise _bad('%s=%s must be at least %s' % (
            name, documents.short(repr(text)), minimum))
    return value


def settings_from(args, environ):
    """Merge parsed flags (None when not given) over the environment."""
    def pick(flag, env, default):
        value = getattr(args, flag, None)
        if value is not None:
            return value, '--' + flag.replace('_', '-')
        if env in environ:
            return environ[env], env
        return default, env

    info_path, _ = pick('images_info', 'OS_IMAGES_INFO_PATH',
                        DEFAULT_INFO_PATH)
    cloud, _ = pick('os_cloud', 'OS_CLOUD', None)
    config_file, _ = pick('os_client_config_file', 'OS_CLIENT_CONFIG_FILE',
                          None)
    timeout = parse_seconds(*reversed(pick(
        'in_progress_timeout', 'IMAGE_IN_PROGRESS_TIMEOUT', 3600)),
        minimum=1)
    interval = parse_seconds(*reversed(pick(
        'in_progress_interval', 'IMAGE_IN_PROGRESS_INTERVAL', 10)),
        minimum=0.01)
    wait_queued = parse_seconds(*reversed(pick(
        'wait_queued_image', 'WAIT_QUEUED_IMAGE', 10)))
    request_timeout = parse_seconds(*reversed(pick(
        'request_timeout', 'REQUEST_TIMEOUT', Settings.request_timeout)),
        minimum=0.1)
    source_timeout = parse_seconds(*reversed(pick(
        'source_timeout', 'SOURCE_TIMEOUT', Settings.source_timeout)),
        minimum=0.1)
    insecure = parse_bool(*reversed(pick(
        'insecure', 'INSECURE_CLIENT', 'false')))
    plain_http = parse_bool(*reversed(pick(
        'plain_http', 'OCI_PLAIN_HTTP', 'false')))
    policy, name = pick('foreign_queued_policy', 'FOREIGN_QUEUED_POLICY',
                        'refuse')
    policy = str(policy).strip().lower()
    if policy not in FOREIGN_QUEUED_POLICIES:
        raise _bad('%s=%s is not one of %s' % (
            name, documents.short(repr(policy)),
            ', '.join(FOREIGN_QUEUED_POLICIES)))
    # NOTE: requests reads REQUESTS_CA_BUNDLE itself but not SSL_CERT_FILE
    # (it ships its own bundle); either may name the CA a deployment
    # added, while the other names the system bundle: both are trusted.
    ca_files = []
    for name in ('SSL_CERT_FILE', 'REQUESTS_CA_BUNDLE'):
        value = (environ.get(name) or '').strip()
        if value and value not in ca_files:
            ca_files.append(value)
    return Settings(info_path=info_path, cloud=cloud or None,
                    client_config_file=config_file or None,
                    in_progress_timeout=timeout,
                    in_progress_interval=interval, wait_queued=wait_queued,
                    insecure=insecure, plain_http=plain_http,
                    foreign_queued_policy=policy, ca_files=tuple(ca_files),
                    request_timeout=request_timeout,
                    source_timeout=source_timeout)


def read_info_file(path):
    """Return the text of the images info file.

    Code 2 when it cannot be read at all (missing, not a regular file: a
    folder, a FIFO, a device, a symlink loop; no permission), 22 when it
    is larger than any images info file or not UTF-8.
    """
    try:
        return input_files.read_text(path, 'images info file')
    except input_files.InputFileError as exc:
        raise exitcodes.UploaderError(
            exitcodes.INPUT_MISSING if exc.unavailable
            else exitcodes.BAD_CONFIG, str(exc)) from None


def check_files(settings, environ, to_configmap, config_option):
    """Code 22 unless every other file the run will read can be used.

    clouds.yaml as openstacksdk will find it
    (glance_multiapi_kernel/clouds_yaml.py),
    the CA files of SSL_CERT_FILE and REQUESTS_CA_BUNDLE and, for a
    ConfigMap outside a pod, the kubeconfig: each a regular file of a
    bounded size, the YAML ones well-formed, so that none of them
    blocks the run or fails it after an upload began.
    """
    from glance_multiapi_kernel import clouds_yaml
    from glance_multiapi_kernel import kube
    try:
        clouds_yaml.check(settings.cloud, config_files=(
            [settings.client_config_file] if settings.client_config_file
            else None), environ=environ, option=config_option if
            settings.client_config_file else None)
    except clouds_yaml.CloudsError as exc:
        raise _bad(str(exc)) from None
    for name in ('SSL_CERT_FILE', 'REQUESTS_CA_BUNDLE'):
        path = (environ.get(name) or '').strip()
        if path and not settings.insecure:
            try:
                input_files.check_regular(path, 'CA file %s' % name)
                # NOTE: what sources.py loads once a download begins.
                ssl.create_default_context().load_verify_locations(
                    cafile=path)
            except input_files.InputFileError as exc:
                raise _bad(str(exc)) from None
            except (OSError, ssl.SSLError) as exc:
                raise _bad('CA file %s %s cannot be loaded: %s' % (
                    name, path, documents.short(str(exc), 200))) from None
    if to_configmap and not environ.get(kube.IN_CLUSTER_ENV):
        path = environ.get('KUBECONFIG') or kube.DEFAULT_KUBECONFIG
        try:
            kube.check_kubeconfig(path, '$KUBECONFIG' if environ.get(
                'KUBECONFIG') else 'kubeconfig')
        except kube.KubeError as exc:
            raise _bad(str(exc)) from None


def parse_images(text, *, source='images info'):
    """Parse and validate the os_images map; return [ImageSpec]."""
    # NOTE: number keys pass, as with the PyYAML Sylva's uploader uses.
    try:
        document = documents.load_yaml(text, string_keys=False)
    except documents.DocumentError as exc:
        raise _bad('%s: %s' % (source, exc)) from None
    if not isinstance(document, dict) or 'os_images' not in document:
        raise _bad('%s has no top-level os_images map' % source)
    images = document['os_images']
    if not isinstance(images, dict) or not images:
        raise _bad('%s: os_images must be a non-empty map of name to '
                   'image info' % source)
    specs = [_image_spec(str(key), info, source)
             for key, info in images.items()]
    names = [spec.glance_name for spec in specs]
    dupes = sorted({name for name in names if names.count(name) > 1})
    if dupes:
        raise _bad('%s: several os_images entries map to the Glance name '
                   '%s' % (source, documents.short(', '.join(dupes), 300)))
    return specs


def _image_spec(key, info, source):
    where = '%s: os_images.%s' % (source, documents.short(key))
    if not isinstance(info, dict):
        raise _bad('%s must be a map with %s' % (where,
                                                 ', '.join(REQUIRED_KEYS)))
    missing = [name for name in REQUIRED_KEYS if not info.get(name)]
    if missing:
        raise _bad('%s lacks %s' % (where, ', '.join(missing)))
    uri = str(info['uri']).strip()
    if not uri.startswith(SOURCE_SCHEMES):
        raise _bad('%s.uri must start with %s' % (where,
                                                  ', '.join(SOURCE_SCHEMES)))
    # NOTE: a library's error may quote the URL whole.
    redaction.remember_url(uri)
    problem = values.url_problem(uri, schemes=())
    if problem:
        raise _bad('%s.uri: %s' % (where, problem))
    md5 = info['md5']
    if not isinstance(md5, str):
        # NOTE: YAML reads 32 unquoted digits as an integer (leading
        # zeros lost, or octal), so its text is not the md5 any more.
        raise _bad('%s.md5 is a YAML %s (%s), not text; quote it: '
                   'md5: "..."' % (where, 'number' if isinstance(
                       md5, (int, float)) and not isinstance(md5, bool)
                       else type(md5).__name__, documents.short(repr(md5))))
    md5 = md5.strip()
    if not _MD5.match(md5):
        raise _bad('%s.md5 is not 32 hexadecimal digits' % where)
    disk_format = str(info['image-format']).strip()
    if disk_format not in DISK_FORMATS:
        raise _bad('%s.image-format %s is not one of %s' % (
            where, documents.short(repr(disk_format)),
            ', '.join(DISK_FORMATS)))
    commit_tag = info.get('commit-tag')
    commit_tag = '' if commit_tag is None else _as_text(commit_tag).strip()
    spec = ImageSpec(key=key, uri=uri, md5=md5.lower(),
                     disk_format=disk_format, commit_tag=commit_tag,
                     info=dict(info))
    problem = values.name_problem(spec.glance_name)
    if problem:
        raise _bad('%s: not a usable image name: %s' % (where, problem))
    if len(spec.glance_name) > _MAX_PROPERTY:
        raise _bad('%s: Glance name is longer than %d characters'
                   % (where, _MAX_PROPERTY))
    for name, value in spec.properties.items():
        if len(name) > _MAX_PROPERTY or len(value) > _MAX_PROPERTY:
            raise _bad('%s: property %s is longer than %d characters'
                       % (where, name, _MAX_PROPERTY))
    return spec
