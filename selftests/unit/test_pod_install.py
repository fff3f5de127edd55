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

"""pip's conflict report, and the verdict on the Python 3.9 pod.

The outputs below are what ``pip install -c
tools/constraints/openstack-master.txt ./glance-multiapi-tests`` printed
in a Python 3.9.18 venv with pip 21.3.1 (CentOS Stream 9's), 23.0.1
(``python3 -m venv``'s here) and 26.0.1, from their first error on; the
help URL of the last line is left out.
"""

import os

import fixtures
import testtools

from glance_multiapi_tests.results.gate import subunit_stream
from selftests.manifests import pod_install
from selftests.unit import manifest_tools

CAUSE = '''\
ERROR: Cannot install glance-multiapi-tests==0.0.1.dev435 because these \
package versions have conflicting dependencies.

The conflict is caused by:
    glance-multiapi-tests 0.0.1.dev435 depends on oslo.config>=9.0.0
    The user requested (constraint) oslo-config===10.7.0

'''
PIP_21 = CAUSE + '''\
To fix this you could try to:
1. loosen the range of package versions you've specified
2. remove package versions to allow pip attempt to solve the dependency \
conflict

ERROR: ResolutionImpossible: for help visit <pip's docs>
'''
PIP_23 = PIP_21
PIP_26 = CAUSE + '''\
Additionally, some packages in these conflicts have no matching \
distributions available for your environment:
    oslo-config

To fix this you could try to:
1. loosen the range of package versions you've specified
2. remove package versions to allow pip to attempt to solve the \
dependency conflict

ERROR: ResolutionImpossible: for help visit <pip's docs>
'''
OTHER = PIP_21.replace('oslo.config>=9.0.0', 'keystoneauth1>=5.0.0').replace(
    'oslo-config===10.7.0', 'keystoneauth1===5.15.0')
NETWORK = ('ERROR: Could not find a version that satisfies the requirement '
           'pbr>=2.0.0 (from versions: none)\n'
           'ERROR: No matching distribution found for pbr>=2.0.0\n')
AFTER = ('tempest run (the image\'s) exited 1: "The specified regex '
         'doesn\'t match with anything"; the pod exited 1')


class ResolutionTest(testtools.TestCase):

    def test_every_pip_names_the_constraint(self):
        for output in (PIP_21, PIP_23, PIP_26):
            res = pod_install.resolution(output)
            self.assertTrue(res.impossible)
            self.assertEqual({'oslo-config': '===10.7.0'}, res.constrained)
            self.assertEqual(2, len(res.causes))
            self.assertEqual(2, len(res.errors))

    def test_pip_26_lists_what_has_no_release_here(self):
        self.assertEqual(['oslo-config'],
                         pod_install.resolution(PIP_26).unavailable)
        self.assertEqual([], pod_install.resolution(PIP_21).unavailable)

    def test_other_errors_are_not_a_conflict(self):
        res = pod_install.resolution(NETWORK)
        self.assertFalse(res.impossible)
        self.assertEqual({}, res.constrained)


