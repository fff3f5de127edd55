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

"""Writing the map and the metrics, once, after the run.

``glance-multiapi-report`` builds them from the records the tests wrote
and the run's subunit stream when the run has ended (the tests write
records only). Every output is written to a temporary file in its
folder and renamed over the old one, so a reader (a CI artifact upload,
a browser) sees the old file or the new one, never half of one; and one
run at a time holds the output folder (``out_dir_lock``), so two runs
into one folder never leave one's map beside the other's metrics.
"""

import contextlib
import errno
import fcntl
import json
import os
import time

from glance_multiapi_kernel import interrupts
from glance_multiapi_kernel import polling
from glance_multiapi_kernel import redaction
from glance_multiapi_tests.results.runmap import comparison
from glance_multiapi_tests.results.runmap import deployment_map
from glance_multiapi_tests.results.runmap import metrics
from glance_multiapi_tests.results.runmap import model
from glance_multiapi_tests.results.runmap import records

OUTPUTS = ('deployment-map.html', 'deployment-map.json', 'metrics.json',
           'metrics.prom')


class PublishError(Exception):
    """An output could not be written; the message names the file."""


def write_atomically(path, text):
    """Write text to path through a temporary file and a rename."""
    interrupts.write_replacing(path, text)


def render(facts):
    """{output name: text} of the facts, with no secret in any.

    NOTE: a record may quote a URL with its userinfo or a config line
    with a password (a failure message, a catalog entry); the records
    are redacted when written, the facts again here for records of
    another version.
    """
    facts = redaction.value(facts)
    return {
        'deployment-map.html': deployment_map.render(facts),
        'deployment-map.json': json.dumps(facts, indent=2, sort_keys=True)
        + '\n',
        'metrics.json': metrics.to_json(facts),
        'metrics.prom': metrics.to_prom(facts),
    }


def make_out_dir(out_dir):
    """Make the output folder (and its parents); PublishError if not."""
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as exc:
        raise PublishError('cannot make %s: %s' % (out_dir, exc.strerror
                                                   or exc)) from None


# NOTE: how long a run waits for another that writes into the same
# folder; one takes seconds, so a holder past this is stuck.
LOCK_TIMEOUT = 300
# NOTE: a file system without flock (some NFS mounts) answers these:
# the runs are then not serialised, as before.
_NO_LOCKS = (errno.ENOLCK, errno.EOPNOTSUPP, errno.EBADF, errno.EINVAL)


@contextlib.contextmanager
def out_dir_lock(out_dir, timeout=LOCK_TIMEOUT):
    """Hold out_dir while one run writes its files.

    An exclusive flock of the folder itself: nothing is left in it, and
    the kernel releases it when the process ends, however it ends.
    """
    try:
        fd = os.open(out_dir, os.O_RDONLY | getattr(os, 'O_DIRECTORY', 0) |
                     getattr(os, 'O_CLOEXEC', 0))
    except OSError as exc:
        raise PublishError('cannot open %s: %s' % (
            out_dir, exc.strerror or exc)) from None
    try:
        def taken():
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
            except OSError as exc:
                if exc.errno in _NO_LOCKS:
                    return True
                raise PublishError('cannot lock %s: %s' % (
                    out_dir, exc.strerror or exc)) from None
            return True

        try:
            polling.poll(taken, what='%s, which another glance-multiapi-'
                         'report run is writing into' % out_dir,
                         timeout=timeout, interval=0.05, max_interval=1)
        except polling.PollTimeout as exc:
            raise PublishError(str(exc)) from None
        yield
    finally:
        os.close(fd)


def compare(facts, baseline):
    """Put the comparison with a baseline into the facts (in place).

    baseline: {'source': where it came from, 'figures': comparison.load's,
    'tolerances': {figure: factor} overriding the defaults}. Each figure
    of the facts gets its row as 'compared', so the map's element shows
    it too; the facts get every row under 'comparison'.
    """
    rows = comparison.compare(facts['figures'], baseline['figures'],
                              baseline.get('tolerances'))
    by_name = {row['name']: row for row in rows}
    for figure in facts['figures']:
        figure['compared'] = by_name.get(
            figure['name'] + metrics.labels_text(figure['labels']))
    facts['comparison'] = {'baseline': baseline['source'], 'rows': rows}
    return rows


def rebuild(results_dir, out_dir=None, *, tests=None, now=None,
            outcomes=None, baseline=None):
    """Build every output from the records of results_dir into out_dir.

    outcomes: the runs' subunit outcomes, by run label (model.build).
    baseline: an earlier run's figures to compare with (see compare).

    :returns: (facts, [paths written]).
    :raises records.RecordsError: no records folder.
    :raises PublishError: an output could not be written.
    """
    out_dir = out_dir or results_dir
    found, problems = records.read(results_dir)
    facts = model.build(found, tests=tests, problems=problems,
                        now=time.time() if now is None else now,
                        outcomes=outcomes)
    if baseline is not None:
        compare(facts, baseline)
    outputs = render(facts)
    make_out_dir(out_dir)
    with out_dir_lock(out_dir):
        written = []
        for name, text in outputs.items():
            path = os.path.join(out_dir, name)
            try:
                write_atomically(path, text)
            except OSError as exc:
                raise PublishError('cannot write %s: %s' % (path, exc))
            written.append(path)
    return facts, written
