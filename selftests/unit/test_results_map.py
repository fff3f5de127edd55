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

"""deployment-map.html on recorded runs: self-contained, every fact
there, a failure marked with a symbol and a word; and the CLI."""

import fcntl
import html
import io
import json
import os
import re
import stat
import subprocess
import sys
import threading
from unittest import mock

import fixtures
import testtools

from glance_multiapi_tests.results import cli
from glance_multiapi_tests.results.runmap import deployment_map
from glance_multiapi_tests.results.runmap import model
from glance_multiapi_tests.results.runmap import publish
from glance_multiapi_tests.results.runmap import records
from selftests.unit import recorded_runs as runs


def text_of(page):
    """The page's words, tags dropped and entities decoded."""
    return ' '.join(html.unescape(re.sub(r'<[^>]+>', ' ', page)).split())


class MapTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.dir = self.useFixture(fixtures.TempDir()).path

    def page(self):
        found, problems = records.read(self.dir)
        return deployment_map.render(model.build(
            found, problems=problems, outcomes=runs.outcomes(self.dir)))

    def test_nothing_is_fetched_or_run(self):
        runs.healthy(self.dir)
        page = self.page()
        self.assertNotIn('<script', page)
        self.assertNotIn('<link', page)
        self.assertNotIn('<img', page)
        self.assertNotIn('@import', page)
        self.assertEqual([], re.findall(r'\b(?:src|href)=', page))
        # NOTE: the one url() is the arrow marker, inside the page.
        self.assertEqual(['url(#arrow)'], re.findall(r'url\([^)]*\)', page))
        self.assertEqual(1, page.count('<svg'))

    def test_every_api_url_and_figure_is_on_the_page(self):
        runs.healthy(self.dir)
        text = text_of(self.page())
        for name in ('api0', 'api1', 'edge1'):
            self.assertIn('API %s' % name, text)
        # NOTE: api0's public URL is its route's (the keystoneEndpoint).
        urls = [u for k, u in runs.URLS.items() if k != ('api0', 'public')]
        for url in urls + [runs.ROUTE0, runs.ROUTE1]:
            self.assertIn(url, text)
        self.assertIn('openstack/glance', text)
        self.assertIn('keystoneEndpoint: api0', text)
        self.assertIn('default store ceph1 (rbd)', text)
        self.assertIn('80.5 MiB/s', text)
        self.assertIn('glance_multiapi_switchover_convergence_seconds{'
                      'from_api="api0",interface="public",to_api="api1"}',
                      text)
        self.assertIn('\u2714 no element failed', text)

    def test_failed_element_stands_out_with_test_and_message(self):
        runs.api_down(self.dir)
        page = self.page()
        text = text_of(page)
        self.assertIn('\u2718 3 FAILED element(s)', text)
        self.assertIn('api1 public endpoint %s : api1 public '
                      'https://127.0.0.1:20003: TCP: [Errno 111] Connection '
                      'refused' % runs.full(runs.ENDPOINTS), text)
        # NOTE: the diagram marks the line itself and its box.
        self.assertIn('class="box fail"', page)
        self.assertIn('<g class="badge fail">', page)
        self.assertIn('\u2718 FAILED', text)
        # NOTE: under the line, wrapped: the test and its message.
        why = ' '.join(html.unescape(part) for part in re.findall(
            r'<text [^>]*class="why fail"><title>[^<]*</title>([^<]*)</text>',
            page))
        self.assertIn('ImageEndpointsTest.test_image_endpoints_answer: api1 '
                      'public https://127.0.0.1:20003: TCP: [Errno 111] '
                      'Connection refused', why)

    def test_killed_run_says_so(self):
        runs.killed(self.dir)
        text = text_of(self.page())
        self.assertIn('STOPPED EARLY', text)
        self.assertIn('\u25cb NOT RUN', text)
        self.assertIn('\u26a0 UNFINISHED', text)
        self.assertIn('the run never reached it', text)

    def test_words_from_records_are_escaped(self):
        rec = runs.worker(self.dir, pid=1)
        runs.start(rec, runs.ONE_SERVICE)
        runs.end(rec, runs.ONE_SERVICE, 'failed', '<script>alert(1)'
                 '</script> & more')
        runs.stream(self.dir)
        page = self.page()
        self.assertNotIn('<script>', page)
        self.assertIn('&lt;script&gt;alert(1)&lt;/script&gt; &amp; more',
                      page)

    def test_failed_test_that_marked_no_element_is_named(self):
        rec = runs.worker(self.dir, pid=1, scheduled=[runs.OWNERSHIP])
        runs.start(rec, runs.OWNERSHIP, elements=['keystone_endpoint'])
        runs.verdict(rec, runs.OWNERSHIP, 'keystone_endpoint', 'passed')
        runs.end(rec, runs.OWNERSHIP, 'failed', 'undoing the switch failed')
        rec.write('worker-end')
        runs.stream(self.dir)
        text = text_of(self.page())
        self.assertIn('\u2718 1 FAILED test(s) that marked no element', text)
        self.assertIn('%s : undoing the switch failed' % runs.full(
            runs.OWNERSHIP), text)

    def test_damaged_records_are_named_on_the_map(self):
        runs.healthy(self.dir)
        with open(os.path.join(records.folder_of(self.dir), 'x.jsonl'),
                  'w') as f:
            f.write('garbage\n')
        self.assertIn('record problem: x.jsonl line 1 is not a JSON '
                      'record', text_of(self.page()))


class PublishTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.dir = self.useFixture(fixtures.TempDir()).path

    def test_rebuild_writes_four_files_and_no_temporary_one(self):
        runs.healthy(self.dir)
        _facts, written = runs.rebuild(self.dir)
        self.assertEqual(sorted(publish.OUTPUTS),
                         sorted(os.path.basename(p) for p in written))
        left = [n for n in os.listdir(self.dir) if n.startswith('.')]
        self.assertEqual([], left)
        for path in written:
            self.assertEqual(0o644, stat.S_IMODE(os.stat(path).st_mode))

    def test_failed_write_keeps_the_old_file(self):
        runs.healthy(self.dir)
        runs.rebuild(self.dir)
        path = os.path.join(self.dir, 'metrics.prom')
        with open(path) as f:
            before = f.read()
        with mock.patch.object(publish.metrics, 'to_prom',
                               side_effect=RuntimeError('boom')):
            self.assertRaises(RuntimeError, runs.rebuild, self.dir)
        with open(path) as f:
            self.assertEqual(before, f.read())


class OutDirLockTest(testtools.TestCase):
    """Two rebuilds into one OUT_DIR: each one's four files, never a mix."""

    def setUp(self):
        super().setUp()
        root = self.useFixture(fixtures.TempDir()).path
        self.out = os.path.join(root, 'out')
        self.first = os.path.join(root, 'first')
        self.second = os.path.join(root, 'second')
        runs.healthy(self.first)
        runs.api_down(self.second)

    def test_second_run_waits_until_the_first_has_written_all(self):
        order = []
        second_wrote = threading.Event()
        first_started = threading.Event()
        real = publish.write_atomically

        def write(path, text):
            run = threading.current_thread().name
            order.append(run)
            if run == 'first':
                first_started.set()
                # NOTE: without the lock the second run writes now, and
                # the first then overwrites part of what it wrote; with
                # it, this wait runs out and the second run waits.
                second_wrote.wait(3)
            real(path, text)
            if run == 'second':
                second_wrote.set()

        self.patch(publish, 'write_atomically', write)
        threads = {name: threading.Thread(
            target=runs.rebuild, args=(folder,), kwargs={'out_dir': self.out},
            name=name)
            for name, folder in (('first', self.first),
                                 ('second', self.second))}
        threads['first'].start()
        self.assertTrue(first_started.wait(60))
        threads['second'].start()
        for thread in threads.values():
            thread.join(120)
        self.assertEqual(['first'] * 4 + ['second'] * 4, order)
        expected = runs.rebuild(self.second)[0]
        self.assertNotEqual(runs.rebuild(self.first)[0]['counts'],
                            expected['counts'])
        with open(os.path.join(self.out, 'metrics.json')) as f:
            metrics = json.load(f)
        with open(os.path.join(self.out, 'deployment-map.json')) as f:
            facts = json.load(f)
        self.assertEqual(expected['counts'], metrics['tests'])
        self.assertEqual(expected['counts'], facts['counts'])

    def test_a_stuck_holder_is_named_after_the_timeout(self):
        os.makedirs(self.out)
        holder = os.open(self.out, os.O_RDONLY)
        self.addCleanup(os.close, holder)
        fcntl.flock(holder, fcntl.LOCK_EX)
        with publish.out_dir_lock(self.first, timeout=1):
            pass
        error = self.assertRaises(publish.PublishError, self._locked, 0.3)
        self.assertIn('another glance-multiapi-report run', str(error))
        fcntl.flock(holder, fcntl.LOCK_UN)
        self._locked(0.3)

    def _locked(self, timeout):
        with publish.out_dir_lock(self.out, timeout=timeout):
            return True


class CliTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.dir = self.useFixture(fixtures.TempDir()).path
        self.out = self.useFixture(fixtures.StringStream('stdout')).stream
        self.err = self.useFixture(fixtures.StringStream('stderr')).stream
        self.useFixture(fixtures.MonkeyPatch('sys.stdout', self.out))
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', self.err))

    def lines(self, stream):
        stream.seek(0)
        return stream.read().splitlines()

    def test_writes_the_four_files_elsewhere(self):
        runs.api_down(self.dir)
        out = os.path.join(self.dir, 'out')
        self.assertEqual(0, cli.main([records.folder_of(self.dir), out]))
        self.assertEqual(sorted(publish.OUTPUTS), sorted(os.listdir(out)))
        lines = self.lines(self.out)
        self.assertEqual(2, len(lines))
        self.assertIn('3 failed element(s); complete', lines[1])

    def test_no_records_is_one_line_exit_22(self):
        self.assertEqual(22, cli.main([os.path.join(self.dir, 'none')]))
        self.assertEqual(['glance-multiapi-report: %s holds no records (no '
                          'glance-multiapi-records folder)' % os.path.join(
                              self.dir, 'none')], self.lines(self.err))
        os.makedirs(records.folder_of(self.dir))
        self.assertEqual(22, cli.main([self.dir]))

    def test_unwritable_output_is_exit_23(self):
        runs.healthy(self.dir)
        blocker = os.path.join(self.dir, 'blocker')
        open(blocker, 'w').close()
        self.assertEqual(23, cli.main([self.dir, os.path.join(blocker,
                                                              'out')]))
        (line,) = self.lines(self.err)
        self.assertIn('cannot make %s/out' % blocker, line)

    def test_version_and_usage(self):
        with testtools.ExpectedException(SystemExit, '0'):
            cli.main(['--version'])
        self.assertIn('glance-multiapi-report ', self.lines(self.out)[0])
        with testtools.ExpectedException(SystemExit, '2'):
            cli.main([])
        self.assertEqual(['glance-multiapi-report: error: the following '
                          'arguments are required: PATH (see '
                          '--help)'], self.lines(self.err))

    def test_help_lists_exit_codes(self):
        stream = io.StringIO()
        cli.build_parser().print_help(stream)
        for code in (0, 2, 22, 23, 70):
            self.assertRegex(stream.getvalue(), r'\n +%d  ' % code)

    def test_needs_neither_tempest_nor_oslo(self):
        # NOTE: the podified jobs rebuild maps on a controller that has
        # the source tree and a venv of python-subunit, testtools and pbr.
        code = ('import sys; import glance_multiapi_tests.results.cli; '
                'print(sorted({m.split(".")[0] for m in sys.modules} & '
                '{"tempest", "oslo_config", "oslo_log", "prometheus_client", '
                '"requests", "yaml"}))')
        out = subprocess.run([sys.executable, '-c', code], check=True,
                             capture_output=True, text=True).stdout
        self.assertEqual('[]', out.strip())
