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

"""Keystone of the embedded cloud: config and bootstrap template.

Bootstrapping keystone and migrating both databases dominate start-up
(15-20 s), so the result is kept once per keystone/glance version in a
template under the user's cache dir and copied for each new cloud.
"""

import grp
import os
import pwd
import secrets

from glance_multiapi_tests.localcloud import admin
from glance_multiapi_tests.localcloud import bootstrap
from glance_multiapi_tests.localcloud import glance_apis
from glance_multiapi_tests.localcloud import manage
from glance_multiapi_tests.localcloud import processes

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
[oslo_policy]
enforce_new_defaults = True
enforce_scope = False
"""


def write_config(root):
    """Write keystone.conf for a keystone whose files live in root."""
    path = os.path.join(root, 'keystone.conf')
    with open(path, 'w') as f:
        f.write(KEYSTONE_CONF.format(root=root))
    return path


def template_dir():
    return bootstrap.template_dir('keystone', 'glance')


def _build_template(work):
    conf = write_config(work)
    for sub in ('fernet-keys', 'credential-keys'):
        os.makedirs(os.path.join(work, sub))
    manage_bin = processes.find_binary('keystone-manage',
                                       'install cloud-requirements.txt')
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
                '--bootstrap-password', password,
                '--bootstrap-project-name', 'admin',
                '--bootstrap-role-name', 'admin',
                '--bootstrap-region-id', admin.REGION],
               'bootstrap keystone', work)
    with open(os.path.join(work, 'admin-password'), 'w') as f:
        f.write(password)
    glance_apis.sync_database(work)
    os.unlink(conf)


def ensure_template():
    """Path of the bootstrapped template, building it once if missing."""
    return bootstrap.ensure(template_dir(), _build_template)


def install_from_template(state):
    """Copy the template's databases and keys into the state dir."""
    template, built = ensure_template()
    root = state.makedirs('keystone')
    for sub in ('fernet-keys', 'credential-keys'):
        bootstrap.copy_tree(template, sub, root, sub)
    bootstrap.copy(template, 'keystone.db', root, 'keystone.db')
    with open(os.path.join(template, 'admin-password')) as f:
        state.data.setdefault('passwords', {})['admin'] = f.read().strip()
    bootstrap.copy(template, 'glance.db', state.makedirs('glance'),
                   'glance.db')
    write_config(root)
    return built
