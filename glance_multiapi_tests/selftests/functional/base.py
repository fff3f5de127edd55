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

"""Base class of the functional self-tests: one real embedded cloud.

The functional job (tools/run-functional.sh) brings one cloud up and
exports GLANCE_MULTIAPI_FUNCTIONAL_CLOUD; every test class reuses it. A
class run on its own (no such variable) brings up a private cloud and
takes it down afterwards.
"""

import configparser
import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile

import testtools

from glance_multiapi_tests.selftests import subunit_results

ENV_CLOUD = 'GLANCE_MULTIAPI_FUNCTIONAL_CLOUD'
BIN = os.path.dirname(sys.executable)


def cli_argv(state_dir, *args):
    return [os.path.join(BIN, 'glance-multiapi-cloud'), '--state-dir',
            state_dir] + list(args)


def parse_subunit(stream):
    """{test id: (status, details text)} of a subunit v2 byte stream."""
    results = {}

    def on_test(test):
        details = []
        for name, content in sorted(test['details'].items()):
            try:
                details.append('%s: %s' % (name, content.as_text()))
            except Exception:  # noqa: S110 - binary attachment, skip it
                pass
        results[test['id']] = (test['status'], '\n'.join(details))

    subunit_results.for_each_test(stream, on_test)
    return results


class CloudTestCase(testtools.TestCase):
    """A test against a running embedded cloud.

    Subclasses that need another kind of cloud set cloud_env (the variable
    naming a shared one) and up_args (extra ``up`` arguments).
    """

    state_dir = None
    _owned_dir = None
    cloud_env = ENV_CLOUD
    up_args = ()

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        shared = os.environ.get(cls.cloud_env)
        if shared:
            cls.state_dir = os.path.abspath(shared)
            return
        cls._owned_dir = tempfile.mkdtemp(prefix='gmt-functional-')
        cls.state_dir = os.path.join(cls._owned_dir, 'cloud')
        proc = subprocess.run(
            cli_argv(cls.state_dir, 'up', '-q', *cls.up_args),
            capture_output=True, text=True, timeout=600)
        if proc.returncode:
            cls._teardown_owned()
            raise RuntimeError('could not bring up a cloud (up %s): %s' % (
                ' '.join(cls.up_args), proc.stderr.strip()))

    @classmethod
    def _teardown_owned(cls):
        if cls._owned_dir:
            subprocess.run(cli_argv(cls.state_dir, 'down'),
                           capture_output=True)
            shutil.rmtree(cls._owned_dir, ignore_errors=True)
            cls._owned_dir = None

    @classmethod
    def tearDownClass(cls):
        cls._teardown_owned()
        super().tearDownClass()

    def cli(self, *args, check=False):
        """Run glance-multiapi-cloud on this cloud; CompletedProcess."""
        proc = subprocess.run(cli_argv(self.state_dir, *args),
                              capture_output=True, text=True, timeout=600)
        if check and proc.returncode:
            self.fail('glance-multiapi-cloud %s failed (%d): %s' % (
                ' '.join(args), proc.returncode, proc.stderr.strip()))
        return proc

    @contextlib.contextmanager
    def fault(self, *names):
        """Inject faults for the duration of the block, then clear them."""
        args = []
        for name in names:
            args += ['--fault', name]
        self.cli('patch', '--clear-faults', *args, check=True)
        try:
            yield
        finally:
            self.cli('patch', '--clear-faults', check=True)

    def run_tempest(self, regex, overrides=None, concurrency=1,
                    timeout=1200):
        """Run tempest on this cloud; {test id: (status, details)}.

        overrides: {group: {option: value}} applied to a copy of the
        cloud's tempest.conf, so tests can point options elsewhere.
        """
        workspace = tempfile.mkdtemp(prefix='gmt-tempest-')
        self.addCleanup(shutil.rmtree, workspace, ignore_errors=True)
        source = os.path.join(self.state_dir, 'tempest')
        shutil.copy(os.path.join(source, '.stestr.conf'), workspace)
        conf = configparser.ConfigParser(interpolation=None)
        conf.optionxform = str
        conf.read(os.path.join(source, 'etc', 'tempest.conf'))
        for group, values in (overrides or {}).items():
            if group != 'DEFAULT' and not conf.has_section(group):
                conf.add_section(group)
            for key, value in values.items():
                conf.set(group, key, str(value))
        conf.set('DEFAULT', 'log_dir', workspace)
        os.makedirs(os.path.join(workspace, 'etc'))
        conf_path = os.path.join(workspace, 'etc', 'tempest.conf')
        with open(conf_path, 'w') as f:
            conf.write(f)
        proc = subprocess.run(
            [os.path.join(BIN, 'tempest'), 'run', '--config-file',
             conf_path, '--regex', regex, '--concurrency',
             str(concurrency), '--subunit'],
            cwd=workspace, capture_output=True, timeout=timeout)
        results = parse_subunit(io.BytesIO(proc.stdout))
        results = {k: v for k, v in results.items()
                   if v[0] in ('success', 'fail', 'skip')}
        if not results:
            self.fail('tempest ran no test for %r (exit %d): %s' % (
                regex, proc.returncode,
                proc.stderr.decode(errors='replace')[-2000:]))
        return results

    def assertOutcome(self, results, test_name, status, *needles):
        """The one test whose id contains test_name ended so, naming..."""
        matches = {k: v for k, v in results.items() if test_name in k}
        self.assertEqual(1, len(matches),
                         'expected one test matching %r, got %s' % (
                             test_name, sorted(results)))
        (test_id, (got, details)), = matches.items()
        self.assertEqual(status, got, '%s: wanted %s, got %s:\n%s' % (
            test_id, status, got, details[-3000:]))
        for needle in needles:
            self.assertIn(needle, details, '%s: message lacks %r' % (
                test_id, needle))
        return details
