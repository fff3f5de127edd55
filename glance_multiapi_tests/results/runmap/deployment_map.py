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

"""deployment-map.html: the facts of a run as one self-contained page.

Inline CSS and SVG only: no script, no font, no image, nothing fetched,
so the page reads the same offline from a CI artifact store. On top what
went wrong (failed elements with their tests and first message lines, a
run that stopped early), then the diagram (``map_svg``), then the tables
that hold every word the diagram had to cut: the catalog over time, the
figures (with an earlier run's beside them when the map was rebuilt
with ``--baseline``), every element's verdicts, every test, the runs.
"""

from html import escape

from glance_multiapi_tests.results.runmap import map_svg
from glance_multiapi_tests.results.runmap import metrics

CSS = """
body{font-family:sans-serif;margin:16px;color:#1f2328;background:#fff}
h1{font-size:22px;margin:0 0 6px}h2{font-size:17px;margin:22px 0 6px}
table{border-collapse:collapse;font-size:13px;margin:4px 0}
td,th{border:1px solid #d0d7de;padding:3px 6px;text-align:left;
vertical-align:top}th{background:#f6f8fa}
code,.mono{font-family:monospace}td code,li code{word-break:break-all}
table{max-width:100%}
.banner{padding:8px 12px;border-radius:6px;margin:8px 0;font-weight:bold}
.banner.fail{background:#ffebe9;border:2px solid #cf222e;color:#82071e}
.banner li li{font-weight:normal}
.banner.unfinished{background:#fbefff;border:2px solid #8250df;
color:#512a97}
.banner.pass{background:#dafbe1;border:1px solid #1a7f37;color:#116329}
.mark{display:inline-block;min-width:8em;padding:0 4px;border-radius:3px;
font-family:monospace;font-weight:bold;color:#fff;white-space:nowrap}
.mark.pass{background:#1a7f37}.mark.fail{background:#cf222e}
.mark.skip{background:#9a6700}.mark.unfinished{background:#8250df}
.mark.notrun{background:#57606a}.mark.notchecked{background:#8c959f}
tr.fail td{background:#ffebe9}
svg.map{display:block;max-width:100%;height:auto;margin:6px 0}
svg text{font-family:monospace;font-size:12px;fill:#1f2328}
svg text.title{font-weight:bold;font-size:13px}
svg .frame{fill:#fff;stroke:#8c959f;stroke-width:1.5}
svg .box.fail .frame{fill:#ffebe9;stroke:#cf222e;stroke-width:4}
svg .box.unfinished .frame{fill:#fbefff;stroke:#8250df;stroke-width:3}
svg .box.pass .frame{stroke:#1a7f37}
svg .badge rect{fill:#8c959f}svg .badge text{fill:#fff;font-weight:bold;
font-size:11px}
svg .badge.pass rect{fill:#1a7f37}svg .badge.fail rect{fill:#cf222e}
svg .badge.skip rect{fill:#9a6700}svg .badge.unfinished rect{fill:#8250df}
svg .badge.notrun rect{fill:#57606a}
svg text.why{fill:#82071e;font-weight:bold}
svg text.why.unfinished{fill:#512a97}
svg text.figure{fill:#0550ae}svg text.figure.fail{fill:#cf222e;
font-weight:bold}
svg .pick{fill:none;stroke:#0550ae;stroke-width:2.5}
svg .arrowhead{fill:#0550ae}
svg text.picklabel{fill:#0550ae;font-size:11px}
.legend td{border:none;padding:1px 8px 1px 0}
"""

# NOTE: the banner is read first; the tables hold each first line whole.
BANNER_TEXT = 200
LEGEND = (
    ('passed', 'every test of this run that checked it passed'),
    ('failed', 'a test failed on it: the test id and the first line of '
               'its message are next to it'),
    ('skipped', 'the tests that check it were skipped (the reason is '
                'given)'),
    ('unfinished', 'a test started on it and left no result: killed, '
                   'timed out, or still running when this was written'),
    ('not run', 'a test of this run should have checked it, but the run '
                'never reached that test (it stopped early)'),
    ('not checked', 'no test of this run checks it (not selected, or no '
                    'such test)'),
)


def _cut(text, limit=BANNER_TEXT):
    """text cut for the banner (whole in the tables below)."""
    return text if len(text) <= limit else text[:limit - 4] + ' ...'


def _mark(status):
    text, css = map_svg.mark(status)
    return '<span class="mark %s">%s</span>' % (css, escape(text))


