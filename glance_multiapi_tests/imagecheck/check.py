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

"""The consistency checks of consolidated service images, without I/O.

A consolidated image serves several OpenStackVersion fields (heat-api and
heat-api-cfn from one image, as s2i builds them). In every source of deployed
references those fields must name the same image -- the same image name,
whatever registry or mirror path keeps it (identity.py) -- and the same
digest where digests are given. A reference pinned by digest beside one
that only has a tag is a disagreement, since the tag can move. Two
references of one image with the same digest agree even when their tags
or registries differ: the runtime pulls by digest and ignores the tag.
The images the running Deployments use are held to the same rules, and
each must also be the one status.containerImages names for its field.
"""

import dataclasses

from glance_multiapi_kernel import image_errors
from glance_multiapi_kernel import openstackversion_fields
from glance_multiapi_tests.imagecheck import identity
from glance_multiapi_tests.imagecheck import sources as sources_mod

DOUBLY_ASSIGNED = 'doubly-assigned'
UNKNOWN_NAME = 'unknown-name'
MISSING = 'missing'
PARTIAL_OVERRIDE = 'partial-override'
DIFFERENT_IMAGE = 'different-image'
TAG_VS_DIGEST = 'tag-vs-digest'
DIGEST_MISMATCH = 'digest-mismatch'
TAG_MISMATCH = 'tag-mismatch'
DRIFT = 'drift'
NO_MAPPING = 'no image mapping'
RUNNING_DRIFT = 'running-drift'
RUNNING_DIGESTS = 'running-digests'
ROLLOUT = 'rollout'

# NOTE: ordered as a reader should fix them: the mapping first, then what
# is missing, then what disagrees.
KINDS = {
    DOUBLY_ASSIGNED: 'one field listed under two targets of the mapping',
    UNKNOWN_NAME: 'an image name the known names do not hold',
    MISSING: 'a mapped field absent from status or the env listing',
    PARTIAL_OVERRIDE: 'spec overrides only some fields of one image',
    DIFFERENT_IMAGE: 'fields of one image name different images',
    TAG_VS_DIGEST: 'one field pinned by digest, another only by tag',
    DIGEST_MISMATCH: 'fields of one image pinned to different digests',
    TAG_MISMATCH: 'fields of one image with different tags, no digests',
    DRIFT: 'status differs from the spec override or env default',
    RUNNING_DRIFT: 'a running Deployment is not on the status image',
    RUNNING_DIGESTS: 'pods of one image run several digests, or another '
                     'than its pin',
    ROLLOUT: 'a Deployment (or the OpenStackVersion) still rolling out '
             'when the wait for it ended',
}


@dataclasses.dataclass(frozen=True)
class Finding:
    """One disagreement; ``message`` names the fields and their values."""

    kind: str
    message: str
    target: str = None
    fields: tuple = ()
    source: str = None
    # NOTE: (pod, digest) of the pods a running-digests finding names.
    pods: tuple = ()

    @property
    def about_mapping(self):
        """True when the finding is about the mapping, not deployed refs."""
        return self.source is None


@dataclasses.dataclass(frozen=True)
class Row:
    """One line of the table: a field of a target in one source."""

    target: str
    field: str
    source: str
    reference: str
    digest: str
    verdict: str


@dataclasses.dataclass(frozen=True)
class Report:
    """Everything the check found."""

    mapping: str
    rows: tuple
    findings: tuple
    notes: tuple

    @property
    def consistent(self):
        return not self.findings

    @property
    def exit_code(self):
        if self.consistent:
            return image_errors.EXIT_CONSISTENT
        return image_errors.EXIT_INCONSISTENT


