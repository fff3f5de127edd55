#!/usr/bin/env python3
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

"""How long each suite test takes, for stestr's scheduler.

Usage:
  suite_times.py seed TIMES.json OUT.subunit
      a subunit stream of successes with those durations; ``stestr load``
      it into a fresh tempest workspace and ``tempest run`` balances its
      workers by them (tcib's run_tempest.sh does the same with
      TEMPEST_TIMING_DATA_URL). Tests it does not know are dealt round
      robin, so a new test is never lost, only not yet balanced.
  suite_times.py refresh TIMES.json RUN.subunit [RUN.subunit ...]
      record the durations of the passed tests of real runs (where two
      runs hold a test, the longer); a test the runs hold but did not
      pass keeps its old figure, a test they do not hold is dropped.
  suite_times.py slowest N RUN.subunit [RUN.subunit ...]
      the N slowest tests of the runs, one a line: seconds, the stream's
      name (the file's, without .subunit) and the test id without its
      [attributes]; missing runs are left out (a stage that never ran).
  suite_times.py profile RESULTS [--save FILE] [--against FILE] [--top N]
      where tools/run-tests.sh spent its time, from the folder it wrote:
      each stage's seconds (RESULTS/<stage>.seconds), the chains of stages
      it ran beside the functional tests (the stages each of its queue's
      workers took, RESULTS/stages-worker-N.txt, and those it took itself
      once the functional tests had ended, RESULTS/stages-after-functional.txt,
      as a chain that starts with them),
      which of them set the run's wall time (the critical path), how long
      they ran on after the functional tests ended and how long the last
      of them ran alone (work that keeps no two cores busy), the CPU
      seconds of each stage's processes where run-tests.sh could count
      them (RESULTS/<stage>.cpu: a cgroup's; their sum over the cores is
      the least wall time that work allows), the CPU seconds of the
      functional clouds' services by kind (keystone, the Glance APIs,
      heat-engine...: RESULTS/functional-services.jsonl, each service's
      at its stop; one that died unstopped is not counted), then per
      stream the N test classes (default 12) with the most worker-seconds
      (the sum of their tests' durations; a stream's workers run them in
      parallel, so the sum may exceed the stage's seconds), with a
      functional worker's end for each worker tag. --save writes the
      figures as JSON; --against FILE (an earlier --save) prints each
      figure beside the earlier one with their ratio. A benchmark, not a
      test: it judges nothing and exits 0.
Ids are whole, [attributes] included, since stestr matches them so.
Exit status: 0 done, 2 usage or unreadable input (one line on stderr).
"""

import datetime
import glob
import json
import os
import sys

import subunit

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from glance_multiapi_tests.results.gate import subunit_stream  # noqa: E402


def seed(times, out):
    """Write a subunit v2 stream of one success per test, timed."""
    stream = subunit.StreamResultToBytes(out)
    start = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    for test_id, seconds in sorted(times.items()):
        stop = start + datetime.timedelta(seconds=float(seconds))
        stream.status(test_id=test_id, test_status='inprogress',
                      timestamp=start)
        stream.status(test_id=test_id, test_status='success',
                      timestamp=stop)
        start = stop


def refresh(times, paths):
    """times for the tests of the runs, from their passed durations."""
    seen, passed = set(), {}
    for path in paths:
        for test in subunit_stream.read_tests(path):
            if test.id.startswith(('setUpClass', 'tearDownClass')):
                continue
            seen.add(test.id)
            if test.outcome == 'pass' and test.duration > 0:
                passed[test.id] = max(passed.get(test.id, 0),
                                      round(test.duration, 1))
    updated = {k: v for k, v in times.items() if k in seen}
    updated.update(passed)
    return updated


def slowest(count, paths):
    """[(seconds, stream, test id)] of the count slowest tests."""
    found = []
    for path in paths:
        if not os.path.isfile(path):
            continue
        stream = os.path.basename(path)[:-len('.subunit')] if path.endswith(
            '.subunit') else os.path.basename(path)
        for test in subunit_stream.read_tests(path):
            if test.duration > 0:
                found.append((test.duration, stream,
                              test.id.split('[', 1)[0]))
    return sorted(found, reverse=True)[:count]


