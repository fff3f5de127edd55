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

"""Where deployed image references come from, parsed without any I/O.

Four sources name an image per OpenStackVersion field, and a fifth
shows what actually runs:

* ``status.containerImages`` of the OpenStackVersion CR: what the operator
  deploys; it lists every field.
* ``spec.customContainerImages`` of the same CR: the overrides a user set;
  it lists only the overridden fields.
* ``status.containerImageVersionDefaults[spec.targetVersion]`` of the same
  CR: the defaults of the version deployed, which the operator keeps per
  version (openstack-operator ``internal/controller/core/
  openstackversion_controller.go``: containerImages are the overrides,
  else these).
* the ``RELATED_IMAGE_*_URL_DEFAULT`` environment of openstack-operator:
  the default of every field for the version the operator ships, its
  ``OPENSTACK_RELEASE_VERSION`` (which becomes status.availableVersion).
* the running Deployments (``heat-api``, ``heat-cfnapi``, ``heat-engine``):
  the image of the container named like the Deployment (else of its only
  container), under the field a configured map gives each Deployment;
  and their pods (the ones the Deployment's selector chooses, but those
  being deleted): the digest that container's image resolved to
  (``status.containerStatuses[].imageID``), which a tag such as
  ``:current-podified`` only says at pull time.

An environment name becomes a field the way openstack-operator does it:
drop ``RELATED_IMAGE_`` and ``_URL_DEFAULT``, capitalise each ``_``-separated
word (``Heat`` ``Api`` ``Image``), join them, spell ``Api`` as ``API`` and
lower-case the first letter: ``RELATED_IMAGE_HEAT_API_IMAGE_URL_DEFAULT`` is
``heatAPIImage``, ``..._HEAT_CFNAPI_IMAGE_...`` is ``heatCfnapiImage``.
The operator also feeds ``infraDnsmasqImage`` from the neutron API default.
"""

import dataclasses
import re

from glance_multiapi_kernel import documents
from glance_multiapi_kernel import image_errors
from glance_multiapi_kernel import image_mappings as mapping_mod
from glance_multiapi_tests.imagecheck import pullspec

STATUS = 'status.containerImages'
SPEC = 'spec.customContainerImages'
DEFAULTS = 'status.containerImageVersionDefaults'
ENV = 'RELATED_IMAGE env'
RUNNING = 'running Deployments'
PODS = 'running pods'
# NOTE: the sources that hold defaults, as opposed to what is deployed.
DEFAULT_SOURCES = (DEFAULTS, ENV)

# NOTE: openstack-operator takes the version its defaults belong to from
# this variable of its manager (openstackversion_controller.go
# SetupVersionDefaults).
ENV_VERSION = 'OPENSTACK_RELEASE_VERSION'

ENV_PREFIX = 'RELATED_IMAGE_'
ENV_SUFFIX = '_URL_DEFAULT'
# NOTE: openstack-operator copies this one default into a second field
# rather than shipping two RELATED_IMAGE entries with the same value.
ENV_ALIASES = {'RELATED_IMAGE_NEUTRON_API_IMAGE_URL_DEFAULT':
               ('infraDnsmasqImage',)}
_ENV_NAME_RE = re.compile(r'[A-Za-z_][A-Za-z0-9_]*$')
_ENV_SPLIT_RE = re.compile(r',\s*(?=[A-Za-z_][A-Za-z0-9_]*=)')


@dataclasses.dataclass(frozen=True)
class Source:
    """Image references of one source, by OpenStackVersion field."""

    label: str
    where: str
    references: dict
    origins: dict
    complete: bool
    # NOTE: the OpenStack version a source of defaults belongs to, when
    # it says (OPENSTACK_RELEASE_VERSION; the key of the version map).
    version: str = None

    def origin(self, field):
        """Where this source spells the field (env name or CR path)."""
        return self.origins.get(field, field)


@dataclasses.dataclass(frozen=True)
class Versions:
    """The versions an OpenStackVersion CR reports, when it has them."""

    target: str = None
    available: str = None
    deployed: str = None
    # NOTE: the versions status.containerImageVersionDefaults holds.
    with_defaults: tuple = ()


def field_for_env_name(name):
    """Return the OpenStackVersion field of a RELATED_IMAGE name, or None."""
    if not (name.startswith(ENV_PREFIX) and name.endswith(ENV_SUFFIX)):
        return None
    middle = name[len(ENV_PREFIX):-len(ENV_SUFFIX)]
    words = [word for word in middle.split('_') if word]
    if not words:
        return None
    joined = ''.join(word[0].upper() + word[1:].lower() for word in words)
    joined = joined.replace('Api', 'API')
    return joined[0].lower() + joined[1:]


