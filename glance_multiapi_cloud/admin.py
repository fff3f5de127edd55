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

"""The cloud's admin in keystone: one login, and the few v3 calls that
register users, services and endpoints, over http or https.

The login and the token are keystoneauth1's (a v3 password plugin in a
session), as every OpenStack client's are; the calls are the identity
v3 API's own paths, checked for the statuses keystone answers.
"""

from glance_multiapi_cloud import errors

# NOTE: the openstack-k8s-operators' deployments name their region
# regionOne (not devstack's RegionOne); the embedded cloud does the same so
# a region written for one works for the other.
REGION = 'regionOne'
TIMEOUT = 30


class Admin(object):
    """The admin user of project admin, logged in on first use."""

    def __init__(self, url, password, verify=False):
        # NOTE: imported here: keystoneauth1's session takes about 0.25 s
        # to import, which every CLI call (status, get) would pay, while
        # only up, patch and restart log in.
        from keystoneauth1.identity import v3
        from keystoneauth1 import session as ks_session

        self.url = url.rstrip('/') + '/v3'
        # NOTE: requests' verify= (the cloud's CA file under --tls).
        auth = v3.Password(auth_url=self.url, username='admin',
                           user_domain_id='default', password=password,
                           project_name='admin',
                           project_domain_id='default')
        self.session = ks_session.Session(auth=auth, verify=verify,
                                          timeout=TIMEOUT)
        self.project_id = None

    def login(self):
        """Get a token scoped to project admin; return self."""
        from keystoneauth1 import exceptions as ks_exceptions

        try:
            self.project_id = self.session.get_project_id()
        except ks_exceptions.ClientException as exc:
            raise errors.CloudError('keystone refused the admin login at '
                                    '%s: %s' % (self.url, exc)) from None
        return self

    def call(self, method, path, body=None, ok=(200, 201, 204)):
        from keystoneauth1 import exceptions as ks_exceptions

        if self.project_id is None:
            self.login()
        try:
            resp = self.session.request(self.url + path, method, json=body,
                                        raise_exc=False)
        except ks_exceptions.ClientException as exc:
            raise errors.CloudError('keystone %s %s: %s' % (
                method, path, exc)) from None
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
