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

"""Records -> the facts of a run: the deployment, the verdicts, figures.

Pure: ``build(records, ...)`` takes what ``records.read`` gives and
returns one JSON-serialisable dict, which is ``deployment-map.json`` and
what the map and the metrics are rendered from. Nothing here asks the
deployment anything: after a failure it may have changed.

Elements are named by id: ``glance`` (the Glance CR),
``keystone_endpoint``, ``catalog`` (the image service),
``catalog:<interface>``, ``endpoint:<api>:<interface>``, ``store:<api>``
(its default store), ``api:<name>`` (an API a scenario judges as a
whole), ``heat:<service>``, ``uploader`` and ``consolidated_images``. A
test's checks are fnmatch patterns over those ids (``endpoint:*``).

The records say what the tests saw: which elements each test checks
(its start), each element it judged on its own (``checking``, a
verdict), the figures, the deployment and the catalog. How each test
ended is the run's subunit stream's (``outcomes``): the verdicts of a
test are ``passed``, ``failed``, ``skipped`` (its class's set-up too),
``unfinished`` (started, no result: killed, still running, or the map
was built without the stream), ``not run`` (scheduled, never reached)
and ``not selected`` (the run's filter left it out). An element no test
of any run checks or was meant to check is ``not checked``; one only
tests that were never reached would have checked is ``not run``.
"""

import datetime
import fnmatch

from glance_multiapi_tests.results.runmap import inventory
from glance_multiapi_tests.results.runmap import metrics

SCHEMA = 1
PASSED, FAILED, SKIPPED = 'passed', 'failed', 'skipped'
UNFINISHED, NOT_RUN, NOT_SELECTED = 'unfinished', 'not run', 'not selected'
NOT_CHECKED = 'not checked'
# NOTE: the element's status is the first of these any verdict has.
PRECEDENCE = (FAILED, UNFINISHED, PASSED, SKIPPED, NOT_RUN)
STATIC_ELEMENTS = ('glance', 'keystone_endpoint', 'catalog',
                   'heat:heat-api', 'heat:heat-api-cfn', 'heat:heat-engine',
                   'uploader', 'consolidated_images')
FIRST_LINE_MAX = 300


def _rank(status):
    return PRECEDENCE.index(status) if status in PRECEDENCE else len(
        PRECEDENCE)


def first_line(text):
    """The first non-empty line of text, at most FIRST_LINE_MAX long."""
    for line in (text or '').splitlines():
        if line.strip():
            line = line.strip()
            return line if len(line) <= FIRST_LINE_MAX else (
                line[:FIRST_LINE_MAX - 3] + '...')
    return ''


def iso(epoch):
    if epoch is None:
        return None
    try:
        return datetime.datetime.fromtimestamp(
            epoch, datetime.timezone.utc).isoformat(timespec='seconds')
    except (ValueError, OverflowError, OSError):
        # NOTE: a time no date can show (past the year 9999, NaN).
        return None


def title_of(element):
    """A short human name of an element id."""
    parts = element.split(':')
    kind = parts[0]
    if kind == 'endpoint' and len(parts) == 3:
        return '%s %s endpoint' % (parts[1], parts[2])
    if kind == 'catalog' and len(parts) == 2:
        return 'catalog %s entry' % parts[1]
    if kind == 'api':
        return 'API %s' % parts[1]
    if kind == 'store':
        return 'default store of %s' % parts[1]
    if kind == 'heat':
        return parts[1]
    return {'glance': 'Glance CR', 'keystone_endpoint': 'keystoneEndpoint',
            'catalog': 'image service in the catalog',
            'uploader': 'image uploader',
            'consolidated_images': 'consolidated heat images'}.get(
                element, element)


