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

"""clouds.yaml as openstacksdk will find it, read and checked first.

openstacksdk (openstack/config/loader.py) takes the first file of its
list that exists (``OS_CLIENT_CONFIG_FILE`` first, else the
``config_files`` it is given or ./clouds.yaml, ~/.config/openstack/...,
/etc/openstack/...; then secure.yaml and clouds-public.yaml alike),
blocks on a FIFO, skips a file it cannot parse with a log line nobody
sees and fails later with "Cloud demo was not found", or with "'int'
object is not iterable" on ``auth: 5``. ``check`` reads those files with
the project's own reader (input_files, documents) and the keys the
uploader and the doctor rely on, so each of those is one CloudsError
naming the file and the key, before openstacksdk reads anything.
"""

import os

from glance_multiapi_kernel import documents
from glance_multiapi_kernel import errors
from glance_multiapi_kernel import input_files
from glance_multiapi_kernel import values

# NOTE: openstacksdk's own name of the cloud it makes of OS_* variables.
ENVVARS_CLOUD = 'envvars'
_STRINGS = ('region_name', 'cacert', 'cert', 'key', 'interface',
            'auth_type', 'profile')


class CloudsError(errors.OneLineError):
    """A clouds.yaml that openstacksdk would misread; str() is one line."""


def _lists(config_files, environ):
    """[(kind, [paths in openstacksdk's order])] of its three file lists."""
    from openstack.config import loader
    found = []
    for kind, default, env in (
            ('clouds.yaml', loader.CONFIG_FILES, 'OS_CLIENT_CONFIG_FILE'),
            ('secure.yaml', loader.SECURE_FILES, 'OS_CLIENT_SECURE_FILE'),
            ('clouds-public.yaml', loader.VENDOR_FILES, None)):
        paths = list(config_files if kind == 'clouds.yaml' and
                     config_files is not None else default)
        if env and environ.get(env):
            paths.insert(0, environ[env])
        found.append((kind, paths))
    return found


def _read(kind, path):
    try:
        text = input_files.read_text(path, kind)
        if path.endswith('json'):
            return documents.load_json(text)
        return documents.load_yaml(text)
    except documents.DocumentError as exc:
        raise CloudsError('%s %s: %s' % (kind, path, exc)) from None
    except input_files.InputFileError as exc:
        raise CloudsError(str(exc)) from None


def _mapping(value, where, key):
    if not isinstance(value, dict):
        raise CloudsError('%s: %s: expected a mapping, got %s' % (
            where, key, _describe(value)))
    return value


def _describe(value):
    if value is None:
        return 'nothing'
    name = type(value).__name__
    return '%s %s (%s)' % ('an' if name[0] in 'aeiou' else 'a', name,
                           documents.short(repr(value), 40))


def _check_cloud(name, cloud, where):
    key = 'clouds.%s' % name
    _mapping(cloud, where, key)
    auth = cloud.get('auth', {})
    _mapping(auth, where, key + '.auth')
    for item, value in auth.items():
        if isinstance(value, (dict, list)):
            raise CloudsError('%s: %s.auth.%s: expected a string, got %s'
                              % (where, key, item, _describe(value)))
    if 'auth_url' in auth:
        problem = values.url_problem(auth['auth_url'])
        if problem:
            raise CloudsError('%s: %s.auth.auth_url: %s' % (
                where, key, problem))
    for item in _STRINGS:
        if item in cloud and not isinstance(cloud[item], str):
            raise CloudsError('%s: %s.%s: expected a string, got %s' % (
                where, key, item, _describe(cloud[item])))
    if not isinstance(cloud.get('verify', True), (bool, str)):
        raise CloudsError('%s: %s.verify: expected true, false or a CA '
                          'file, got %s' % (where, key,
                                            _describe(cloud['verify'])))
    regions = cloud.get('regions', [])
    if not isinstance(regions, list):
        raise CloudsError('%s: %s.regions: expected a list, got %s' % (
            where, key, _describe(regions)))
    for option in ('cacert', 'cert', 'key'):
        if cloud.get(option):
            try:
                input_files.check_regular(cloud[option], '%s: %s.%s' % (
                    where, key, option))
            except input_files.InputFileError as exc:
                raise CloudsError(str(exc)) from None


def check(cloud=None, *, config_files=None, environ=None, option=None):
    """Read what openstacksdk will read; CloudsError naming file and key.

    :param cloud: the cloud asked for (None: OS_CLOUD, else the only one).
    :param config_files: what the caller gives openstacksdk, or None.
    :param option: the option that named config_files[0] (e.g.
        --os-client-config-file), which must then exist.
    :returns: the path of the clouds.yaml used, or None.
    """
    environ = os.environ if environ is None else environ
    if option and config_files:
        # NOTE: openstacksdk would skip a named file that is missing and
        # fall back to another clouds.yaml; what the option names must be
        # the one read.
        try:
            input_files.check_regular(config_files[0], option)
        except input_files.InputFileError as exc:
            raise CloudsError(str(exc)) from None
    clouds, used = {}, None
    for kind, paths in _lists(config_files, environ):
        # NOTE: os.path.exists, as openstacksdk: a broken link is skipped.
        path = next((p for p in paths if os.path.exists(p)), None)
        if path is None:
            continue
        doc = _read(kind, path)
        if doc is None and kind != 'clouds.yaml':
            continue
        where = '%s %s' % (kind, path)
        _mapping(doc, where, 'the document')
        found = doc.get('clouds' if kind != 'clouds-public.yaml' else
                        'public-clouds', {})
        _mapping(found, where, 'clouds')
        if kind == 'clouds-public.yaml':
            continue
        for name, entry in found.items():
            clouds.setdefault(name, []).append((entry, where))
        if kind == 'clouds.yaml':
            used = path
    name = cloud or environ.get('OS_CLOUD') or None
    if name is None and len(clouds) == 1:
        name = next(iter(clouds))
    if name is None or name == ENVVARS_CLOUD:
        return used
    if name not in clouds:
        if used is None:
            return None
        raise CloudsError('clouds.yaml %s: clouds: no cloud named %s (it '
                          'has: %s)' % (used, documents.short(name),
                                        documents.short(', '.join(
                                            sorted(map(str, clouds))), 200)
                                        or 'none'))
    for entry, where in clouds[name]:
        _check_cloud(name, entry, where)
    return used
