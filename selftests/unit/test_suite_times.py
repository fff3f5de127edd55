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

"""tools/suite_times.py and tools/stage-timer.sh, on real stestr/bash."""

import io
import json
import os
import subprocess
import sys

import fixtures
import testtools

from glance_multiapi_tests.results.gate import subunit_stream
from selftests.unit import synthetic_subunit

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), '..',
                                     '..'))
TOOL = os.path.join(REPO, 'tools', 'suite_times.py')
sys.path.insert(0, os.path.join(REPO, 'tools'))
import suite_times  # noqa: E402


class SuiteTimesTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.dir = self.useFixture(fixtures.TempDir()).path

    def path(self, name):
        return os.path.join(self.dir, name)

    def test_seed_gives_each_test_its_duration(self):
        out = io.BytesIO()
        suite_times.seed({'p.C.test_a[id-1]': 12.5, 'p.C.test_b': 0.3}, out)
        with open(self.path('s'), 'wb') as f:
            f.write(out.getvalue())
        tests = {t.id: (t.outcome, round(t.duration, 1))
                 for t in subunit_stream.read_tests(self.path('s'))}
        self.assertEqual({'p.C.test_a[id-1]': ('pass', 12.5),
                          'p.C.test_b': ('pass', 0.3)}, tests)

    def test_slowest_across_streams_without_attributes(self):
        for name, times in (('functional.subunit', {'f.T.test_a': 90.0,
                                                    'f.T.test_b': 1.0}),
                            ('unit.subunit', {'u.T.test_c[id-1]': 5.0})):
            with open(self.path(name), 'wb') as out:
                suite_times.seed(times, out)
        found = suite_times.slowest(2, [self.path('functional.subunit'),
                                        self.path('unit.subunit'),
                                        self.path('absent.subunit')])
        self.assertEqual([('functional', 'f.T.test_a'),
                          ('unit', 'u.T.test_c')],
                         [(stream, test) for _s, stream, test in found])
        self.assertEqual(90.0, round(found[0][0], 1))

    def test_seeded_repository_knows_the_times(self):
        # NOTE: what run-suite.sh does: stestr load, and stestr's own
        # scheduler then reads the durations back.
        with open(self.path('times.json'), 'w') as f:
            json.dump({'p.C.test_a': 30.0}, f)
        self.assertEqual(0, subprocess.call(
            [sys.executable, TOOL, 'seed', self.path('times.json'),
             self.path('seed.subunit')]))
        stestr = os.path.join(os.path.dirname(sys.executable), 'stestr')
        with open(self.path('seed.subunit'), 'rb') as f:
            subprocess.run([stestr, 'load', '--force-init', '--subunit'],
                           stdin=f, cwd=self.dir, check=True,
                           capture_output=True)
        from stestr.repository import file as repo_file
        repo = repo_file.RepositoryFactory().open(self.dir)
        self.assertEqual({'p.C.test_a': 30.0},
                         {k: round(v, 1) for k, v in repo.get_test_times(
                             ['p.C.test_a'])['known'].items()})

    def test_refresh_keeps_old_figure_of_a_failed_test_and_drops_gone(self):
        stream = synthetic_subunit.stream(('p.C.test_a', 'success'),
                                          ('p.C.test_b', 'fail'))
        with open(self.path('run.subunit'), 'wb') as f:
            f.write(stream)
        with open(self.path('times.json'), 'w') as f:
            json.dump({'p.C.test_b': 7.0, 'p.C.gone': 9.0}, f)
        self.assertEqual(0, subprocess.call(
            [sys.executable, TOOL, 'refresh', self.path('times.json'),
             self.path('run.subunit')]))
        with open(self.path('times.json')) as f:
            times = json.load(f)
        self.assertEqual({'p.C.test_b': 7.0}, {
            k: v for k, v in times.items() if k != 'p.C.test_a'})
        self.assertIn('p.C.test_a', times)

    def test_bad_input_is_one_line_and_2(self):
        with open(self.path('times.json'), 'w') as f:
            f.write('[1, 2]')
        proc = subprocess.run([sys.executable, TOOL, 'seed',
                               self.path('times.json'), self.path('x')],
                              capture_output=True, text=True)
        self.assertEqual(2, proc.returncode)
        self.assertEqual(['suite_times: %s is not a {test id: seconds} '
                          'object' % self.path('times.json')],
                         proc.stderr.splitlines())

    def test_committed_times_name_plugin_tests(self):
        with open(os.path.join(REPO, 'tools', 'suite-times.json')) as f:
            times = json.load(f)
        self.assertGreater(len(times), 20)
        self.assertTrue(all(k.startswith('glance_multiapi_tests.tests.')
                            for k in times), sorted(times)[:3])


