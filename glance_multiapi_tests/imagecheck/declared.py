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

"""The images a deployment declares, judged without a mapping file.

Upstream ships heat in three layouts (heat_images.LAYOUTS): the operators'
default three images, s2i's two, and all in one. Which one a deployment
runs is what it declares, so no group is fixed here: in each source of
references, the fields (of the built-in ones) whose references name the
same image are one image (identity.py: the image name, whatever registry
or mirror path keeps it), and must pin the same digest -- or the same
tag, never a tag beside a digest. Fields naming different images are
different images, each still held to its Deployment and to status.

Across sources, what is compared is what can be compared without a
mapping:

* status.containerImages, the RELATED_IMAGE defaults and the overrides
  are each grouped by their own image names (an override may declare
  another layout than the operator's defaults, and that is no finding);
* spec.customContainerImages overrides all or none of the fields of one
  image of the defaults (the RELATED_IMAGE env, else status);
* status agrees field by field with the override, else the default
  (check._drift), and every running Deployment with status, the
  Deployments of one status image with each other (check._running).

Pure logic: the sources come parsed (sources.py).
"""

import dataclasses

from glance_multiapi_kernel import heat_images
from glance_multiapi_kernel import image_errors
from glance_multiapi_kernel import image_mappings
from glance_multiapi_tests.imagecheck import check
from glance_multiapi_tests.imagecheck import identity
from glance_multiapi_tests.imagecheck import sources as sources_mod


@dataclasses.dataclass(frozen=True)
class Image(image_mappings.Target):
    """One image a source declares: the fields naming it."""

    image: str = None

    @property
    def image_name(self):
        return self.image


def images(source, fields):
    """The Images of source: its references of fields, by image name.

    In the order the fields are given; a field naming another service's
    image (heatCfnapiImage on openstack-heat-api) is one of that image's
    fields, wherever its copy is kept (identity.py).
    """
    return [Image(name=image, fields=tuple(members), image=image)
            for image, members in identity.by_image(
                source.references, fields).items()]


def select_fields(targets):
    """The built-in fields to judge: those of the named s2i targets."""
    if not targets:
        return heat_images.FIELDS
    names = [name for name, _fields in heat_images.GROUPS]
    unknown = [name for name in targets if name not in names]
    if unknown:
        raise image_errors.ImageCheckError(
            'target %s is not in %s (its targets: %s)' % (
                ', '.join(unknown), heat_images.WHERE, ', '.join(names)))
    return tuple(field for name, fields in heat_images.GROUPS
                 if name in targets for field in fields)


def check_declared(found, fields=heat_images.FIELDS, known_names=None,
                   versions=None, running=None, pods=None):
    """Judge fields as the sources declare them; return a check.Report.

    :param found: sources.Source objects, in the order to show them.
    :param fields: the OpenStackVersion fields to judge.
    :param known_names: image names the build system knows, or None.
    :param versions: sources.Versions of the CR, if one was given.
    :param running: the sources.RUNNING Source, if the Deployments were
        read.
    :param pods: the sources.Pods of those Deployments, if read.
    """
    found, defaults, notes = check.settle(found, versions)
    by_label = {source.label: source for source in found}
    custom = by_label.get(sources_mod.SPEC)
    overridden = check.overridden_fields(found)
    findings = list(_untargeted(check._defaults_agree(found)))
    for source in found:
        findings.extend(_missing(source, fields))
        judged = fields
        if source.label in sources_mod.DEFAULT_SOURCES:
            judged = [f for f in fields if f not in overridden]
        for image in images(source, judged):
            present = [(f, source.references[f]) for f in image.fields]
            where = '%s in %s (%s)' % (image.name, source.label,
                                       source.where)
            findings.extend(_untargeted(check._compare(
                image, source, present, where)))
            if known_names is not None:
                findings.extend(_unknown_name(image, source, present,
                                              where, known_names))
    # NOTE: without the version's defaults, status stands for them: a
    # field no override names is deployed from its default.
    kept = defaults or by_label.get(sources_mod.STATUS)
    if custom is not None and kept is not None:
        findings.extend(_partial_overrides(custom, kept, fields))
    deployed = _deployed(found, fields)
    findings.extend(_untargeted(check._drift(deployed, found, defaults)))
    if running is not None:
        findings.extend(_untargeted(check._running(deployed, running, found,
                                                   notes, pods)))
    if pods is not None:
        findings.extend(_untargeted(check._pods(
            deployed, pods, by_label.get(sources_mod.STATUS), notes)))
    notes.extend(_layouts(found, fields))
    if not found and running is None:
        notes.append('no deployed references given: nothing was checked')
    elif found and not any(source.complete for source in found):
        notes.append('only %s given: whether every field exists was not '
                     'checked' % sources_mod.SPEC)
    ordered = sorted(findings, key=lambda f: list(check.KINDS).index(f.kind))
    rows = check._rows(deployed, list(found) + ([running] if running
                                                else []), ordered) + (
        check.pod_rows(deployed, pods, ordered))
    return check.Report(mapping='the images the deployment declares (%s)'
                        % heat_images.WHERE, rows=tuple(rows),
                        findings=tuple(ordered), notes=tuple(notes))


