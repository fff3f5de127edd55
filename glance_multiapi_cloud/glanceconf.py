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

"""glance-api.conf of each Glance API of the embedded cloud
(components/glance.py): the stores it serves after faults, its config
text, its config dir, and the files of the installed glance it reads
(the paste ini, the metadata definitions).
"""

import os
import shutil
import sys

from glance_multiapi_cloud import errors
from glance_multiapi_cloud import spec as spec_mod

GLANCE_API_CONF = """[DEFAULT]
debug = False
# NOTE: as the glance-operator renders its internal, single and edge
# GlanceAPIs (glanceapi_controller.go, templates/common/config/
# 00-config.conf); it hides both only on a split API's external half.
show_image_direct_url = {show_locations}
show_multiple_locations = {show_locations}
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
store_description = store {name} of the embedded cloud, a file store
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


def served_stores(spec, api, faults):
    """(default store, [stores]) one API is configured with, after faults.

    An API serves only its own stores (the enabled_backends of its
    effective customServiceConfig), as each GlanceAPI renders only its
    own config. A fault that moves its default to a foreign store adds
    that store, as a misconfigured API would have it.
    """
    default, own = spec_mod.api_stores(spec, api)
    every = spec_mod.all_stores(spec)
    store = faults.default_store(api, default, every)
    own = faults.served_stores(api, own, every)
    return store, (own + [store] if store not in own else own)


def render_config(*, glance_dir, api_dir, default_store, stores,
                  keystone_url, glance_password, store_dir=None,
                  show_locations=True):
    """The glance-api.conf text of one API.

    NOTE: the spec names its stores' types as a cluster does (rbd, the
    operator refuses a split API on one file store); the stores are file
    stores all the same, so one spec runs here and on a cluster alike.
    store_dir(store, path) may move a store's directory (a fault).
    """
    store_dir = store_dir or (lambda store, path: path)
    sections = ''.join(STORE_SECTION.format(
        name=s, path=store_dir(s, store_path(glance_dir, s)))
        for s in stores)
    return GLANCE_API_CONF.format(
        backends=', '.join('%s:file' % s for s in stores),
        api_dir=api_dir, glance_dir=glance_dir,
        default_store=default_store, store_sections=sections,
        keystone_url=keystone_url, glance_password=glance_password,
        show_locations=bool(show_locations))


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
