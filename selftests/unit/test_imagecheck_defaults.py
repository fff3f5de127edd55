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

"""Overrides judged against the defaults of the version deployed.

The OpenStackVersion keeps each version's defaults in
status.containerImageVersionDefaults; the RELATED_IMAGE env describes the
version its operator ships (OPENSTACK_RELEASE_VERSION) and is judged only
when that is spec.targetVersion.
"""

import testtools

from glance_multiapi_kernel import heat_images
from glance_multiapi_kernel import image_errors
from glance_multiapi_tests.imagecheck import check
from glance_multiapi_tests.imagecheck import declared
from glance_multiapi_tests.imagecheck import sources

API, CFN, ENGINE = heat_images.API, heat_images.CFNAPI, heat_images.ENGINE
TCIB = 'quay.io/podified-antelope-centos9/'
ENV_NAMES = {API: 'RELATED_IMAGE_HEAT_API_IMAGE_URL_DEFAULT',
             CFN: 'RELATED_IMAGE_HEAT_CFNAPI_IMAGE_URL_DEFAULT',
             ENGINE: 'RELATED_IMAGE_HEAT_ENGINE_IMAGE_URL_DEFAULT'}


def digest(char):
    return '@sha256:' + char * 64


def tcib(tag='current-podified'):
    return {API: TCIB + 'openstack-heat-api:' + tag,
            CFN: TCIB + 'openstack-heat-api-cfn:' + tag,
            ENGINE: TCIB + 'openstack-heat-engine:' + tag}


def next_version():
    """heat-operator #705's defaults: heat-cfnapi on the heat-api image."""
    refs = tcib()
    refs[CFN] = refs[API]
    return refs


def version(custom=None, defaults=None, target='0.0.1', available=None,
            deployed=None):
    """An OpenStackVersion as the operator writes it."""
    defaults = {target: tcib()} if defaults is None else defaults
    custom = custom or {}
    status = {'availableVersion': available or target,
              'deployedVersion': deployed or target,
              'containerImages': dict(defaults.get(target) or tcib(),
                                      **custom)}
    if defaults:
        status['containerImageVersionDefaults'] = defaults
    return {'kind': 'OpenStackVersion',
            'spec': {'targetVersion': target,
                     'customContainerImages': custom},
            'status': status}


def env(refs, release=None):
    lines = ['%s=%s' % (ENV_NAMES[f], v) for f, v in sorted(refs.items())]
    if release:
        lines.insert(0, 'OPENSTACK_RELEASE_VERSION=' + release)
    return sources.parse_env_listing('\n'.join(lines) + '\n', 'env-file')


def judge(document, *extra):
    found, versions = sources.parse_version(document, 'osv')
    return declared.check_declared(found + list(extra), versions=versions)


def kinds(report):
    return sorted({finding.kind for finding in report.findings})


class VersionDefaultsTest(testtools.TestCase):

    def test_defaults_of_the_target_version_are_a_source(self):
        found, versions = sources.parse_version(version(), 'osv')
        defaults = {s.label: s for s in found}[sources.DEFAULTS]
        self.assertEqual('0.0.1', defaults.version)
        self.assertFalse(defaults.complete)
        self.assertEqual(
            'status.containerImageVersionDefaults[0.0.1].heatAPIImage',
            defaults.origin(API))
        self.assertEqual(('0.0.1',), versions.with_defaults)

    def test_status_drifting_from_the_version_defaults(self):
        document = version()
        document['status']['containerImages'][ENGINE] = (
            TCIB + 'openstack-heat-engine' + digest('9'))
        report = judge(document)
        self.assertEqual([check.DRIFT], kinds(report))
        self.assertIn('but status.containerImageVersionDefaults[0.0.1].'
                      'heatEngineImage=' + tcib()[ENGINE],
                      report.findings[0].message)

    def test_target_without_defaults_is_a_note(self):
        document = version(defaults={'0.0.2': tcib()})
        report = judge(document)
        self.assertTrue(report.consistent)
        self.assertIn('status.containerImageVersionDefaults has no entry '
                      'for targetVersion 0.0.1 (it holds 0.0.2)',
                      report.notes)

    def test_malformed_version_map_is_refused(self):
        document = version()
        document['status']['containerImageVersionDefaults'] = ['x']
        exc = self.assertRaises(image_errors.MalformedInput,
                                sources.parse_version, document, 'osv')
        self.assertIn('status.containerImageVersionDefaults: expected a map',
                      str(exc))
        document = version()
        document['spec']['targetVersion'] = {'a': 1}
        exc = self.assertRaises(image_errors.MalformedInput,
                                sources.parse_version, document, 'osv')
        self.assertIn('spec.targetVersion: expected a version', str(exc))


