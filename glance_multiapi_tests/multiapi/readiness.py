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

"""What the operator says of the deployment: its CRs' conditions. Pure.

The deployment access layer (glance_multiapi_tests/deployment_access.py)
reads the Glance CR (through the Kubernetes API, else as the document
discovery_command prints) and, only through the Kubernetes API, the
GlanceAPI CRs of the APIs of its spec.glanceAPIs, one ``get`` each by
the name the operator gives it (glance_cr.glanceapi_crs); it gathers
them in a Report. ``problems`` words what is not Ready (one line per
condition, naming its CR); ``note`` is what any other check appends to a
finding about some APIs, '' when the CRs have nothing to say.

Ready as glance-operator writes it (conditions.py): a CR whose
status.observedGeneration is behind its metadata.generation is not
Ready, whatever its conditions say (they describe an earlier spec: a
just-patched Glance still shows the Ready of the pass before), and is
named first with both fields. Such a CR, or one whose Ready is Unknown,
is settling: the operator has not decided yet, so a check may wait
(``settling``) before it judges; False is the operator's finding.
"""

import dataclasses

from glance_multiapi_kernel import conditions
from glance_multiapi_kernel import documents
from glance_multiapi_kernel import kube

NOT_READ = ('not read: only the Kubernetes API reads them '
            '([glance_multiapi] kubernetes_api is False)')


@dataclasses.dataclass
class ApiCr:
    """One GlanceAPI CR an API of the spec should have."""

    api: str
    name: str
    obj: dict = None
    missing: str = None

    @property
    def conditions(self):
        return conditions.of(self.obj)


@dataclasses.dataclass
class Report:
    """The Glance CR and the GlanceAPI CRs, and where each was read."""

    glance: dict
    glance_source: str
    # NOTE: None when the GlanceAPI CRs were not read (api_source says
    # why), else one ApiCr per CR of every API of the spec, in order.
    api_crs: list = None
    api_source: str = NOT_READ

    @property
    def glance_label(self):
        meta = kube.metadata(self.glance)
        return 'Glance %s%s' % (
            '%s/' % meta['namespace'] if isinstance(
                meta.get('namespace'), str) else '',
            documents.short(str(kube.name_of(self.glance)), 100))

    def describe_sources(self):
        return 'Glance CR: %s; GlanceAPI CRs: %s' % (
            self.glance_source, self.api_source)


def problems(report):
    """One line per CR, or condition, that is not Ready ([] all Ready)."""
    found = glance_problems(report)
    for lines in api_problems(report).values():
        found += lines
    return found


def glance_problems(report):
    """The Glance CR's lines of problems()."""
    return _lines(report.glance_label, report.glance)


def api_problems(report):
    """{API: its lines of problems()} of every API whose CRs were read."""
    found = {}
    for item in report.api_crs or ():
        lines = found.setdefault(item.api, [])
        label = 'GlanceAPI %s (API %s)' % (item.name, item.api)
        if item.missing:
            lines.append('%s: missing: %s' % (label, item.missing))
        else:
            lines += _lines(label, item.obj)
    return found


def _lines(label, obj):
    conds = conditions.of(obj)
    lag = conditions.generation_lag(obj)
    lines = []
    if lag is not None:
        lines.append('%s: %s' % (label, conditions.describe_lag(lag)))
    if conditions.is_ready(conds):
        return lines
    shown = conditions.not_true(conds)
    if conditions.get(conds, conditions.READY) is None:
        shown.insert(0, {'type': 'Ready', 'status': 'missing',
                         'message': 'the CR reports no Ready condition'})
    return lines + ['%s: %s' % (label, conditions.describe(c))
                    for c in shown]


def _crs(report):
    """[(label, CR or None when missing)] of every CR read."""
    found = [(report.glance_label, report.glance)]
    for item in report.api_crs or ():
        found.append(('GlanceAPI %s (API %s)' % (item.name, item.api),
                      None if item.missing else item.obj))
    return found


def _is_settling(obj):
    return (conditions.generation_lag(obj) is not None
            or conditions.is_settling(conditions.of(obj)))


def settling(report):
    """The labels of the CRs the operator has not decided about yet.

    [] when every CR not Ready has a finding of the operator's (a False
    condition, no Ready at all, a missing CR), or none is: then there is
    nothing to wait for. Else every CR not Ready is still settling: its
    observedGeneration is behind, or its Ready is Unknown.
    """
    found = []
    for label, obj in _crs(report):
        if obj is None:
            return []
        if _is_settling(obj):
            found.append(label)
        elif _lines(label, obj):
            return []
    return found


def note(report, apis, one_line=False):
    """What report says of apis, to append to a finding about them, or ''.

    The not-Ready conditions of their GlanceAPI CRs (a missing one named
    as missing) and of the Glance CR, one per line (one_line: after
    '; ', separated by '; ').
    """
    lines = problems(report)
    if not lines:
        return ''
    head = 'what the operator says of %s (%s):' % (
        ', '.join(apis), report.describe_sources())
    if one_line:
        return '; %s %s' % (head, '; '.join(lines))
    return '\n%s\n  %s' % (head, '\n  '.join(lines))