def parse_env_listing(text, where):
    """Return the Source of a RELATED_IMAGE_* listing.

    Accepted: ``NAME=VALUE`` lines (``export`` prefixes, quotes, comments
    and blank lines allowed), the same pairs comma-separated on one line,
    or a Kubernetes env list (JSON or YAML list of ``{name, value}``).
    Variables that are not ``RELATED_IMAGE_*_URL_DEFAULT`` are ignored.
    """
    if text.lstrip().startswith(('[', '-')):
        pairs = _env_pairs_from_list(text, where)
    else:
        pairs = _env_pairs_from_lines(text, where)
    seen = {}
    references, origins = {}, {}
    version = None
    for name, value, place in pairs:
        if name in seen:
            raise image_errors.MalformedInput(
                where, name, 'set twice (%s and %s)' % (seen[name], place))
        seen[name] = place
        if name == ENV_VERSION:
            version = _version_value(value, where, '%s (%s)' % (name, place))
            continue
        field = field_for_env_name(name)
        if field is None:
            continue
        ref = _pullspec(value, where, '%s (%s)' % (name, place))
        for target in (field,) + ENV_ALIASES.get(name, ()):
            # NOTE: an explicit variable for the aliased field wins, as it
            # does in the operator when both are set.
            if target != field and target in origins:
                continue
            references[target] = ref
            origins[target] = name
    if not references:
        raise image_errors.MalformedInput(
            where, None, 'no %s*%s variable found' % (ENV_PREFIX, ENV_SUFFIX))
    return Source(label=ENV, where=where, references=references,
                  origins=origins, complete=True, version=version)


def _version_value(value, where, field):
    # NOTE: YAML reads an unquoted 18.0 as a number; the CRD's is a string.
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip() or any(
            c.isspace() for c in value):
        raise image_errors.MalformedInput(
            where, field, 'expected a version such as 0.0.1, got %s'
            % documents.short(repr(value)))
    return value


def _env_pairs_from_lines(text, where):
    pairs = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        if line.startswith('export '):
            line = line[len('export '):].lstrip()
        items = _ENV_SPLIT_RE.split(line)
        for item in items:
            name, sep, value = item.partition('=')
            name = name.strip()
            place = 'line %d' % number
            if not sep or not _ENV_NAME_RE.match(name):
                raise image_errors.MalformedInput(
                    where, place, 'expected NAME=VALUE, got %s' %
                    documents.short(repr(item)))
            pairs.append((name, _unquote(value.strip()), place))
    return pairs


def _env_pairs_from_list(text, where):
    document = mapping_mod.load_yaml(text, where)
    if not isinstance(document, list):
        raise image_errors.MalformedInput(
            where, None, 'expected a list of {name, value} entries')
    pairs = []
    for index, entry in enumerate(document):
        place = 'entry %d' % index
        if (not isinstance(entry, dict) or
                not isinstance(entry.get('name'), str)):
            raise image_errors.MalformedInput(
                where, place, 'expected a map with a name and a value')
        if 'value' not in entry:
            # NOTE: valueFrom entries cannot be resolved offline; they are
            # only a problem if they name an image the mapping needs.
            if field_for_env_name(entry['name']) is not None or (
                    entry['name'] == ENV_VERSION):
                raise image_errors.MalformedInput(
                    where, entry['name'], 'has no literal value')
            continue
        pairs.append((entry['name'], entry['value'], place))
    return pairs


def _unquote(value):
    if len(value) >= 2 and value[0] == value[-1] and value[0] in '"\'':
        return value[1:-1]
    return value


def parse_version_document(text, where):
    """Return ([Source, ...], Versions) of an OpenStackVersion CR.

    ``text`` is the CR as JSON or YAML (``oc get openstackversion NAME -o
    json``); a List holding exactly one OpenStackVersion is accepted too.
    """
    try:
        document = documents.load_json(text)
    except documents.DocumentError:
        document = mapping_mod.load_yaml(text, where)
    return parse_version(document, where)


