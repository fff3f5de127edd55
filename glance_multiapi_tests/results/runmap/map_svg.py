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

"""The diagram of the deployment map: facts -> one inline SVG.

The Glance CR on top; the keystone catalog's image entries on the left,
an arrow to the API keystoneEndpoint picks; every API on the right (type,
replicas, default store and its kind, public and internal URLs); the
other checked services below. Every line that is an element carries its
mark (a badge with a symbol and a word, not colour alone) and, when
failed, the test and the first line of its message; figures sit under
the element they belong to. Text is monospace so its width is known;
what does not fit is cut with an ellipsis and is whole in the tables
below the diagram and in the line's tooltip.
"""

from html import escape
import textwrap

from glance_multiapi_tests.results.runmap import metrics

CHAR = 7.3          # px per character of 12px monospace
LINE = 18
PAD = 10
WIDTH = 1240
LEFT_W = 520
RIGHT_X = 640
RIGHT_W = WIDTH - RIGHT_X - PAD
MARKS = {
    'passed': ('\u2714 PASSED', 'pass'),
    'failed': ('\u2718 FAILED', 'fail'),
    'skipped': ('\u2013 SKIPPED', 'skip'),
    'unfinished': ('\u26a0 UNFINISHED', 'unfinished'),
    'not run': ('\u25cb NOT RUN', 'notrun'),
    'not checked': ('\u00b7 NOT CHECKED', 'notchecked'),
}
BADGE_W = 112
# NOTE: a failed line's test and message, under it, wrapped.
WHY_INDENT = 24
WHY_LINES = 3
WORST = ('failed', 'unfinished', 'passed', 'skipped', 'not run',
         'not checked')


def mark(status):
    """(text, css class) of a status's mark."""
    return MARKS.get(status, (status.upper(), 'notchecked'))


def fit(text, width):
    """text cut to width pixels of monospace, with an ellipsis."""
    room = max(int(width / CHAR), 4)
    text = str(text)
    return text if len(text) <= room else text[:room - 1] + '\u2026'


def short_test(test_id):
    """'Class.test_name' of a full test id, for a diagram line."""
    bare = (test_id or '').split('[', 1)[0]
    return '.'.join(bare.split('.')[-2:])


