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

"""Figures: their stable names, units, labels and bounds; json and prom.

Every figure a scenario measures has one entry in FIGURES: the metric
name (prefix ``glance_multiapi_``, unit suffix in base units as
Prometheus prefers: seconds, bytes per second), its help, its labels,
the map element it belongs to and its optional bound option. Upload
rates are bytes per second in the metrics and MiB/s on the map and in
the bound option (``min_upload_mib_per_second``), which people set.

``metrics.prom`` is the Prometheus text format 0.0.4 a node-exporter
textfile collector reads: one HELP and TYPE per family, gauges only, no
timestamps (the collector refuses them), one sample per label set (the
last one recorded wins).

A figure is read from the records and from a baseline: its name, its
labels' names and its value are held to their grammar there
(``problem``), so that nothing a record says can add a line to
metrics.prom: a metric name and a label name as OpenMetrics' ABNF has
them (specification/OpenMetrics.md: ``metricname``, ``label-name``),
without what it reserves (colons in a family name, a label name
starting with "_"); a value finite and not negative (a duration, a
rate; values.figure_problem).
"""

import collections
import json
import re

from glance_multiapi_kernel import documents
from glance_multiapi_kernel import values

PREFIX = 'glance_multiapi_'
MIB = 1024 * 1024
# NOTE: OpenMetrics' metricname is [a-zA-Z_:][a-zA-Z0-9_:]*, colons
# reserved; the figure is the part after PREFIX.
FIGURE_NAME_RE = re.compile(r'[a-zA-Z0-9_]+')
# NOTE: OpenMetrics' label-name is [a-zA-Z_][a-zA-Z0-9_]*, "_" first
# reserved.
LABEL_NAME_RE = re.compile(r'[a-zA-Z][a-zA-Z0-9_]*')

Figure = collections.namedtuple(
    'Figure', 'metric unit help labels element bound tolerance noise')
# bound: (option group, option, 'max' or 'min', scale) where scale turns
# the option's unit into the figure's.
# tolerance: how many times worse than a baseline's the figure may be
# before glance-multiapi-report --baseline calls it regressed (a
# duration longer, a rate lower); noise: a change smaller than this, in
# the figure's unit, never is (comparison.py). NOTE: the defaults are
# wide on purpose: the figures of one cloud vary from run to run with
# the load of the machine (the main job's two passes share two cores).
FIGURES = {
    'switchover_convergence_seconds': Figure(
        PREFIX + 'switchover_convergence_seconds', 'seconds',
        'Seconds from the keystoneEndpoint patch until the catalog entry '
        'of the interface showed the target API\'s URL (as the re-read '
        'Glance CR gives it); polled, so within one poll interval.',
        ('from_api', 'to_api', 'interface'), 'catalog:{interface}',
        ('glance_multiapi', 'max_switchover_seconds', 'max', 1), 2.0, 1.0),
    'grow_answer_seconds': Figure(
        PREFIX + 'grow_answer_seconds', 'seconds',
        'Seconds from the patch adding an API until every endpoint of it '
        'answered with a v2 version document.',
        ('api',), 'api:{api}',
        ('glance_multiapi', 'max_grow_seconds', 'max', 1), 2.0, 2.0),
    'shrink_gone_seconds': Figure(
        PREFIX + 'shrink_gone_seconds', 'seconds',
        'Seconds from the patch removing an API until it had left the '
        'Glance CR (spec and status) and none of its endpoints answered.',
        ('api',), 'api:{api}',
        ('glance_multiapi', 'max_shrink_seconds', 'max', 1), 2.0, 2.0),
    'upload_bytes_per_second': Figure(
        PREFIX + 'upload_bytes_per_second', 'bytes per second',
        'Bytes per second of one image upload (PUT /v2/images/ID/file, '
        '[glance_multiapi] image_size bytes) through the API\'s own URL.',
        ('api', 'store', 'interface'), 'store:{api}',
        ('glance_multiapi', 'min_upload_mib_per_second', 'min', MIB),
        3.0, 1 * MIB),
    'heat_engine_restart_seconds': Figure(
        PREFIX + 'heat_engine_restart_seconds', 'seconds',
        'Seconds the heat-engine restart took while a stack was being '
        'created: from the deletion of its pods until the Deployment had '
        'rolled out again (or restart_command\'s run).',
        ('service',), 'heat:heat-engine',
        ('consolidated_heat', 'max_restart_seconds', 'max', 1), 2.0, 5.0),
    'uploader_saving_wait_seconds': Figure(
        PREFIX + 'uploader_saving_wait_seconds', 'seconds',
        'Seconds an uploader run took while another upload of the same '
        'image was saving (held [image_uploader] saving_hold seconds, '
        'then finished or aborted) until it exited.',
        ('source', 'outcome'), 'uploader',
        ('image_uploader', 'max_saving_wait_seconds', 'max', 1), 1.5, 2.0),
}


def name_problem(key):
    """Why key cannot name a figure (a metric PREFIX + key), or None."""
    if not isinstance(key, str) or not FIGURE_NAME_RE.fullmatch(key):
        return 'figure %s is no metric name (letters, digits and "_")' % (
            documents.short(repr(key)))
    return None


def labels_problem(labels):
    """Why labels cannot label a figure, or None.

    Names as OpenMetrics' label-name; values any text (escaped when
    written).
    """
    if labels is None:
        return None
    if not isinstance(labels, dict):
        return 'labels %s are no object' % documents.short(repr(labels))
    for name in labels:
        if not isinstance(name, str) or not LABEL_NAME_RE.fullmatch(name):
            return 'label %s is no label name (a letter, then letters, ' \
                'digits and "_")' % documents.short(repr(name))
    return None


