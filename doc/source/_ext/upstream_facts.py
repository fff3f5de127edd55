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

"""The upstream commits and facts, from the module that lists them.

``.. upstream-commits::`` renders the commits of
``selftests/manifests/upstream.py`` (COMMITS), with
the date of each given in the directive's content, one ``NAME DATE``
a line; a repository the module names without a date here, or a date
for one it does not name, is a warning (and so, with -W, a failed
build). ``.. upstream-facts::`` renders every fact (FACTS): the
repository, the file, the text it holds and the rule built on it. Both
read the module tools/check_upstream.py reads, so the page cannot name
other facts than the ones checked.

The tables are built as docutils nodes, not as reStructuredText: the
facts are source text (backquotes, quotes) that no markup should touch.
"""

import importlib

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.util import logging

LOG = logging.getLogger(__name__)
MODULE = 'selftests.manifests.upstream'


def _cell(*children):
    entry = nodes.entry()
    entry += nodes.paragraph('', '', *children)
    return entry


def table(header, rows, widths):
    """A docutils table: header (texts), rows (lists of node lists)."""
    group = nodes.tgroup(cols=len(header))
    for width in widths:
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    row = nodes.row()
    for text in header:
        row += _cell(nodes.Text(text))
    head += row
    group += head
    body = nodes.tbody()
    for cells in rows:
        row = nodes.row()
        for children in cells:
            row += _cell(*children)
        body += row
    group += body
    result = nodes.table()
    result += group
    return result


def _literal(text):
    return nodes.literal(text, text)


def _upstream():
    return importlib.import_module(MODULE)


class UpstreamCommits(Directive):
    """The commit of each upstream repository, its date, its facts."""

    has_content = True

    def run(self):
        upstream = _upstream()
        dates = {}
        for line in self.content:
            if line.strip():
                name, _sep, date = line.strip().partition(' ')
                dates[name] = date.strip()
        where = self.state.document.settings.env.docname, self.lineno
        for name in sorted(set(upstream.COMMITS) - set(dates)):
            LOG.warning('upstream-commits: no date for %s, which %s names',
                        name, MODULE, location=where)
        for name in sorted(set(dates) - set(upstream.COMMITS)):
            LOG.warning('upstream-commits: %s is not a repository %s '
                        'names', name, MODULE, location=where)
        rows = []
        for name, commit in upstream.COMMITS.items():
            count = sum(1 for fact in upstream.FACTS if fact.repo == name)
            rows.append([[nodes.Text(name)], [_literal(commit)],
                         [nodes.Text(dates.get(name, '?'))],
                         [nodes.Text(str(count))]])
        return [table(('repository', 'commit read', 'date', 'facts'),
                      rows, (22, 44, 12, 8))]


class UpstreamFacts(Directive):
    """Every upstream fact: repository, file, text, the rule on it."""

    def run(self):
        rows = [[[nodes.Text(fact.repo)], [_literal(fact.path)],
                 [_literal(fact.text)], [nodes.Text(fact.rule)]]
                for fact in _upstream().FACTS]
        return [table(('repository', 'file', 'text it holds',
                       'the rule built on it'), rows, (16, 30, 30, 30))]


def setup(app):
    app.add_directive('upstream-commits', UpstreamCommits)
    app.add_directive('upstream-facts', UpstreamFacts)
    return {'parallel_read_safe': True, 'parallel_write_safe': True}
