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

"""Small, valid disk images made from nothing (no qemu-img needed).

Glance inspects what it imports, so a file served as qcow2 must really be
one. An empty qcow2 (every cluster unallocated) is four clusters: header,
refcount table, refcount block and L1 table.
"""

import struct

CLUSTER_BITS = 16
CLUSTER = 1 << CLUSTER_BITS


def empty_qcow2(virtual_size=1024 * 1024):
    """Bytes of a version 3 qcow2 image of virtual_size with no data."""
    l2_entries = CLUSTER // 8
    l1_size = -(-virtual_size // (CLUSTER * l2_entries))
    header = struct.pack(
        '>4sIQIIQIIQQIIQQQQII',
        b'QFI\xfb', 3,          # magic, version
        0, 0,                    # no backing file
        CLUSTER_BITS, virtual_size,
        0,                       # no encryption
        l1_size, 3 * CLUSTER,    # L1 table in cluster 3
        1 * CLUSTER, 1,          # refcount table in cluster 1, 1 cluster
        0, 0,                    # no snapshots
        0, 0, 0,                 # incompatible/compatible/autoclear
        4, 104)                  # 16-bit refcounts, header length
    header += struct.pack('>II', 0, 0)  # end of header extensions
    image = bytearray(4 * CLUSTER)
    image[:len(header)] = header
    struct.pack_into('>Q', image, CLUSTER, 2 * CLUSTER)
    for cluster in range(4):
        struct.pack_into('>H', image, 2 * CLUSTER + 2 * cluster, 1)
    return bytes(image)