# NOTE: the stages run-tests.sh times, in its order; the functional tests
# run in the foreground while its queue's workers run the others.
STAGES = ('lint', 'unit', 'python-matrix', 'coexistence', 'test-operator',
          'test-operator-disruptive', 'functional')
STREAMS = ('functional', 'unit', 'python-matrix', 'coexistence',
           'test-operator', 'test-operator-disruptive')
# NOTE: where tools/run-functional.sh has the clouds log their services'
# CPU seconds as each is stopped.
SERVICES_LOG = 'functional-services.jsonl'
# NOTE: the stages run-tests.sh took off its queue itself, once the
# functional tests had ended.
AFTER_FUNCTIONAL = 'stages-after-functional.txt'


def queue_of_runner(path=os.path.join(HERE, 'run-tests.sh')):
    """The stages tools/run-tests.sh's workers take: STAGE_QUEUE and THEN.

    [stage, ...] of its STAGE_QUEUE=(...) array, then the stages its
    THEN=([stage]=next ...) array adds once a stage has ended.
    """
    with open(path) as f:
        text = f.read()

    def array(name):
        start = text.index(name + '=(') + len(name + '=(')
        return text[start:text.index(')', start)].split()
    queued = array('STAGE_QUEUE')
    for item in array('THEN'):
        queued.append(item.partition('=')[2])
    return queued


def _stages_in(path):
    """The stages a worker's file names, in order; [] if none."""
    try:
        with open(path) as f:
            return f.read().split()
    except OSError:
        return []


def chains_of_results(results):
    """[[stage, ...]] each worker of the run ran, in order; [] if none.

    From RESULTS/stages-worker-N.txt (one stage a line), which a run of
    tools/run-tests.sh with background workers writes.
    """
    chains = []
    for path in sorted(glob.glob(os.path.join(results,
                                              'stages-worker-*.txt'))):
        chain = _stages_in(path)
        if chain:
            chains.append(chain)
    return chains


def _class_of(test_id):
    name = test_id.split('[', 1)[0]
    if name.startswith(('setUpClass (', 'tearDownClass (')):
        return name[name.index('(') + 1:].rstrip(')')
    return name.rsplit('.', 1)[0] if '.' in name else name


def stream_profile(path):
    """{'classes': {class: [seconds, tests]}, 'workers': {tag: s}}."""
    classes, workers, first = {}, {}, []

    def on_test(raw):
        start, stop = raw['timestamps']
        if not (start and stop):
            return
        first[:] = [min(first + [start.timestamp()])]
        seconds = (stop - start).total_seconds()
        entry = classes.setdefault(_class_of(raw['id']), [0.0, 0])
        entry[0] += seconds
        entry[1] += 1
        for tag in raw.get('tags') or ():
            if tag.startswith('worker-'):
                workers[tag] = max(workers.get(tag, 0.0),
                                   stop.timestamp())
    with open(path, 'rb') as stream:
        subunit_stream.for_each_test(stream, on_test, name=path)
    # NOTE: a worker's end, as seconds after the stream's first test began.
    workers = {tag: round(end - first[0], 1) for tag, end in
               workers.items()}
    return {'classes': {c: [round(v[0], 1), v[1]]
                        for c, v in classes.items()},
            'workers': workers}


def profile(results):
    """The figures of a run-tests.sh results folder (see the usage)."""
    stages = {}
    for name in STAGES:
        try:
            with open(os.path.join(results, name + '.seconds')) as f:
                stages[name] = float(f.read().strip())
        except (OSError, ValueError):
            continue
    cpu = {}
    for name in STAGES:
        try:
            with open(os.path.join(results, name + '.cpu')) as f:
                cpu[name] = float(f.read().strip())
        except (OSError, ValueError):
            continue
    paths = chains_of_results(results)
    after = _stages_in(os.path.join(results, AFTER_FUNCTIONAL))
    if after:
        # NOTE: taken once the functional tests had ended: a path that
        # starts with them.
        paths.append(['functional'] + after)
    chains = [{'stages': chain, 'seconds': round(
        sum(stages.get(name, 0.0) for name in chain), 1)} for chain in paths]
    streams = {}
    for name in STREAMS:
        path = os.path.join(results, name + '.subunit')
        if os.path.isfile(path):
            streams[name] = stream_profile(path)
    return {'stages': stages, 'cpu': cpu, 'cores': os.cpu_count() or 1,
            'chains': chains, 'streams': streams,
            'services': services_profile(os.path.join(
                results, SERVICES_LOG))}


