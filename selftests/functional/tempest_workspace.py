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

"""The workspace of one tempest run of the functional self-tests.

A new folder per run, beside no other: the cloud's tempest.conf with
the test's overrides, and a .stestr.conf that discovers only this
plugin's tests; and the environment the run gets.
"""

import configparser
import os
import re
import subprocess
import sys

from stestr import testlist

from glance_multiapi_cloud import tempestconf

# NOTE: {(test_path, top_dir): every test id there}, listed once per
# process (plugin_test_ids).
_LISTED = {}


def env(**extra):
    """The environment of a tempest run: os.environ, PYTHONSAFEPATH, extra.

    stevedore caches the entry points it lists in a file keyed by sys.path
    and the mtimes of its entries. Each tempest run here works in a new
    folder, which "python -m" puts first on sys.path, so every listing
    and worker process rebuilt that cache (1 to 3.6 CPU-s each on a
    loaded 2-core machine, about 150 times a stage). PYTHONSAFEPATH
    (Python 3.11) leaves the working folder out; the tests come from the
    top dir stestr puts there.
    """
    return dict(os.environ, PYTHONSAFEPATH='1', **extra)


def fill(workspace, source, overrides=None):
    """Fill workspace from source (the cloud's tempest folder); conf path.

    overrides: {group: {option: value}} applied to the copy of
    tempest.conf; a value of None removes the option, so its default
    applies. tempest.log goes into the workspace.
    """
    # NOTE: the cloud's workspace discovers as tempest does, and so do
    # the main job's disruptive run and main pass and the test-operator
    # stage; these runs always select this plugin's tests by regex.
    tempestconf.plugin_only_stestr_conf(
        os.path.join(source, '.stestr.conf'),
        os.path.join(workspace, '.stestr.conf'))
    conf = configparser.ConfigParser(interpolation=None)
    conf.optionxform = str
    conf.read(os.path.join(source, 'etc', 'tempest.conf'))
    for group, values in (overrides or {}).items():
        if group != 'DEFAULT' and not conf.has_section(group):
            conf.add_section(group)
        for key, value in values.items():
            if value is None:
                conf.remove_option(group, key)
            else:
                conf.set(group, key, str(value))
    conf.set('DEFAULT', 'log_dir', workspace)
    os.makedirs(os.path.join(workspace, 'etc'))
    conf_path = os.path.join(workspace, 'etc', 'tempest.conf')
    with open(conf_path, 'w') as f:
        conf.write(f)
    return conf_path


def _runner_argv(workspace):
    """Argv of stestr's subunit runner on the workspace's discovery.

    As stestr starts it, up to the selection (``--list``, ``--load-list``).
    """
    conf = configparser.ConfigParser(interpolation=None)
    conf.read(os.path.join(workspace, '.stestr.conf'))
    return [sys.executable, '-m', 'stestr.subunit_runner.run', 'discover',
            '-t', conf.get('DEFAULT', 'top_dir'),
            conf.get('DEFAULT', 'test_path')]


def plugin_test_ids(workspace):
    """Every test id the workspace's .stestr.conf discovers; or None.

    Listed once per process, as stestr lists them (its subunit runner's
    ``discover --list``, with the workspace's tempest.conf): the ids carry
    tempest's attributes (``[id-...,smoke]``). None when the listing
    failed: the run then selects by regex and shows why.
    """
    runner = _runner_argv(workspace)
    key = tuple(runner[-2:])
    if key not in _LISTED:
        try:
            proc = subprocess.run(
                runner + ['--list'], cwd=workspace, capture_output=True,
                timeout=600,
                env=env(TEMPEST_CONFIG_DIR=os.path.join(workspace, 'etc'),
                        TEMPEST_CONFIG='tempest.conf'))
        except (OSError, subprocess.TimeoutExpired):
            proc = None
        _LISTED[key] = (testlist.parse_enumeration(proc.stdout)
                        if proc and proc.returncode == 0 else None)
    return _LISTED[key]


def run_argv(conf_path, selected, concurrency=1):
    """Argv of a functional tempest run, its subunit on stdout.

    This venv's tempest with conf_path; selected: selection()'s arguments
    (or ``--regex REGEX``). The benchmark runs the same argv.
    """
    return ([os.path.join(os.path.dirname(sys.executable), 'tempest'),
             'run', '--config-file', conf_path] + list(selected) +
            ['--concurrency', str(concurrency), '--subunit'])


def run_command(workspace, conf_path, selected, concurrency=1):
    """(argv, environment added) of a run whose subunit is all it gives.

    A one-worker run of a ``--load-list`` is the worker that ``tempest
    run`` would start, started here: stestr's subunit runner on the
    workspace's discovery (its .stestr.conf), with the environment
    tempest's ``--config-file`` gives it (TEMPEST_CONFIG_DIR and
    TEMPEST_CONFIG; tempest/config.py set_config_path). The same tests
    run in the same way; what is left out is the ``tempest`` process
    around them (its cliff app, stestr's repository and a shell), about
    1.1 CPU-s of each of some 90 runs of a functional stage on a loaded
    2-core machine. Any other run (several workers, or ``--regex``, which
    is there to fail as tempest fails) is run_argv's ``tempest run``.
    """
    if concurrency != 1 or list(selected[:1]) != ['--load-list']:
        return run_argv(conf_path, selected, concurrency), {}
    argv = _runner_argv(workspace) + list(selected)
    conf_path = os.path.abspath(conf_path)
    return argv, {'TEMPEST_CONFIG_DIR': os.path.dirname(conf_path),
                  'TEMPEST_CONFIG': os.path.basename(conf_path)}


def selection(workspace, regex):
    """tempest run's arguments that select what ``--regex regex`` does.

    ``--load-list`` of the matching ids when there are any: stestr then
    runs them without listing every test first, one process and about
    1.2 CPU-s less per run (a one-test run 2.9 CPU-s, not 4.1). Tempest
    splits the regex on white space, and stestr keeps an id that any part
    matches (re.search); so does this. Otherwise (nothing matches, the
    listing failed, or the regex is not one) ``--regex`` itself, so the
    run fails as it would.
    """
    try:
        parts = [re.compile(part) for part in regex.split()]
    except re.error:
        return ['--regex', regex]
    ids = plugin_test_ids(workspace) or []
    chosen = [i for i in ids if any(p.search(i) for p in parts)]
    if not chosen:
        return ['--regex', regex]
    path = os.path.join(workspace, 'selected-tests.txt')
    with open(path, 'w') as f:
        f.write(''.join(i + '\n' for i in chosen))
    return ['--load-list', path]
