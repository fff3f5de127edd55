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

"""Reading the records of a results folder back, whatever state it is in.

A worker killed mid-write leaves an unfinished last line: it is left out
without a complaint. Any other line that is not a JSON object, and any
file that cannot be read (not a regular file, larger than
input_files.RECORDS_LIMIT), is left out and named in the problems, so a
map built from a damaged folder says so instead of failing.
"""

import os

from glance_multiapi_kernel import documents
from glance_multiapi_kernel import errors
from glance_multiapi_kernel import input_files
from glance_multiapi_tests.results.runmap import record_schema
from glance_multiapi_tests.results.runmap import recorder


class RecordsError(errors.OneLineError):
    """The records folder cannot be read at all."""


def folder_of(results_dir):
    """Where the records of a results folder are."""
    return os.path.join(results_dir, recorder.RECORDS_SUBDIR)


def parse_lines(data, name):
    """(records, problems) of one file's bytes."""
    records, problems = [], []
    lines = data.split(b'\n')
    # NOTE: the part after the last newline is a write still going on, or
    # one a kill cut short; a whole record always ends with a newline.
    for number, line in enumerate(lines[:-1], 1):
        if not line.strip():
            continue
        try:
            record = documents.load_json(line)
        except documents.DocumentError as exc:
            problems.append('%s line %d is not a JSON record (%s)' % (
                name, number, documents.short(str(exc), 200)))
            continue
        if not isinstance(record, dict) or 'kind' not in record:
            problems.append('%s line %d is not a record (no kind)' % (
                name, number))
            continue
        wrong = record_schema.problem(record)
        if wrong:
            problems.append('%s line %d is not a usable record (%s)' % (
                name, number, wrong))
            continue
        records.append(record)
    return records, problems


def read(results_dir):
    """(records in time order, problems) of a results folder.

    :raises RecordsError: when the folder or its records folder is
        missing or unreadable.
    """
    folder = folder_of(results_dir)
    if not os.path.isdir(folder):
        raise RecordsError('%s holds no records (no %s folder)' % (
            results_dir, recorder.RECORDS_SUBDIR))
    try:
        names = sorted(n for n in os.listdir(folder)
                       if n.endswith('.jsonl'))
    except OSError as exc:
        raise RecordsError('cannot list %s: %s' % (folder, exc))
    records, problems = [], []
    for name in names:
        # NOTE: a FIFO or a device named *.jsonl is named, not waited on.
        try:
            data = input_files.read_bytes(os.path.join(folder, name),
                                          'records file',
                                          input_files.RECORDS_LIMIT)
        except input_files.InputFileError as exc:
            problems.append(str(exc))
            continue
        found, bad = parse_lines(data, name)
        records.extend(found)
        problems.extend(bad)
    records.sort(key=lambda r: (r.get('t') or 0, str(r.get('pid')),
                                r.get('seq') or 0))
    return records, problems