class _Box(object):
    """Lines of one box; rendered once its height is known."""

    def __init__(self, x, y, w, title, status=None):
        self.x, self.y, self.w = x, y, w
        self.title = title
        self.status = status
        self.lines = []     # (kind, text, status, tooltip)
        self.statuses = [status] if status else []

    def element(self, text, element, tooltip=None):
        status = element['status'] if element else 'not checked'
        self.statuses.append(status)
        self.lines.append(('element', text, status, tooltip or text))
        self._implied = _implied_labels((element or {}).get('id', ''))
        if element and status in ('failed', 'unfinished'):
            room = int((self.w - 2 * PAD - WHY_INDENT) / CHAR)
            for verdict in element['verdicts']:
                if verdict['status'] != status:
                    continue
                why = '%s: %s' % (short_test(verdict['test']),
                                  verdict['message'] or status)
                tooltip = '%s: %s' % (verdict['test'], verdict['message'])
                wrapped = textwrap.wrap(why, room) or [why]
                if len(wrapped) > WHY_LINES:
                    wrapped = wrapped[:WHY_LINES]
                    wrapped[-1] = fit(wrapped[-1] + ' ...', room * CHAR)
                for part in wrapped:
                    self.lines.append(('why', part, status, tooltip))
        for figure in (element or {}).get('figures', []):
            self.figure(figure)

    def figure(self, figure):
        labels = dict(figure['labels'])
        for name in getattr(self, '_implied', ()):
            labels.pop(name, None)
        moved = ''
        if 'from_api' in labels and 'to_api' in labels:
            moved = '%s->%s' % (labels.pop('from_api'), labels.pop('to_api'))
        shown = ', '.join([moved] * bool(moved) + [
            '%s=%s' % item for item in sorted(labels.items())])
        compared = figure.get('compared') or {}
        regressed = compared.get('status') == 'regressed'
        text = '%s %s%s%s' % (
            figure.get('figure') or figure['name'], figure['display'],
            ' (%s)' % shown if shown else '',
            ' OVER BOUND' if figure.get('exceeded') else '')
        self.lines.append(('figure', text, 'failed' if figure.get(
            'exceeded') or regressed else None, '%s%s = %s' % (
                figure['name'], metrics.labels_text(figure['labels']),
                figure['value'])))
        if regressed:
            # NOTE: a line of its own: a narrow box cuts the figure's.
            self.lines.append(('why', 'REGRESSED %s against the baseline '
                               '%s' % ('x%.2f' % compared['ratio'] if
                                       compared['ratio'] is not None
                                       else '', metrics.display(
                                           compared['figure'],
                                           compared['baseline'])),
                               'failed', compared['message']))

    def text(self, text):
        self.lines.append(('text', text, None, text))

    @property
    def height(self):
        return LINE * (len(self.lines) + 1) + PAD

    def worst(self):
        return next((s for s in WORST if s in self.statuses), 'not checked')

    def render(self, out):
        worst = self.worst()
        out.append('<g class="box %s">' % mark(worst)[1])
        out.append('<rect x="%d" y="%d" width="%d" height="%d" rx="6" '
                   'class="frame"/>' % (self.x, self.y, self.w,
                                        self.height))
        y = self.y + LINE
        out.append('<text x="%d" y="%d" class="title">%s</text>' % (
            self.x + PAD, y, escape(fit(self.title, self.w - 2 * PAD -
                                        BADGE_W - 8))))
        if self.status:
            _badge(out, self.x + self.w - PAD - BADGE_W, y, self.status)
        for kind, text, status, tooltip in self.lines:
            y += LINE
            if kind == 'element':
                _badge(out, self.x + PAD, y, status)
                out.append('<text x="%d" y="%d" class="line"><title>%s'
                           '</title>%s</text>' % (
                               self.x + PAD + BADGE_W + 6, y,
                               escape(tooltip), escape(fit(
                                   text, self.w - 3 * PAD - BADGE_W))))
            elif kind == 'why':
                out.append('<text x="%d" y="%d" class="why %s"><title>%s'
                           '</title>%s</text>' % (
                               self.x + PAD + WHY_INDENT, y,
                               mark(status)[1], escape(tooltip),
                               escape(text)))
            else:
                css = 'line'
                if kind == 'figure':
                    css = 'figure fail' if status == 'failed' else 'figure'
                out.append('<text x="%d" y="%d" class="%s"><title>%s'
                           '</title>%s</text>' % (
                               self.x + PAD + BADGE_W + 6, y, css,
                               escape(tooltip), escape(fit(
                                   text, self.w - 3 * PAD - BADGE_W))))
        out.append('</g>')


def _implied_labels(element_id):
    """Labels a figure needs not repeat under this element's line."""
    kind = element_id.split(':', 1)[0]
    return {'catalog': ('interface',), 'store': ('api', 'store'),
            'api': ('api',)}.get(kind, ())


def _badge(out, x, y, status):
    text, css = mark(status)
    out.append('<g class="badge %s"><rect x="%d" y="%d" width="%d" '
               'height="15" rx="3"/><text x="%d" y="%d">%s</text></g>' % (
                   css, x, y - 12, BADGE_W, x + 5, y, escape(text)))


def _glance_box(facts, elements):
    glance = facts.get('glance') or {}
    where = '%s/%s' % (glance.get('namespace') or '?',
                       glance.get('name') or '?')
    box = _Box(PAD, PAD, WIDTH - 2 * PAD, 'Glance CR %s' % where)
    box.element('Glance CR %s, read from %s' % (
        where, glance.get('read_from') or 'unknown (never read)'),
        elements.get('glance'))
    box.element('keystoneEndpoint: %s (the API in the keystone catalog)'
                % (glance.get('keystone_endpoint') or '?'),
                elements.get('keystone_endpoint'))
    return box


def _catalog_box(facts, elements, y):
    box = _Box(PAD, y, LEFT_W, 'keystone catalog: image service')
    box.element('exactly one image service', elements.get('catalog'))
    snapshots = facts.get('catalog') or []
    if not snapshots:
        box.text('the catalog was never read')
        return box
    for entry in snapshots[0]['entries']:
        element = elements.get('catalog:%s' % entry.get('interface'))
        owner = entry.get('owner') or 'no known API'
        box.element('%s %s %s (%s)' % (
            entry.get('interface'), entry.get('region') or '-',
            entry.get('url'), owner), element)
    if len(snapshots) > 1:
        box.text('%d later catalog snapshot(s): see the table below' % (
            len(snapshots) - 1))
    return box


