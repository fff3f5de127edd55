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

"""Keystone of the embedded cloud: config, bootstrap template, admin calls.

Bootstrapping keystone and migrating both databases dominate start-up
(15-20 s), so the result is kept once per keystone/glance version in a
template under the user's cache dir and copied for each new cloud.
"""

import fcntl
import grp
import os
import pwd
import secrets
import shutil
import subprocess
import tempfile

import requests

from glance_multiapi_tests.localcloud import errors
from glance_multiapi_tests.localcloud import glance_apis
from glance_multiapi_tests.localcloud import processes

REGION = 'RegionOne'

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


# NOTE: bump when what a template holds changes, so old ones are not used.
TEMPLATE_FORMAT = 2


def _versions():
    from importlib import metadata
    return 'v%d-keystone-%s-glance-%s' % (TEMPLATE_FORMAT,
                                          metadata.version('keystone'),
                                          metadata.version('glance'))


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


def template_dir():
    return os.path.join(cache_root(), _versions())


def _run(argv, what, cwd):
    try:
        proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True,
                              timeout=300)
    except FileNotFoundError:
        raise errors.MissingBinary('%s not found (needed to %s)' %
                                   (argv[0], what))
    if proc.returncode:
        lines = [ln for ln in (proc.stderr + proc.stdout).splitlines()
                 if ln.strip()]
        raise errors.CloudError('%s failed (exit %d): %s' % (
            what, proc.returncode, lines[-1] if lines else 'no output'))


def _build_template(target):
    parent = os.path.dirname(target)
    os.makedirs(parent, exist_ok=True)
    work = tempfile.mkdtemp(dir=parent, prefix='.building-')
    try:
        conf = write_config(work)
        for sub in ('fernet-keys', 'credential-keys'):
            os.makedirs(os.path.join(work, sub))
        manage = processes.find_binary('keystone-manage',
                                       'install cloud-requirements.txt')
        user = pwd.getpwuid(os.getuid()).pw_name
        group = grp.getgrgid(os.getgid()).gr_name
        owner = ['--keystone-user', user, '--keystone-group', group]
        _run([manage, '--config-file', conf, 'db_sync'],
             'migrate the keystone database', work)
        _run([manage, '--config-file', conf, 'fernet_setup'] + owner,
             'create fernet keys', work)
        _run([manage, '--config-file', conf, 'credential_setup'] + owner,
             'create credential keys', work)
        password = secrets.token_urlsafe(12)
        _run([manage, '--config-file', conf, 'bootstrap',
              '--bootstrap-username', 'admin',
              '--bootstrap-password', password,
              '--bootstrap-project-name', 'admin',
              '--bootstrap-role-name', 'admin',
              '--bootstrap-region-id', REGION],
             'bootstrap keystone', work)
        with open(os.path.join(work, 'admin-password'), 'w') as f:
            f.write(password)
        glance_apis.sync_database(work)
        os.unlink(conf)
        os.rename(work, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def ensure_template():
    """Path of the bootstrapped template, building it once if missing."""
    target = template_dir()
    if os.path.isdir(target):
        return target, False
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target + '.lock', 'w') as lock:
        # NOTE: two clouds started at once must not both build it.
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.isdir(target):
            _build_template(target)
            return target, True
    return target, False


def install_from_template(state):
    """Copy the template's databases and keys into the state dir."""
    template, built = ensure_template()
    root = state.makedirs('keystone')
    # NOTE: copyfile, not copy: the copies take this process's private
    # umask, whatever modes an older template has.
    for sub in ('fernet-keys', 'credential-keys'):
        shutil.copytree(os.path.join(template, sub),
                        os.path.join(root, sub),
                        copy_function=shutil.copyfile)
        os.chmod(os.path.join(root, sub), 0o700)
    shutil.copyfile(os.path.join(template, 'keystone.db'),
                    os.path.join(root, 'keystone.db'))
    with open(os.path.join(template, 'admin-password')) as f:
        state.data.setdefault('passwords', {})['admin'] = f.read().strip()
    shutil.copyfile(os.path.join(template, 'glance.db'),
                    os.path.join(state.makedirs('glance'), 'glance.db'))
    write_config(root)
    return built