def check(mapping, sources=(), known_names=None, targets=None,
          versions=None, running=None, pods=None):
    """Run every check and return a Report.

    :param mapping: a mapping.Mapping.
    :param sources: sources.Source objects, in the order to show them.
    :param known_names: image names the build system knows, or None to
        skip the name checks.
    :param targets: names of the targets to check; None or empty for all.
        Double assignments are looked for in the whole mapping regardless.
    :param versions: sources.Versions of the CR, if one was given.
    :param running: the sources.RUNNING Source, to hold the running
        Deployments' images to each other and to status.containerImages.
    :param pods: sources.Pods of those Deployments, to hold the digests
        their pods run to each other, image by image, and to the pins.
    """
    findings = list(_double_assignments(mapping))
    sources, defaults, notes = settle(sources, versions)
    mapping = _without_foreign_fields(mapping, sources, notes)
    selected = _select(mapping, targets)
    findings.extend(_defaults_agree(sources))
    by_label = {source.label: source for source in sources}
    overridden = overridden_fields(sources)
    if known_names is not None:
        findings.extend(_unknown_target_names(selected, known_names))
    for target in selected:
        for source in sources:
            findings.extend(_check_source(
                target, source, known_names, overridden,
                by_label.get(sources_mod.STATUS)))
    findings.extend(_drift(selected, sources, defaults))
    if running is not None:
        findings.extend(_running(selected, running, sources, notes, pods))
        if not mapping.targets:
            notes.append('%s: the running Deployments were compared with '
                         '%s only, not with each other' % (
                             NO_MAPPING, sources_mod.STATUS))
    if not sources and running is None:
        notes.append('no deployed references given: only the mapping '
                     'itself was checked')
    elif not any(source.complete for source in sources):
        notes.append('only %s given: whether every mapped field exists '
                     'was not checked' % sources_mod.SPEC)
    if pods is not None:
        findings.extend(_pods(selected, pods, by_label.get(
            sources_mod.STATUS), notes))
    ordered = sorted(findings, key=lambda f: list(KINDS).index(f.kind))
    rows = _rows(selected, list(sources) + ([running] if running else []),
                 ordered) + pod_rows(selected, pods, ordered)
    return Report(mapping=mapping.where, rows=tuple(rows),
                  findings=tuple(ordered), notes=tuple(notes))


def settle(found, versions):
    """(the sources to judge, the defaults of the version, notes).

    The defaults an override is judged against are the target version's:
    status.containerImageVersionDefaults[spec.targetVersion], which the
    operator keeps for each version it ran, when the CR holds them. The
    RELATED_IMAGE env describes the version its operator ships
    (OPENSTACK_RELEASE_VERSION, else status.availableVersion, the running
    operator's): it is judged only when that is the target version;
    otherwise it is named "not compared" and used for no finding, since
    during an update (targetVersion != availableVersion) it describes the
    next version, not the deployed one. Without either, status stands for
    the defaults of the fields no override names.
    """
    notes = []
    by_label = {source.label: source for source in found}
    env = by_label.get(sources_mod.ENV)
    defaults = by_label.get(sources_mod.DEFAULTS)
    target = versions.target if versions is not None else None
    if target and defaults is None and versions.with_defaults:
        notes.append('%s has no entry for targetVersion %s (it holds %s)'
                     % (sources_mod.DEFAULTS, target,
                        ', '.join(versions.with_defaults)))
    if env is not None and target:
        version = env.version or versions.available
        if version is not None and version != target:
            guessed = '' if env.version else (
                ' (it names no %s; availableVersion, the running '
                'operator\'s, is %s)' % (sources_mod.ENV_VERSION, version))
            notes.append('%s (%s) not compared: version %s, not '
                         'targetVersion %s%s' % (env.label, env.where,
                                                 version, target, guessed))
            found = [source for source in found if source is not env]
            env = None
    return list(found), defaults or env, notes


def _defaults_agree(found):
    """The env of the target version against the CR's own defaults."""
    by_label = {source.label: source for source in found}
    env = by_label.get(sources_mod.ENV)
    defaults = by_label.get(sources_mod.DEFAULTS)
    if env is None or defaults is None:
        return
    for field in sorted(set(env.references) & set(defaults.references)):
        mine, theirs = env.references[field], defaults.references[field]
        if identity.same_build(mine, theirs):
            continue
        yield Finding(
            DRIFT, '%s (%s) sets %s=%s but %s=%s (%s): the env is not '
            'the one the operator recorded for version %s' % (
                env.label, env.where, env.origin(field), mine.text,
                defaults.origin(field), theirs.text, defaults.where,
                defaults.version),
            fields=(field,), source=env.label)


def overridden_fields(found):
    """The fields spec.customContainerImages of found overrides.

    Their defaults (the version's, the env's) are not deployed, so the
    defaults are judged as an image only on the other fields: a layout
    changed by override leaves defaults grouped otherwise, and that is
    no finding.
    """
    for source in found:
        if source.label == sources_mod.SPEC:
            return frozenset(source.references)
    return frozenset()


