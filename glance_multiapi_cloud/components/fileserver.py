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

"""A python http.server on files/: sources for web-download imports and
the uploader (``up --no-fileserver`` leaves it out)."""

import os
import sys

from glance_multiapi_kernel import imagedata
from glance_multiapi_cloud import lifecycle
from glance_multiapi_cloud import processes
from glance_multiapi_cloud import testimages

NAME = 'fileserver'
TEST_IMAGE = 'tempest-test-image.raw'
QCOW2 = 'tempest-test-image.qcow2'


def url(state):
    """Its URL, or None on a cloud without a file server."""
    port = state.record.ports.get(NAME)
    return 'http://127.0.0.1:%d' % port if port else None


ENTRIES = ('files',)


# -- verbs (see components/__init__.py) ----------------------------------
def enabled(state):
    return bool(state.record.options.fileserver)


def binaries_needed(state):
    pass


def prepare(state):
    return None


def start(state):
    port = state.port(NAME)
    root = state.makedirs('files')
    processes.start(state, NAME, [
        sys.executable, '-m', 'http.server', '--bind', '127.0.0.1',
        '--directory', root, str(port)], ports=[port])
    return [NAME]


def wait_ready(state, started):
    if NAME in started:
        processes.wait_http(state, NAME, url(state) + '/')


def register(state, admin):
    pass


def reconcile(state):
    """Serve the images tempest.conf names (written once)."""
    if os.path.isdir(state.path('files')) and not os.path.exists(
            state.path('files', TEST_IMAGE)):
        with open(state.path('files', TEST_IMAGE), 'wb') as f:
            f.write(imagedata.raw(1024 * 1024))
        with open(state.path('files', QCOW2), 'wb') as f:
            f.write(testimages.empty_qcow2())


def stop(state):
    return processes.stop_many(state, [NAME])


def status(state):
    if not url(state):
        return {}
    return lifecycle.report(state, NAME, url(state))


def tempest_options(state, sections, cli):
    if url(state):
        # NOTE: tempest's default http_image is on the internet.
        sections['image']['http_image'] = url(state) + '/' + TEST_IMAGE
        sections['image']['http_qcow2_image'] = url(state) + '/' + QCOW2


def restartable(state):
    return [NAME] if enabled(state) else []


def restart(state, name):
    return lifecycle.restart_own(state, name, restartable(state), start,
                                 wait_ready)