def _api_box(api, facts, elements, y):
    name = api['name']
    keystone = (facts.get('glance') or {}).get('keystone_endpoint')
    replicas = api.get('replicas')
    title = 'API %s  type %s  replicas %s%s' % (
        name, api.get('type') or '?', '?' if replicas is None else replicas,
        '  \u2190 keystoneEndpoint' if name == keystone else '')
    box = _Box(RIGHT_X, y, RIGHT_W, title)
    if api.get('added_by'):
        box.text('added and removed by %s' % api['added_by'])
    element = elements.get('api:%s' % name)
    # NOTE: the API as a whole is judged only by the scenarios that add or
    # switch to it; its URLs and store are judged line by line below.
    if element and element['status'] != 'not checked':
        box.element('API %s (%s)' % (name, api.get('type') or '?'),
                    element)
    kind = api.get('store_type') or 'kind unknown'
    store = 'default store %s (%s); stores %s' % (
        api.get('default_store') or 'unknown', kind,
        ', '.join(api.get('stores') or []) or 'unknown')
    if api.get('added_by'):
        box.text(store)
    else:
        box.element(store, elements.get('store:%s' % name))
    for interface, url in sorted((api.get('endpoints') or {}).items()):
        if api.get('added_by'):
            box.text('%-8s %s' % (interface, url))
            continue
        box.element('%-8s %s' % (interface, url),
                    elements.get('endpoint:%s:%s' % (name, interface)))
    return box


def _other_boxes(elements, y):
    boxes = []
    groups = (('heat (consolidated images)', ('heat:heat-api',
                                              'heat:heat-api-cfn',
                                              'heat:heat-engine',
                                              'consolidated_images')),
              ('image uploader', ('uploader',)))
    x = PAD
    width = (WIDTH - 3 * PAD) // 2
    for title, ids in groups:
        box = _Box(x, y, width, title)
        for element_id in ids:
            element = elements.get(element_id)
            box.element(element['title'] if element else element_id,
                        element)
        boxes.append(box)
        x += width + PAD
    return boxes


def render(facts):
    """The SVG element (a str) of the facts' deployment."""
    elements = {e['id']: e for e in facts['elements']}
    glance = _glance_box(facts, elements)
    top = glance.y + glance.height + 3 * PAD
    catalog = _catalog_box(facts, elements, top)
    apis, y = [], top
    for api in facts.get('apis') or []:
        box = _api_box(api, facts, elements, y)
        apis.append(box)
        y += box.height + PAD
    bottom = max(y, catalog.y + catalog.height + PAD) + 2 * PAD
    others = _other_boxes(elements, bottom)
    height = max(b.y + b.height for b in others) + PAD
    out = ['<svg xmlns="http://www.w3.org/2000/svg" class="map" '
           'width="%d" height="%d" viewBox="0 0 %d %d" role="img" '
           'aria-label="deployment map">' % (WIDTH, height, WIDTH, height),
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" '
           'refY="5" markerWidth="8" markerHeight="8" orient="auto">'
           '<path d="M0,0 L10,5 L0,10 z" class="arrowhead"/></marker>'
           '</defs>']
    keystone = (facts.get('glance') or {}).get('keystone_endpoint')
    for api, box in zip(facts.get('apis') or [], apis):
        if api['name'] == keystone:
            y1 = catalog.y + LINE
            y2 = box.y + LINE
            out.append('<path d="M%d,%d C%d,%d %d,%d %d,%d" class="pick" '
                       'marker-end="url(#arrow)"/>' % (
                           catalog.x + catalog.w, y1,
                           catalog.x + catalog.w + 30, y1, box.x - 30, y2,
                           box.x - 2, y2))
            out.append('<text x="%d" y="%d" class="picklabel">'
                       'keystoneEndpoint</text>' % (
                           catalog.x + catalog.w + 4, min(y1, y2) - 6))
    for box in [glance, catalog] + apis + others:
        box.render(out)
    out.append('</svg>')
    return '\n'.join(out)