def _without_foreign_fields(mapping, found, notes):
    """The mapping less the fields no OpenStackVersion can hold; noted.

    s2i's file lists manilaShareImage, a field of the defaults only (the
    CR holds manilaShareImages, a map per backend): it is reported, and
    the rest of the file is judged.
    """
    deployed = set()
    for source in found:
        if source.complete:
            deployed |= set(source.references)
    targets = []
    for target in mapping.targets:
        kept = []
        for field in target.fields:
            why = openstackversion_fields.not_a_field(field, deployed)
            if why is None:
                kept.append(field)
            else:
                notes.append('%s lists %s under %s: %s; not checked' % (
                    mapping.where, field, target.name, why))
        targets.append(dataclasses.replace(target, fields=tuple(kept)))
    return dataclasses.replace(mapping, targets=tuple(targets))


def _select(mapping, targets):
    if not targets:
        return list(mapping.targets)
    by_name = {}
    for target in mapping.targets:
        by_name.setdefault(target.name, target)
    unknown = [name for name in targets if name not in by_name]
    if unknown:
        raise image_errors.ImageCheckError(
            'target %s is not in %s (its targets: %s)'
            % (', '.join(unknown), mapping.where,
               ', '.join(t.name for t in mapping.targets)))
    return [by_name[name] for name in targets]


def _double_assignments(mapping):
    for field, owners in mapping.owners().items():
        if len(owners) < 2:
            continue
        if len(set(owners)) == 1:
            how = 'listed %d times under %s' % (len(owners), owners[0])
        else:
            how = 'assigned to %d images: %s' % (len(owners),
                                                 ', '.join(owners))
        yield Finding(DOUBLY_ASSIGNED, '%s is %s (%s)'
                      % (field, how, mapping.where), fields=(field,))


def _unknown_target_names(selected, known_names):
    for target in selected:
        if target.image_name not in known_names:
            yield Finding(
                UNKNOWN_NAME, '%s builds %s, which is not a known image '
                'name (%s)' % (target.name, target.image_name,
                               _known(known_names)),
                target=target.name, fields=target.fields)


def _known(known_names):
    if len(known_names) <= 8:
        return 'known: %s' % ', '.join(sorted(known_names))
    return 'not among the %d known names' % len(known_names)


def _check_source(target, source, known_names, overridden=(),
                  status=None):
    """The findings of one target in one source.

    overridden: the fields spec.customContainerImages names, whose
    defaults are not deployed and so not judged as the target's image;
    status: the status.containerImages Source, if given, which says what
    the fields an override leaves alone run.
    """
    judged = [field for field in target.fields
              if not (source.label in sources_mod.DEFAULT_SOURCES and
                      field in overridden)]
    present = [(field, source.references[field])
               for field in judged if field in source.references]
    absent = [field for field in target.fields
              if field not in source.references]
    where = '%s in %s (%s)' % (target.name, source.label, source.where)
    if source.complete and absent:
        yield Finding(
            MISSING, '%s: lacks %s, which the mapping assigns to this '
            'image' % (where, ', '.join(
                _spell_absent(source, field) for field in absent)),
            target=target.name, fields=tuple(absent), source=source.label)
    if source.label == sources_mod.SPEC and present and absent and (
            _splits(present, absent, status)):
        yield Finding(
            PARTIAL_OVERRIDE, '%s: overrides %s but not %s, which keep '
            'their defaults, so one image would run as several'
            % (where, _listing(source, present), ', '.join(absent)),
            target=target.name, fields=target.fields, source=source.label)
    yield from _compare(target, source, present, where)
    if known_names is not None:
        for name in sorted({ref.image_name for _, ref in present}):
            if name in known_names:
                continue
            named = [(f, r) for f, r in present if r.image_name == name]
            yield Finding(
                UNKNOWN_NAME, '%s: %s names image %s, not a known image '
                'name (%s)' % (where, _listing(source, named), name,
                               _known(known_names)),
                target=target.name, fields=tuple(f for f, _ in named),
                source=source.label)


def _splits(present, absent, status):
    """Whether the fields an override leaves alone run another build.

    Without status that is not known, and an override of only some
    fields of one image is taken to split it.
    """
    if status is None:
        return True
    for field in absent:
        kept = status.references.get(field)
        if kept is None or not all(identity.same_build(ref, kept)
                                   for _field, ref in present):
            return True
    return False


def _spell_absent(source, field):
    if source.label == sources_mod.ENV:
        return '%s (no %s)' % (field, sources_mod.env_name_for_field(field))
    return field