def _untargeted(findings):
    # NOTE: the sources group the fields differently, so a finding is
    # matched to the table's rows by its fields and source alone.
    for finding in findings:
        yield dataclasses.replace(finding, target=None)


def _missing(source, fields):
    absent = [field for field in fields if field not in source.references]
    if not (source.complete and absent):
        return
    spelled = ', '.join(check._spell_absent(source, f) for f in absent)
    yield check.Finding(
        check.MISSING, '%s (%s): lacks %s, a field of heat\'s images (%s)'
        % (source.label, source.where, spelled, heat_images.WHERE),
        fields=tuple(absent), source=source.label)


def _unknown_name(image, source, present, where, known_names):
    if image.image in known_names:
        return
    yield check.Finding(
        check.UNKNOWN_NAME, '%s: %s names image %s, not a known image '
        'name (%s)' % (where, check._listing(source, present), image.image,
                       check._known(known_names)),
        fields=image.fields, source=source.label)


def _partial_overrides(custom, defaults, fields):
    """Overrides that leave another field of their image on the default.

    An override naming image N at one build, while a field it leaves
    alone keeps its default on N at another build, makes one image run
    as two builds. Overriding every field of an image, or moving a field
    to an image of its own (a layout changed by override), does not.
    """
    kept = [f for f in fields
            if f not in custom.references and f in defaults.references]
    for image, overridden in identity.by_image(custom.references,
                                               fields).items():
        apart = [f for f in kept
                 if identity.image_of(defaults.references[f]) == image and
                 not all(identity.same_build(custom.references[o],
                                             defaults.references[f])
                         for o in overridden)]
        if not apart:
            continue
        yield check.Finding(
            check.PARTIAL_OVERRIDE, '%s in %s (%s): overrides %s but not '
            '%s, which %s serves from the same image %s, so one image '
            'would run as several' % (
                image, custom.label, custom.where, check._listing(
                    custom, [(f, custom.references[f]) for f in overridden]),
                ', '.join(apart), defaults.label,
                defaults.references[apart[0]].text),
            fields=tuple(overridden) + tuple(apart), source=custom.label)


def _deployed(found, fields):
    """The table's images: status's grouping (else the first source's).

    Fields no source names stay, one an image, so their rows show them
    missing.
    """
    order = sorted(found, key=lambda s: s.label != sources_mod.STATUS)
    grouped = images(order[0], fields) if order else []
    named = {field for image in grouped for field in image.fields}
    grouped += [Image(name=field, fields=(field,)) for field in fields
                if field not in named]
    return grouped


def _layouts(found, fields):
    """A note per complete source: which upstream layout it declares."""
    if set(fields) != set(heat_images.FIELDS):
        return
    for source in found:
        if not source.complete or any(
                field not in source.references for field in fields):
            continue
        declared = images(source, fields)
        layout = heat_images.layout_named(image.fields for image in declared)
        spelled = '; '.join('%s serves %s' % (image.image,
                                              ', '.join(image.fields))
                            for image in declared)
        yield '%s declares %s: %s' % (
            source.label, 'layout %s' % layout if layout else
            'a layout upstream does not ship', spelled)
