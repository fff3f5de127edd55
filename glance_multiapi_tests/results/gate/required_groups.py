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

"""Groups of the plugin's tests a job can require to have run.

A job names the groups it expects (REQUIRED_GROUPS=multiapi,switchover);
a required group none of whose tests ran, because they all skipped or
none was selected, is a failure naming the group and the skip reasons,
so a misconfigured job cannot pass on nothing.
"""

import re

_TESTS = r'(?:^|\()glance_multiapi_tests\.tests\.'

# NOTE: patterns are searched in the test id, so that a class-level skip
# ("setUpClass (glance_multiapi_tests.tests...Class)") counts too.
GROUPS = {
    'multiapi': (r'api\.test_endpoints\.', r'api\.test_catalog\.',
                 r'api\.test_store_placement\.', r'api\.test_readiness\.'),
    'switchover': (r'scenario\.test_switchover\.',),
    'grow_shrink': (r'scenario\.test_grow_shrink\.',),
    'uploader': (r'scenario\.test_uploader\.',
                 r'scenario\.test_uploader_races\.',
                 r'scenario\.test_uploader_policies\.'),
    'consolidated_images': (r'api\.test_consolidated_images\.',),
    'heat': (r'api\.test_heat_services\.',),
    # NOTE: disruptive, like switchover and grow_shrink: a group of its
    # own, so that a maintenance window can insist that it ran.
    'heat_engine_restart': (r'scenario\.test_heat_engine_restart\.',),
}

_COMPILED = {name: re.compile(_TESTS + '(?:%s)' % '|'.join(patterns))
             for name, patterns in GROUPS.items()}


def parse(text):
    """Group names of a comma-separated list; ValueError naming a bad one."""
    names = []
    for name in (n.strip() for n in (text or '').split(',')):
        if not name or name in names:
            continue
        if name not in GROUPS:
            raise ValueError('unknown required group %r (known: %s)' % (
                name, ', '.join(sorted(GROUPS))))
        names.append(name)
    return names


def in_group(name, test_id):
    return bool(_COMPILED[name].search(test_id))


def ran(tests):
    """The groups at least one of whose tests passed or failed.

    tests: subunit_stream.Test records.
    """
    return {name for name in GROUPS
            if any(t.outcome != 'skip' and in_group(name, t.id)
                   for t in tests)}


def missing(tests, names):
    """[(group, line)] of each required group that did not run, in order.

    tests: subunit_stream.Test records. A group ran when at least one
    of its tests passed or failed; the line names why it did not.
    """
    found = []
    for name in names:
        members = [t for t in tests if in_group(name, t.id)]
        if any(t.outcome != 'skip' for t in members):
            continue
        if members:
            reasons = sorted({t.reason or 'no reason given' for t in members})
            why = '; '.join(reasons)
        else:
            why = 'none of its tests was selected (%s)' % ', '.join(
                p.replace('\\', '') for p in GROUPS[name])
        found.append((name, 'required group %s did not run: %s'
                      % (name, why)))
    return found


def problems(tests, names):
    """One line per required group that did not run, in names' order."""
    return [line for _name, line in missing(tests, names)]