def _compare(target, source, present, where):
    if len(present) < 2:
        return
    fields = tuple(field for field, _ in present)
    if len({identity.image_of(ref) for _, ref in present}) > 1:
        yield Finding(
            DIFFERENT_IMAGE, '%s: fields name different images: %s'
            % (where, _listing(source, present)),
            target=target.name, fields=fields, source=source.label)
        return
    pinned = [(f, r) for f, r in present if r.digest]
    loose = [(f, r) for f, r in present if not r.digest]
    if pinned and loose:
        yield Finding(
            TAG_VS_DIGEST, '%s: %s pinned by digest but %s only by tag, '
            'which can move: %s' % (
                where, ', '.join(f for f, _ in pinned),
                ', '.join(f for f, _ in loose), _listing(source, present)),
            target=target.name, fields=fields, source=source.label)
    if len({ref.digest for _, ref in pinned}) > 1:
        yield Finding(
            DIGEST_MISMATCH, '%s: digests differ: %s'
            % (where, _listing(source, pinned)),
            target=target.name, fields=tuple(f for f, _ in pinned),
            source=source.label)
    if len({ref.tag for _, ref in loose}) > 1:
        yield Finding(
            TAG_MISMATCH, '%s: tags differ: %s'
            % (where, _listing(source, loose)),
            target=target.name, fields=tuple(f for f, _ in loose),
            source=source.label)


def _listing(source, present):
    parts = []
    for field, ref in present:
        origin = source.origin(field)
        if source.label in (sources_mod.ENV, sources_mod.RUNNING) and (
                origin != field):
            field = '%s (%s)' % (field, origin)
        parts.append('%s=%s' % (field, ref.text))
    return ', '.join(parts)


def _drift(selected, sources, defaults):
    """Status against the override of each field, else its default."""
    by_label = {source.label: source for source in sources}
    status = by_label.get(sources_mod.STATUS)
    custom = by_label.get(sources_mod.SPEC)
    if status is None or (custom is None and defaults is None):
        return
    for target in selected:
        for field in target.fields:
            actual = status.references.get(field)
            if actual is None:
                continue
            if custom is not None and field in custom.references:
                expected, whence = custom.references[field], custom
            elif defaults is not None and field in defaults.references:
                expected, whence = defaults.references[field], defaults
            else:
                continue
            if identity.same_build(actual, expected):
                continue
            origin = whence.origin(field)
            if not origin.startswith(whence.label):
                origin = '%s sets %s' % (whence.label, origin)
            yield Finding(
                DRIFT, '%s: %s has %s=%s but %s=%s (%s)' % (
                    target.name, status.label, field, actual.text,
                    origin, expected.text, whence.where),
                target=target.name, fields=(field,), source=status.label)


def _running(selected, running, sources, notes, pods=None):
    # NOTE: a Deployment still rolling out is named as such (_pods), not
    # as drift of its template.
    rolling = frozenset(field for field, name in (
        pods.deployments.items() if pods is not None else ())
        if name in pods.unsettled)
    running = dataclasses.replace(running, references={
        field: ref for field, ref in running.references.items()
        if field not in rolling})
    owner = {}
    for target in selected:
        present = [(field, running.references[field])
                   for field in target.fields
                   if field in running.references]
        owner.update((field, target.name) for field, _ in present)
        yield from _compare(target, running, present, '%s in %s (%s)' % (
            target.name, running.label, running.where))
    status = {source.label: source for source in sources}.get(
        sources_mod.STATUS)
    if status is None:
        notes.append('%s not compared with %s: no OpenStackVersion given'
                     % (running.label, sources_mod.STATUS))
        return
    for field in sorted(running.references):
        actual = running.references[field]
        expected = status.references.get(field)
        if expected is not None and identity.same_build(actual, expected):
            continue
        if expected is None:
            against = 'but %s has no %s (%s)' % (status.label, field,
                                                 status.where)
        else:
            against = 'but %s.%s=%s (%s)' % (
                status.label, field, expected.text, status.where)
        yield Finding(
            RUNNING_DRIFT, '%s: %s (%s) runs %s, %s' % (
                owner.get(field, field), running.origin(field),
                running.where, actual.text, against),
            target=owner.get(field), fields=(field,), source=running.label)


