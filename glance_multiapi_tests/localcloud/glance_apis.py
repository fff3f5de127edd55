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

"""The Glance APIs of the embedded cloud: their config and database."""

import os
import shutil
import sys

from glance_multiapi_tests.localcloud import errors
from glance_multiapi_tests.localcloud import manage
from glance_multiapi_tests.localcloud import processes

GLANCE_API_CONF = """[DEFAULT]
debug = False
enabled_backends = {backends}
enabled_import_methods = [glance-direct,web-download,copy-image]
image_cache_dir = {api_dir}/cache
[database]
connection = sqlite:///{glance_dir}/glance.db
[glance_store]
default_backend = {default_store}
{store_sections}
[os_glance_staging_store]
filesystem_store_datadir = {api_dir}/staging
[os_glance_tasks_store]
filesystem_store_datadir = {api_dir}/tasks
[oslo_concurrency]
lock_path = {api_dir}/locks
[paste_deploy]
flavor = keystone
config_file = {api_dir}/glance-api-paste.ini
[keystone_authtoken]
www_authenticate_uri = {keystone_url}
auth_url = {keystone_url}
auth_type = password
username = glance
password = {glance_password}
user_domain_id = default
project_name = service
project_domain_id = default
service_token_roles_required = True
[oslo_policy]
enforce_new_defaults = True
enforce_scope = False
[import_filtering_opts]
# NOTE: without the brackets glance ignores the value and web-download
# quietly answers 400.
allowed_hosts = [127.0.0.1]
allowed_ports = []
"""

STORE_SECTION = """[{name}]
store_description = file store {name} of the embedded cloud
filesystem_store_datadir = {path}
"""


def paste_ini():
    """The glance-api-paste.ini shipped with the installed glance."""
    for base in (sys.prefix, os.path.dirname(os.path.dirname(sys.executable)),
                 '/usr/local', '/usr'):
        path = os.path.join(base, 'etc', 'glance', 'glance-api-paste.ini')
        if os.path.exists(path):
            return path
    raise errors.MissingBinary('glance-api-paste.ini not found; is glance '
                               'installed (cloud-requirements.txt)?')


def store_path(glance_dir, store):
    return os.path.join(glance_dir, 'stores', store)


def render_config(*, glance_dir, api_dir, default_store, stores,
                  keystone_url, glance_password):
    """The glance-api.conf text of one API."""
    sections = ''.join(STORE_SECTION.format(
        name=s, path=store_path(glance_dir, s)) for s in stores)
    return GLANCE_API_CONF.format(
        backends=', '.join('%s:file' % s for s in stores),
        api_dir=api_dir, glance_dir=glance_dir,
        default_store=default_store, store_sections=sections,
        keystone_url=keystone_url, glance_password=glance_password)


def write_api_config(api_dir, text):
    """Write one API's config dir; True when its config changed."""
    for sub in ('cache', 'staging', 'tasks', 'locks'):
        os.makedirs(os.path.join(api_dir, sub), exist_ok=True)
    paste = os.path.join(api_dir, 'glance-api-paste.ini')
    if not os.path.exists(paste):
        shutil.copyfile(paste_ini(), paste)
    path = os.path.join(api_dir, 'glance-api.conf')
    try:
        with open(path) as f:
            if f.read() == text:
                return False
    except FileNotFoundError:
        pass
    with open(path, 'w') as f:
        f.write(text)
    return True


def metadefs_dir():
    """The metadata definitions shipped with the installed glance."""
    path = os.path.join(os.path.dirname(paste_ini()), 'metadefs')
    return path if os.path.isdir(path) else None


def sync_database(root):
    """Create root/glance.db with glance-manage db_sync and metadefs."""
    conf = os.path.join(root, 'glance-manage.conf')
    with open(conf, 'w') as f:
        f.write('[database]\nconnection = sqlite:///%s/glance.db\n' % root)
    manage_bin = processes.find_binary('glance-manage',
                                       'install cloud-requirements.txt')
    steps = [['db_sync']]
    if metadefs_dir():
        # NOTE: tempest's metadefs tests need the shipped resource types.
        steps.append(['db_load_metadefs', metadefs_dir()])
    try:
        for step in steps:
            manage.run([manage_bin, '--config-file', conf] + step,
                       'glance-manage %s' % step[0], root)
    finally:
        os.unlink(conf)
