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

"""Read a subunit v2 stream test by test (for the self-test runners)."""

import subunit
import testtools


def for_each_test(stream, on_test):
    """Call on_test(dict) for every test of a subunit v2 byte stream.

    The dict is testtools.StreamToDict's: id, status, details, tags.
    """
    case = subunit.ByteStreamToStreamResult(stream, non_subunit_name='out')
    result = testtools.StreamToDict(on_test)
    result.startTestRun()
    try:
        case.run(result)
    finally:
        result.stopTestRun()