class _Run(object):
    """What one tempest run's workers recorded."""

    def __init__(self, key, *, from_stream=False):
        self.key = key
        self.label = None
        # NOTE: the label its records give, the same for every run of
        # one workspace (label is made unique on the map: "tempest #2").
        self.base = None
        # NOTE: no record holds it: it is known from its stream alone.
        self.from_stream = from_stream
        self.streamed = from_stream
        # NOTE: pid -> {'scheduled', 'ended', 'current' (its test now)}
        self.workers = {}
        self.started = None
        self.ended = None
        self.tests = {}         # bare id -> state dict
        self.class_skips = {}   # class -> reason
        self.class_errors = {}  # class -> message
        self.teardown_errors = {}  # class -> message

    def test(self, bare):
        return self.tests.setdefault(bare, {
            'id': bare, 'start': None, 'end': None, 'ended': False,
            'verdicts': {}, 'checking': [], 'checks': []})


def _went_on(run, worker):
    """The test the worker was in has ended: it started another, or left.

    A worker runs its tests one after another; how each ended is the
    stream's, but without one (a killed run) this tells the test a
    worker was killed in from those it had finished.
    """
    if worker['current'] is not None:
        run.test(worker['current'])['ended'] = True
        worker['current'] = None


def _runs(records):
    runs = {}
    for record in records:
        key = record.get('run') or 'run'
        run = runs.get(key)
        if run is None:
            run = runs[key] = _Run(key)
        run.label = run.label or record.get('run_label')
        t = record.get('t')
        run.started = t if run.started is None else min(run.started, t)
        run.ended = t if run.ended is None else max(run.ended, t)
        pid = record.get('pid')
        worker = run.workers.setdefault(pid, {'scheduled': None,
                                              'ended': False,
                                              'current': None})
        kind = record['kind']
        if kind == 'worker':
            if record.get('scheduled') is not None:
                worker['scheduled'] = [inventory.bare_id(i) for i in
                                       record['scheduled']]
        elif kind == 'worker-end':
            worker['ended'] = True
            _went_on(run, worker)
        elif kind in ('test-start', 'verdict', 'checking'):
            bare = inventory.bare_id(record.get('test'))
            state = run.test(bare)
            if kind == 'test-start':
                _went_on(run, worker)
                worker['current'] = bare
                state['start'] = record
                state['full'] = record.get('test')
                state['class'] = record.get('class')
                state['checks'] = list(record.get('checks') or [])
            elif kind == 'verdict':
                # NOTE: within one test the worst verdict of an element
                # stands (a figure over its bound after a pass).
                element = record.get('element')
                new = (record.get('status'), record.get('message'))
                old = state['verdicts'].get(element)
                if old is None or _rank(new[0]) <= _rank(old[0]):
                    state['verdicts'][element] = new
            else:
                state['checking'].append(record.get('element'))
    ordered = sorted(runs.values(), key=lambda r: r.started or 0)
    seen = {}
    for run in ordered:
        # NOTE: records without run_label (from a hand or another tool).
        run.label = run.base = run.label or str(run.key)
        seen[run.label] = seen.get(run.label, 0) + 1
        if seen[run.label] > 1:
            run.label = '%s #%d' % (run.label, seen[run.label])
    return ordered


def _inventory(records, given):
    tests = dict(given or {})
    for record in records:
        if record['kind'] == 'inventory':
            for bare, info in (record.get('tests') or {}).items():
                tests.setdefault(bare, info)
    return tests


def _apis(records):
    """(glance facts, [api facts]): first deployment, then added APIs."""
    glance, apis, order = None, {}, []
    for record in records:
        if record['kind'] != 'deployment':
            continue
        if glance is None and record.get('glance'):
            glance = dict(record['glance'],
                          keystone_endpoint=record.get('keystone_endpoint'))
        for api in record.get('apis') or []:
            if api.get('name') in apis:
                continue
            item = dict(api, added_by=None)
            if order and record.get('added'):
                item['added_by'] = '%s (%s)' % (
                    record.get('test') or record.get('class') or '?',
                    record.get('label') or 'added')
            apis[api['name']] = item
            order.append(api['name'])
    return glance, [apis[name] for name in order]


def _entries_key(entries):
    # NOTE: a field may be missing (None) in one entry and set in another.
    return sorted(tuple(e.get(key) or '' for key in ('interface', 'region',
                                                     'url'))
                  for e in entries or [])


