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

"""JUnit XML and a self-contained HTML page from a run's test results.

Both read subunit_results.Test records; extra problems (a required group
that did not run, a stream that is missing) become failed entries of
their own, so a dashboard that reads only JUnit still shows them.
"""

import collections
import html
import re
from xml.etree import ElementTree

# NOTE: tempest attaches each test's whole log; a report that keeps every
# byte of it becomes too big to open, the end holds the failure.
MAX_DETAIL_CHARS = 20000
# Characters XML 1.0 cannot carry at all (log lines may hold them).
_NOT_XML = re.compile('[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]')


def _clip(text):
    if len(text) <= MAX_DETAIL_CHARS:
        return text
    return '[... %d characters cut ...]\n%s' % (
        len(text) - MAX_DETAIL_CHARS, text[-MAX_DETAIL_CHARS:])


def _xml_text(text):
    return _NOT_XML.sub('?', text)


def split_id(test_id):
    """(classname, name) of a test id, tags and setUpClass forms included.

    "pkg.mod.Class.test_x[id-1,smoke]" -> ("pkg.mod.Class", "test_x[...]");
    "setUpClass (pkg.mod.Class)" -> ("pkg.mod.Class", "setUpClass").
    """
    fixture = re.match(r'^(\w+) \((.+)\)$', test_id)
    if fixture:
        return fixture.group(2), fixture.group(1)
    base, bracket, tags = test_id.partition('[')
    classname, _dot, name = base.rpartition('.')
    return classname, name + bracket + tags


def failure_text(test):
    """The details of a failed test, traceback first, clipped."""
    order = sorted(test.details, key=lambda k: (k != 'traceback', k))
    return _clip('\n\n'.join('%s:\n%s' % (k, test.details[k].rstrip())
                             for k in order if test.details[k].strip()))


def counts(tests, problems=()):
    found = collections.Counter(t.outcome for t in tests)
    return {'tests': len(tests) + len(problems),
            'pass': found['pass'],
            'fail': found['fail'] + len(problems),
            'error': found['error'],
            'skip': found['skip']}


def junit_xml(name, tests, problems=()):
    """The JUnit XML document (text) of one stream.

    problems: lines, each reported as a failed test named by the line's
    text before its first colon.
    """
    totals = counts(tests, problems)
    suite = ElementTree.Element('testsuite', {
        'name': name, 'tests': str(totals['tests']),
        'failures': str(totals['fail']), 'errors': str(totals['error']),
        'skipped': str(totals['skip']),
        'time': '%.3f' % sum(t.duration for t in tests)})
    for test in tests:
        classname, short = split_id(test.id)
        case = ElementTree.SubElement(suite, 'testcase', {
            'classname': classname, 'name': short,
            'time': '%.3f' % test.duration})
        if test.outcome == 'skip':
            ElementTree.SubElement(case, 'skipped', {
                'message': _xml_text(test.reason)})
        elif test.outcome in ('fail', 'error'):
            tag = 'failure' if test.outcome == 'fail' else 'error'
            text = failure_text(test) or 'the test did not finish'
            node = ElementTree.SubElement(case, tag, {
                'message': _xml_text(text.strip().splitlines()[-1][:500])})
            node.text = _xml_text(text)
    for line in problems:
        case = ElementTree.SubElement(suite, 'testcase', {
            'classname': name, 'name': line.partition(':')[0],
            'time': '0'})
        node = ElementTree.SubElement(case, 'failure', {
            'message': _xml_text(line)})
        node.text = _xml_text(line)
    root = ElementTree.Element('testsuites')
    root.append(suite)
    return ('<?xml version="1.0" encoding="utf-8"?>\n' +
            ElementTree.tostring(root, encoding='unicode') + '\n')


_STYLE = """
body { font-family: sans-serif; margin: 1.5em; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.5em; }
.pass { color: #17692a; } .fail, .error { color: #b00020; }
.skip { color: #8a6d00; }
table { border-collapse: collapse; }
td, th { border: 1px solid #ccc; padding: 2px 6px; text-align: left;
         vertical-align: top; font-size: 0.9em; }
pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto;
      white-space: pre-wrap; font-size: 0.85em; }
details { margin: 0.3em 0; }
"""


def _e(text):
    return html.escape(text, quote=True)


def html_page(name, tests, problems=()):
    """A self-contained HTML page: problems, failures, skips, then all."""
    totals = counts(tests, problems)
    out = ['<!DOCTYPE html>', '<html><head><meta charset="utf-8">',
           '<title>%s: test results</title>' % _e(name),
           '<style>%s</style></head><body>' % _STYLE,
           '<h1>%s</h1>' % _e(name),
           '<p><b class="pass">%d passed</b>, <b class="fail">%d failed</b>'
           ', <b class="skip">%d skipped</b> (%d results, %.1f s of test '
           'time)</p>' % (totals['pass'], totals['fail'] + totals['error'],
                          totals['skip'], totals['tests'],
                          sum(t.duration for t in tests))]
    if problems:
        out.append('<h2 class="fail">Problems</h2><ul>')
        out += ['<li class="fail">%s</li>' % _e(p) for p in problems]
        out.append('</ul>')
    failed = [t for t in tests if t.outcome in ('fail', 'error')]
    if failed:
        out.append('<h2 class="fail">Failures (%d)</h2>' % len(failed))
        for test in failed:
            out.append('<details open><summary class="fail">%s</summary>'
                       '<pre>%s</pre></details>' % (
                           _e(test.id),
                           _e(failure_text(test) or
                              'the test did not finish')))
    skipped = collections.defaultdict(list)
    for test in tests:
        if test.outcome == 'skip':
            skipped[test.reason or 'no reason given'].append(test.id)
    if skipped:
        out.append('<h2 class="skip">Skip reasons (%d skipped)</h2>'
                   '<table><tr><th>reason</th><th>tests</th></tr>' %
                   totals['skip'])
        for reason, ids in sorted(skipped.items()):
            out.append('<tr><td>%s</td><td>%s</td></tr>' % (
                _e(reason), '<br>'.join(_e(i) for i in ids)))
        out.append('</table>')
    out.append('<h2>All results</h2><table><tr><th>test</th>'
               '<th>result</th><th>seconds</th></tr>')
    for test in tests:
        out.append('<tr><td>%s</td><td class="%s">%s</td><td>%.2f</td>'
                   '</tr>' % (_e(test.id), test.outcome, test.outcome,
                              test.duration))
    out.append('</table></body></html>')
    return '\n'.join(out) + '\n'
