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

"""setup.cfg's data_files and where shared_files looks for them agree."""

import configparser
import os

import fixtures
import testtools

from glance_multiapi_kernel import shared_files

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), '..',
                                     '..'))


class SharedFilesTest(testtools.TestCase):

    def test_data_files_install_etc_where_it_is_looked_for(self):
        parser = configparser.ConfigParser()
        parser.read(os.path.join(REPO, 'setup.cfg'))
        lines = [line.split('=') for line in
                 parser['files']['data_files'].strip().splitlines()]
        self.assertEqual([[os.path.join(shared_files.SHARE, 'etc'),
                           'etc/*']],
                         [[a.strip(), b.strip()] for a, b in lines])

    def test_source_tree_first(self):
        self.assertEqual(os.path.join(REPO, 'etc', 'glance-multiapi-'
                                                   'cloud.yaml'),
                         shared_files.find(os.path.join(
                             'etc', 'glance-multiapi-cloud.yaml')))

    def test_installed_copy_under_the_data_folder(self):
        data = self.useFixture(fixtures.TempDir()).path
        etc = os.path.join(data, shared_files.SHARE, 'etc', 'image-check')
        os.makedirs(etc)
        open(os.path.join(etc, 'x.yaml'), 'w').close()
        self.useFixture(fixtures.MonkeyPatch(
            'glance_multiapi_kernel.shared_files._SOURCE_ROOT',
            os.path.join(data, 'no-source-tree')))
        self.useFixture(fixtures.MonkeyPatch(
            'sysconfig.get_path', lambda name: data))
        self.assertEqual(os.path.join(etc, 'x.yaml'), shared_files.find(
            os.path.join('etc', 'image-check', 'x.yaml')))
        self.assertIsNone(shared_files.find(os.path.join('etc', 'nothing')))
