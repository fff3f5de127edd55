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

Everything here is pure: it turns a file, the environment and the parsed
flags into values, or raises UploaderError with code 2 (file missing) or 22
(anything malformed). Flags win over the environment.
"""

import dataclasses
import math
import re

from glance_multiapi_tests.common import documents
from glance_multiapi_tests.uploader import exitcodes

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
        """The sylva/<key> properties for every key of the info entry."""
        return {PROPERTY_PREFIX + str(key): _as_text(value)
                for key, value in sorted(self.info.items(),
                                         key=lambda item: str(item[0]))}


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
                    foreign_queued_policy=policy, ca_files=tuple(ca_files))


def read_info_file(path):
    """Return the text of the images info file (code 2 if missing)."""
    try:
        with open(path, encoding='utf-8') as info_file:
            return info_file.read()
    except FileNotFoundError:
        raise exitcodes.UploaderError(
            exitcodes.INPUT_MISSING,
            'images info file %s does not exist' % path)
    except IsADirectoryError:
        raise exitcodes.UploaderError(
            exitcodes.INPUT_MISSING,
            'images info file %s is a directory' % path)
    except OSError as exc:
        raise exitcodes.UploaderError(
            exitcodes.INPUT_MISSING,
            'images info file %s cannot be read: %s' % (path, exc.strerror))
    except UnicodeDecodeError:
        raise _bad('images info file %s is not UTF-8 text' % path)


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
    md5 = str(info['md5']).strip()
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
    if len(spec.glance_name) > _MAX_PROPERTY:
        raise _bad('%s: Glance name is longer than %d characters'
                   % (where, _MAX_PROPERTY))
    for name, value in spec.properties.items():
        if len(name) > _MAX_PROPERTY or len(value) > _MAX_PROPERTY:
            raise _bad('%s: property %s is longer than %d characters'
                       % (where, name, _MAX_PROPERTY))
    return spec
