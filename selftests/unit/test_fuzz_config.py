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

"""Property tests: tempest.conf as the doctor reads it, and option values.

For any bytes, and for any INI text whose sections and options are the
ones the doctor and the plugin read with values of any kind (URLs,
durations, bounds, JSON, dicts, lists), the doctor's settings either load
or are refused with ConfigProblem in one line naming the file; what it
then derives from them (credentials, region, explicit APIs) is a value
or its module's error. The option values oslo.config takes as strings
(grow_api_spec, name_format, tag_format) are an OptionValueError naming
the option, never a crash inside a test.
"""

import os

import fixtures
from hypothesis import given
from hypothesis import strategies as st
import testtools

from glance_multiapi_tests import deployment_access
from glance_multiapi_tests.doctor import settings
from glance_multiapi_tests.multiapi import discovery
from selftests import fuzzing
from glance_multiapi_tests.tests import option_values

OPTIONS = {group: [opt.name for opt in opts]
           for group, opts in settings._groups()}
# NOTE: the values each kind of option is likely to be given wrong.
VALUES = ('', '0', '-1', '1e999', 'nan', 'inf', '99999999999999999999',
          'true', 'maybe', 'http://', 'http://[::1', 'http://h:99999/',
          'https://127.0.0.1:5000/v3', 'ftp://x', 'api0:split,api1',
          'api0', 'a:b:c', '{"type": "edge"}', '[1]', '/nonexistent/ca.pem',
          '$other', '${x}', '%(x)s', '\\', '"', 'é')


def _value():
    return st.one_of(st.sampled_from(VALUES), st.text(max_size=40),
                     fuzzing.huge_strings())


@st.composite
def ini_texts(draw):
    """tempest.conf text: known sections and options, values of any kind."""
    lines = []
    for _ in range(draw(st.integers(0, 12))):
        group = draw(st.sampled_from(sorted(OPTIONS) + ['DEFAULT', 'x']))
        name = draw(st.sampled_from(OPTIONS.get(group, ['x'])) |
                    st.text('abc_[]= ', max_size=8))
        value = draw(_value()).replace('\n', ' ').replace('\r', ' ')
        lines.append('[%s]\n%s = %s\n' % (group, name, value))
    if draw(st.booleans()):
        lines.append(draw(st.sampled_from(fuzzing.NASTY_TEXTS)))
    return ''.join(lines)


class TestDoctorConfigFuzzing(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                                 'tempest.conf')

    def check(self, data):
        with open(self.path, 'wb') as f:
            f.write(data)
        try:
            conf = settings.load(self.path)
            settings.region(conf)
            settings.credentials(conf, self.path)
        except settings.ConfigProblem as exc:
            fuzzing.check_refusal(self, exc, self.path)
            return
        opts = conf.glance_multiapi
        if opts.api_names and not deployment_access.choose(
                opts).reads_glance:
            try:
                discovery.apply_options(None, opts)
            except discovery.DiscoveryError as exc:
                fuzzing.check_refusal(self, exc, '[glance_multiapi]')

    @given(ini_texts())
    def test_tempest_conf_is_settings_or_a_config_problem(self, text):
        self.check(text.encode('utf-8', 'surrogatepass'))

    @given(fuzzing.raw_bytes())
    def test_any_bytes_are_settings_or_a_config_problem(self, data):
        self.check(data)


class TestOptionValueFuzzing(testtools.TestCase):

    @given(fuzzing.texts({'type': 'single', 'replicas': 1,
                          'customServiceConfig': '[DEFAULT]\n'}))
    def test_grow_api_spec_is_a_spec_or_refused(self, text):
        try:
            spec = option_values.api_spec('glance_multiapi', 'grow_api_spec',
                                          text)
        except option_values.OptionValueError as exc:
            fuzzing.check_refusal(self, exc,
                                  '[glance_multiapi] grow_api_spec')
            return
        self.assertIsInstance(spec, dict)

    @given(st.one_of(st.text(max_size=40), st.sampled_from((
        '{name}-sylva-diskimage-builder-{commit_tag}', '{', '}', '{0}',
        '{name!r}', '{name:>99999999999}', '{name.x}', '{name[0]}',
        '{{name}}', '{md5}'))))
    def test_name_format_is_a_template_or_refused(self, text):
        try:
            option_values.template('image_uploader', 'name_format', text,
                                   ('name', 'commit_tag'))
        except option_values.OptionValueError as exc:
            fuzzing.check_refusal(self, exc, '[image_uploader] name_format')
            return
        text.format(name='cirros', commit_tag='abc')
