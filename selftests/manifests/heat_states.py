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

"""The heat states the test-operator stage puts the gate CR's checks in.

After the gate CR's pod ran, the stage puts the embedded cloud in each
state of heat's images a real cluster is in (the cloud's heat states,
and a fault for each kind of drift), runs the CR's consolidated image
tests again in the same pod (its tempest.conf, token and Role) and
judges each run here: every healthy state passes all three tests, each
broken one fails the test that looks at what it broke, with the words
its message promises, and passes the others. Pure: the caller runs the
pod and reads its stream.
"""

import collections
import configparser
import io

MAPPING = 'ConsolidatedImageMappingTest'
REFERENCES = 'ConsolidatedImageReferencesTest'
RUNNING = 'ConsolidatedRunningImagesTest'
TESTS = (MAPPING, REFERENCES, RUNNING)
# NOTE: what tempest runs again in the pod: the three tests.
REGEX = r'glance_multiapi_tests\.tests\.api\.test_consolidated_images'

# name: the case's name in the stage's results; state: glance-multiapi-
# cloud's --heat-state; faults: its --fault arguments; fails: {test
# class: the words its failure must hold}, the others must pass;
# options: {(section, option): value} the case's run gets in a copy of
# the pod's tempest.conf (none: the pod's own file, as the CR made it).
Case = collections.namedtuple('Case', 'name state faults fails options',
                              defaults=({},))
# NOTE: a rollout the cloud holds stuck never ends, so the check names it
# a rollout after any wait; the CR leaves rollout_timeout at its 120 s
# default, which made this one case 124 s of the stage's 185 s for the
# heat states. 15 s still covers the wait and the naming after it.
STUCK_ROLLOUT_WAIT = 15

HEALTHY = ('tcib', 's2i', 's2i-latest', 'one', 'proposed', 'product',
           'mirror', 'update')
CASES = tuple(Case(name, name, (), {}) for name in HEALTHY) + (
    Case('drifted_deployment', 'tcib', ('heat-image-drift=heat-engine',),
         {RUNNING: ('running-drift', 'Deployment heat-engine')}),
    Case('tag_resolved_apart', 's2i-latest', (
        'pod-digest-drift=heat-cfnapi',),
        {RUNNING: ('running-digests', 'of Deployment heat-api',
                   'of Deployment heat-cfnapi')}),
    Case('two_builds', 'product', ('second-build=heatCfnapiImage',),
         {REFERENCES: ('digest-mismatch', 'heatCfnapiImage=registry.'
                       'redhat.io/second-build/openstack-heat-api-rhel9'),
          RUNNING: ('running-digests',)}),
    Case('rollout', 'tcib', ('heat-rollout-stuck=heat-engine',),
         {RUNNING: ('rollout: Deployment heat-engine',
                    'is still rolling out')},
         {('consolidated_images', 'rollout_timeout'): STUCK_ROLLOUT_WAIT}),
)


def case(name):
    """The Case called name; KeyError naming the known ones."""
    for found in CASES:
        if found.name == name:
            return found
    raise KeyError('no heat case %r; known: %s' % (
        name, ', '.join(c.name for c in CASES)))


def case_conf(this, conf_text):
    """The tempest.conf text case this runs with; None: the pod's own.

    conf_text: the pod's tempest.conf. NOTE: the options are set in a
    parsed copy (no interpolation, option names as written): every other
    option keeps the pod's value; comments are not kept.
    """
    if not this.options:
        return None
    parser = configparser.RawConfigParser(strict=False)
    parser.optionxform = str
    parser.read_string(conf_text)
    for (section, option), value in sorted(this.options.items()):
        if not parser.has_section(section):
            parser.add_section(section)
        parser.set(section, option, str(value))
    out = io.StringIO()
    parser.write(out)
    return out.getvalue()


def judge(this, results):
    """(ok, one line) of a case's run.

    results: {test id: (status, details)} of its stream
    (subunit_stream.parse_subunit).
    """
    seen = {}
    for test_id, outcome in results.items():
        for cls in TESTS:
            if '.%s.' % cls in test_id:
                seen[cls] = outcome
    problems = []
    for cls in TESTS:
        wanted = 'fail' if cls in this.fails else 'success'
        if cls not in seen:
            problems.append('%s did not run' % cls)
            continue
        status, details = seen[cls]
        if status != wanted:
            problems.append('%s: wanted %s, got %s%s' % (
                cls, wanted, status, _first_line(details)))
            continue
        missing = [w for w in this.fails.get(cls, ()) if w not in details]
        if missing:
            problems.append('%s failed without %s' % (
                cls, ', '.join(repr(w) for w in missing)))
    where = 'state %s%s' % (this.state, ''.join(
        ' --fault ' + f for f in this.faults))
    if problems:
        return False, '%s: %s' % (where, '; '.join(problems))
    verdicts = ', '.join('%s %s' % (cls, 'failed as it must'
                                    if cls in this.fails else 'passed')
                         for cls in TESTS)
    return True, '%s: %s' % (where, verdicts)


def _first_line(details):
    """The failure's (or skip's) own words, cut: what a reader acts on."""
    lines = []
    for line in (details or '').splitlines():
        for attachment in ('traceback: ', 'reason: '):
            if line.startswith(attachment):
                line = line[len(attachment):]
        if line.strip():
            lines.append(line.strip())
    for line in lines:
        if line.startswith(('AssertionError', 'tempest.')):
            return ' (%s)' % line[:300]
    return ' (%s)' % lines[-1][:300] if lines else ''
