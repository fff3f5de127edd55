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

"""The kernel's values.py: each check names what is wrong, or passes."""

import testtools

from glance_multiapi_kernel import values


class TestValues(testtools.TestCase):

    def test_urls(self):
        for url in ('http://127.0.0.1:9292', 'https://[::1]:443/v2',
                    'http://glance.example/'):
            self.assertIsNone(values.url_problem(url))
        self.assertIsNone(values.url_problem('oci://r:5000/x', schemes=()))
        for url, needle in (('http://[::1', 'Invalid IPv6 URL'),
                            ('http://x:99999/', 'out of range'),
                            ('http:///v3', 'no host'),
                            ('ftp://x/', 'not http:// or https://'),
                            ('http://x/\0', 'a NUL byte'),
                            ('http://x/\n', 'a line break'),
                            ('http://x/ y', 'white space'),
                            (5, 'expected a URL string')):
            self.assertIn(needle, values.url_problem(url))

    def test_names(self):
        for name in ('cirros', 'ubuntu jammy', 'a.b', '2024'):
            self.assertIsNone(values.name_problem(name))
        for name, needle in (('', 'empty'), ('  ', 'empty'),
                             ('a\nb', 'a line break'), ('a/b', '"/"'),
                             ('..', 'names a folder'), ('.', 'folder'),
                             ('a\tb', 'control character'),
                             (None, 'expected a name')):
            self.assertIn(needle, values.name_problem(name))

    def test_replicas(self):
        for count in (0, 1, values.INT32_MAX):
            self.assertIsNone(values.replicas_problem(count))
        for count, needle in ((-1, 'non-negative'), (True, 'non-negative'),
                              (1.5, 'non-negative'),
                              (values.INT32_MAX + 1, 'int32')):
            self.assertIn(needle, values.replicas_problem(count))
