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

"""The results map agrees with the subunit streams of the same run.

The map is built from what the tests recorded, the streams from what
stestr reported: the same tests must have the same verdicts in both, so
that nothing the tests did was lost or doubled on the way to the map.
Also the four files are there and metrics.prom parses as Prometheus
reads it. Used by tools/check_results_map.py (the main job).
"""

import json
import os

from prometheus_client.parser import text_string_to_metric_families

from glance_multiapi_tests.results.gate import subunit_stream

PLUGIN = 'glance_multiapi_tests.tests.'
OUTPUTS = ('deployment-map.html', 'deployment-map.json', 'metrics.json',
           'metrics.prom')
# subunit_stream' outcome -> the map's verdict.
VERDICTS = {'pass': 'passed', 'fail': 'failed', 'skip': 'skipped',
            'error': 'unfinished'}


def bare(test_id):
    return test_id.split('[', 1)[0]


def stream_verdicts(tests):
    """({bare id: verdict}, {class: verdict}) of a stream's plugin tests.

    A class whose setUpClass failed or skipped is one result named
    'setUpClass (module.Class)'; the map gives each of its tests that
    verdict.
    """
    tests_v, classes = {}, {}
    for test in tests:
        verdict = VERDICTS.get(test.outcome)
        if verdict is None:
            continue
        if test.id.startswith('setUpClass (') and test.id.endswith(')'):
            cls = test.id[len('setUpClass ('):-1]
            if cls.startswith(PLUGIN):
                classes[cls] = verdict
        elif test.id.startswith('tearDownClass (' + PLUGIN):
            tests_v[test.id] = verdict
        elif test.id.startswith(PLUGIN):
            tests_v[bare(test.id)] = verdict
    return tests_v, classes


# Statuses of a test a run did not run.
IDLE = ('not run', 'not selected', 'not checked')


def disagreements(facts, label, tests):
    """Sentences naming each test whose verdicts differ, for run label."""
    # NOTE: one workspace may hold several tempest runs (the main job runs
    # its disruptive scenarios first, then the rest), which the map labels
    # "tempest", "tempest #2"; each lists every plugin test, so the row of
    # the run that ran the test wins over the others' "not selected".
    rows = {}
    for row in facts['tests']:
        if row['run'] != label and not row['run'].startswith(label + ' #'):
            continue
        old = rows.get(row['bare'])
        if old is None or old['status'] in IDLE and row['status'] not in IDLE:
            rows[row['bare']] = row
    if not rows:
        return ['the map has no run %r (runs: %s)' % (
            label, ', '.join(r['label'] for r in facts['runs']) or 'none')]
    by_test, by_class = stream_verdicts(tests)
    problems = []
    for test_id, verdict in sorted(by_test.items()):
        row = rows.get(test_id)
        if row is None:
            problems.append('%s: %s in the stream, not on the map (run '
                            '%s)' % (test_id, verdict, label))
        elif row['status'] != verdict:
            problems.append('%s: %s in the stream, %s on the map (run %s)'
                            % (test_id, verdict, row['status'], label))
    for test_id, row in sorted(rows.items()):
        cls = test_id.rsplit('.', 1)[0]
        if test_id in by_test or row['status'] in ('not run',):
            continue
        if cls in by_class:
            if row['status'] != by_class[cls]:
                problems.append('%s: its class is %s in the stream, the test '
                                'is %s on the map (run %s)' % (
                                    test_id, by_class[cls], row['status'],
                                    label))
            continue
        problems.append('%s: %s on the map, not in the stream (run %s)' % (
            test_id, row['status'], label))
    return problems


def check(results_dir, streams):
    """(problems, summary) of the map in results_dir against streams.

    :param streams: [(run label, subunit path)].
    """
    missing = [n for n in OUTPUTS
               if not os.path.isfile(os.path.join(results_dir, n))]
    if missing:
        return (['%s lacks %s' % (results_dir, ', '.join(missing))],
                'no map')
    documents = {}
    for name in ('deployment-map.json', 'metrics.json'):
        try:
            with open(os.path.join(results_dir, name)) as f:
                documents[name] = json.load(f)
        except (OSError, ValueError) as exc:
            return (['%s cannot be read: %s' % (name, exc)], 'bad map')
    facts = documents['deployment-map.json']
    with open(os.path.join(results_dir, 'metrics.prom')) as f:
        try:
            families = list(text_string_to_metric_families(f.read()))
        except ValueError as exc:
            return (['metrics.prom does not parse: %s' % exc], 'bad prom')
    problems = []
    if not facts.get('complete'):
        problems.append('the map says a run stopped early: %s' % ', '.join(
            r['label'] for r in facts['runs'] if not r['complete']))
    compared = 0
    for label, path in streams:
        tests = subunit_stream.read_tests(path)
        compared += len(stream_verdicts(tests)[0])
        problems.extend(disagreements(facts, label, tests))
    return problems, ('%d test result(s) of %d stream(s) agree with the '
                      'map; %d figure(s); metrics.prom: %d families' % (
                          compared, len(streams), len(facts['figures']),
                          len(families)))