def parse_version(document, where):
    """parse_version_document of the CR (or List) as read: a dict."""
    document = _single_version(document, where)
    spec = _section(document, 'spec', where)
    status = _section(document, 'status', where)
    found = []
    custom = _section(spec, 'customContainerImages', where, 'spec.')
    deployed = _section(status, 'containerImages', where, 'status.')
    if deployed:
        found.append(_cr_source(STATUS, deployed, where, complete=True))
    if custom:
        found.append(_cr_source(SPEC, custom, where, complete=False))
    if not found:
        raise image_errors.MalformedInput(
            where, None, 'has neither %s nor %s; nothing to check'
            % (STATUS, SPEC))
    versions = Versions(
        target=_optional_version(spec, 'targetVersion', where, 'spec.'),
        available=_optional_version(status, 'availableVersion', where,
                                    'status.'),
        deployed=_optional_version(status, 'deployedVersion', where,
                                   'status.'))
    by_version = _section(status, 'containerImageVersionDefaults', where,
                          'status.')
    versions = dataclasses.replace(versions, with_defaults=tuple(
        sorted(str(key) for key in by_version)))
    defaults = by_version.get(versions.target)
    if versions.target is not None and defaults is not None:
        path = '%s[%s]' % (DEFAULTS, versions.target)
        if not isinstance(defaults, dict):
            raise image_errors.MalformedInput(
                where, path, 'expected a map, got a %s'
                % type(defaults).__name__)
        # NOTE: the defaults are not deployed as such (an override wins),
        # so a field they lack is no finding of theirs.
        found.append(dataclasses.replace(
            _cr_source(DEFAULTS, defaults, where, complete=False,
                       path=path), version=versions.target))
    return found, versions


def _optional_version(parent, key, where, prefix):
    value = parent.get(key)
    if value is None:
        return None
    return _version_value(value, where, prefix + key)


def _single_version(document, where):
    if not isinstance(document, dict):
        raise image_errors.MalformedInput(
            where, None, 'expected an OpenStackVersion object')
    if str(document.get('kind') or '').endswith('List') or (
            'items' in document):
        items = document.get('items')
        if not isinstance(items, list) or len(items) != 1:
            count = len(items) if isinstance(items, list) else 'no'
            raise image_errors.MalformedInput(
                where, 'items', 'expected exactly one OpenStackVersion, '
                'got %s; name the one to check' % count)
        document = items[0]
        if not isinstance(document, dict):
            raise image_errors.MalformedInput(
                where, 'items[0]', 'expected an OpenStackVersion object')
    kind = document.get('kind')
    if kind is not None and kind != 'OpenStackVersion':
        raise image_errors.MalformedInput(
            where, 'kind', 'expected OpenStackVersion, got %s' %
            documents.short(repr(kind)))
    return document


def _section(parent, key, where, prefix=''):
    value = parent.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise image_errors.MalformedInput(
            where, prefix + key, 'expected a map, got a %s'
            % type(value).__name__)
    return value


def _cr_source(label, images, where, complete, path=None):
    references, origins = {}, {}
    for field, value in images.items():
        # NOTE: cinderVolumeImages and manilaShareImages are maps per
        # backend, which the scalar s2i mapping cannot name; skip them.
        if value is None or isinstance(value, dict):
            continue
        path_of = '%s.%s' % (path or label, field)
        references[field] = _pullspec(value, where, path_of)
        origins[field] = path_of
    return Source(label=label, where=where, references=references,
                  origins=origins, complete=complete)


def _pullspec(value, where, field):
    try:
        return pullspec.parse(value)
    except pullspec.InvalidPullspec as exc:
        raise image_errors.MalformedInput(where, field, str(exc))


def parse_running(deployments, fields, where):
    """Return the Source of the images running Deployments use.

    :param deployments: {Deployment name: the Deployment object (dict)}.
    :param fields: {Deployment name: the OpenStackVersion field its image
        must match}.
    :param where: where the objects were read, for messages.
    """
    references, origins = {}, {}
    for name in sorted(fields):
        field = fields[name]
        if field in origins:
            raise image_errors.MalformedInput(
                where, field, 'given to two Deployments, %s and %s; each '
                'field can name one' % (origins[field].split()[-1], name))
        container = running_container(deployments[name], name, where)
        references[field] = _pullspec(
            container.get('image'), where, 'Deployment %s container %s '
            'image' % (name, container.get('name')))
        origins[field] = 'Deployment %s' % name
    return Source(label=RUNNING, where=where, references=references,
                  origins=origins, complete=False)


def running_container(obj, name, where, kind='Deployment', name_of=None,
                      path=('spec', 'template', 'spec', 'containers')):
    """The container named like the Deployment, else its only one.

    obj is the Deployment called name, or (kind 'Pod', path
    spec.containers) one of its pods, called name_of.
    """
    containers = obj
    for key in path:
        # NOTE: an object of another API version may hold anything.
        containers = containers.get(key) if isinstance(
            containers, dict) else None
    here = '%s %s' % (kind, name_of or name)
    if not isinstance(containers, list) or not containers:
        raise image_errors.MalformedInput(
            where, here, 'has no %s list' % '.'.join(path))
    for container in containers:
        if isinstance(container, dict) and container.get('name') == name:
            return container
    if len(containers) == 1 and isinstance(containers[0], dict):
        return containers[0]
    raise image_errors.MalformedInput(
        where, here, 'has %d containers (%s) and none is '
        'named %s, so which one runs the image is unknown' % (
            len(containers), documents.short(', '.join(
                str(c.get('name')) for c in containers
                if isinstance(c, dict)), 300), name))