def _table(out, headers, rows, row_class=None):
    out.append('<table><tr>%s</tr>' % ''.join(
        '<th>%s</th>' % escape(h) for h in headers))
    for index, row in enumerate(rows):
        css = row_class(index) if row_class else None
        out.append('<tr%s>%s</tr>' % (
            ' class="%s"' % css if css else '',
            ''.join('<td>%s</td>' % cell for cell in row)))
    out.append('</table>')


def _summary(facts, out):
    glance = facts.get('glance') or {}
    counts = facts.get('counts') or {}
    total = sum(counts.values())
    parts = ', '.join('%d %s' % (counts[s], s) for s in sorted(counts))
    out.append('<p>Glance CR <b class="mono">%s/%s</b> &middot; %d run(s) '
               '&middot; %d test result(s): %s</p>' % (
                   escape(glance.get('namespace') or '?'),
                   escape(glance.get('name') or '?'),
                   len(facts['runs']), total, escape(parts or 'none')))
    failed = [e for e in facts['elements'] if e['status'] == 'failed']
    if not facts.get('complete'):
        stopped = [r['label'] for r in facts['runs'] if not r['complete']]
        out.append('<div class="banner unfinished">\u26a0 STOPPED EARLY '
                   '(or still running): run(s) %s left workers without an '
                   'end record; what they did not reach is marked NOT RUN '
                   'or UNFINISHED.</div>' % escape(
                       ', '.join(stopped) or 'none recorded'))
    if failed:
        out.append('<div class="banner fail">\u2718 %d FAILED '
                   'element(s):<ul>' % len(failed))
        for element in failed:
            out.append('<li>%s<ul>' % escape(element['title']))
            for verdict in element['verdicts']:
                if verdict['status'] == 'failed':
                    out.append('<li><code>%s</code>: %s</li>' % (
                        escape(verdict['test']),
                        escape(_cut(verdict['message'] or 'failed'))))
            out.append('</ul></li>')
        out.append('</ul></div>')
    marked = {v['test'] for e in failed for v in e['verdicts']
              if v['status'] == 'failed'}
    unmarked = [t for t in facts['tests'] if t['status'] == 'failed' and
                t['id'] not in marked]
    if unmarked:
        out.append('<div class="banner fail">\u2718 %d FAILED test(s) '
                   'that marked no element (a cleanup, a restore, or a '
                   'check of none of them):<ul>' % len(unmarked))
        for test in unmarked:
            out.append('<li><code>%s</code>: %s</li>' % (
                escape(test['id']), escape(test['first_line'] or
                                           'failed')))
        out.append('</ul></div>')
    if not failed and not unmarked and facts.get('complete') and \
            facts['runs']:
        out.append('<div class="banner pass">\u2714 no element failed'
                   '</div>')
    _regressions(facts, out)
    for problem in facts.get('problems') or []:
        out.append('<p class="mono">record problem: %s</p>' % escape(
            problem))


def _regressions(facts, out):
    """The banner of the figures that regressed against the baseline."""
    compared = facts.get('comparison')
    if not compared:
        return
    rows = [r for r in compared['rows'] if r['status'] == 'regressed']
    if not rows:
        out.append('<div class="banner pass">\u2714 no figure regressed '
                   'against the baseline <code>%s</code></div>' % escape(
                       compared['baseline']))
        return
    out.append('<div class="banner fail">\u2718 %d figure(s) REGRESSED '
               'against the baseline <code>%s</code>:<ul>' % (
                   len(rows), escape(compared['baseline'])))
    for row in rows:
        out.append('<li><code>%s</code></li>' % escape(row['message']))
    out.append('</ul></div>')


def _catalog(facts, out):
    out.append('<h2 id="catalog">Image catalog, as first seen and after '
               'each disruptive change</h2>')
    rows = []
    for snapshot in facts.get('catalog') or []:
        for entry in snapshot['entries'] or [{}]:
            verdict = (snapshot.get('verdicts') or {}).get(
                entry.get('interface')) or {}
            rows.append([
                escape(snapshot['label']), escape(snapshot['time'] or ''),
                escape(entry.get('interface') or ''),
                escape(entry.get('region') or ''),
                '<span class="mono">%s</span>' % escape(
                    entry.get('url') or ''),
                escape(entry.get('owner') or ''),
                ('%s %s' % (_mark(verdict['status']), escape(
                    verdict.get('message') or ''))) if verdict else '',
                '<code>%s</code>' % escape(snapshot['test'] or '')])
    _table(out, ('when', 'at', 'interface', 'region', 'URL', 'API',
                 'verdict', 'recorded by'), rows)


