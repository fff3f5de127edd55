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

"""glance-multiapi-cloud up on a busy port: the row of its bad-input table
that gets as far as the cloud's first port, so past the checks of the
unit rows (selftests/unit/test_cli_bad_input_cloud.py); it needs the
cloud's programs installed but no cloud running.
"""

import socket

import testscenarios

from glance_multiapi_cloud import ports
from selftests import cli_runs

load_tests = testscenarios.load_tests_apply_scenarios


class TestCloudBusyPort(testscenarios.WithScenarios, cli_runs.BadInputCase):

    script = 'glance-multiapi-cloud'
    real_home = True
    scenarios = [
        ('base_port_in_use', dict(
            argv=['up', '--state-dir', '{work}/cloud', '--base-port',
                  '{port}'],
            code=98, needles=('127.0.0.1:{port}', 'busy'))),
    ]

    def hold_port(self):
        """The first port of a block the cloud may use, held."""
        sock = socket.socket()
        self.addCleanup(sock.close)
        for port in ports.block_starts(ports.ephemeral_range()):
            if ports.untouched(port):
                sock.bind(('127.0.0.1', port))
                sock.listen(1)
                return port
        self.skipTest('no free block of ports to hold the first of')
