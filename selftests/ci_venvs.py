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

"""The venvs of a CI system's own tools, for the tests that run them.

``CiVenv('zuul')`` holds Zuul (its parser, its zuul_return) and the
ansible-core its executor runs; ``CiVenv('cifmw')`` the ansible-core the
ci-framework runs its hooks with. Both are made by tools/ci-venv.sh,
which the lint stage runs first, so a test reuses them; made here when
missing (a minute, from the package index). ``CiVenv('report')`` holds
the project's requirements, for the post_tests hook to install this
checkout's report into; the one test that runs the hook whole makes it
the first time.
"""

import os
import subprocess

import fixtures

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), '..'))
# NOTE: making .venv-zuul from nothing took 31 s here; a slow index
# gets ten times that.
MAKE_TIMEOUT = 900


class CiVenv(fixtures.Fixture):
    """The venv of tools/ci-venv.sh NAME; .path and .bin(name)."""

    def __init__(self, name):
        super().__init__()
        self.name = name
        self.path = None

    def _setUp(self):
        proc = subprocess.run(
            [os.path.join(REPO, 'tools', 'ci-venv.sh'), self.name],
            capture_output=True, text=True, timeout=MAKE_TIMEOUT + 60,
            env=dict(os.environ, CI_VENV_LOCK_TIMEOUT=str(MAKE_TIMEOUT)))
        if proc.returncode != 0:
            raise RuntimeError('tools/ci-venv.sh %s failed (%d): %s'
                               % (self.name, proc.returncode,
                                  proc.stderr[-2000:]))
        self.path = proc.stdout.strip().splitlines()[-1]

    def bin(self, name):
        return os.path.join(self.path, 'bin', name)
