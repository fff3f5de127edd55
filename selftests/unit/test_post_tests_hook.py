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

"""The post_tests hook's report install, run from the playbook's text.

playbooks/podified/post-tests.yaml installs this checkout's
glance-multiapi-report with the project's constraints (what the report
needs is the distribution's own requirements, never a list in the
playbook); when that venv cannot be made the summary says so and the job
fails, before anything is judged. The hook's full run, install and
report on a real run's results, is in
selftests/functional/test_metrics_baseline.py.
"""

import os

import fixtures
import testtools
import yaml

from selftests import ci_playbooks
from selftests import ci_venvs

REPO = ci_venvs.REPO
HOOK = os.path.join(REPO, 'playbooks', 'podified', 'post-tests.yaml')
ANSIBLE_FAILED = 2


def _tasks():
    with open(HOOK) as f:
        plays = yaml.safe_load(f)
    found = []
    for task in plays[0]['tasks']:
        found.append(task)
        found += task.get('block', []) + task.get('rescue', [])
    return found


class PostTestsHookTest(testtools.TestCase):

    def test_install_is_the_checkout_under_the_project_constraints(self):
        pip = [t['ansible.builtin.pip'] for t in _tasks()
               if 'ansible.builtin.pip' in t]
        self.assertEqual(1, len(pip))
        self.assertEqual('{{ gmt_src }}', pip[0]['name'])
        self.assertEqual('-c {{ gmt_constraints }}', pip[0]['extra_args'])
        with open(HOOK) as f:
            constraints = yaml.safe_load(f)[0]['vars']['gmt_constraints']
        self.assertIn('tools/constraints/py39.txt', constraints)
        self.assertIn('upper-constraints.txt', constraints)

    def test_report_is_the_installed_console_script(self):
        commands = [str(t['ansible.builtin.command'].get('argv', ''))
                    for t in _tasks() if 'ansible.builtin.command' in t]
        self.assertTrue(any("gmt_venv ~ '/bin/glance-multiapi-report'" in c
                            for c in commands), commands)
        self.assertFalse(any('PYTHONPATH' in str(t.get('environment'))
                             for t in _tasks()))

    def test_report_that_cannot_be_installed_is_said_and_fails(self):
        venv = self.useFixture(ci_venvs.CiVenv('cifmw'))
        work = self.useFixture(fixtures.TempDir()).path
        basedir = os.path.join(work, 'ci-framework-data')
        os.makedirs(os.path.join(basedir, 'tests', 'test_operator'))
        # NOTE: a file where the venv's folder goes: python3 -m venv fails
        # at once, as with a full disk or a missing python3-venv.
        with open(os.path.join(basedir, 'venv'), 'w') as f:
            f.write('not a folder\n')
        os.makedirs(os.path.join(work, 'home'))
        proc = ci_playbooks.play(
            venv, HOOK, {'cifmw_basedir': basedir,
                         'glance_multiapi_required_groups': ['multiapi']},
            home=os.path.join(work, 'home'), timeout=300)
        self.assertEqual(ANSIBLE_FAILED, proc.returncode, proc.stdout)
        self.assertIn('glance-multiapi-report could not be installed into '
                      '%s/venv/glance-multiapi-summary' % basedir,
                      proc.stdout)
        with open(os.path.join(basedir, 'tests', 'glance-multiapi',
                               'summary.txt')) as f:
            self.assertTrue(f.read().startswith(
                'FAILED: the report could not be installed into '))
