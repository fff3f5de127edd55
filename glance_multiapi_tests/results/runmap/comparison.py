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

"""This run's figures against a baseline's (an earlier metrics.json).

Pure but for ``load``: ``compare(figures, baseline, tolerances)`` pairs
each figure of this run with the baseline's of the same metric and
labels and says whether it regressed. A figure regresses when it got
worse by more than its tolerance, a factor per figure
(``metrics.FIGURES``' ``tolerance``; ``--tolerance`` of
glance-multiapi-report overrides it): a duration that grew past
baseline x tolerance, a rate that fell under baseline / tolerance. A
change smaller than the figure's ``noise`` (in its own unit) is never a
regression: a figure of a tenth of a second that becomes three tenths
is the poll interval, not the deployment.

The comparison is one dict per paired figure, in the facts as
``comparison`` (so deployment-map.json holds it and the map shows it).
"""

import base64
import http.client
import json
import math
import urllib.error
import urllib.request

from glance_multiapi_kernel import deadlines
from glance_multiapi_kernel import errors
from glance_multiapi_kernel import input_files
from glance_multiapi_kernel import redaction
from glance_multiapi_tests.results.runmap import metrics

REGRESSED, WITHIN, NEW, GONE = 'regressed', 'within', 'new', 'gone'
# NOTE: a baseline is one small JSON file; anything much larger is not.
MAX_BYTES = 16 * 1024 * 1024
# NOTE: of the whole fetch of a baseline URL, from connect to the last
# byte (--baseline-timeout).
URL_TIMEOUT = 30.0


class BaselineError(Exception):
    """The baseline cannot be used; the message names it and why."""


def parse_tolerances(items):
    """['figure=FACTOR', ...] -> {figure: factor}; ValueError if bad."""
    found = {}
    for item in items:
        key, sep, text = item.partition('=')
        key = key.strip()
        if key.startswith(metrics.PREFIX):
            key = key[len(metrics.PREFIX):]
        if not sep or key not in metrics.FIGURES:
            raise ValueError('%r: want FIGURE=FACTOR, FIGURE one of %s' % (
                item, ', '.join(sorted(metrics.FIGURES))))
        try:
            factor = float(text)
        except ValueError:
            factor = None
        if factor is None or not math.isfinite(factor) or factor < 1:
            raise ValueError('%r: FACTOR must be a number of at least 1 '
                             '(1.5: 50%% worse is still fine)' % item)
        found[key] = factor
    return found


def tolerance_of(key, tolerances=None):
    """The factor figure key may worsen by (None: not a known figure)."""
    if tolerances and key in tolerances:
        return tolerances[key]
    figure = metrics.FIGURES.get(key)
    return figure.tolerance if figure is not None else None


def request_of(source):
    """The urllib Request of a baseline URL: its userinfo as a header.

    NOTE: urllib sends "user:password@host" to the resolver as a host
    name; the host of the Request is the URL's host, and the userinfo
    becomes HTTP basic authentication, which a redirect does not carry
    on (an unredirected header, as urllib's own basic auth handler
    sends it).
    """
    url, user, password = redaction.split_userinfo(source)
    request = urllib.request.Request(url)
    if user is not None:
        token = base64.b64encode(('%s:%s' % (user, password or '')).encode(
            'utf-8')).decode('ascii')
        request.add_unredirected_header('Authorization', 'Basic ' + token)
    return request


def _read(source, timeout=URL_TIMEOUT):
    """The bytes of a file, or of an http(s) URL within timeout seconds."""
    if source.startswith(('http://', 'https://')):
        shown = redaction.url(source)
        try:
            # NOTE: urllib's timeout is per socket read; the exchange's
            # deadline bounds a server that trickles its answer.
            with deadlines.exchange(shown, timeout, 'GET'):
                with urllib.request.urlopen(request_of(source),
                                            timeout=timeout) as answer:
                    return answer.read(MAX_BYTES + 1)
        except deadlines.DeadlineExceeded as exc:
            raise BaselineError('baseline %s could not be fetched: %s' % (
                shown, redaction.text(exc.problem)))
        # NOTE: http.client's protocol errors (a status line that is
        # none, a header over 64 KiB or 100 of them, a chunked body cut
        # short, a URL holding a line break) are no OSError.
        except (urllib.error.URLError, OSError, ValueError,
                http.client.HTTPException) as exc:
            raise BaselineError('baseline %s could not be fetched: %s' % (
                shown, redaction.text(_fetch_problem(exc))))
    # NOTE: the one bounded reader: a FIFO or a device is refused, not
    # waited on or read without end.
    try:
        return input_files.read_bytes(source, 'baseline metrics.json',
                                      limit=MAX_BYTES)
    except input_files.InputFileError as exc:
        raise BaselineError(str(exc)) from None


def _fetch_problem(exc):
    reason = getattr(exc, 'reason', None) or exc
    if isinstance(reason, http.client.IncompleteRead):
        return 'the answer was cut short (%d bytes read)' % len(
            reason.partial)
    if isinstance(reason, http.client.BadStatusLine):
        return 'the answer is not HTTP (status line %s)' % (
            errors.one_line(reason, 80) or 'empty')
    return errors.one_line(reason, 300) or type(reason).__name__