def _catalog(records):
    """The catalog as first seen, then after each disruptive change."""
    kept = []
    for record in records:
        if record['kind'] != 'catalog':
            continue
        snapshot = {'label': record.get('label') or 'seen',
                    'test': record.get('test') or record.get('class'),
                    'time': iso(record.get('t')),
                    'run': record.get('run_label'),
                    'entries': record.get('entries') or [],
                    'verdicts': record.get('verdicts') or {}}
        if kept and record.get('steady') and (
                _entries_key(snapshot['entries']) ==
                _entries_key(kept[-1]['entries'])):
            continue
        if not kept:
            snapshot['label'] = 'first seen (%s)' % snapshot['label']
        kept.append(snapshot)
    return kept


def _element_ids(glance, apis, catalog):
    """(every element id, the ids of the deployment as first learnt).

    An API a scenario added has only its api: element (its URLs are
    shown, judged by that scenario as a whole); the api: element of the
    others is there only when a test judged it.
    """
    ids = list(STATIC_ELEMENTS)
    interfaces = []
    for snapshot in catalog[:1]:
        for entry in snapshot['entries']:
            if entry.get('interface') not in interfaces:
                interfaces.append(entry.get('interface'))
    if not interfaces and glance:
        for api in apis:
            if api['name'] == glance.get('keystone_endpoint'):
                interfaces = sorted(api.get('endpoints') or {})
    ids.extend('catalog:%s' % i for i in interfaces)
    added = []
    for api in apis:
        if api.get('added_by'):
            added.append('api:%s' % api['name'])
            continue
        ids.extend('endpoint:%s:%s' % (api['name'], i)
                   for i in sorted(api.get('endpoints') or {}))
        ids.append('store:%s' % api['name'])
    return ids + added, ids


def resolve(patterns, element_ids):
    """The element ids matching any of the patterns, in element order."""
    return [e for e in element_ids
            if any(fnmatch.fnmatchcase(e, p) for p in patterns or ())]


def _test_verdicts(run, state, info, element_ids):
    """(status, message, {element: (status, message)}) of one test.

    A test that started says which elements it checks (resolved against
    what its class knew); one that never started is resolved against
    the deployment as first learnt.
    """
    start = (state or {}).get('start') or {}
    if start.get('elements') is not None:
        elements = list(start['elements'])
        setup = list(start.get('setup_elements') or [])
    else:
        checks = state['checks'] if start else (
            (info or {}).get('checks') or [])
        elements = resolve(checks, element_ids)
        setup = resolve(start.get('setup') if start else (
            (info or {}).get('setup') or []), element_ids)
    explicit = dict(state['verdicts']) if state else {}
    checking = list(state['checking']) if state else []
    for element in list(explicit) + checking:
        if element not in elements:
            elements.append(element)
    cls = (state or {}).get('class') or (info or {}).get('class')
    if state and state['end']:
        status = state['end'].get('status') or FAILED
        message = state['end'].get('message') or ''
    elif state and state['start'] and not state['ended']:
        status, message = UNFINISHED, ('started, no result: killed in it, '
                                       'or still running when this map was '
                                       'written')
    elif state and state['start']:
        status, message = UNFINISHED, (
            'ended, but the run\'s subunit stream holds no result of it'
            if run.streamed else 'ended; its result is in the run\'s '
            'subunit stream, which this map was built without (a run '
            'killed part way leaves none)')
    elif cls in run.class_errors:
        status = FAILED
        message = 'setUpClass of %s failed: %s' % (
            cls.rsplit('.', 1)[-1], run.class_errors[cls])
    elif cls in run.class_skips:
        status, message = SKIPPED, run.class_skips[cls] or ''
    else:
        status, message = NOT_RUN, 'the run never reached it'
    per_element = {}
    fine_grained = bool(set(explicit) - set(setup) or checking)
    for element in elements:
        if element in explicit:
            per_element[element] = explicit[element]
        elif element in setup and start:
            per_element[element] = (PASSED, 'read by the set-up of %s' % (
                (cls or '?').rsplit('.', 1)[-1]))
        elif not fine_grained or status in (PASSED, SKIPPED) or (
                status == UNFINISHED and (element in checking or
                                          state['ended'])):
            per_element[element] = (status, message)
        else:
            # NOTE: a fine-grained test that failed judged each element it
            # reached; the others it never finished judging.
            per_element[element] = (NOT_RUN, 'not reached: the test '
                                    'stopped at a failure before judging '
                                    'it')
    return status, message, per_element