class StageTimerTest(testtools.TestCase):

    def test_table_lists_stages_and_wall_time(self):
        results = self.useFixture(fixtures.TempDir()).path
        script = ('. "%s"; stage_begin "set-up"; stage_begin "cloud up"; '
                  'stage_record "  a pass" 12.34; stage_table "main job"'
                  % os.path.join(REPO, 'tools', 'stage-timer.sh'))
        proc = subprocess.run(['bash', '-c', script], capture_output=True,
                              text=True, env=dict(os.environ,
                                                  RESULTS=results))
        self.assertEqual(0, proc.returncode, proc.stderr)
        lines = proc.stdout.splitlines()
        self.assertEqual('== main job (seconds)', lines[0])
        # NOTE: a part recorded while a stage runs is listed after it.
        self.assertEqual(['set-up', 'cloud', 'a', 'wall', 'cores'],
                         [line.split()[0] for line in lines[1:]])
        self.assertEqual('12.3', lines[3].split()[-1])
        # NOTE: how busy the machine was, a share of its cores' time.
        self.assertRegex(lines[5], r'^cores busy \(whole machine\) +'
                         r'[0-9]+ %$')
        with open(os.path.join(results, 'timings.txt')) as f:
            self.assertEqual(proc.stdout, f.read())

    def test_cpu_of_a_stage_counts_its_detached_processes(self):
        # NOTE: a detached child (setsid, not waited for) burns CPU after
        # its stage's shell ended: the stage's cgroup still counts it, and
        # one still running when the group closes is named and moved out.
        # NOTE: the child says when it has burnt its CPU by writing its
        # pid: the ticks of /proc/PID/stat's utime alone may stay below
        # the 0.5 s it burns (process_time counts system time too), and
        # $! is setsid's own pid where setsid forks.
        script = (
            '. "%s"; cg=$(stage_cpu_group probe); [ -n "$cg" ] || exit 77; '
            '(stage_cpu_join "$cg"; setsid python3 child.py &); '
            'for _ in $(seq 600); do [ -s pid ] && break; sleep 0.1; done; '
            'stage_cpu_close "$cg"; kill "$(cat pid)"; '
            '[ ! -e "$cg" ] || exit 3'
            % os.path.join(REPO, 'tools', 'stage-timer.sh'))
        work = self.useFixture(fixtures.TempDir()).path
        with open(os.path.join(work, 'child.py'), 'w') as f:
            f.write('import os, time\n'
                    'end = time.process_time() + 0.5\n'
                    'while time.process_time() < end:\n'
                    '    pass\n'
                    'with open("pid.new", "w") as f:\n'
                    '    f.write(str(os.getpid()))\n'
                    'os.rename("pid.new", "pid")\n'
                    'time.sleep(120)\n')
        proc = subprocess.run(['bash', '-c', script], capture_output=True,
                              text=True, cwd=work, timeout=120)
        if proc.returncode == 77:
            self.skipTest('no cgroup can be made here (needs root and a '
                          'writable cpuacct or cgroup2 mount)')
        self.assertEqual(0, proc.returncode, proc.stderr)
        self.assertGreaterEqual(float(proc.stdout), 0.5, proc.stdout)
        self.assertIn('still running after its stage', proc.stderr)
        self.assertIn('python3 child.py', proc.stderr)


class SpeedTest(testtools.TestCase):
    """The embedded cloud's holds follow the machine's measured speed."""

    def test_holds_grow_with_a_slow_machine_above_their_floors(self):
        from glance_multiapi_cloud import speed
        quick = {'client_start': 0.8, 'cli_start': 0.4}
        slow = {'client_start': 3.1, 'cli_start': 2.2}
        self.assertEqual(speed.HOLD_FLOOR, speed.saving_hold(quick))
        self.assertEqual(speed.WAIT_FLOOR, speed.in_progress_seconds(quick))
        self.assertEqual(10, speed.saving_hold(slow))
        self.assertEqual(9, speed.in_progress_seconds(slow))

    def test_ready_timeout_grows_with_a_slow_machine_above_its_floor(self):
        from glance_multiapi_cloud import speed
        self.assertEqual(speed.READY_FLOOR,
                         speed.ready_timeout({'cli_start': 0.4}))
        self.assertEqual(132, speed.ready_timeout({'cli_start': 2.2}))
        # NOTE: a state written before speed was measured.
        self.assertEqual(speed.READY_FLOOR, speed.ready_timeout(None))
        self.assertEqual(speed.READY_FLOOR, speed.ready_timeout({}))

    def test_measure_times_real_starts(self):
        from glance_multiapi_cloud import speed
        found = speed.measure()
        self.assertEqual({'client_start', 'cli_start'}, set(found))
        self.assertTrue(all(0 < v < 120 for v in found.values()), found)


