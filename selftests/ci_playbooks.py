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

"""Run the project's CI playbooks from their own text, as CI runs them.

``checkout(dest)`` copies this checkout (its tracked and new files, what
a CI's clone holds) so that what a playbook installs from it is built
there, not in the developer's tree; ``play(...)`` runs one playbook on
localhost with a CI system's ansible-playbook (selftests/ci_venvs.py).
"""

import json
import os
import shutil
import subprocess

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), '..'))
# NOTE: the copy has no .git for pbr to read its version from.
PBR_VERSION = '0.0.1'


def checkout(dest):
    """Copy this checkout's files (git ls-files -co) into dest; dest."""
    names = subprocess.run(
        ['git', 'ls-files', '-co', '--exclude-standard', '-z'], cwd=REPO,
        capture_output=True, check=True, timeout=60).stdout.split(b'\0')
    for name in filter(None, (n.decode() for n in names)):
        source = os.path.join(REPO, name)
        if not os.path.isfile(source):
            continue
        target = os.path.join(dest, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(source, target)
    return dest


def play(venv, playbook, variables, *, home, env=None, timeout=900):
    """Run playbook on localhost; its CompletedProcess (text).

    venv: a ci_venvs.CiVenv; variables: its extra variables (a JSON file
    beside home); home: HOME of the run (where ~ is); env: more of the
    environment.
    """
    extra = os.path.join(os.path.dirname(home), 'extra-vars.json')
    with open(extra, 'w') as f:
        json.dump(dict(variables,
                       ansible_python_interpreter=venv.bin('python')), f)
    environ = dict(os.environ, HOME=home, PBR_VERSION=PBR_VERSION,
                   ANSIBLE_NOCOLOR='1', ANSIBLE_FORCE_COLOR='0',
                   **(env or {}))
    return subprocess.run(
        [venv.bin('ansible-playbook'), '-i', 'localhost,', '-c', 'local',
         playbook, '-e', '@' + extra], capture_output=True, text=True,
        timeout=timeout, env=environ)
