#!/usr/bin/env python3
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

"""Register every installed tempest plugin's options as tempest does.

Loads the plugins through tempest's own plugin manager (so in tempest's
order), registers tempest's options and then each plugin's on a fresh
ConfigOpts, and checks for each plugin that register_opts did not raise
and that every option its get_opt_lists names is registered afterwards.
Tempest itself only logs a plugin whose register_opts raised, and the
options after the failing one are then silently missing; this says which.

Prints the load order and one line per plugin. Exit status: 0 when every
plugin is fine (and, with --first/--last NAME, NAME loaded first/last),
1 otherwise.

  coexistence_probe.py [--first NAME | --last NAME]
"""

import argparse
import sys

from oslo_config import cfg
from tempest import config
from tempest.test_discover import plugins


def _group_name(group):
    return getattr(group, 'name', group)


def _missing_opts(conf, opt_lists):
    """The "[group] name" of each listed option conf does not know."""
    missing = []
    for group, opts in opt_lists:
        name = _group_name(group)
        for opt in opts:
            try:
                # NOTE: the keys, not "in": a Mapping's "in" reads the
                # value, which may fail for reasons that are not ours.
                known = opt.dest in list(conf[name] if name else conf)
            except cfg.NoSuchOptError:
                known = False
            if not known:
                missing.append('[%s] %s' % (name or 'DEFAULT', opt.dest))
    return missing


def check(conf, extensions):
    """Return (plugin name, problem or None) for each plugin, in order."""
    for group, opts in config._opts:
        config.register_opt_group(conf, group, opts)
    raised = {}
    for ext in extensions:
        try:
            ext.obj.register_opts(conf)
        except Exception as exc:
            raised[ext.name] = '%s: %s' % (type(exc).__name__, exc)
    results = []
    for ext in extensions:
        problems = []
        if ext.name in raised:
            problems.append('register_opts raised %s' % raised[ext.name])
        missing = _missing_opts(conf, ext.obj.get_opt_lists())
        if missing:
            problems.append('not registered: %s' % ', '.join(missing))
        results.append((ext.name, '; '.join(problems) or None))
    return results


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group()
    where.add_argument('--first', metavar='NAME',
                       help='fail unless plugin NAME loads first')
    where.add_argument('--last', metavar='NAME',
                       help='fail unless plugin NAME loads last')
    args = parser.parse_args(argv)

    extensions = list(plugins.TempestTestPluginManager().ext_plugins)
    names = [ext.name for ext in extensions]
    print('load order: %s' % ', '.join(names))
    ok = bool(names)
    if not names:
        print('FAILED: no tempest plugin is installed')
    for name, problem in check(cfg.ConfigOpts(), extensions):
        print('%s: %s' % (name, 'FAILED: %s' % problem if problem
                          else 'every option registered'))
        ok = ok and problem is None
    wanted, position = ((args.first, 0) if args.first
                        else (args.last, -1) if args.last else (None, 0))
    if wanted and (not names or names[position] != wanted):
        print('FAILED: wanted %s to load %s, order is %s' % (
            wanted, 'first' if position == 0 else 'last', ', '.join(names)))
        ok = False
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