def _against(row):
    """The baseline cells of a figure's row: value, verdict."""
    if row is None:
        return ['', '']
    if row['status'] == 'new':
        return ['-', 'not in the baseline']
    text = 'x%.2f (tolerance x%g)' % (row['ratio'], row['tolerance']) \
        if row['ratio'] is not None else '-'
    baseline = escape(metrics.display(row['figure'], row['baseline']))
    if row['status'] == 'regressed':
        return [baseline, _mark('failed') + ' regressed ' + escape(text)]
    return [baseline, escape(text)]


def _figures(facts, out):
    out.append('<h2 id="figures">Figures (metrics.json, metrics.prom)'
               '</h2>')
    compared = facts.get('comparison')
    if compared:
        out.append('<p>Compared with the baseline <code>%s</code> (the '
                   'figures of an earlier run, same name and labels).</p>'
                   % escape(compared['baseline']))
    rows = []
    for figure in facts.get('figures') or []:
        bound = figure.get('bound') or {}
        extra = _against(figure.get('compared')) if compared else []
        rows.append([
            '<code>%s%s</code>' % (escape(figure['name']), escape(
                metrics.labels_text(figure['labels']))),
            escape(figure['display']),
            escape('%s = %s' % (bound.get('option'), bound.get('value'))
                   if bound.get('value') is not None else 'unset'),
            _mark('failed') + ' over its bound' if figure['exceeded']
            else 'within' if bound.get('value') is not None else '-',
            escape(figure.get('element') or ''),
            '<code>%s</code>' % escape(figure.get('test') or '')] + extra)
    for row in (compared or {}).get('rows', []):
        if row['status'] == 'gone':
            rows.append(['<code>%s</code>' % escape(row['name']),
                         'not measured', '', '', '', ''] + [
                escape(metrics.display(row['figure'], row['baseline'])),
                'only in the baseline'])
    headers = ('figure', 'value', 'bound', '', 'element', 'test')
    if compared:
        headers += ('baseline', 'against the baseline')
    _table(out, headers, rows)


def _elements(facts, out):
    out.append('<h2 id="elements">Every element and the tests that '
               'checked it</h2>')
    rows = []
    for element in facts['elements']:
        verdicts = '<br>'.join(
            '%s <code>%s</code>%s%s' % (
                _mark(v['status']), escape(v['test']),
                ' (%s)' % escape(v['run']) if len(facts['runs']) > 1
                else '', ': ' + escape(v['message']) if v['message']
                else '') for v in element['verdicts']) or 'no test'
        rows.append([escape(element['title']), '<code>%s</code>' % escape(
            element['id']), _mark(element['status']), verdicts])
    _table(out, ('element', 'id', 'verdict', 'tests'), rows,
           lambda i: 'fail' if facts['elements'][i]['status'] == 'failed'
           else None)


def _tests(facts, out):
    out.append('<h2 id="tests">Tests</h2>')
    tests = facts['tests']
    _table(out, ('run', 'test', 'verdict', 'message (first line)'), [
        [escape(t['run'] or ''), '<code>%s</code>' % escape(t['id']),
         _mark(t['status']), escape(t['first_line'])] for t in tests],
        lambda i: 'fail' if tests[i]['status'] == 'failed' else None)
    if facts.get('not_selected'):
        out.append('<p>Not selected by any run: %s</p>' % ', '.join(
            '<code>%s</code>' % escape(t) for t in facts['not_selected']))


def _runs(facts, out):
    out.append('<h2 id="runs">Runs</h2>')
    _table(out, ('run', 'started', 'last record', 'workers', 'ended',
                 'state'), [
        [escape(r['label'] or ''), escape(r['started'] or ''),
         escape(r['last_record'] or ''), str(r['workers']),
         str(r['workers_ended']),
         'complete' if r['complete'] else '\u26a0 stopped early or still '
         'running'] for r in facts['runs']])


def render(facts):
    """The whole page (a str)."""
    out = ['<!DOCTYPE html>', '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width">',
           '<title>glance-multiapi-tests: deployment map</title>',
           '<style>%s</style></head><body>' % CSS,
           '<h1>Deployment map</h1>']
    _summary(facts, out)
    out.append('<table class="legend">%s</table>' % ''.join(
        '<tr><td>%s</td><td>%s</td></tr>' % (_mark(s), escape(t))
        for s, t in LEGEND))
    out.append(map_svg.render(facts))
    _catalog(facts, out)
    _figures(facts, out)
    _elements(facts, out)
    _tests(facts, out)
    _runs(facts, out)
    out.append('<p>Written %s from the records the tests wrote while they '
               'ran (glance-multiapi-records/); nothing was asked of the '
               'deployment afterwards.</p></body></html>' % escape(
                   facts.get('generated') or ''))
    return '\n'.join(out) + '\n'
