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

"""Generated raw images carry no format signature in their first sector."""

import testtools

from glance_multiapi_kernel import imagedata


class RawImageTest(testtools.TestCase):

    def test_first_sector_is_zero_and_no_boot_signature(self):
        for _ in range(50):
            data = imagedata.raw(4096)
            self.assertEqual(4096, len(data))
            self.assertEqual(b'\0' * 512, data[:512])
            self.assertNotEqual(b'\x55\xaa', data[510:512])

    def test_random_part_makes_checksums_unique(self):
        self.assertNotEqual(imagedata.raw(2048), imagedata.raw(2048))

    def test_random_bytes_then_zeros(self):
        data = imagedata.raw(10000, random_bytes=1000)
        self.assertEqual(b'\0' * 8488, data[1512:])
        self.assertNotEqual(b'\0' * 1000, data[512:1512])

    def test_smaller_than_a_sector(self):
        self.assertEqual(b'\0' * 100, imagedata.raw(100))
