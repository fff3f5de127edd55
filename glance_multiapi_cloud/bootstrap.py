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

"""The per-user cache of bootstrapped databases and keys ("templates").

Bootstrapping keystone and migrating the databases dominate start-up
(15-20 s), so each result is built once per version of what made it, kept
under the user's cache dir and copied into each new cloud.
"""

import fcntl
import os
import shutil
import tempfile

# NOTE: bump when what a template holds changes, so old ones are not used.
# 4: keystone bootstrapped in region regionOne (was RegionOne).
TEMPLATE_FORMAT = 4


def cache_root():
    """The per-user cache of bootstrapped templates, private to its user.

    NOTE: templates hold the admin password and fernet keys.
    """
    cache = os.environ.get('XDG_CACHE_HOME') or os.path.expanduser(
        '~/.cache')
    root = os.path.join(cache, 'glance-multiapi-cloud')
    os.makedirs(root, mode=0o700, exist_ok=True)
    os.chmod(root, 0o700)
    return root


def template_dir(*distributions):
    """The template dir for the installed versions of distributions."""
    from importlib import metadata
    return os.path.join(cache_root(), 'v%d-%s' % (TEMPLATE_FORMAT, '-'.join(
        '%s-%s' % (name, metadata.version(name))
        for name in distributions)))


def ensure(target, build):
    """(target, built): build(work_dir) fills target once if missing.

    The build runs in a temp dir next to target that is renamed into
    place when complete, so a failed build leaves nothing behind.
    """
    if os.path.isdir(target):
        return target, False
    parent = os.path.dirname(target)
    os.makedirs(parent, exist_ok=True)
    with open(target + '.lock', 'w') as lock:
        # NOTE: two clouds started at once must not both build it.
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.isdir(target):
            return target, False
        work = tempfile.mkdtemp(dir=parent, prefix='.building-')
        try:
            build(work)
            os.rename(work, target)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return target, True


def copy(template, name, *dest):
    """Copy file name of a template to the path joined from dest.

    NOTE: copyfile, not copy: the copies take this process's private
    umask, whatever modes an older template has.
    """
    path = os.path.join(*dest)
    shutil.copyfile(os.path.join(template, name), path)
    return path


def copy_tree(template, name, *dest):
    """Copy folder name of a template to dest, private to this user."""
    path = os.path.join(*dest)
    shutil.copytree(os.path.join(template, name), path,
                    copy_function=shutil.copyfile)
    os.chmod(path, 0o700)
    return path