def _pods(groups, pods, status, notes):
    """The digests the pods run, image by image, and rollouts not over.

    groups: the images (a mapping's targets, or status's grouping), each
    with the fields it serves; the pods of the Deployments of one image's
    fields must run one digest, and the digest status pins, if it pins
    one.
    """
    for field, name in sorted(pods.deployments.items()):
        if name in pods.unsettled:
            yield Finding(
                ROLLOUT, 'Deployment %s (%s) is still rolling out after '
                '%.0f s of waiting: %s; its pods were not judged, rather '
                'than named drift' % (name, pods.where, pods.waited,
                                      pods.unsettled[name]),
                fields=(field,), source=sources_mod.PODS)
    for group in groups:
        members = [(field, pod) for field in group.fields
                   if pods.deployments.get(field) not in pods.unsettled
                   for pod in pods.by_field.get(field, ())]
        for field, pod in members:
            if pod.digest is None:
                notes.append('%s (%s) not judged: %s' % (
                    pod.describe(), field, pod.waiting))
        resolved = [(field, pod) for field, pod in members if pod.digest]
        if len({pod.digest for _f, pod in resolved}) > 1:
            yield Finding(
                RUNNING_DIGESTS, '%s: its pods run %d digests, one image '
                'on two builds (a tag resolved apart, or another build): '
                '%s (%s)' % (
                    group.name, len({p.digest for _f, p in resolved}),
                    '; '.join('%s (%s) runs %s' % (pod.describe(), field,
                                                   pod.digest)
                              for field, pod in resolved), pods.where),
                target=group.name, fields=tuple(sorted(
                    {field for field, _pod in resolved})),
                source=sources_mod.PODS, pods=tuple(
                    (pod.pod, pod.digest) for _f, pod in resolved))
        pinned = status.references if status is not None else {}
        for field, pod in resolved:
            ref = pinned.get(field)
            if ref is None or not ref.digest or not pod.manifest or (
                    pod.digest == ref.digest):
                continue
            yield Finding(
                RUNNING_DIGESTS, '%s: %s runs %s but %s.%s pins %s (%s)'
                % (group.name, pod.describe(), pod.digest, status.label,
                   field, ref.digest, pods.where),
                target=group.name, fields=(field,), source=sources_mod.PODS,
                pods=((pod.pod, pod.digest),))


def pod_rows(groups, pods, findings):
    """The table's rows of the pods: their names and digests per field."""
    if pods is None:
        return []
    rows = []
    for group in groups:
        for field in group.fields:
            if field not in pods.deployments:
                continue
            found = pods.by_field.get(field, ())
            rolling = pods.deployments[field] in pods.unsettled
            rows.append(Row(
                target=group.name, field=field, source=sources_mod.PODS,
                reference=', '.join(p.pod for p in found) or (
                    'none' if not rolling else 'rolling out'),
                digest=', '.join(sorted({p.digest or '-' for p in found}))
                or '-',
                verdict=_verdict(group.name, field, sources_mod.PODS,
                                 findings)))
    return rows


def _rows(selected, sources, findings):
    # NOTE: the findings of each field, so that a row's verdict costs the
    # findings naming its field, not all of them: a mapping of 20,000
    # targets has as many findings and rows.
    by_field = {}
    for finding in findings:
        for field in dict.fromkeys(finding.fields):
            by_field.setdefault(field, []).append(finding)
    rows = []
    for target in selected:
        shown = [source for source in sources
                 if source.complete or any(
                     field in source.references for field in target.fields)]
        for field in target.fields:
            for source in shown or [None]:
                label = source.label if source else '-'
                ref = source.references.get(field) if source else None
                rows.append(Row(
                    target=target.name, field=field, source=label,
                    reference=_shown_reference(source, ref),
                    digest=(ref.digest if ref and ref.digest else '-'),
                    verdict=_verdict(target.name, field, label,
                                     by_field.get(field, ()))))
    return rows


def _shown_reference(source, ref):
    if ref is not None:
        return ref.without_digest
    if source is None or source.label == sources_mod.RUNNING:
        return '-'
    return 'MISSING' if source.complete else '(default)'


def _verdict(target, field, label, findings):
    """The kinds of the findings (of field) about this row, or 'ok'."""
    kinds = []
    for finding in findings:
        if finding.target not in (None, target):
            continue
        if field not in finding.fields:
            continue
        if finding.source not in (None, label):
            continue
        if finding.kind not in kinds:
            kinds.append(finding.kind)
    return ','.join(kinds) or 'ok'
