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

"""The *-manage commands (keystone-manage, glance-manage, heat-manage)
that bootstrap the databases and keys of the cloud's templates."""

import subprocess

from glance_multiapi_cloud import errors

TIMEOUT = 300


def run(argv, what, cwd=None):
    """Run a *-manage command; CloudError with its last line on failure.

    what says what the command is for ("migrate the keystone database"),
    for the error message.
    """
    try:
        proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True,
                              timeout=TIMEOUT)
    except FileNotFoundError:
        raise errors.MissingBinary('%s not found (needed to %s)' %
                                   (argv[0], what))
    if proc.returncode:
        lines = [ln for ln in (proc.stderr + proc.stdout).splitlines()
                 if ln.strip()]
        raise errors.CloudError('%s failed (exit %d): %s' % (
            what, proc.returncode, lines[-1] if lines else 'no output'))
