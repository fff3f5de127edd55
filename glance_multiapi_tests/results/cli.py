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

"""glance-multiapi-report: the map and metrics of a run, and the verdict.

Given the records folder, it builds the deployment map and the metrics
from the records and the run's subunit streams, once the run has ended
(the runners and the podified jobs' post step run it then);
given a subunit stream (tempest_results.subunit), it prints the verdict
a gate needs: the counts, the failed tests and, with --require, each
required group of tests that did not run. With --baseline (an earlier
run's metrics.json) it compares the figures with that run's and names
each one that regressed beyond its tolerance (comparison.py).
"""

import argparse
import os
import sys

from glance_multiapi_kernel import errors
from glance_multiapi_kernel import interrupts
from glance_multiapi_kernel import redaction
from glance_multiapi_kernel import version
from glance_multiapi_tests.results.gate import required_groups
from glance_multiapi_tests.results.gate import verdict
from glance_multiapi_tests.results.runmap import comparison
from glance_multiapi_tests.results.runmap import metrics
from glance_multiapi_tests.results.runmap import outcomes as outcomes_mod
from glance_multiapi_tests.results.runmap import publish
from glance_multiapi_tests.results.runmap import recorder
from glance_multiapi_tests.results.runmap import records

PROG = 'glance-multiapi-report'
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_REGRESSED, EXIT_NO_RECORDS, \
    EXIT_WRITE, EXIT_INTERNAL = (0, 1, 2, 3, 22, 23, 70)
EXIT_CODES = (
    (EXIT_OK, 'the four files were written (whatever the tests\' '
              'verdicts: they are in the files); for a subunit stream: '
              'tests ran, none failed, and every required group ran'),
    (EXIT_FAILED, 'a subunit stream\'s verdict is red: a test failed, no '
                  'test ran, or a required group did not run (each said '
                  'in a FAILED: line)'),
    (EXIT_USAGE, 'usage error (an unknown group or figure among them; a '
                 'relative PATH or OUT_DIR when the working folder no '
                 'longer exists)'),
    (EXIT_REGRESSED, 'with --fail-on-regression: a figure regressed '
                     'beyond its tolerance against --baseline (each said '
                     'in a REGRESSED: line; the files were written)'),
    (EXIT_NO_RECORDS, 'PATH holds no records (missing, not a folder, no '
                      '%s folder or an unreadable one, or no record in it '
                      'that can be used: each one left out is named in the '
                      'map\'s problems, a records file that is not a '
                      'regular file or larger than 64 MiB too), or a '
                      'subunit stream (PATH or --subunit) cannot be read '
                      'whole: not a regular file, not subunit v2, or '
                      'damaged (cut short, altered: the file and the byte '
                      'offset are named, the tests read before it still '
                      'listed), or the --baseline (or PATH\'s '
                      'metrics.json) cannot be read or is no metrics.json '
                      '(a URL that does not answer in full within '
                      '--baseline-timeout, or answers what is not HTTP, '
                      'too)'
                      % recorder.RECORDS_SUBDIR),
    (EXIT_WRITE, 'an output could not be written (OUT_DIR cannot be made: '
                 'a regular file, a path under one, a symlink loop; or '
                 'another run held it for 300 s)'),
    (EXIT_INTERNAL, 'internal error'),
    (interrupts.EXIT_INTERRUPTED, 'interrupted (SIGINT); a file being '
                                  'written is removed, none is left half '
                                  'written'),
    (interrupts.EXIT_TERMINATED, 'terminated (SIGTERM), the same way'),
)