def service_kind(name):
    """The kind of an embedded cloud's service, from its name.

    One kind for every Glance API (glance-api0, glance-edge0, ...) and
    every route; a name renamed on a pod's deletion (heat-engine~POD)
    is its service's.
    """
    name = name.split('~', 1)[0]
    if name.startswith('glance-'):
        return 'glance API'
    if name.startswith('route-'):
        return 'route'
    return name


def services_profile(path):
    """{kind: [stops, CPU seconds]} of a service CPU log; {} if none.

    The log is glance_multiapi_cloud's (processes.CPU_LOG_ENV): a JSON
    line per service stopped. A line that is not one is skipped.
    """
    kinds = {}
    try:
        with open(path) as f:
            lines = f.readlines()
    except OSError:
        return kinds
    for line in lines:
        try:
            item = json.loads(line)
            kind, cpu = service_kind(item['service']), float(item['cpu'])
        except (ValueError, TypeError, KeyError, AttributeError):
            continue
        entry = kinds.setdefault(kind, [0, 0.0])
        entry[0] += 1
        entry[1] = round(entry[1] + cpu, 2)
    return kinds


def _critical(figures):
    paths = [('functional', figures['stages'].get('functional', 0.0))]
    paths += [(' + '.join(c['stages']), c['seconds'])
              for c in figures['chains']]
    return max(paths, key=lambda item: item[1])


def tail(figures):
    """(after, alone) seconds at the end of the run; None without chains.

    after: how long the chains ran on once the functional tests had
    ended; alone: how long the last chain ran with nothing beside it.
    NOTE: the chains and the functional tests start together, so a
    chain's end is the sum of its stages' seconds (the functional tests'
    own for the stages taken after them). The functional tests
    keep the cores busy; what runs after them should too.
    """
    ends = sorted(c['seconds'] for c in figures['chains'])
    if not ends:
        return None
    functional = figures.get('stages', {}).get('functional', 0.0)
    last = ends[-1]
    before_last = max([functional] + ends[:-1])
    return (round(max(0.0, last - functional), 1),
            round(max(0.0, last - before_last), 1))


_MISSING = object()


def _row(name, now, before=_MISSING):
    """One figure; with before (None: not in the earlier run), both."""
    if before is _MISSING:
        return '  %-52s %9.1f' % (name, now)
    if before is None:
        return '  %-52s %9s %9.1f %7s' % (name, '-', now, '-')
    ratio = '%6.2fx' % (now / before) if before else '     -'
    return '  %-52s %9.1f %9.1f %s' % (name, before, now, ratio)