@dataclasses.dataclass(frozen=True)
class PodImage:
    """The digest one pod's container runs (imageID), or why none yet."""

    pod: str
    deployment: str
    digest: str = None
    # NOTE: a manifest digest (repository@digest) compares with a pin; a
    # bare image id (a runtime's config digest) only with other pods'.
    manifest: bool = False
    waiting: str = None

    def describe(self):
        return 'pod %s of Deployment %s' % (self.pod, self.deployment)


@dataclasses.dataclass(frozen=True)
class Pods:
    """The running pods of the Deployments of fields, read after a wait.

    by_field: {field: (PodImage, ...)}; unsettled: {Deployment: what was
    seen} of those still rolling out (or under an update) when the wait
    for them ended, whose pods are not judged; waited: its seconds.
    """

    where: str
    by_field: dict
    deployments: dict
    unsettled: dict = dataclasses.field(default_factory=dict)
    waited: float = 0.0


_IMAGE_ID_RE = re.compile(r'(?:[a-z][a-z0-9+.-]*://)?(?:(.*)@)?'
                          r'([A-Za-z][A-Za-z0-9]*:[0-9a-fA-F]{32,})$')


def image_id_digest(image_id):
    """(digest, manifest) of a containerStatuses imageID, else (None, False).

    ``quay.io/x/openstack-heat-api@sha256:...`` (CRI-O, containerd) and
    ``docker-pullable://...@sha256:...`` name the manifest digest; a bare
    ``sha256:...`` is the runtime's image id, comparable only with the
    ids of other pods.
    """
    if not isinstance(image_id, str):
        return None, False
    match = _IMAGE_ID_RE.match(image_id.strip())
    if not match:
        return None, False
    return match.group(2), match.group(1) is not None


def parse_pods(pods, fields, where):
    """Return the Pods of {Deployment: [pod objects]} (pure).

    :param fields: {Deployment name: the OpenStackVersion field}.
    """
    by_field, deployments = {}, {}
    for name in sorted(pods):
        field = fields[name]
        deployments[field] = name
        found = []
        for pod in pods[name]:
            if not isinstance(pod, dict):
                raise image_errors.MalformedInput(
                    where, 'pods of Deployment %s' % name,
                    'expected Pod objects')
            meta = pod.get('metadata')
            meta = meta if isinstance(meta, dict) else {}
            if meta.get('deletionTimestamp'):
                continue
            found.append(_pod_image(pod, str(meta.get('name') or '?'),
                                    name, where))
        by_field[field] = tuple(found)
    return Pods(where=where, by_field=by_field, deployments=deployments)


def _pod_image(pod, pod_name, deployment, where):
    container = running_container(pod, deployment, where, kind='Pod',
                                  name_of=pod_name,
                                  path=('spec', 'containers'))
    status = pod.get('status')
    statuses = status.get('containerStatuses') if isinstance(
        status, dict) else None
    for entry in statuses if isinstance(statuses, list) else []:
        if isinstance(entry, dict) and entry.get('name') == container.get(
                'name'):
            digest, manifest = image_id_digest(entry.get('imageID'))
            if digest:
                return PodImage(pod_name, deployment, digest, manifest)
            state = entry.get('state')
            waiting = state.get('waiting') if isinstance(state,
                                                         dict) else None
            reason = waiting.get('reason') if isinstance(
                waiting, dict) else None
            return PodImage(pod_name, deployment,
                            waiting=str(reason or 'no imageID yet'))
    return PodImage(pod_name, deployment, waiting='no container status yet')


def parse_known_names(text, where):
    """Return the image names of a list, one a line (# comments)."""
    names = set()
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split('#', 1)[0].strip()
        if not line:
            continue
        if any(c.isspace() for c in line) or '/' in line or ':' in line:
            raise image_errors.MalformedInput(
                where, 'line %d' % number, 'expected one image name such as '
                'openstack-heat-api, got %s' % documents.short(repr(line)))
        names.add(line)
    if not names:
        raise image_errors.MalformedInput(where, None, 'lists no image name')
    return frozenset(names)


def env_name_for_field(field):
    """Return the RELATED_IMAGE name that sets a field (inverse rule)."""
    words = re.sub(r'([A-Z])', r'_\1', field.replace('API', 'Api'))
    return '%s%s%s' % (ENV_PREFIX, words.upper(), ENV_SUFFIX)
