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

"""The constraints files agree with each other and with the requirements.

Each stand-in for an OpenStack series' upper-constraints (2023.1, which
test-operator's default image installs the plugin under, and master) is
the commit upstream.py names, usable by ``pip -c``, and admits every
requirement of the plugin (a pod installs the plugin under it) and of its
tests (the Python matrix runs them under the 2023.1 pins); the project's
own pins admit the requirements they install;
tools/refresh_openstack_constraints.py writes and checks a stand-in from
a clone.
"""

import os
import subprocess

import fixtures
from packaging import version
import testtools

from selftests.manifests import constraints
from selftests.manifests import upstream
from selftests.unit import manifest_tools

REPO = manifest_tools.REPO


def read(*path):
    with open(os.path.join(REPO, *path)) as stream:
        return stream.read()


def reqs(*names):
    found = []
    for name in names:
        found += constraints.requirement_lines(read(name))
    return found


def excluded(reqs_by_file, pinned, where):
    """One line per requirement the pins exclude, naming both versions."""
    lines = []
    for name in reqs_by_file:
        for conflict in constraints.requirements_against(
                reqs(name), pinned):
            lines.append(
                '%s: %s needs %s, but %s pins %s %s (lower the floor to '
                'what the code needs, or make the code work with %s)' % (
                    name, conflict.requirement.name,
                    conflict.requirement.specifier, where,
                    conflict.pin.name, conflict.pin.version,
                    conflict.pin.version))
    return lines


class StandInTest(testtools.TestCase):

    def test_each_is_the_commit_upstream_py_names(self):
        supported = read('doc', 'source', 'supported-versions.rst')
        for series in constraints.SERIES.values():
            commit, date = constraints.stand_in_origin(read(series.path))
            self.assertEqual(upstream.COMMITS[series.upstream], commit,
                             series.path)
            self.assertIn('%s %s' % (series.upstream, date), supported)

    def test_each_names_its_series_and_url(self):
        for series in constraints.SERIES.values():
            header = read(series.path).split(constraints.UPSTREAM_REPO +
                                             ' ' + constraints.UPSTREAM_PATH
                                             + ' at')[0]
            flat = ' '.join(header.replace('#', ' ').split())
            self.assertIn('OpenStack %s upper-constraints' % series.name,
                          flat)
            self.assertIn(series.url, flat)

    def test_every_line_is_a_pin_or_a_comment(self):
        master = constraints.pins(read(constraints.SERIES['master'].path))
        self.assertGreater(len(master), 500)
        self.assertEqual('10.7.0', master['oslo-config'].version)
        antelope = constraints.pins(read(constraints.SERIES['2023.1'].path))
        self.assertGreater(len(antelope), 500)
        self.assertEqual('1.0.2', antelope['openstacksdk'].version)

    def test_each_admits_every_requirement_of_the_plugin(self):
        # NOTE: a pod installs requirements.txt under these files, and the
        # Python matrix test-requirements.txt too under the 2023.1 pins; a
        # range that excludes one of their pins makes that install
        # impossible (pip: ResolutionImpossible), and on test-operator's
        # default image the gate then runs nothing.
        for series in constraints.SERIES.values():
            self.assertEqual([], excluded(
                constraints.INSTALLED_UNDER,
                constraints.pins(read(series.path)), series.path))

    def test_a_floor_above_a_pin_is_named_with_both_versions(self):
        folder = self.useFixture(fixtures.TempDir()).path
        with open(os.path.join(folder, 'r.txt'), 'w') as out:
            out.write('openstacksdk>=4.0.0 # Apache-2.0\n')
        self.useFixture(fixtures.MonkeyPatch(
            'selftests.unit.test_constraints.REPO', folder))
        self.assertEqual(
            ['r.txt: openstacksdk needs >=4.0.0, but '
             'tools/constraints/openstack-2023.1.txt pins openstacksdk '
             '1.0.2 (lower the floor to what the code needs, or make the '
             'code work with 1.0.2)'],
            excluded(['r.txt'], constraints.pins('openstacksdk===1.0.2\n'),
                     'tools/constraints/openstack-2023.1.txt'))

    def test_the_stage_and_the_docs_name_them(self):
        for series in constraints.SERIES.values():
            self.assertIn(series.path, read('tools', 'run-test-operator.sh'))
            self.assertIn(series.path,
                          read('doc', 'source', 'test-operator-stage.rst'))

    def test_the_matrix_runs_the_tests_under_the_default_series(self):
        # NOTE: the 2023.1 pins unchanged, and only what they leave
        # unpinned added: the unit tests run as the default image's
        # plugin venv would hold them.
        path = os.path.join('tools', 'constraints', 'py39-antelope.txt')
        text = read(path)
        self.assertIn('-c %s' % os.path.basename(
            constraints.SERIES[constraints.DEFAULT_SERIES].path),
            text.splitlines())
        antelope = constraints.pins(read(constraints.SERIES['2023.1'].path))
        both = sorted(set(constraints.pins(text, path)) & set(antelope))
        self.assertEqual([], both)
        self.assertIn('3.9-antelope', read('tools', 'run-python-matrix.sh'))


