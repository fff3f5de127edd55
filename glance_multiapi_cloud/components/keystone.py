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

"""Keystone of the embedded cloud (uwsgi, fernet tokens): its config, its
bootstrap template, the users and identity endpoints it starts with."""

import grp
import os
import pwd
import secrets

from glance_multiapi_cloud import admin as admin_mod
from glance_multiapi_cloud import bootstrap
from glance_multiapi_cloud import lifecycle
from glance_multiapi_cloud import manage
from glance_multiapi_cloud import processes
from glance_multiapi_cloud import tlsmode
from glance_multiapi_cloud import uwsgi

NAME = 'keystone'
HINT = 'install cloud-requirements.txt'

KEYSTONE_CONF = """[DEFAULT]
debug = False
[database]
connection = sqlite:///{root}/keystone.db
[token]
provider = fernet
expiration = 7200
[fernet_tokens]
key_repository = {root}/fernet-keys
[credential]
key_repository = {root}/credential-keys
[identity]
# NOTE: a test cloud only; the default costs ~200x more per token.
password_hash_rounds = 4
[cache]
# NOTE: keystone-operator enables keystone's cache (memcached;
# templates/keystoneapi/config/keystone.conf); the one process here
# keeps it in its memory.
enabled = true
backend = dogpile.cache.memory
[oslo_policy]
enforce_new_defaults = True
enforce_scope = False
"""


def url(state):
    """Keystone's one URL, public and internal (https under --tls)."""
    return tlsmode.url(state, state.port(NAME))


def admin(state):
    """The cloud's admin (not logged in yet)."""
    return admin_mod.Admin(url(state), state.password('admin'),
                           verify=tlsmode.verify(state))


def write_config(root):
    """Write keystone.conf for a keystone whose files live in root."""
    path = os.path.join(root, 'keystone.conf')
    with open(path, 'w') as f:
        f.write(KEYSTONE_CONF.format(root=root))
    return path


def template_dir():
    return bootstrap.template_dir('keystone')


def _build_template(work):
    """Migrate, key and bootstrap a keystone whose files live in work."""
    conf = write_config(work)
    for sub in ('fernet-keys', 'credential-keys'):
        os.makedirs(os.path.join(work, sub))
    manage_bin = processes.find_binary('keystone-manage', HINT)
    user = pwd.getpwuid(os.getuid()).pw_name
    group = grp.getgrgid(os.getgid()).gr_name
    owner = ['--keystone-user', user, '--keystone-group', group]
    manage.run([manage_bin, '--config-file', conf, 'db_sync'],
               'migrate the keystone database', work)
    manage.run([manage_bin, '--config-file', conf, 'fernet_setup'] + owner,
               'create fernet keys', work)
    manage.run([manage_bin, '--config-file', conf, 'credential_setup'] +
               owner, 'create credential keys', work)
    password = secrets.token_urlsafe(12)
    manage.run([manage_bin, '--config-file', conf, 'bootstrap',
                '--bootstrap-username', 'admin',
                # NOTE: one argument: a password may start with "-".
                '--bootstrap-password=' + password,
                '--bootstrap-project-name', 'admin',
                '--bootstrap-role-name', 'admin',
                '--bootstrap-region-id', admin_mod.REGION],
               'bootstrap keystone', work)
    with open(os.path.join(work, 'admin-password'), 'w') as f:
        f.write(password)
    os.unlink(conf)


ENTRIES = ('keystone',)


# -- verbs (see components/__init__.py) ----------------------------------
def enabled(state):
    return True


def binaries_needed(state):
    uwsgi.binary()
    processes.find_binary('keystone-manage', HINT)


def prepare(state):
    """Copy the template's database and keys into the state dir."""
    template, built = bootstrap.ensure(template_dir(), _build_template)
    root = state.makedirs('keystone')
    for sub in ('fernet-keys', 'credential-keys'):
        bootstrap.copy_tree(template, sub, root, sub)
    bootstrap.copy(template, 'keystone.db', root, 'keystone.db')
    with open(os.path.join(template, 'admin-password')) as f:
        state.record.passwords['admin'] = f.read().strip()
    write_config(root)
    if built:
        return ('built the bootstrap template in %s (once per keystone '
                'version)' % template)
    return None


def start(state):
    port = state.port(NAME)
    argv = uwsgi.argv(
        'glance_multiapi_cloud.runtime.wsgi_keystone:application',
        [uwsgi.socket(state, port, NAME)], NAME)
    processes.start(state, NAME, argv, env={
        'OS_KEYSTONE_CONFIG_FILES': state.path('keystone', 'keystone.conf')},
        ports=[port])
    return [NAME]


def wait_ready(state, started):
    if NAME in started:
        processes.wait_http(state, NAME, url(state) + '/v3',
                            verify=tlsmode.verify(state))


def register(state, admin):
    """The identity endpoints, the roles and the demo users."""
    admin.set_service('identity', NAME, {
        iface: url(state) + '/v3'
        for iface in ('public', 'internal', 'admin')})
    for role in ('member', 'reader', 'service'):
        admin.ensure('roles', role, {})
    admin.ensure_user('demo', state.password('demo'), 'demo', 'member')
    admin.ensure_user('alt_demo', state.password('alt_demo'), 'alt_demo',
                      'member')


def reconcile(state):
    pass


def stop(state):
    return processes.stop_many(state, [NAME])


def status(state):
    return lifecycle.report(state, NAME, url(state), url(state) + '/v3')


def tempest_options(state, sections, cli):
    """Nothing: every tempest.conf points at keystone (tempestconf)."""


def restartable(state):
    return [NAME]


def restart(state, name):
    return lifecycle.restart_own(state, name, restartable(state), start,
                                 wait_ready)
