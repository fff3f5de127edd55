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

"""What the test-operator stage's pods did: pip's words and the verdicts.

tcib's run_tempest.sh installs an externalPlugin with ``pip install -c
<OpenStack upper-constraints> ./<plugin>`` and does not look at pip's
exit status: run_tempest follows, with the image's own tempest when the
plugin's venv stayed empty. The stage runs the CR in the default image's
pod (tcib antelope: 2023.1 pins, Python 3.9) and in the images of tcib's
main branch (master's pins): on Python 3.12, whose passed checks the
default pod must pass too (``same_checks``), and on CentOS Stream 9's
Python 3.9 (podified-master-centos9), where master's pins (openstack/
requirements 33536777) cannot install any plugin: oslo.config 10.7.0 and
other pins need Python 3.11, pip stops with ResolutionImpossible, and
the image's tempest finds none of the CR's tests.

``resolution`` reads pip's conflict report (its wording from pip 21.3,
CentOS Stream 9's, to 26); ``python39_verdict`` judges that last pod:
the expected failure is a skip that quotes pip, anything else a failure
that says what changed. Pure: the caller reads the files.
"""

import collections
import re

from selftests.manifests import constraints

# NOTE: the package pip names first when a Python 3.9 venv meets the
# pins of openstack/requirements 33536777 (oslo.config===10.7.0, which
# needs Python 3.11); the plugin requires it directly, so pip reaches it
# before the others that need 3.11 (keystoneauth1, openstacksdk, ...).
EXPECTED_CONFLICT = 'oslo.config'

Resolution = collections.namedtuple(
    'Resolution', 'impossible errors causes constrained unavailable')

_CONSTRAINT = re.compile(r'The user requested \(constraint\) '
                         r'([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\S*)')
_CAUSES = 'The conflict is caused by:'
_UNAVAILABLE = 'have no matching distributions available for your environment'


def _block_after(lines, marker):
    """The indented lines that follow the line holding marker."""
    block = []
    for index, line in enumerate(lines):
        if marker in line:
            for follow in lines[index + 1:]:
                if not follow.startswith((' ', '\t')) or not follow.strip():
                    break
                block.append(follow.strip())
            break
    return block


def resolution(output):
    """Resolution of pip's output (stdout and stderr together).

    impossible: pip gave up with ResolutionImpossible; errors: its
    ``ERROR:`` lines; causes: the lines under "The conflict is caused
    by:"; constrained: {canonical name: specifier} of the constraints
    named there; unavailable: the canonical names pip 24+ lists as having
    no release for this environment.
    """
    lines = output.splitlines()
    errors = [line.strip() for line in lines if line.startswith('ERROR:')]
    causes = _block_after(lines, _CAUSES)
    constrained = {}
    for cause in causes:
        match = _CONSTRAINT.search(cause)
        if match:
            constrained[constraints.canonical(match.group(1))] = (
                match.group(2))
    unavailable = [constraints.canonical(name)
                   for name in _block_after(lines, _UNAVAILABLE)]
    return Resolution(
        impossible=any('ResolutionImpossible' in e for e in errors),
        errors=errors, causes=causes, constrained=constrained,
        unavailable=unavailable)


def _quote_pip(res):
    text = '%s%s [%s]' % (
        '(ResolutionImpossible) ' if res.impossible else '',
        res.errors[0] if res.errors else 'no ERROR line',
        '; '.join(res.causes))
    if res.unavailable:
        text += ' [no release for this Python: %s]' % ', '.join(
            res.unavailable)
    return text


