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

"""How fast this machine starts the programs the scenarios race against.

Two scenarios hold a state for a while so that the program under test
meets it; their holds in tempest.conf come from what ``up`` measures
here, so a fast machine does not wait out a slow machine's worst case and
a loaded one gets the time it needs:

* ``[image_uploader] saving_hold``: how long a throttled upload keeps an
  image ``saving`` after the uploader under test got its source. An
  uploader that ignores the saving image would start its own upload in
  about one start of a Python client (interpreter and openstacksdk);
  the hold is three of those, at least HOLD_FLOOR.
* ``[consolidated_heat] in_progress_seconds``: the first resource must
  still be in progress when heat-engine gets its SIGTERM, which comes one
  start of the restart command after the test saw it in progress; the
  old engine then drains it whatever its length, and the second resource
  starts on the new engine. Four starts of the cloud's CLI, at least
  WAIT_FLOOR.

And one wait of the cloud's own: how long a service it starts may take
to answer its first request (``processes.wait_http``). Keystone alone
took 30 to 35 s on a loaded 2-core machine, and more than a fixed 60 s
when three clouds came up at once; sixty CLI starts, at least
READY_FLOOR.

Pure arithmetic apart from ``measure``.
"""

import math
import os
import subprocess
import sys
import time

HOLD_FLOOR = 4
WAIT_FLOOR = 6
READY_FLOOR = 60
# NOTE: what a Python uploader pays before its first request.
CLIENT_START = [sys.executable, '-c', 'import openstack, requests']


def _seconds(argv):
    started = time.monotonic()
    subprocess.run(argv, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=120, check=False)
    return time.monotonic() - started


def measure():
    """{'client_start': s, 'cli_start': s} on this machine, now."""
    cli = os.path.join(os.path.dirname(sys.executable),
                       'glance-multiapi-cloud')
    return {'client_start': round(_seconds(CLIENT_START), 2),
            'cli_start': round(_seconds([cli, '--version']), 2)}


def saving_hold(speed):
    return max(HOLD_FLOOR, int(math.ceil(3 * speed['client_start'])))


def in_progress_seconds(speed):
    return max(WAIT_FLOOR, int(math.ceil(4 * speed['cli_start'])))


def ready_timeout(speed):
    """Seconds a started service may take to answer; speed may be None."""
    cli_start = (speed or {}).get('cli_start', 0)
    return max(READY_FLOOR, int(math.ceil(60 * cli_start)))