def render_profile(figures, before=None, top=12):
    """The lines profile prints; before: an earlier run's figures."""
    old = before or {}
    head = '  %-52s %9s' % ('', 'seconds') if before is None else \
        '  %-52s %9s %9s %7s' % ('', 'before', 'now', 'ratio')

    def row(name, now, was):
        """_row alone, or beside was when there is an earlier run."""
        return _row(name, now) if before is None else _row(name, now, was)
    lines = ['stages', head]
    for name, seconds in figures['stages'].items():
        lines.append(row(name, seconds, old.get('stages', {}).get(name)))
    lines.append('chains beside the functional tests')
    old_chains = {' + '.join(c['stages']): c['seconds']
                  for c in old.get('chains', [])}
    for chain in figures['chains']:
        label = ' + '.join(chain['stages'])
        lines.append(row(label, chain['seconds'], old_chains.get(label)))
    path, seconds = _critical(figures)
    lines.append('critical path: %s (%.1f s)' % (path, seconds))
    after = tail(figures)
    if after:
        was = tail(old) if old.get('chains') else (None, None)
        lines.append(row('after the functional tests', after[0], was[0]))
        lines.append(row('the last chain alone at the end', after[1],
                         was[1]))
    cpu = figures.get('cpu') or {}
    if cpu:
        old_cpu = old.get('cpu') or {}
        lines.append('CPU seconds of each stage\'s processes')
        for name, used in cpu.items():
            lines.append(row(name, used, old_cpu.get(name)))
        cores = figures.get('cores') or 1
        label = 'all stages / %d cores: no shorter wall' % cores
        floor = sum(cpu.values()) / cores
        old_floor = (sum(old_cpu.values()) / (old.get('cores') or 1)
                     if old_cpu else None)
        lines.append(row(label, floor, old_floor))
    services = figures.get('services') or {}
    if services:
        old_services = old.get('services') or {}
        lines.append('functional: CPU seconds of the clouds\' services '
                     '(stops), as each was stopped')
        for kind, (stops, used) in sorted(services.items(),
                                          key=lambda kv: -kv[1][1]):
            was = old_services.get(kind)
            lines.append(row('%s (%d)' % (kind, stops), used,
                             was[1] if was else None))
        old_total = (sum(v[1] for v in old_services.values())
                     if old_services else None)
        lines.append(row('all services',
                         sum(v[1] for v in services.values()), old_total))
    for stream, data in figures['streams'].items():
        old_stream = old.get('streams', {}).get(stream, {})
        lines.append('%s: the %d classes with the most worker-seconds'
                     % (stream, top))
        ranked = sorted(data['classes'].items(), key=lambda kv: -kv[1][0])
        for cls, (seconds, count) in ranked[:top]:
            was = old_stream.get('classes', {}).get(cls)
            label = '.'.join(cls.split('.')[-2:])
            lines.append(row('%s (%d)' % (label, count), seconds,
                             was[0] if was else None))
        total = sum(v[0] for v in data['classes'].values())
        old_total = sum(v[0] for v in old_stream.get('classes', {}).values())
        lines.append(row('all %d classes' % len(data['classes']), total,
                         old_total))
        for tag, end in sorted(data['workers'].items()):
            lines.append(row('%s ends' % tag, end,
                             old_stream.get('workers', {}).get(tag)))
    return lines


def _profile_main(argv):
    args, save, against, top = [], None, None, 12
    while argv:
        arg = argv.pop(0)
        if arg in ('--save', '--against', '--top') and argv:
            value = argv.pop(0)
            if arg == '--save':
                save = value
            elif arg == '--against':
                against = value
            elif not value.isdigit():
                raise SystemExit('suite_times: --top wants a count')
            else:
                top = int(value)
        else:
            args.append(arg)
    if len(args) != 1 or not os.path.isdir(args[0]):
        raise SystemExit('suite_times: profile wants one results folder')
    figures = profile(args[0])
    before = _load(against) if against else None
    for line in render_profile(figures, before, top):
        print(line)
    if save:
        with open(save, 'w') as f:
            json.dump(figures, f, indent=1, sort_keys=True)
            f.write('\n')
    return 0


def _load(path):
    try:
        with open(path) as f:
            times = json.load(f)
    except (OSError, ValueError) as exc:
        raise SystemExit('suite_times: cannot read %s: %s' % (path, exc))
    if not isinstance(times, dict):
        raise SystemExit('suite_times: %s is not a {test id: seconds} '
                         'object' % path)
    return times


def main(argv):
    if argv[:1] == ['profile']:
        try:
            return _profile_main(argv[1:])
        except SystemExit as exc:
            sys.stderr.write('%s\n' % exc)
            return 2
    if argv[:1] == ['slowest'] and len(argv) >= 3 and argv[1].isdigit():
        for seconds, stream, test_id in slowest(int(argv[1]), argv[2:]):
            print('%8.1f  %-24s %s' % (seconds, stream, test_id))
        return 0
    if len(argv) < 3 or argv[0] not in ('seed', 'refresh') or (
            argv[0] == 'seed' and len(argv) != 3):
        sys.stderr.write(__doc__.split('Exit status')[0])
        return 2
    try:
        times = _load(argv[1])
        if argv[0] == 'seed':
            with open(argv[2], 'wb') as out:
                seed(times, out)
            return 0
        missing = [p for p in argv[2:] if not os.path.isfile(p)]
        if missing:
            raise SystemExit('suite_times: no such run: %s'
                             % ', '.join(missing))
        with open(argv[1], 'w') as f:
            json.dump(refresh(times, argv[2:]), f, indent=1, sort_keys=True)
            f.write('\n')
    except SystemExit as exc:
        sys.stderr.write('%s\n' % exc)
        return 2
    except OSError as exc:
        sys.stderr.write('suite_times: %s\n' % exc)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