def python39_verdict(pip_rc, pip_output, after, constraints_name,
                     expected=EXPECTED_CONFLICT):
    """('skip' or 'fail', reason) of the pod of a Python 3.9 image.

    pip_rc, pip_output: the pod's ``pip install -c`` of the plugin
    (pip_rc None: the pod never got there);
    after: one line on what the pod did next (the step that failed, its
    exit code and last words), or '' when the pod passed; constraints_name:
    the constraints file as the reason names it. Expected (a skip): pip
    fails with ResolutionImpossible over a constraint on ``expected``,
    and the pod then fails. Anything else fails, saying what changed.
    """
    if pip_rc is None:
        return 'fail', ('the Python 3.9 pod stopped before its pip install '
                        '(its steps and log are in the stage\'s folder)')
    if pip_rc == 0:
        return 'fail', (
            'the plugin now installs on Python 3.9 under %s, which the '
            'docs and this check say it cannot: podified-master-centos9 '
            'works again; update doc/source/compatibility.rst, the CRs\' '
            'comments and pod_install.py' % constraints_name)
    res = resolution(pip_output)
    wanted = constraints.canonical(expected)
    if not res.impossible or wanted not in res.constrained:
        return 'fail', (
            'pip failed on Python 3.9 under %s (exit %s), but not as '
            'expected (ResolutionImpossible over the %s constraint): %s'
            % (constraints_name, pip_rc, expected,
               ' | '.join(res.errors[-3:]) or 'no ERROR line'))
    if not after:
        return 'fail', (
            'pip failed as expected, yet the pod passed: run_tempest.sh '
            'went on with the image\'s tempest, and a pod that runs '
            'none of the plugin\'s tests must not pass')
    return 'skip', (
        'expected: podified-master-centos9 (tcib\'s main branch on CentOS '
        'Stream 9, Python 3.9) cannot install the plugin, nor any other, '
        'as its run_tempest.sh does (pip install -c %s): pip exited %s: '
        '%s; run_tempest.sh goes on without it: %s. Use test-operator\'s '
        'default image (podified-antelope-centos9) or a Python 3.12 image '
        '(doc/source/compatibility.rst)'
        % (constraints_name, pip_rc, _quote_pip(res), after))


def same_checks(default_tests, other_tests, other_name):
    """(ok, one line): did the default pod pass all the other pod passed?

    default_tests, other_tests: subunit_stream Tests of the two pods'
    tempest_results.subunit; other_name says which pod the other is. A
    check that passed there and did not pass here (skipped, failed or not
    run) is named with what it did here, at most five of them.
    """
    here = {test.id: test for test in default_tests}
    passed_there = [test.id for test in other_tests if test.outcome == 'pass']
    missing = []
    for test_id in passed_there:
        test = here.get(test_id)
        if test is None:
            missing.append('%s (not run)' % test_id)
        elif test.outcome != 'pass':
            missing.append('%s (%s%s)' % (
                test_id, test.outcome,
                ': ' + ' '.join(test.reason.split())[:200]
                if test.reason else ''))
    if not passed_there:
        return False, 'no check passed in %s: nothing to hold the default ' \
            'pod to' % other_name
    if missing:
        return False, '%d of the %d checks that passed in %s did not pass ' \
            'in the default pod: %s' % (len(missing), len(passed_there),
                                        other_name, '; '.join(missing[:5]))
    return True, 'the default pod passed all %d checks that passed in %s' % (
        len(passed_there), other_name)


def after_pip(steps_text, tempest_rc, tempest_output, pod_rc):
    """One line on what a pod did after its pip step; '' if it passed.

    steps_text: the pod's steps.txt ("NAME ok|fail [REASON]" lines);
    tempest_rc: ``tempest run``'s exit status (None when it did not run);
    tempest_output: what it printed; pod_rc: the pod's exit status.
    """
    if pod_rc == 0:
        return ''
    steps = {}
    for line in steps_text.splitlines():
        name, _sep, rest = line.partition(' ')
        outcome, _sep, reason = rest.partition(' ')
        steps[name] = (outcome, reason)
    outcome, reason = steps.get('discover_tempest_config', ('', ''))
    if outcome == 'fail':
        return 'discover-tempest-config failed (%s); the pod exited %s' % (
            reason or 'no reason given', pod_rc)
    if tempest_rc is None:
        return 'the pod exited %s before tempest run' % pod_rc
    said = [line.strip() for line in tempest_output.splitlines()
            if line.strip()]
    return 'tempest run (the image\'s) exited %s%s; the pod exited %s' % (
        tempest_rc, ': "%s"' % said[-1] if said else '', pod_rc)