class ProfileTest(testtools.TestCase):
    """profile: a run-tests.sh results folder, side by side with another."""

    def setUp(self):
        super().setUp()
        self.dir = self.useFixture(fixtures.TempDir()).path

    def write(self, name, text):
        with open(os.path.join(self.dir, name), 'w') as f:
            f.write(text)

    def test_the_runners_queue_holds_every_other_stage_once(self):
        queued = suite_times.queue_of_runner()
        self.assertEqual('test-operator', queued[0])
        self.assertEqual(sorted(queued), sorted(
            s for s in suite_times.STAGES if s != 'functional'))

    def test_no_worker_files_no_chains(self):
        self.write('stages-worker-0.txt', '')
        self.assertEqual([], suite_times.chains_of_results(self.dir))
        self.assertIsNone(suite_times.tail({'stages': {}, 'chains': []}))

    def test_stages_taken_after_the_functional_tests_start_with_them(self):
        for name, seconds in (('functional', '500.0'), ('lint', '100.0'),
                              ('unit', '300.0'), ('coexistence', '550.0')):
            self.write(name + '.seconds', seconds)
        self.write('stages-worker-0.txt', 'coexistence\n')
        self.write('stages-worker-1.txt', 'unit\n')
        self.write(suite_times.AFTER_FUNCTIONAL, 'lint\n')
        figures = suite_times.profile(self.dir)
        self.assertIn({'stages': ['functional', 'lint'], 'seconds': 600.0},
                      figures['chains'])
        lines = suite_times.render_profile(figures)
        self.assertIn('critical path: functional + lint (600.0 s)', lines)
        self.assertEqual((100.0, 50.0), suite_times.tail(figures))

    def test_chains_that_end_first_leave_no_tail(self):
        chains = [{'stages': ['unit'], 'seconds': 800.0},
                  {'stages': ['lint'], 'seconds': 700.0}]
        self.assertEqual((0.0, 0.0), suite_times.tail(
            {'stages': {'functional': 900.0}, 'chains': chains}))
        # NOTE: alone once both the functional tests and the other chain
        # have ended.
        self.assertEqual((50.0, 50.0), suite_times.tail(
            {'stages': {'functional': 750.0}, 'chains': chains}))

    def test_the_longest_of_the_parallel_paths_is_named(self):
        for name, seconds in (('functional', '500.0'), ('lint', '100.0'),
                              ('unit', '300.0'), ('python-matrix', '200.5'),
                              ('coexistence', '550.0')):
            self.write(name + '.seconds', seconds)
        # NOTE: what each of run-tests.sh's workers ran, in order.
        self.write('stages-worker-0.txt', 'lint\nunit\npython-matrix\n')
        self.write('stages-worker-1.txt', 'coexistence\n')
        with open(os.path.join(self.dir, 'unit.subunit'), 'wb') as out:
            suite_times.seed({'p.m.C.test_a': 2.0, 'p.m.C.test_b': 3.0,
                              'p.m.D.test_c': 1.0}, out)
        figures = suite_times.profile(self.dir)
        lines = suite_times.render_profile(figures)
        self.assertIn('critical path: lint + unit + python-matrix (600.5 s)',
                      lines)
        # NOTE: the chains end at 600.5 and 550.0 s, the functional tests
        # at 500.0 s.
        self.assertIn('  %-52s %9.1f' % ('after the functional tests',
                                         100.5), lines)
        self.assertIn('  %-52s %9.1f' % ('the last chain alone at the end',
                                         50.5), lines)
        self.assertEqual({'p.m.C': [5.0, 2], 'p.m.D': [1.0, 1]},
                         figures['streams']['unit']['classes'])
        before = json.loads(json.dumps(figures))
        before['stages']['unit'] = 150.0
        del before['streams']['unit']['classes']['p.m.D']
        lines = suite_times.render_profile(figures, before)
        row = '  %-52s %9.1f %9.1f %s' % ('unit', 150.0, 300.0, '  2.00x')
        self.assertIn(row, lines)
        # NOTE: the saved chains' own sums, not the stages' now.
        self.assertIn('  %-52s %9.1f %9.1f %s' % (
            'after the functional tests', 100.5, 100.5, '  1.00x'), lines)
        self.assertIn('  %-52s %9s %9.1f %7s' % ('m.D (1)', '-', 1.0, '-'),
                      lines)

    def test_cpu_seconds_give_the_floor_of_the_wall(self):
        for name, seconds, cpu in (('functional', '500.0', '700.0'),
                                   ('unit', '300.0', '500.0')):
            self.write(name + '.seconds', seconds)
            self.write(name + '.cpu', cpu)
        figures = suite_times.profile(self.dir)
        figures['cores'] = 2
        self.assertEqual({'functional': 700.0, 'unit': 500.0},
                         figures['cpu'])
        lines = suite_times.render_profile(figures)
        self.assertIn('  %-52s %9.1f' % ('unit', 500.0), lines)
        self.assertIn('  %-52s %9.1f' % (
            'all stages / 2 cores: no shorter wall', 600.0), lines)
        # NOTE: an earlier run saved before CPU was counted has none.
        before = json.loads(json.dumps(figures))
        del before['cpu']
        lines = suite_times.render_profile(figures, before)
        self.assertIn('  %-52s %9s %9.1f %7s' % ('unit', '-', 500.0, '-'),
                      lines)

    def test_services_cpu_is_added_up_by_kind(self):
        self.write('functional.seconds', '500.0')
        self.write(suite_times.SERVICES_LOG, ''.join(
            json.dumps(item) + '\n' for item in (
                {'service': 'keystone', 'cpu': 4.0, 'seconds': 20.0},
                {'service': 'glance-api0', 'cpu': 2.0, 'seconds': 20.0},
                {'service': 'glance-edge0', 'cpu': 1.5, 'seconds': None},
                {'service': 'heat-engine~heat-engine-1a2b', 'cpu': 3.0},
                {'service': 'route-glance-api0-public', 'cpu': 0.1},
                {'service': 'keystone', 'cpu': 'lots'}, {'cpu': 1.0}, [])) +
            'not json\n')
        figures = suite_times.profile(self.dir)
        self.assertEqual({'keystone': [1, 4.0], 'glance API': [2, 3.5],
                          'heat-engine': [1, 3.0], 'route': [1, 0.1]},
                         figures['services'])
        lines = suite_times.render_profile(figures)
        at = lines.index('functional: CPU seconds of the clouds\' services '
                         '(stops), as each was stopped')
        self.assertEqual(['  %-52s %9.1f' % ('keystone (1)', 4.0),
                          '  %-52s %9.1f' % ('glance API (2)', 3.5)],
                         lines[at + 1:at + 3])
        self.assertIn('  %-52s %9.1f' % ('all services', 10.6), lines)
        before = json.loads(json.dumps(figures))
        before['services']['keystone'] = [2, 8.0]
        lines = suite_times.render_profile(figures, before)
        self.assertIn('  %-52s %9.1f %9.1f %s' % ('keystone (1)', 8.0, 4.0,
                                                  '  0.50x'), lines)

    def test_no_services_log_no_section(self):
        self.write('functional.seconds', '500.0')
        figures = suite_times.profile(self.dir)
        self.assertEqual({}, figures['services'])
        self.assertFalse([line for line in suite_times.render_profile(
            figures) if 'services' in line])

    def test_the_command_saves_and_compares(self):
        self.write('functional.seconds', '42.0')
        saved = os.path.join(self.dir, 'before.json')
        for extra in (['--save', saved], ['--against', saved]):
            proc = subprocess.run(
                [sys.executable, TOOL, 'profile', self.dir] + extra,
                capture_output=True, text=True, timeout=60)
            self.assertEqual(0, proc.returncode, proc.stderr)
        self.assertIn('1.00x', proc.stdout)
        proc = subprocess.run([sys.executable, TOOL, 'profile', '/nowhere'],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual((2, 'suite_times: profile wants one results '
                          'folder\n'), (proc.returncode, proc.stderr))
