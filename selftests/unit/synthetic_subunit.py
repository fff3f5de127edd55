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

"""Subunit v2 streams made in memory, for the result tools' unit tests."""

import datetime
import io
import os

import subunit

START = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)


def stream(*tests):
    """Bytes of a stream holding tests: (id, status[, {name: text}]).

    Each test takes one second; 'reason' and 'traceback' are attachments.
    """
    out = io.BytesIO()
    result = subunit.StreamResultToBytes(out)
    for number, test in enumerate(tests):
        test_id, status = test[0], test[1]
        details = test[2] if len(test) > 2 else {}
        begin = START + datetime.timedelta(seconds=number)
        result.status(test_id=test_id, test_status='inprogress',
                      timestamp=begin)
        for name, text in details.items():
            result.status(test_id=test_id, file_name=name,
                          file_bytes=text.encode('utf-8'),
                          mime_type='text/plain; charset=utf8', eof=True,
                          timestamp=begin)
        if status != 'inprogress':
            result.status(test_id=test_id, test_status=status,
                          timestamp=begin + datetime.timedelta(seconds=1))
    return out.getvalue()


def write(folder, name, *tests):
    """Write stream(*tests) to folder/name; return its path."""
    path = os.path.join(folder, name)
    with open(path, 'wb') as f:
        f.write(stream(*tests))
    return path