class Admin(object):
    """The few keystone v3 admin calls the cloud needs, over plain HTTP."""

    def __init__(self, url, password):
        self.url = url.rstrip('/') + '/v3'
        self.password = password
        self._token = None

    def _auth(self):
        body = {'auth': {
            'identity': {'methods': ['password'], 'password': {'user': {
                'name': 'admin', 'domain': {'id': 'default'},
                'password': self.password}}},
            'scope': {'project': {'name': 'admin',
                                  'domain': {'id': 'default'}}}}}
        resp = requests.post(self.url + '/auth/tokens', json=body,
                             timeout=30)
        if resp.status_code != 201:
            raise errors.CloudError('keystone refused the admin login at '
                                    '%s: HTTP %d' % (self.url,
                                                     resp.status_code))
        self._token = resp.headers['X-Subject-Token']

    def call(self, method, path, body=None, ok=(200, 201, 204)):
        if not self._token:
            self._auth()
        resp = requests.request(method, self.url + path, json=body,
                                headers={'X-Auth-Token': self._token},
                                timeout=30)
        if resp.status_code not in ok:
            raise errors.CloudError('keystone %s %s: HTTP %d %s' % (
                method, path, resp.status_code, resp.text[:200]))
        return resp.json() if resp.content else {}

    def _find(self, collection, name, **filters):
        query = '&'.join('%s=%s' % kv for kv in
                         sorted(dict(filters, name=name).items()))
        items = self.call('GET', '/%s?%s' % (collection, query))[collection]
        return items[0] if items else None

    def ensure(self, collection, name, body, **filters):
        found = self._find(collection, name, **filters)
        if found:
            return found
        singular = collection[:-1]
        return self.call('POST', '/' + collection,
                         {singular: dict(body, name=name)})[singular]

    def ensure_user(self, name, password, project, role):
        project_ref = self.ensure('projects', project,
                                  {'domain_id': 'default'})
        user = self._find('users', name)
        if user:
            self.call('PATCH', '/users/' + user['id'],
                      {'user': {'password': password}})
        else:
            user = self.call('POST', '/users', {'user': {
                'name': name, 'password': password, 'domain_id': 'default',
                'default_project_id': project_ref['id']}})['user']
        role_ref = self.ensure('roles', role, {})
        self.call('PUT', '/projects/%s/users/%s/roles/%s' % (
            project_ref['id'], user['id'], role_ref['id']))
        return user

    def services(self, service_type):
        return self.call('GET', '/services?type=' + service_type)['services']

    def endpoints(self, service_id):
        return self.call('GET', '/endpoints?service_id=' +
                         service_id)['endpoints']

    def set_service(self, service_type, name, urls):
        """Make service NAME of TYPE have exactly the endpoints urls."""
        service = None
        for candidate in self.services(service_type):
            if candidate['name'] == name:
                service = candidate
        if service is None:
            service = self.call('POST', '/services', {'service': {
                'type': service_type, 'name': name,
                'enabled': True}})['service']
        existing = {}
        for endpoint in self.endpoints(service['id']):
            if (endpoint['interface'] in urls
                    and endpoint['interface'] not in existing):
                existing[endpoint['interface']] = endpoint
            else:
                self.call('DELETE', '/endpoints/' + endpoint['id'])
        for interface, url in sorted(urls.items()):
            endpoint = existing.get(interface)
            if endpoint is None:
                self.call('POST', '/endpoints', {'endpoint': {
                    'service_id': service['id'], 'interface': interface,
                    'url': url, 'region_id': REGION, 'enabled': True}})
            elif endpoint['url'] != url:
                self.call('PATCH', '/endpoints/' + endpoint['id'],
                          {'endpoint': {'url': url}})
        return service

    def delete_service(self, service):
        for endpoint in self.endpoints(service['id']):
            self.call('DELETE', '/endpoints/' + endpoint['id'])
        self.call('DELETE', '/services/' + service['id'])
