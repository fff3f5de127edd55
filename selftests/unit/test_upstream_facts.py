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

"""tools/check_upstream.py names the upstream facts that moved."""

import os
import subprocess

import fixtures
import testtools

from selftests.manifests import upstream
from selftests.unit import manifest_tools


def git(folder, *args):
    subprocess.run(['git', '-C', folder, '-c', 'user.name=t', '-c',
                    'user.email=t@example.invalid'] + list(args),
                   check=True, capture_output=True)


class CheckUpstreamTest(testtools.TestCase):

    def make_repo(self, keep=True):
        """A heat-operator clone holding its facts (or one less)."""
        folder = self.useFixture(fixtures.TempDir()).path
        git(folder, 'init', '-q')
        for fact in upstream.FACTS:
            if fact.repo != 'heat-operator':
                continue
            path = os.path.join(folder, fact.path)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            text = fact.text
            if not keep and 'int64(60)' in text:
                text = text.replace('60', '30')
            with open(path, 'a') as f:
                f.write(text + '\n')
        git(folder, 'add', '-A')
        git(folder, 'commit', '-qm', 'facts')
        return os.path.join(folder, '.git')

    def test_every_fact_holds(self):
        code, out, err = manifest_tools.run(
            self, 'check_upstream', 'heat-operator=%s' % self.make_repo())
        self.assertEqual((0, ''), (code, err), out)
        self.assertIn('5 of 5 facts hold', out)
        self.assertIn('is not in this clone', out)

    def test_a_moved_fact_is_named_with_its_rule(self):
        code, out, _err = manifest_tools.run(
            self, 'check_upstream',
            'heat-operator=%s' % self.make_repo(keep=False))
        self.assertEqual(1, code)
        self.assertIn('MOVED: internal/heatengine/deployment.go no longer '
                      "holds 'terminationGracePeriod := int64(60)'", out)
        self.assertIn('60 s to drain', out)

    def test_unknown_name_is_a_usage_error(self):
        code, _out, err = manifest_tools.run(self, 'check_upstream',
                                             'nova=/nowhere')
        self.assertEqual(2, code)
        self.assertIn('want NAME=GIT_DIR', err)

    def test_every_repo_has_a_commit_and_a_fact(self):
        self.assertEqual(set(upstream.COMMITS),
                         {fact.repo for fact in upstream.FACTS})