def _element(element):
    """A new element of the facts, with no verdict yet."""
    return {'id': element, 'title': title_of(element),
            'verdicts': [], 'figures': []}


def _scheduled(run):
    """The bare ids run's workers were given, or None when unknown."""
    lists = [w['scheduled'] for w in run.workers.values()]
    if not lists or any(s is None for s in lists):
        return None
    return {bare for s in lists for bare in s}


def _holder(targets, bare):
    """The run of targets given the test bare, which none started.

    The first whose workers were given it, else the first.
    """
    for run in targets:
        if bare in (_scheduled(run) or ()):
            return run
    return targets[0]


def _class_holder(targets, cls):
    """The run of targets a stream's result of class cls belongs to."""
    prefix = cls + '.'
    for run in reversed(targets):
        if any(bare.startswith(prefix) for bare in run.tests):
            return run
    for run in targets:
        if any(bare.startswith(prefix) for bare in _scheduled(run) or ()):
            return run
    return targets[0]


def _route(found, targets):
    """Give each result of one stream to the run of targets it is of."""
    for run in targets:
        run.streamed = True
    for bare, results in sorted(found.tests.items()):
        holders = [run for run in targets if bare in run.tests] or [
            _holder(targets, bare)]
        # NOTE: a test several runs ran has a result of each, in order.
        for run, (status, message) in zip(reversed(holders),
                                          reversed(results)):
            run.test(bare)['end'] = {'status': status, 'message': message}
    for cls, (status, message) in sorted(found.classes.items()):
        run = _class_holder(targets, cls)
        if status == SKIPPED:
            run.class_skips[cls] = message
        elif status == FAILED:
            run.class_errors[cls] = message
    for cls, message in sorted(found.teardowns.items()):
        _class_holder(targets, cls).teardown_errors.setdefault(cls, message)


def _apply_outcomes(runs, outcomes, problems):
    """Take each stream's outcomes into the runs of its label.

    One workspace may hold several tempest runs (the main job runs its
    disruptive scenarios first, then the rest), which the map labels
    "tempest", "tempest #2": the stream of them all (subunit streams
    concatenate) is given once, for "tempest", and each result goes to
    the run that ran its test. The key None is the stream of the only
    label the records hold. A label no record holds is a run of its
    own, from its stream alone: a run whose every class skipped or
    failed in setUpClass started no test, so it recorded nothing.
    """
    recorded = sorted({run.base for run in runs})
    for label, found in sorted((outcomes or {}).items(),
                               key=lambda item: str(item[0])):
        if label is None:
            if len(recorded) > 1:
                problems.append('subunit outcomes of the only run: the '
                                'records hold %d runs (%s); name the run '
                                'of the stream (LABEL=STREAM)' % (
                                    len(recorded), ', '.join(recorded)))
                continue
            label = recorded[0] if recorded else 'run'
        targets = [run for run in runs if run.base == label]
        if not targets:
            if found.ran() and recorded:
                # NOTE: its tests started, so they would have recorded
                # their start: most likely a label given wrong.
                problems.append('subunit outcomes of %s: the records hold '
                                'no such run (runs: %s); its tests are '
                                'shown from the stream alone' % (
                                    label, ', '.join(recorded)))
            run = _Run('stream:%s' % label, from_stream=True)
            run.label = run.base = label
            runs.append(run)
            targets = [run]
        _route(found, targets)


