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


"""What the doctor's tests share: a catalog service, a discovered
deployment and an endpoint host that never resolves."""

from glance_multiapi_tests.multiapi import discovery

INVALID = 'http://glance-api1-public.openstack.invalid:9292'


def service(*endpoints, name='glance'):
    return {'type': 'image', 'name': name, 'id': name,
            'endpoints': [{'interface': interface, 'url': url,
                           'region': 'RegionOne'}
                          for interface, url in endpoints]}


def deployment(**urls):
    apis = {name: discovery.Api(name=name, endpoints={'public': url})
            for name, url in sorted(urls.items())}
    return discovery.Deployment(apis=apis, keystone_endpoint='api0',
                                source='test')