def parse(text, source):
    """metrics.json text -> [{figure, labels, value}]; BaselineError."""
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise BaselineError('baseline %s is not JSON: %s' % (
            source, str(exc).splitlines()[0] if str(exc) else
            type(exc).__name__))
    if not isinstance(document, dict) or not isinstance(
            document.get('figures'), list):
        raise BaselineError('baseline %s is not a metrics.json (no '
                            '"figures" list)' % source)
    found = []
    for index, item in enumerate(document['figures']):
        where = 'baseline %s: figures[%d]' % (source, index)
        if not isinstance(item, dict):
            raise BaselineError('%s is not an object' % where)
        key, labels, value = (item.get('figure'), item.get('labels'),
                              item.get('value'))
        if not isinstance(key, str) or not isinstance(labels, dict) or \
                isinstance(value, bool) or not isinstance(
                    value, (int, float)):
            raise BaselineError('%s wants "figure" (text), "labels" (an '
                                'object) and a finite "value"' % where)
        # NOTE: names of their grammar (a name is printed in a line of
        # its own), a finite value of zero or more: a negative duration
        # would be judged a regression of anything.
        wrong = metrics.problem(key, labels, value)
        if wrong:
            raise BaselineError('%s: %s' % (where, wrong))
        found.append({'figure': key, 'value': float(value),
                      'labels': {str(k): str(v)
                                 for k, v in labels.items()}})
    return found


def load(source, timeout=URL_TIMEOUT):
    """The figures of the metrics.json at source (a path or a URL).

    timeout: the most seconds fetching a URL may take, in all.
    """
    data = _read(source, timeout)
    source = redaction.url(source)
    if len(data) > MAX_BYTES:
        raise BaselineError('baseline %s is over %d MiB: not a '
                            'metrics.json' % (source, MAX_BYTES >> 20))
    try:
        text = data.decode('utf-8')
    except UnicodeDecodeError:
        raise BaselineError('baseline %s is not UTF-8 text' % source)
    if not text.strip():
        raise BaselineError('baseline %s is empty' % source)
    return parse(text, source)


def _identity(item):
    return item['figure'], tuple(sorted(item['labels'].items()))


def worsening(key, base, value):
    """How many times worse value is than base (1.0: the same; <1 better).

    A duration worsens as it grows, a rate as it falls. None when it
    cannot be said (a zero baseline).
    """
    figure = metrics.FIGURES.get(key)
    higher_is_better = figure is not None and figure.bound[2] == 'min'
    if higher_is_better:
        if value <= 0:
            return math.inf if base > 0 else None
        return base / value
    if base <= 0:
        return None if value <= 0 else math.inf
    return value / base


def compare(figures, baseline, tolerances=None):
    """Pair this run's figures with the baseline's; one dict each.

    Each: figure, name, labels, value, baseline (None when new), ratio
    (value / baseline), worse (how many times worse, see worsening),
    tolerance, status (regressed, within, new, gone) and a one-line
    message. Figures only the baseline holds are ``gone``.
    """
    base = {}
    for item in baseline:
        base[_identity(item)] = item
    rows, seen = [], set()
    for item in figures:
        identity = _identity(item)
        seen.add(identity)
        rows.append(_row(item['figure'], item['labels'], item['value'],
                         base.get(identity), tolerances))
    for identity, item in base.items():
        if identity not in seen:
            rows.append(_row(item['figure'], item['labels'], None, item,
                             tolerances))
    return rows


def _row(key, labels, value, base, tolerances):
    figure = metrics.FIGURES.get(key)
    name = (figure.metric if figure else metrics.PREFIX + str(key)) + \
        metrics.labels_text(labels)
    tolerance = tolerance_of(key, tolerances)
    row = {'figure': key, 'name': name, 'labels': dict(labels),
           'value': value, 'baseline': base['value'] if base else None,
           'ratio': None, 'worse': None, 'tolerance': tolerance}
    if value is None:
        row.update(status=GONE, message='%s: in the baseline (%s), not '
                   'measured in this run' % (name, metrics.display(
                       key, base['value'])))
        return row
    if base is None:
        row.update(status=NEW, message='%s: %s, not in the baseline' % (
            name, metrics.display(key, value)))
        return row
    if base['value']:
        row['ratio'] = value / base['value']
    worse = worsening(key, base['value'], value)
    row['worse'] = worse
    noise = figure.noise if figure else 0
    regressed = (worse is not None and tolerance is not None and
                 worse > tolerance and
                 abs(value - base['value']) > noise)
    row['status'] = REGRESSED if regressed else WITHIN
    row['message'] = '%s: %s -> %s (%s; tolerance x%g%s)' % (
        name, metrics.display(key, base['value']),
        metrics.display(key, value), _ratio_text(row['ratio'], worse),
        tolerance if tolerance is not None else math.nan,
        '' if regressed or not worse or worse <= (tolerance or math.inf)
        else ', change under the noise of %s' % metrics.display(key, noise))
    return row


def _ratio_text(ratio, worse):
    """'x5.02, 5.02 times worse' / 'x0.50, better' for the message."""
    shown = 'x%.2f' % ratio if ratio is not None else 'x-'
    if worse is None:
        return shown
    if math.isinf(worse):
        return shown + ', from nothing'
    if worse > 1:
        return '%s, %.2f times worse' % (shown, worse)
    return shown + (', better' if worse < 1 else ', the same')


def regressed(rows):
    """The rows that regressed."""
    return [row for row in rows if row['status'] == REGRESSED]


def lines(rows, source):
    """The report's lines: one per regression, then the counts."""
    out = ['REGRESSED: %s' % row['message'] for row in regressed(rows)]
    counts = {}
    for row in rows:
        counts[row['status']] = counts.get(row['status'], 0) + 1
    out.append('compared %d figure(s) with baseline %s: %d regressed, %d '
               'within tolerance, %d new, %d only in the baseline' % (
                   len(rows), source, counts.get(REGRESSED, 0),
                   counts.get(WITHIN, 0), counts.get(NEW, 0),
                   counts.get(GONE, 0)))
    return out
