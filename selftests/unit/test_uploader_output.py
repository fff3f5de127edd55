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

"""Where the bundled uploader sends its UUID map (the ConfigMap mode)."""

import testtools
import yaml

from glance_image_uploader import exitcodes
from glance_image_uploader import output


class TestConfigMapTarget(testtools.TestCase):

    def target(self, environ, configmap=None, namespace=None, key=None):
        return output.configmap_target(configmap, namespace, key, environ)

    def test_stdout_by_default(self):
        self.assertIsNone(self.target({}))
        self.assertIsNone(self.target({'TARGET_NAMESPACE': 'ns'}))

    def test_configmap_mode_uses_sylva_names(self):
        self.assertEqual(
            ('openstack-images-uuids', 'sylva', 'values.yaml'),
            self.target({'UUID_OUTPUT': 'configmap',
                         'TARGET_NAMESPACE': 'sylva'}))

    def test_flags_win(self):
        self.assertEqual(('m', 'flag-ns', 'k'), self.target(
            {'TARGET_NAMESPACE': 'env-ns'}, 'm', 'flag-ns', 'k'))

    def test_without_target_namespace_is_22(self):
        error = self.assertRaises(exitcodes.UploaderError, self.target,
                                  {'UUID_OUTPUT': 'configmap'})
        self.assertEqual(exitcodes.BAD_CONFIG, error.code)
        self.assertIn('TARGET_NAMESPACE is not set', error.message)

    def test_bad_namespace_or_mode_is_22(self):
        for environ in ({'UUID_OUTPUT': 'configmap',
                         'TARGET_NAMESPACE': 'Not_A_Label'},
                        {'UUID_OUTPUT': 'carrier-pigeon'}):
            error = self.assertRaises(exitcodes.UploaderError, self.target,
                                      environ)
            self.assertEqual(exitcodes.BAD_CONFIG, error.code)


class TestMerged(testtools.TestCase):

    def test_keeps_other_images(self):
        existing = output.render({'a': 'id-a', 'b': 'old'})
        merged = yaml.safe_load(output.merged(existing, output.render(
            {'b': 'id-b'})))
        self.assertEqual({'a': {'openstack_glance_uuid': 'id-a'},
                          'b': {'openstack_glance_uuid': 'id-b'}},
                         merged['os_images'])

    def test_replaces_garbage(self):
        merged = yaml.safe_load(output.merged(': not yaml [', output.render(
            {'b': 'id-b'})))
        self.assertEqual(['b'], list(merged['os_images']))
