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

"""bindep.txt, read by bindep's own parser, against what the code runs.

tools/setup-env.sh installs what bindep lists for the default and test
profiles; the packages the scripts and the embedded cloud name (in
their commands and in their error hints) must be among them, on Debian
and, by their RPM names, on CentOS Stream 9 too.
"""

import functools
import os
import re

from bindep import depends
import testtools

from glance_multiapi_cloud.components import rabbitmq
from glance_multiapi_cloud.components import registry

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), '..',
                                     '..'))
DEBIAN = ['platform:dpkg', 'platform:debian', 'platform:debian-12']
CENTOS = ['platform:rpm', 'platform:redhat', 'platform:centos',
          'platform:centos-9']
# What uWSGI's source build needs (a compiler, Python's and OpenSSL's
# headers) and the venvs, by distribution; tools/bench_uploader.py runs
# curl.
BUILD = {'dpkg': {'gcc', 'python3-dev', 'libssl-dev', 'python3-venv',
                  'curl'},
         'rpm': {'gcc', 'python3-devel', 'openssl-devel', 'curl'}}


def _read(*path):
    with open(os.path.join(REPO, *path)) as stream:
        return stream.read()


def _hint_package(hint):
    """The package an error hint tells to apt-get install."""
    return re.match(r'apt-get install (\S+?),?(?: |$)', hint).group(1)


@functools.lru_cache(maxsize=1)
def _depends():
    # NOTE: bindep's parser takes 0.6 CPU-s on this bindep.txt; the tests
    # only read the result (active_rules), so they share one parse.
    return depends.Depends(_read('bindep.txt'), 'bindep.txt')


class BindepTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.depends = _depends()
        self.setup_env = _read('tools', 'setup-env.sh')

    def packages(self, platform, *profiles):
        rules = self.depends.active_rules(list(profiles) + platform)
        return {rule[0] for rule in rules}

    def test_default_profile_has_what_the_cloud_runs(self):
        wanted = {_hint_package(registry.HINT),
                  _hint_package(rabbitmq.HINT)} | BUILD['dpkg']
        self.assertEqual({'docker-registry', 'rabbitmq-server'},
                         wanted - BUILD['dpkg'])
        self.assertEqual(set(), wanted - self.packages(DEBIAN, 'default'))

    def test_setup_env_installs_by_name_only_what_bindep_lists(self):
        # NOTE: the bootstrap before bindep can run (python3-venv).
        named = set(re.findall(r'^\s*apt_install ([\w.+-]+)$',
                               self.setup_env, re.M))
        self.assertEqual({'python3-venv'}, named)
        self.assertEqual(set(), named - self.packages(DEBIAN, 'default'))
        self.assertIn('/bin/bindep" -b -f bindep.txt default test',
                      self.setup_env)

    def test_unpacked_kubectl_is_test_only(self):
        package = re.search(r'^KUBECTL_PACKAGE=(\S+)$', self.setup_env,
                            re.M).group(1)
        self.assertEqual('kubernetes-client', package)
        self.assertIn(package, self.packages(DEBIAN, 'test'))
        self.assertNotIn(package, self.packages(DEBIAN, 'default'))

    def test_centos_stream_has_the_same_kinds(self):
        default = self.packages(CENTOS, 'default')
        self.assertEqual(set(), BUILD['rpm'] - default)
        self.assertIn('rabbitmq-server', default)
        self.assertIn('docker-distribution', default)
        self.assertEqual({'kubernetes-client', 'chromium', 'chromedriver'},
                         self.packages(CENTOS, 'test') - default)
        # NOTE: no Debian-only name leaks into the RPM list.
        self.assertEqual(set(), default & {'python3-dev', 'libssl-dev',
                                           'python3-venv', 'docker-registry'})

    def test_browser_of_the_map_test_is_test_only(self):
        test_only = self.packages(DEBIAN, 'test') - self.packages(
            DEBIAN, 'default')
        self.assertEqual({'chromium', 'chromium-driver'},
                         test_only - {'kubernetes-client'})

    def test_profiles_are_default_test_and_load(self):
        self.assertEqual(['load', 'test'], sorted(self.depends.profiles()))

    def test_load_profile_is_the_hog_of_run_under_load(self):
        load = self.packages(DEBIAN, 'load') - self.packages(
            DEBIAN, 'default')
        self.assertEqual({'stress-ng'}, load)
        self.assertNotIn('stress-ng', self.packages(DEBIAN, 'test'))
        script = _read('tools', 'run-under-load.sh')
        self.assertIn("stress-ng --cpu", script)
        self.assertIn("bindep.txt's 'load' profile", script)