class VerdictTest(testtools.TestCase):

    def verdict(self, pip_rc=1, output=PIP_23, after=AFTER):
        return pod_install.python39_verdict(pip_rc, output, after,
                                            'openstack-master.txt')

    def test_expected_failure_is_a_skip_quoting_pip(self):
        for output in (PIP_21, PIP_26):
            status, reason = self.verdict(output=output)
            self.assertEqual('skip', status)
            self.assertIn('pip exited 1: (ResolutionImpossible) ERROR: '
                          'Cannot install glance-multiapi-tests', reason)
            self.assertIn('The user requested (constraint) '
                          'oslo-config===10.7.0', reason)
            self.assertIn("doesn't match with anything", reason)
            self.assertIn('podified-master-centos9', reason)
            self.assertIn("Use test-operator's default image", reason)

    def test_an_install_that_works_says_so(self):
        status, reason = self.verdict(pip_rc=0, output='', after='')
        self.assertEqual('fail', status)
        self.assertIn('now installs on Python 3.9', reason)

    def test_checks_that_passed_elsewhere_must_pass_here(self):
        def tests(*pairs):
            return [subunit_stream.Test(i, o, r, 1.0)
                    for i, o, r in pairs]
        master = tests(('a', 'pass', ''), ('b', 'pass', ''),
                       ('c', 'skip', 'no heat'), ('d', 'pass', ''))
        ok, line = pod_install.same_checks(
            tests(('a', 'pass', ''), ('b', 'skip', 'needs openstacksdk 4'),
                  ('c', 'pass', ''), ('d', 'fail', '')), master, 'master')
        self.assertFalse(ok)
        self.assertEqual(
            '2 of the 3 checks that passed in master did not pass in the '
            'default pod: b (skip: needs openstacksdk 4); d (fail)', line)
        ok, line = pod_install.same_checks(
            tests(('a', 'pass', '')), tests(('a', 'pass', ''),
                                            ('e', 'pass', '')), 'master')
        self.assertEqual((False, '1 of the 2 checks that passed in master '
                          'did not pass in the default pod: e (not run)'),
                         (ok, line))
        self.assertEqual(
            (True, 'the default pod passed all 3 checks that passed in '
             'master'),
            pod_install.same_checks(master, master, 'master'))
        self.assertFalse(pod_install.same_checks(master, [], 'master')[0])

    def test_another_conflict_fails(self):
        status, reason = self.verdict(output=OTHER)
        self.assertEqual('fail', status)
        self.assertIn('not as expected', reason)
        self.assertIn('oslo.config constraint', reason)

    def test_another_error_fails(self):
        status, reason = self.verdict(output=NETWORK)
        self.assertEqual('fail', status)
        self.assertIn('No matching distribution found for pbr', reason)

    def test_a_pod_passing_without_the_plugin_fails(self):
        status, reason = self.verdict(after='')
        self.assertEqual('fail', status)
        self.assertIn('yet the pod passed', reason)

    def test_a_pod_that_never_ran_pip_fails(self):
        status, reason = self.verdict(pip_rc=None, output='')
        self.assertEqual('fail', status)
        self.assertIn('before its pip install', reason)


class AfterPipTest(testtools.TestCase):

    def test_tempest_run_and_its_last_words(self):
        self.assertEqual(AFTER, pod_install.after_pip(
            'clone ok\npip_install fail pip exited 1\n'
            'discover_tempest_config ok\n', 1,
            "The specified regex doesn't match with anything\n\n", 1))

    def test_discover_failing_is_named(self):
        self.assertEqual(
            'discover-tempest-config failed (exit 1: boom); the pod '
            'exited 1', pod_install.after_pip(
                'discover_tempest_config fail exit 1: boom\n', None, '', 1))

    def test_a_pod_that_passed_did_nothing_wrong(self):
        self.assertEqual('', pod_install.after_pip('', 0, 'ok', 0))


class CommandTest(testtools.TestCase):
    """tools/tcib_pod.py python39-verdict reads the pod's files."""

    def test_verdict_of_a_pod_folder(self):
        folder = self.useFixture(fixtures.TempDir()).path
        for name, text in (('pip.log', 'Processing ./x\n' + PIP_26),
                           ('pip.rc', '1\n'), ('tempest_run.rc', '1\n'),
                           ('steps.txt', 'clone ok\npip_install fail x\n'
                            'discover_tempest_config ok\n'),
                           ('tempest-run.log', "The specified regex "
                            "doesn't match with anything")):
            with open(os.path.join(folder, name), 'w') as out:
                out.write(text)
        code, out, err = manifest_tools.run(
            self, 'tcib_pod', 'python39-verdict', '--pod-dir', folder,
            '--pod-rc', '1', '--constraints', 'openstack-master.txt')
        self.assertEqual((0, ''), (code, err))
        status, reason = out.splitlines()
        self.assertEqual('skip', status)
        self.assertIn('[no release for this Python: oslo-config]', reason)
        self.assertIn('the pod exited 1', reason)