DESCRIPTION = """\
Build deployment-map.html, deployment-map.json, metrics.json and
metrics.prom once a run has ended, from the records the plugin's tests
wrote while they ran, one JSON-lines file per worker in
  PATH/%s/
and the run's subunit streams, which say how each test ended (--subunit;
by default test-operator's, when it is there:
  PATH/%s).
The tests write records only: the runners run this after tempest.
Without a stream (a run killed part way leaves none) the map shows what
the tests' checks judged, the test each worker was in when it stopped
and what they never reached. Nothing is asked of the deployment.

Given a subunit stream instead (tempest_results.subunit, from the pod's
logs volume), it prints one FAILED: line per failed test and per required
group (--require) none of whose tests ran, then "N passed, N failed, N
skipped", and exits 1 unless the run is green: a gate that needs, say, the
multi-API and uploader checks to have run uses
  glance-multiapi-report --require multiapi,uploader tempest_results.subunit
Groups: %s.

Given --baseline (the metrics.json of an earlier run, e.g. the last green
one: a file or an http(s) URL), it compares this run's figures with the
baseline's of the same name and labels, prints one REGRESSED: line per
figure that got worse by more than its tolerance (both values and the
ratio) and a count, and the map shows the comparison; with
--fail-on-regression a regression exits 3. PATH may then also be a
metrics.json, to compare two runs without rebuilding anything:
  glance-multiapi-report --baseline last-green/metrics.json \\
      --fail-on-regression results/metrics.json
A figure regresses when it is more than FACTOR times worse (a duration
longer, a rate lower) and the change is larger than the figure's noise:
%s
""" % (recorder.RECORDS_SUBDIR, outcomes_mod.TEST_OPERATOR_STREAM,
       ', '.join(sorted(required_groups.GROUPS)),
       '\n'.join('  %-30s x%g, noise %s' % (
           key, figure.tolerance, metrics.display(key, figure.noise))
           for key, figure in sorted(metrics.FIGURES.items())))


def _say(text, stream=None):
    """Print one line of the report, with no secret in it."""
    print(redaction.text(str(text)), file=stream or sys.stdout)


def build_parser():
    p = errors.OneLineParser(
        prog=PROG, description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog='exit codes:\n' + errors.exit_code_table(EXIT_CODES))
    p.add_argument('path', metavar='PATH',
                   help='the folder holding %s/ (tempest\'s log_dir, or '
                        '[glance_multiapi] results_dir), or that records '
                        'folder itself; or a subunit stream to judge'
                        % recorder.RECORDS_SUBDIR)
    p.add_argument('out_dir', metavar='OUT_DIR', nargs='?',
                   help='where to write the four files (default: the '
                        'records\' folder PATH)')
    p.add_argument('--subunit', metavar='[LABEL=]STREAM', action='append',
                   default=[],
                   help='the subunit stream of a run of the records, '
                        'whose verdicts the map then shows: LABEL is the '
                        'run\'s name on the map (the folder of its tempest '
                        'workspace; one stream holds every run of one '
                        'workspace), left out when the records name one; '
                        'a LABEL no record names is a run of its own, '
                        'from its stream alone; repeat it for more runs '
                        '(default: %s in PATH, when there)' % (
                            outcomes_mod.TEST_OPERATOR_STREAM))
    p.add_argument('--require', metavar='GROUPS', default='',
                   help='comma-separated groups of tests that must have '
                        'run (passed or failed, not all skipped) in the '
                        'subunit stream PATH; one that did not is a '
                        'failure naming its skip reasons')
    p.add_argument('--baseline', metavar='METRICS_JSON',
                   help='the metrics.json of an earlier run (a path or an '
                        'http(s) URL) to compare this run\'s figures with')
    p.add_argument('--baseline-timeout', metavar='SECONDS',
                   type=errors.positive_seconds,
                   default=comparison.URL_TIMEOUT,
                   help='the most seconds fetching a --baseline URL may '
                        'take, from connect to its last byte (default: '
                        '%(default)g)')
    p.add_argument('--tolerance', metavar='FIGURE=FACTOR', action='append',
                   default=[],
                   help='how many times worse FIGURE (a name of the list '
                        'above, with or without %s) may be than the '
                        'baseline\'s before it counts as regressed; '
                        'repeat it for more figures (default: each '
                        'figure\'s own, listed above)' % metrics.PREFIX)
    p.add_argument('--fail-on-regression', action='store_true',
                   help='exit %d when a figure regressed against '
                        '--baseline' % EXIT_REGRESSED)
    p.add_argument('-q', '--quiet', action='store_true',
                   help='print nothing on success')
    version.add_option(p)
    return p


