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

"""What the operator says of the deployment: its CRs' conditions.

The Glance CR is read as discovery reads it (through the Kubernetes API,
else as the document discovery_command prints); the GlanceAPI CRs of
the APIs of its spec.glanceAPIs only through the Kubernetes API, one
``get`` each by the name the operator gives it (glance_cr.glanceapi_crs).
``read`` gathers them in a Report, ``problems`` words what is not Ready
(one line per condition, naming its CR), ``note`` is what any other
check appends to a finding about some APIs: best effort, it never
raises and returns '' when it has nothing to say.
"""

import dataclasses
import logging

from glance_multiapi_kernel import documents
from glance_multiapi_kernel import kube
from glance_multiapi_kernel import conditions
from glance_multiapi_tests.multiapi import discovery
from glance_multiapi_kernel import glance_cr

LOG = logging.getLogger(__name__)
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


def spec_apis(glance):
    """{API: type} of the Glance CR's spec.glanceAPIs (bad ones left out)."""
    spec = glance.get('spec') if isinstance(glance, dict) else None
    apis = spec.get('glanceAPIs') if isinstance(spec, dict) else None
    found = {}
    if not isinstance(apis, dict):
        return found
    for name, api in sorted(apis.items()):
        api_type = glance_cr.DEFAULT_TYPE
        if isinstance(api, dict) and api.get('type'):
            api_type = api['type']
        if isinstance(name, str) and api_type in glance_cr.API_TYPES:
            found[name] = api_type
    return found


def read_glance(opts):
    """(the Glance CR, where it was read), the way discovery reads it."""
    if opts.kubernetes_api:
        try:
            with kube.connect(kube.Settings.from_opts(opts)) as client:
                obj = discovery.read_glance(client, opts)
                return obj, client.describe_object(
                    kube.name_of(obj) or opts.glance_name,
                    kube.GLANCE)
        except kube.KubeError as exc:
            raise discovery.DiscoveryError(str(exc)) from None
    text, source = discovery.command_output(opts)
    try:
        obj = documents.load_json(text or '')
    except documents.DocumentError as exc:
        raise discovery.DiscoveryError('%s: output is not JSON (%s)' % (
            source, exc)) from None
    if not isinstance(obj, dict):
        raise discovery.DiscoveryError('%s: output is not a JSON object'
                                       % source)
    return obj, source


def read(opts, only=None):
    """The Report of the deployment (DiscoveryError if unreadable).

    only: the APIs whose GlanceAPI CRs to read (default: every API of
    the spec).
    """
    if not opts.kubernetes_api:
        glance, source = read_glance(opts)
        return Report(glance, source)
    try:
        with kube.connect(kube.Settings.from_opts(opts)) as client:
            glance = discovery.read_glance(client, opts)
            name = kube.name_of(glance) or opts.glance_name
            report = Report(glance, client.describe_object(
                name, kube.GLANCE), [], 'get through the Kubernetes API '
                'at %s' % client.server)
            for api, api_type in spec_apis(glance).items():
                if only is not None and api not in only:
                    continue
                for cr_name, _child in glance_cr.glanceapi_crs(
                        name, api, api_type):
                    report.api_crs.append(_get_api_cr(client, api,
                                                      cr_name))
    except kube.KubeError as exc:
        raise discovery.DiscoveryError(str(exc)) from None
    return report


def _get_api_cr(client, api, name):
    try:
        return ApiCr(api, name, obj=client.get(kube.GLANCE_API, name))
    except kube.KubeError as exc:
        if not exc.missing:
            raise
        return ApiCr(api, name, missing='no GlanceAPI "%s" in namespace '
                     '"%s"' % (name, client.namespace))


def problems(report):
    """One line per CR, or condition, that is not Ready ([] all Ready)."""
    found = glance_problems(report)
    for lines in api_problems(report).values():
        found += lines
    return found


def glance_problems(report):
    """The Glance CR's lines of problems()."""
    glance_conds = conditions.of(report.glance)
    if conditions.is_ready(glance_conds):
        return []
    return _lines(report.glance_label, glance_conds)


def api_problems(report):
    """{API: its lines of problems()} of every API whose CRs were read."""
    found = {}
    for item in report.api_crs or ():
        lines = found.setdefault(item.api, [])
        label = 'GlanceAPI %s (API %s)' % (item.name, item.api)
        if item.missing:
            lines.append('%s: missing: %s' % (label, item.missing))
        elif not conditions.is_ready(item.conditions):
            lines += _lines(label, item.conditions)
    return found


def _lines(label, conds):
    shown = conditions.not_true(conds)
    if conditions.get(conds, conditions.READY) is None:
        shown.insert(0, {'type': 'Ready', 'status': 'missing',
                         'message': 'the CR reports no Ready condition'})
    return ['%s: %s' % (label, conditions.describe(c)) for c in shown]


def note(opts, apis, one_line=False):
    """What the operator says of apis, to append to a finding, or ''.

    The not-Ready conditions of their GlanceAPI CRs (a missing one named
    as missing) and of the Glance CR, one per line (one_line: after
    '; ', separated by '; '). Best effort: a CR that cannot be read only
    costs the note, logged; nothing here raises.
    """
    apis = sorted({a for a in apis if a})
    if not apis or not (opts.kubernetes_api or opts.discovery_command):
        return ''
    try:
        report = read(opts, only=apis)
        lines = problems(report)
    except Exception as exc:  # noqa: B902 - a note must not fail a check
        LOG.warning('could not read the conditions of %s: %s',
                    ', '.join(apis), exc)
        return ''
    if not lines:
        return ''
    head = 'what the operator says of %s (%s):' % (
        ', '.join(apis), report.describe_sources())
    if one_line:
        return '; %s %s' % (head, '; '.join(lines))
    return '\n%s\n  %s' % (head, '\n  '.join(lines))