def problem(key, labels, value):
    """Why a figure (its key, labels and value) cannot be used, or None."""
    found = name_problem(key) or labels_problem(labels)
    if found:
        return found
    found = values.figure_problem(value)
    return 'figure %s: %s' % (key, found) if found else None


def labels_text(labels):
    """'{a="1",b="2"}' in the exposition format's escaping."""
    def escape(value):
        return str(value).replace('\\', '\\\\').replace(
            '"', '\\"').replace('\n', '\\n')
    if not labels:
        return ''
    return '{%s}' % ','.join('%s="%s"' % (k, escape(v))
                             for k, v in sorted(labels.items()))


def display(key, value):
    """A value in the unit people read: '1.83 s', '95.2 MiB/s'."""
    if value is None:
        return '-'
    figure = FIGURES.get(key)
    if figure is not None and figure.unit == 'bytes per second':
        return '%.1f MiB/s' % (value / MIB)
    return '%.2f s' % value


def _bound_display(key, bound_value):
    figure = FIGURES[key]
    if figure.unit == 'bytes per second':
        return '%g MiB/s' % bound_value
    return '%g s' % bound_value


def option_name(key):
    """'[group] option' of a figure's bound, or None."""
    figure = FIGURES.get(key)
    if figure is None or figure.bound is None:
        return None
    return '[%s] %s' % (figure.bound[0], figure.bound[1])


def element_of(key, labels):
    """The map element a figure belongs to, from its labels."""
    figure = FIGURES.get(key)
    if figure is None:
        return None
    try:
        return figure.element.format(**labels)
    except (KeyError, IndexError):
        return None


def bound_problem(key, value, labels, bound_value):
    """The failure message when value is past its bound, else None.

    bound_value is in the option's unit (MiB/s for upload rates); None
    (unset) never fails.
    """
    figure = FIGURES[key]
    if bound_value is None or value is None or figure.bound is None:
        return None
    _group, _option, kind, scale = figure.bound
    limit = bound_value * scale
    if kind == 'max' and value <= limit:
        return None
    if kind == 'min' and value >= limit:
        return None
    return 'figure %s%s is %s, %s its bound %s (%s)' % (
        figure.metric, labels_text(labels), display(key, value),
        'over' if kind == 'max' else 'under',
        _bound_display(key, bound_value), option_name(key))


def collect(records):
    """The figures of the records, one per metric and label set (last)."""
    found = collections.OrderedDict()
    for record in records:
        if record.get('kind') != 'figure':
            continue
        key = record.get('figure')
        figure = FIGURES.get(key)
        if problem(key, record.get('labels'), record.get('value')):
            # NOTE: records.read names it; never a line of metrics.prom.
            continue
        labels = {k: str(v) for k, v in (record.get('labels') or {}).items()}
        value = float(record.get('value'))
        metric = figure.metric if figure else PREFIX + str(key)
        item = {'figure': key, 'name': metric,
                'unit': figure.unit if figure else None,
                'labels': labels, 'value': value,
                'display': display(key, value),
                'test': record.get('test'), 'run': record.get('run_label'),
                'element': record.get('element') or element_of(key, labels),
                'bound': record.get('bound'),
                'exceeded': bool(record.get('exceeded'))}
        identity = (metric, tuple(sorted(labels.items())))
        found.pop(identity, None)
        found[identity] = item
    return list(found.values())


def to_json(facts):
    """metrics.json: the figures with units, labels, bounds and tests."""
    figures = []
    for item in facts['figures']:
        figure = FIGURES.get(item['figure'])
        item = {k: v for k, v in item.items() if k != 'compared'}
        figures.append(dict(item, help=figure.help if figure else ''))
    return json.dumps({
        'schema': 1, 'generated': facts.get('generated'),
        'complete': facts.get('complete'), 'figures': figures,
        'tests': facts.get('counts') or {}}, indent=2, sort_keys=True) + '\n'


def _family(lines, name, help_text, samples):
    lines.append('# HELP %s %s' % (name, help_text.replace(
        '\\', '\\\\').replace('\n', '\\n')))
    lines.append('# TYPE %s gauge' % name)
    for labels, value in samples:
        lines.append('%s%s %s' % (name, labels_text(labels),
                                  repr(float(value))))


def to_prom(facts):
    """metrics.prom: the figures and the run's counts as gauges."""
    families = collections.OrderedDict()
    for item in facts['figures']:
        families.setdefault(item['name'], (item['figure'], []))[1].append(
            (item['labels'], item['value']))
    lines = []
    for name, (key, samples) in families.items():
        figure = FIGURES.get(key)
        _family(lines, name, figure.help if figure else name, samples)
    statuses = ('passed', 'failed', 'skipped', 'unfinished', 'not run')
    counts = facts.get('counts') or {}
    _family(lines, PREFIX + 'tests', 'Tests of this run by verdict.',
            [({'status': s.replace(' ', '_')}, counts.get(s, 0))
             for s in statuses])
    by_status = collections.Counter(e['status'] for e in facts['elements'])
    _family(lines, PREFIX + 'elements',
            'Map elements (APIs, URLs, catalog entries, stores, services) '
            'by verdict.',
            [({'status': s.replace(' ', '_')}, by_status.get(s, 0))
             for s in statuses + ('not checked',)])
    _family(lines, PREFIX + 'run_complete',
            '1 when every worker of every run ended, 0 when one stopped '
            'early (or was still running when this was written).',
            [({}, 1 if facts.get('complete') else 0)])
    return '\n'.join(lines) + '\n'