class UpdateTest(testtools.TestCase):
    """spec.targetVersion != status.availableVersion: an update."""

    def update(self):
        hotfix = {API: TCIB + 'openstack-heat-api' + digest('f')}
        return version(custom=hotfix, available='0.0.2', defaults={
            '0.0.1': tcib(), '0.0.2': next_version()})

    def test_override_of_one_tcib_image_is_consistent(self):
        for extra in ((), (env(next_version(), '0.0.2'),),
                      (env(next_version()),)):
            report = judge(self.update(), *extra)
            self.assertTrue(report.consistent,
                            [f.message for f in report.findings])

    def test_env_of_the_next_version_is_not_compared(self):
        report = judge(self.update(), env(next_version(), '0.0.2'))
        self.assertIn('RELATED_IMAGE env (env-file) not compared: version '
                      '0.0.2, not targetVersion 0.0.1', report.notes)
        self.assertNotIn(sources.ENV, {row.source for row in report.rows})

    def test_env_without_its_version_is_the_running_operators(self):
        report = judge(self.update(), env(next_version()))
        self.assertIn('(it names no OPENSTACK_RELEASE_VERSION; '
                      'availableVersion, the running operator\'s, is 0.0.2)',
                      ' '.join(report.notes))

    def test_env_of_the_next_version_would_have_split_the_image(self):
        # NOTE: judged against the next version's env, where heat-cfnapi
        # shares heat-api's image, the hotfix of heat-api looked partial.
        report = judge(version(custom={API: TCIB + 'openstack-heat-api' +
                                       digest('f')},
                               defaults={}),
                       env(next_version(), '0.0.1'))
        self.assertIn(check.PARTIAL_OVERRIDE, kinds(report))


class EnvOfTheTargetVersionTest(testtools.TestCase):

    def test_env_agreeing_with_the_version_defaults(self):
        report = judge(version(), env(tcib(), '0.0.1'))
        self.assertTrue(report.consistent,
                        [f.message for f in report.findings])

    def test_env_other_than_the_recorded_defaults_is_drift(self):
        other = dict(tcib(), **{ENGINE: TCIB + 'openstack-heat-engine' +
                                digest('e')})
        report = judge(version(), env(other, '0.0.1'))
        self.assertEqual([check.DRIFT], kinds(report))
        finding, = report.findings
        self.assertEqual(sources.ENV, finding.source)
        self.assertIn('RELATED_IMAGE_HEAT_ENGINE_IMAGE_URL_DEFAULT=',
                      finding.message)
        self.assertIn('the operator recorded for version 0.0.1',
                      finding.message)

    def test_env_release_version_is_read_from_every_form(self):
        self.assertEqual('1.2', env(tcib(), '1.2').version)
        listed = sources.parse_env_listing(
            '- {name: OPENSTACK_RELEASE_VERSION, value: "1.2"}\n'
            '- {name: %s, value: "%s"}\n' % (ENV_NAMES[API], tcib()[API]),
            'env.yaml')
        self.assertEqual('1.2', listed.version)
        exc = self.assertRaises(
            image_errors.MalformedInput, sources.parse_env_listing,
            'OPENSTACK_RELEASE_VERSION=\n%s=%s\n' % (ENV_NAMES[API],
                                                     tcib()[API]), 'e')
        self.assertIn('OPENSTACK_RELEASE_VERSION (line 1): expected a '
                      'version', str(exc))

    def test_layout_changed_by_override_with_or_without_env(self):
        # NOTE: the flip: defaults of one image for all three, the
        # user gives heat-engine its own (s2i's layout).
        one = {f: TCIB + 'openstack-heat-api' + digest('a')
               for f in heat_images.FIELDS}
        custom = {ENGINE: 'quay.io/openstack-k8s-operators/'
                          'openstack-heat-engine' + digest('e')}
        for defaults in ({'0.0.1': one}, {}):
            document = version(custom=custom, defaults=defaults)
            document['status']['containerImages'] = dict(one, **custom)
            for extra in ((), (env(one, '0.0.1'),)):
                report = judge(document, *extra)
                self.assertTrue(report.consistent,
                                [f.message for f in report.findings])
