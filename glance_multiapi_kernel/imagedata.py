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

"""Generated raw image data that Glance's format inspection accepts.

Glance inspects every upload and refuses raw data that it recognises as
another format with a failed safety check (HTTP 415, "Image failed
safety checks"; glance/location.py). Purely random bytes carry the MBR
boot signature 0x55AA at offset 510 once in 65536 images, which is enough
to make a suite that uploads hundreds of them fail now and then. A zeroed
first sector keeps that signature and every format magic that sits at
offset 0 (qcow2, vmdk, vhdx, luks, ...) out of the data.
"""

import os

SECTOR = 512


def raw(size, random_bytes=None):
    """size bytes: a zero first sector, random bytes, then zeros.

    :param random_bytes: how many random bytes follow the first sector
        (default: all the rest); they make each image's checksum unique.
    """
    head = min(size, SECTOR)
    rest = size - head
    if random_bytes is None or random_bytes > rest:
        random_bytes = rest
    return b'\0' * head + os.urandom(random_bytes) + b'\0' * (
        rest - random_bytes)