class ProjectPinsTest(testtools.TestCase):

    def test_upper_constraints_admit_what_they_install(self):
        pinned = constraints.pins(read('upper-constraints.txt'))
        self.assertEqual([], constraints.requirements_against(
            reqs('requirements.txt', 'test-requirements.txt',
                 'cloud-requirements.txt'), pinned))

    def test_py39_pins_admit_the_plugin_alone(self):
        pinned = constraints.pins(read('tools', 'constraints', 'py39.txt'))
        self.assertEqual([], constraints.requirements_against(
            reqs('requirements.txt', 'test-requirements.txt'), pinned))

    def test_py39_pins_are_never_newer_than_the_project_pins(self):
        # NOTE: pip, setuptools and wheel are the venv's own tools.
        own = constraints.pins(read('upper-constraints.txt'))
        newer = [
            (name, pin.version, own[name].version) for name, pin in
            constraints.pins(read('tools', 'constraints',
                                  'py39.txt')).items()
            if name in own and name not in ('pip', 'setuptools', 'wheel')
            and version.Version(pin.version) >
            version.Version(own[name].version)]
        self.assertEqual([], newer)

    def test_stages_that_follow_the_project_pins_include_them(self):
        for name in ('py312.txt', 'coexistence.txt'):
            self.assertIn('-c ../../upper-constraints.txt',
                          read('tools', 'constraints', name).splitlines())


class ReadingTest(testtools.TestCase):

    def test_a_line_that_pins_nothing_is_named(self):
        exc = self.assertRaises(constraints.ConstraintsError,
                                constraints.pins, 'a===1\nb>=2\n', 'f')
        self.assertIn('f line 2', str(exc))

    def test_names_are_compared_canonically(self):
        pinned = constraints.pins('Oslo.Config===10.7.0\n')
        conflicts = constraints.requirements_against(
            constraints.requirement_lines('oslo_config>=11\nx>=1\n'),
            pinned)
        self.assertEqual(['oslo_config>=11'],
                         [str(c.requirement) for c in conflicts])

    def test_the_header_round_trips(self):
        text = constraints.stand_in_text('a===1\n', 'f' * 40, '2026-08-22')
        self.assertEqual(('f' * 40, '2026-08-22'),
                         constraints.stand_in_origin(text))
        self.assertEqual('a===1\n', constraints.upstream_part(text))


def git(folder, *args):
    subprocess.run(['git', '-C', folder, '-c', 'user.name=t', '-c',
                    'user.email=t@example.invalid'] + list(args),
                   check=True, capture_output=True)


class RefreshToolTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.folder = self.useFixture(fixtures.TempDir()).path
        self.clone = os.path.join(self.folder, 'requirements')
        os.makedirs(self.clone)
        git(self.clone, 'init', '-q')
        self.commit('oslo.config===10.7.0\npbr===7.0.3\n')
        self.out = os.path.join(self.folder, 'openstack-2023.1.txt')
        self.reqs = os.path.join(self.folder, 'requirements.txt')
        with open(self.reqs, 'w') as out:
            out.write('oslo.config>=9.0.0 # Apache-2.0\n')

    def commit(self, text):
        with open(os.path.join(self.clone, 'upper-constraints.txt'),
                  'w') as out:
            out.write(text)
        git(self.clone, 'add', '-A')
        git(self.clone, 'commit', '-qm', 'pins')

    def run_tool(self, *extra):
        return manifest_tools.run(
            self, 'refresh_openstack_constraints',
            os.path.join(self.clone, '.git'), '--file', self.out,
            '--requirements', self.reqs, '--rev', 'HEAD', *extra)

    def test_written_then_checked(self):
        code, out, err = self.run_tool()
        self.assertEqual((0, ''), (code, err), out)
        with open(self.out) as stream:
            text = stream.read()
        self.assertTrue(text.endswith('oslo.config===10.7.0\npbr===7.0.3\n'))
        self.assertIn('2 pins', out)
        code, out, _err = self.run_tool('--check')
        self.assertEqual(0, code, out)
        self.assertIn("is that commit's", out)

    def test_a_newer_commit_is_told_with_its_changes(self):
        self.run_tool()
        self.commit('oslo.config===10.8.0\npbr===7.0.3\n')
        code, out, _err = self.run_tool('--check')
        self.assertEqual(1, code)
        self.assertIn('oslo-config: 10.7.0 -> 10.8.0', out)
        self.assertIn("NOT that commit's", out)

    def test_an_excluded_requirement_fails(self):
        self.commit('oslo.config===8.0.0\n')
        code, out, _err = self.run_tool()
        self.assertEqual(1, code)
        self.assertIn('EXCLUDED: requirements.txt oslo.config>=9.0.0, but '
                      'the file pins oslo.config===8.0.0', out)

    def test_a_clone_that_cannot_be_read_is_a_usage_error(self):
        code, _out, err = manifest_tools.run(
            self, 'refresh_openstack_constraints',
            os.path.join(self.folder, 'nowhere'), '--file', self.out)
        self.assertEqual(2, code)
        self.assertIn('refresh_openstack_constraints:', err)