def _summary(facts):
    counts = facts.get('counts') or {}
    failed = [e for e in facts['elements'] if e['status'] == 'failed']
    return '%d test result(s) (%s); %d failed element(s); %s' % (
        sum(counts.values()), ', '.join(
            '%d %s' % (n, s) for s, n in sorted(counts.items())) or 'none',
        len(failed), 'complete' if facts.get('complete') else
        'STOPPED EARLY (or still running)')


def judge(args, required):
    """Print the verdict of the subunit stream args.path; its exit code."""
    if args.out_dir:
        raise errors.CliError('%s: OUT_DIR is for a records folder; %s is '
                              'a subunit stream' % (PROG, args.path),
                              EXIT_USAGE)
    if args.baseline:
        raise errors.CliError('%s: --baseline compares figures: give the '
                              'records folder or its metrics.json, not the '
                              'subunit stream %s' % (PROG, args.path),
                              EXIT_USAGE)
    try:
        result = verdict.judge(verdict.read([args.path]), required)
    except verdict.VerdictError as exc:
        raise errors.CliError('%s: %s' % (PROG, exc), EXIT_NO_RECORDS)
    for line in result.failure_lines():
        _say(line)
    if not (result.passed or result.failed):
        _say('FAILED: no test result in %s' % args.path)
    _say(result.summary())
    if result.damaged:
        # NOTE: what was read is above; the stream was not read whole, so
        # no verdict of it can pass, and stderr says where it broke.
        sys.stdout.flush()
        raise errors.CliError('%s: %s' % (PROG, result.damaged[0]),
                              EXIT_NO_RECORDS)
    return EXIT_OK if result.ok else EXIT_FAILED


def _outcomes(args, results_dir):
    """{run label or None: Outcomes} of --subunit, or of test-operator's."""
    given = list(args.subunit)
    default = os.path.join(results_dir, outcomes_mod.TEST_OPERATOR_STREAM)
    if not given and os.path.isfile(default):
        given = [default]
    found = {}
    for item in given:
        label, sep, path = item.rpartition('=')
        if not sep or not label or os.path.isfile(item):
            label, path = None, item
        if label in found:
            raise errors.CliError('%s: --subunit: two streams for %s' % (
                PROG, label or 'the only run'), EXIT_USAGE)
        try:
            found[label] = outcomes_mod.read(path)
        except outcomes_mod.OutcomesError as exc:
            raise errors.CliError('%s: %s' % (PROG, exc), EXIT_NO_RECORDS)
    return found


def _baseline(args):
    """{'source', 'figures', 'tolerances'} of --baseline, or None."""
    try:
        tolerances = comparison.parse_tolerances(args.tolerance)
    except ValueError as exc:
        raise errors.CliError('%s: --tolerance %s' % (PROG, exc),
                              EXIT_USAGE)
    if not args.baseline:
        if args.tolerance or args.fail_on_regression:
            raise errors.CliError('%s: --tolerance and --fail-on-'
                                  'regression need --baseline' % PROG,
                                  EXIT_USAGE)
        return None
    try:
        figures = comparison.load(args.baseline, args.baseline_timeout)
    except comparison.BaselineError as exc:
        raise errors.CliError('%s: %s' % (PROG, exc), EXIT_NO_RECORDS)
    return {'source': redaction.url(args.baseline), 'figures': figures,
            'tolerances': tolerances}


def _report_comparison(args, rows, source):
    """Print the comparison; the exit code it asks for."""
    found = comparison.lines(rows, source)
    if not args.quiet or comparison.regressed(rows):
        for line in found:
            _say(line)
    if args.fail_on_regression and comparison.regressed(rows):
        return EXIT_REGRESSED
    return EXIT_OK