def build(records, *, tests=None, problems=(), now=None, outcomes=None):
    """The facts of the runs in records (see the module docstring).

    :param tests: the plugin's tests (inventory.plugin_tests()), merged
        with the inventories the workers recorded.
    :param problems: lines records.read could not use, shown as such.
    :param outcomes: {run label: outcomes.Outcomes} read from the runs'
        subunit streams, which then decide the tests' verdicts; the key
        None stands for the only label the records hold.
    """
    tests = _inventory(records, tests)
    glance, apis = _apis(records)
    catalog = _catalog(records)
    element_ids, first_ids = _element_ids(glance, apis, catalog)
    runs = _runs(records)
    problems = list(problems)
    _apply_outcomes(runs, outcomes, problems)
    elements = {e: _element(e) for e in element_ids}
    test_rows, ever_selected = [], set()
    run_rows = []
    for run in runs:
        scheduled = _scheduled(run)
        complete = run.from_stream or (bool(run.workers) and all(
            w['ended'] for w in run.workers.values()))
        given = set(scheduled if scheduled is not None else tests)
        # NOTE: a class skipped or failed in setUpClass has no result of
        # a test of its own; one whose worker recorded nothing else was
        # given to no worker the records know of.
        unknown = (set(run.class_skips) | set(run.class_errors)) - {
            (tests.get(bare) or {}).get('class') for bare in given}
        candidates = set(run.tests) | given | {
            bare for bare, info in tests.items()
            if (info or {}).get('class') in unknown}
        for bare in sorted(candidates):
            state = run.tests.get(bare)
            info = tests.get(bare)
            started = bool(state and (state['start'] or state['end']))
            if not started and scheduled is None and complete:
                cls = (info or {}).get('class')
                if cls not in run.class_skips and \
                        cls not in run.class_errors:
                    continue
            ever_selected.add(bare)
            status, message, per_element = _test_verdicts(
                run, state, info, first_ids)
            full = (state or {}).get('full') or (info or {}).get('id') or \
                bare
            test_rows.append({'id': full, 'bare': bare, 'run': run.label,
                              'status': status, 'message': message,
                              'first_line': first_line(message),
                              'elements': sorted(per_element)})
            for element, (e_status, e_message) in per_element.items():
                elements.setdefault(element, _element(element))
                elements[element]['verdicts'].append({
                    'test': full, 'run': run.label, 'status': e_status,
                    'message': first_line(e_message)})
        for cls, message in sorted(run.teardown_errors.items(),
                                   key=lambda item: str(item[0])):
            # NOTE: as tempest reports it: a result of its own.
            test_rows.append({
                'id': 'tearDownClass (%s)' % cls, 'bare': 'tearDownClass '
                '(%s)' % cls, 'run': run.label, 'status': FAILED,
                'message': message or '', 'first_line': first_line(message),
                'elements': []})
        ended = [w for w in run.workers.values() if w['ended']]
        run_rows.append({
            'id': run.key, 'label': run.label, 'started': iso(run.started),
            'last_record': iso(run.ended), 'workers': len(run.workers),
            'workers_ended': len(ended), 'complete': complete,
            'selection_known': scheduled is not None})
    figures = metrics.collect(records)
    for figure in figures:
        element = figure.get('element')
        if element:
            elements.setdefault(element, _element(element))[
                'figures'].append(figure)
    for element in elements.values():
        statuses = [v['status'] for v in element['verdicts']]
        element['status'] = next((s for s in PRECEDENCE if s in statuses),
                                 NOT_CHECKED)
    counts = {}
    for row in test_rows:
        counts[row['status']] = counts.get(row['status'], 0) + 1
    return {
        'schema': SCHEMA, 'generated': iso(now),
        'problems': list(problems), 'runs': run_rows, 'glance': glance,
        'apis': apis, 'catalog': catalog,
        'elements': [elements[e] for e in element_ids] + [
            v for k, v in sorted(elements.items()) if k not in element_ids],
        'tests': test_rows, 'counts': counts,
        'not_selected': sorted(b for b in tests if b not in ever_selected),
        'figures': figures,
        'complete': bool(run_rows) and all(r['complete'] for r in run_rows),
    }
