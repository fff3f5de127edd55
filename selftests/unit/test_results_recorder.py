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

"""The recorder and the records reader: one whole line per record, in
one file per worker, nothing lost or interleaved with two writers."""

import json
import os
import subprocess
import sys
import tempfile

import fixtures
import testtools

from glance_multiapi_tests.results.runmap import publish
from glance_multiapi_tests.results.runmap import recorder
from glance_multiapi_tests.results.runmap import records
from selftests.unit import recorded_runs

WRITER = r'''
import sys
from glance_multiapi_tests.results.runmap import recorder
rec = recorder.Recorder(sys.argv[1], run='shared', label='two')
for n in range(int(sys.argv[2])):
    rec.write('test-start', test='t.%s.%d' % (sys.argv[3], n),
              checks=['x' * (n % 700)])
rec.write('worker-end')
'''


class RecorderTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.dir = self.useFixture(fixtures.TempDir()).path

    def test_one_json_line_per_record(self):
        rec = recorder.Recorder(self.dir, run='r', label='lab', pid=7,
                                clock=recorded_runs.Clock())
        self.assertTrue(rec.write('worker', scheduled=None))
        self.assertTrue(rec.write('verdict', test='a', element='glance',
                                  status='passed', message='two\nlines'))
        with open(rec.path, 'rb') as f:
            lines = f.read().split(b'\n')
        self.assertEqual(b'', lines[-1])
        first, second = [json.loads(line) for line in lines[:-1]]
        self.assertEqual({'v': 1, 'kind': 'worker', 'pid': 7, 'seq': 1,
                          'run': 'r', 'run_label': 'lab',
                          't': 1700000001.0, 'scheduled': None}, first)
        self.assertEqual(('verdict', 2, 'two\nlines'), (
            second['kind'], second['seq'], second['message']))
        self.assertEqual(os.path.join(self.dir, recorder.RECORDS_SUBDIR),
                         os.path.dirname(rec.path))

    def test_records_hold_no_secret(self):
        rec = recorder.Recorder(self.dir, run='r', label='lab', pid=7,
                                clock=recorded_runs.Clock())
        self.assertTrue(rec.write(
            'verdict', test='a', element='glance', status='failed',
            message='http://admin:Pl4nted@127.0.0.1:5000/v3 refused',
            labels={'password': 'Pl4nted'}, extra=object()))
        with open(rec.path) as f:
            text = f.read()
        self.assertNotIn('Pl4nted', text)
        self.assertIn('http://admin:***@127.0.0.1:5000/v3 refused', text)

    def test_unwritable_folder_never_raises_and_logs_once(self):
        blocker = os.path.join(self.dir, 'file')
        open(blocker, 'w').close()
        logs = self.useFixture(fixtures.FakeLogger())
        rec = recorder.Recorder(blocker)
        self.assertFalse(rec.write('worker'))
        self.assertFalse(rec.write('test-start', test='a'))
        self.assertEqual(2, rec.dropped)
        self.assertEqual(1, logs.output.count('cannot write'))
        self.assertIn('cannot write worker records to %s' % rec.path,
                      logs.output)

    def test_text_is_cut(self):
        self.assertEqual(recorder.MAX_TEXT, len(recorder.cut('x' * 10000)))
        self.assertEqual('', recorder.cut(None))

    def test_load_list_of_stestr_worker(self):
        path = os.path.join(self.dir, 'ids')
        with open(path, 'w') as f:
            f.write('a.b.C.test_one[id-1]\n\na.b.C.test_two\n')
        wanted = ['a.b.C.test_one[id-1]', 'a.b.C.test_two']
        self.assertEqual(wanted, recorder.load_list(
            ['run.py', 'discover', '--load-list', path]))
        self.assertEqual(wanted, recorder.load_list(
            ['run.py', '--load-list=%s' % path]))
        self.assertIsNone(recorder.load_list(['run.py', 'discover']))
        self.assertIsNone(recorder.load_list(
            ['run.py', '--load-list', path + '.gone']))

    def test_workers_of_one_runner_share_its_run_key(self):
        # NOTE: as stestr starts them: through /bin/sh -c.
        code = ('from glance_multiapi_tests.results.runmap import recorder; '
                'print(recorder.run_key())')
        command = '"%s" -c "%s"; true' % (sys.executable, code)
        keys = {subprocess.run(['/bin/sh', '-c', command],
                               capture_output=True, text=True,
                               check=True).stdout.strip()
                for _ in range(2)}
        self.assertEqual(1, len(keys), keys)
        self.assertTrue(keys.pop().startswith('%d-' % os.getpid()))


class RecordsReadTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.dir = self.useFixture(fixtures.TempDir()).path
        self.folder = os.path.join(self.dir, recorder.RECORDS_SUBDIR)
        os.makedirs(self.folder)

    def write(self, name, data):
        with open(os.path.join(self.folder, name), 'wb') as f:
            f.write(data)

    def test_unfinished_last_line_is_left_out_quietly(self):
        self.write('1-1.jsonl', b'{"kind": "worker", "t": 2}\n'
                                b'{"kind": "test-st')
        found, problems = records.read(self.dir)
        self.assertEqual([{'kind': 'worker', 't': 2}], found)
        self.assertEqual([], problems)

    def test_damaged_lines_are_named(self):
        self.write('1-1.jsonl', b'{"kind": "a", "t": 3}\nnot json\n'
                                b'[1, 2]\n{"t": 1}\n')
        self.write('2-1.jsonl', b'{"kind": "b", "t": 1}\n')
        found, problems = records.read(self.dir)
        self.assertEqual(['b', 'a'], [r['kind'] for r in found])
        self.assertEqual(3, len(problems))
        self.assertIn('1-1.jsonl line 2 is not a JSON record', problems[0])
        self.assertIn('1-1.jsonl line 3 is not a record', problems[1])

    def test_missing_folder(self):
        exc = self.assertRaises(records.RecordsError, records.read,
                                os.path.join(self.dir, 'nowhere'))
        self.assertIn('holds no records (no glance-multiapi-records '
                      'folder)', str(exc))


class TwoWritersTest(testtools.TestCase):
    """Two workers write at the same time; the map is built after."""

    def test_nothing_lost_or_interleaved(self):
        folder = tempfile.mkdtemp(prefix='gmt-two-writers-')
        self.addCleanup(subprocess.run, ['rm', '-rf', folder])
        count = 400
        procs = [subprocess.Popen([sys.executable, '-c', WRITER, folder,
                                   str(count), name])
                 for name in ('one', 'two')]
        self.assertEqual([0, 0], [p.wait(timeout=300) for p in procs])
        found, problems = records.read(folder)
        self.assertEqual([], problems)
        starts = [r for r in found if r['kind'] == 'test-start']
        self.assertEqual(2 * count, len(starts))
        for name in ('one', 'two'):
            mine = [r for r in starts if r['test'].startswith('t.%s.' % name)]
            self.assertEqual(list(range(1, count + 1)),
                             sorted(r['seq'] for r in mine))
            self.assertEqual(1, len({r['pid'] for r in mine}))
        self.assertEqual([recorder.RECORDS_SUBDIR], os.listdir(folder))
        facts, _ = publish.rebuild(folder)
        self.assertEqual(sorted(publish.OUTPUTS + (
            recorder.RECORDS_SUBDIR,)), sorted(os.listdir(folder)))
        self.assertEqual(2 * count, sum(facts['counts'].values()))
        self.assertTrue(facts['complete'])
        self.assertEqual(2, facts['runs'][0]['workers'])
