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

"""Text and JSON renderings of a check.Report, without I/O.

NOTE: a source is named by where it was read: a get command's line (it
may carry --token), the Kubernetes API's URL; both renderings go through
the kernel redaction.
"""

import dataclasses
import json

from glance_multiapi_kernel import redaction

COLUMNS = (('target', 'TARGET'), ('field', 'FIELD'), ('source', 'SOURCE'),
           ('reference', 'REFERENCE'), ('digest', 'DIGEST'),
           ('verdict', 'VERDICT'))


def table(rows):
    """Return the rows as an aligned text table, one line per row."""
    header = [title for _, title in COLUMNS]
    lines = [[str(getattr(row, key)) for key, _ in COLUMNS] for row in rows]
    widths = [max(len(cell) for cell in column)
              for column in zip(header, *lines)]
    out = []
    for cells in [header] + lines:
        out.append('  '.join(cell.ljust(width) for cell, width
                             in zip(cells, widths)).rstrip())
    return '\n'.join(out)


def summary(report):
    """Return the verdict line: consistent, or how many disagreements."""
    if report.consistent:
        return 'CONSISTENT: %d field reference(s) of %s agree' % (
            len(report.rows), report.mapping)
    return 'INCONSISTENT: %d disagreement(s) in %s' % (
        len(report.findings), report.mapping)


def as_text(report):
    """Return the table, the findings, the notes and the verdict line."""
    parts = [table(report.rows)]
    if report.findings:
        parts.append('\n'.join('%s: %s' % (finding.kind, finding.message)
                               for finding in report.findings))
    if report.notes:
        parts.append('\n'.join('note: %s' % note for note in report.notes))
    parts.append(summary(report))
    return redaction.text('\n\n'.join(parts)) + '\n'


def as_json(report):
    """Return the report as a JSON document."""
    document = {
        'consistent': report.consistent,
        'mapping': report.mapping,
        'rows': [dataclasses.asdict(row) for row in report.rows],
        'findings': [dataclasses.asdict(finding)
                     for finding in report.findings],
        'notes': list(report.notes),
    }
    return json.dumps(redaction.value(document), indent=2,
                      sort_keys=True) + '\n'