def compare_files(args, baseline):
    """PATH is a metrics.json: compare it with the baseline, write none."""
    if args.out_dir or args.subunit or baseline is None:
        raise errors.CliError(
            '%s: %s is a metrics.json: it is compared with --baseline '
            '(needed) and nothing is written (no OUT_DIR, no --subunit)' % (
                PROG, args.path), EXIT_USAGE)
    try:
        figures = comparison.load(args.path)
    except comparison.BaselineError as exc:
        raise errors.CliError('%s: %s' % (PROG, str(exc).replace(
            'baseline ', 'metrics ', 1)), EXIT_NO_RECORDS)
    rows = comparison.compare(figures, baseline['figures'],
                              baseline['tolerances'])
    return _report_comparison(args, rows, baseline['source'])


def run(args):
    try:
        required = required_groups.parse(args.require)
    except ValueError as exc:
        raise errors.CliError('%s: --require: %s' % (PROG, exc), EXIT_USAGE)
    if os.path.isfile(args.path) and args.path.endswith('.json'):
        return compare_files(args, _baseline(args))
    if os.path.exists(args.path) and not os.path.isdir(args.path):
        # NOTE: a FIFO or a device is a stream given by mistake, refused
        # as such (verdict.read), not a records folder that is missing.
        return judge(args, required)
    if required:
        raise errors.CliError(
            '%s: --require judges a subunit stream (e.g. '
            'tempest_results.subunit); %s is not a file' % (PROG, args.path),
            EXIT_USAGE)
    results_dir = os.path.abspath(args.path)
    if os.path.basename(results_dir) == recorder.RECORDS_SUBDIR:
        results_dir = os.path.dirname(results_dir)
    baseline = _baseline(args)
    found, problems = records.read(results_dir)
    if not found:
        raise errors.CliError('%s: no record in %s%s' % (
            PROG, records.folder_of(results_dir),
            ' (%s)' % problems[0] if problems else ''), EXIT_NO_RECORDS)
    outcomes = _outcomes(args, results_dir)
    if args.out_dir:
        # NOTE: once every input was read (a refusal leaves no folder),
        # before the plugin is imported.
        publish.make_out_dir(args.out_dir)
    tests = None
    if not any(r['kind'] == 'inventory' for r in found):
        try:
            from glance_multiapi_tests.results.runmap import inventory
            tests = inventory.plugin_tests()
        except Exception:  # noqa: B902 - tests then show as recorded only
            tests = None
    facts, written = publish.rebuild(results_dir, args.out_dir,
                                     tests=tests, outcomes=outcomes,
                                     baseline=baseline)
    if not args.quiet:
        _say('%s: wrote %s' % (PROG, ', '.join(written)))
        _say('%s: %s' % (PROG, _summary(facts)))
    if baseline is None:
        return EXIT_OK
    return _report_comparison(args, facts['comparison']['rows'],
                              baseline['source'])


def main(argv=None):
    # NOTE: SIGINT and SIGTERM end it in one line, exit 130 or 143; the
    # file being written is removed (publish.write_atomically).
    with interrupts.ending_cleanly(PROG) as ended:
        return _main(build_parser().parse_args(argv))
    return ended['code']


def _main(args):
    try:
        return run(args)
    except errors.CliError as exc:
        _say(exc.message, sys.stderr)
        return exc.exit_code
    except records.RecordsError as exc:
        _say('%s: %s' % (PROG, exc), sys.stderr)
        return EXIT_NO_RECORDS
    except publish.PublishError as exc:
        _say('%s: %s' % (PROG, exc), sys.stderr)
        return EXIT_WRITE
    except Exception as exc:  # noqa: B902 - one line, never a traceback
        gone = errors.working_folder_problem()
        if gone:
            _say('%s: %s' % (PROG, gone), sys.stderr)
            return EXIT_USAGE
        _say('%s: internal error: %s: %s' % (PROG, type(exc).__name__,
                                             errors.one_line(exc)),
             sys.stderr)
        return EXIT_INTERNAL


if __name__ == '__main__':
    sys.exit(main())
