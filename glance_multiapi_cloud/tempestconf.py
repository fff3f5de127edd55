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

"""The files that point tools at an embedded cloud: clouds.yaml and a
tempest workspace (tempest.conf + .stestr.conf) that never touches
~/.tempest."""

import configparser
import copy
import importlib.util
import json
import os
import shlex
import sys

import yaml

from glance_multiapi_cloud import admin
from glance_multiapi_cloud import components
from glance_multiapi_cloud.components import keystone
from glance_multiapi_cloud import speed
from glance_multiapi_cloud import tlsmode

USERS = (('admin', 'admin', 'admin'), ('demo', 'demo', 'demo'),
         ('alt_demo', 'alt_demo', 'alt_demo'))


GROW_API_STORE = 'cephgrow'
GROW_API_SPEC = json.dumps(
    {'type': 'split', 'replicas': 1,
     'customServiceConfig': '[DEFAULT]\nenabled_backends = %s:rbd\n'
                            '[glance_store]\ndefault_backend = %s\n' % (
                                GROW_API_STORE, GROW_API_STORE)},
    sort_keys=True)


def clouds(state):
    """The clouds.yaml document: one cloud per user."""
    auth_url = keystone.url(state) + '/v3'
    result = {}
    for cloud, user, project in USERS:
        result[cloud] = {
            'auth': {'auth_url': auth_url, 'username': user,
                     'password': state.password(user),
                     'project_name': project,
                     'user_domain_id': 'default',
                     'project_domain_id': 'default'},
            'region_name': admin.REGION, 'identity_api_version': 3,
            'interface': 'public'}
        if tlsmode.enabled(state):
            result[cloud]['cacert'] = tlsmode.verify(state)
    # NOTE: one cloud per API lets "openstack --os-cloud demo-api1 image
    # create" reach an API the catalog does not hold.
    for api in sorted(state.record.spec['glanceAPIs']):
        internal = state.record.ports.get('glance-%s-internal' % api)
        if internal:
            result['demo-' + api] = dict(
                copy.deepcopy(result['demo']),
                image_endpoint_override=tlsmode.url(state, internal))
    return {'clouds': result}


def cli_command(state):
    """How tests call this cloud's CLI (same venv, same state dir)."""
    cli = os.path.join(os.path.dirname(sys.executable),
                       'glance-multiapi-cloud')
    return '%s --state-dir %s' % (shlex.quote(cli), shlex.quote(state.root))


def command_options(state):
    """[glance_multiapi] for the command way (the CLI's get and patch)."""
    return {'kubernetes_api': 'False',
            'discovery_command': cli_command(state) + ' get -o json',
            'patch_command': cli_command(state) +
            ' patch --type merge -p {patch}'}


def tempest_conf(state):
    conf = configparser.ConfigParser(interpolation=None)
    conf.optionxform = str
    workspace = state.path('tempest')
    sections = {
        'DEFAULT': {'log_dir': os.path.join(workspace, 'logs'),
                    'log_file': 'tempest.log'},
        # NOTE: tempest's default lock path is shared by every tempest run
        # on the machine, so serial tests would wait for other clouds' runs.
        'oslo_concurrency': {'lock_path': os.path.join(workspace, 'lock')},
        'auth': {'admin_username': 'admin',
                 'admin_password': state.password('admin'),
                 'admin_project_name': 'admin',
                 'admin_domain_name': 'Default',
                 'use_dynamic_credentials': 'True',
                 'create_isolated_networks': 'False'},
        'identity': {'uri_v3': keystone.url(state) + '/v3',
                     'auth_version': 'v3', 'region': admin.REGION,
                     'disable_ssl_certificate_validation': 'False'},
        'identity-feature-enabled': {'api_v2': 'False'},
        'service_available': {'glance': 'True', 'nova': 'False',
                              'cinder': 'False', 'neutron': 'False',
                              'swift': 'False', 'heat': 'False'},
        'image': {'build_timeout': '120', 'build_interval': '1'},
        'image-feature-enabled': {'import_image': 'True',
                                  'os_glance_reserved': 'True'},
        # NOTE: the plugin learns and patches the deployment through the
        # Kubernetes API (components/kubeapi.py adds how to reach it);
        # command_options() is the other way, through the CLI.
        # NOTE: the disruptive scenarios are opt-in (config.py); this
        # cloud exists to be disturbed, so the main job runs them all.
        # NOTE: the added API gets a store of its own here (a file store
        # any name can have), so the distinct placement is checked too; a
        # cluster leaves grow_api_spec unset and copies an existing API.
        'glance_multiapi': {'run_switchover': 'True',
                            'run_grow_shrink': 'True',
                            'grow_api_spec': GROW_API_SPEC,
                            'grow_api_store': GROW_API_STORE},
    }
    if state.record.speed:
        sections['image_uploader'] = {'saving_hold': str(
            speed.saving_hold(state.record.speed))}
    if tlsmode.enabled(state):
        # NOTE: tempest's clients and this plugin's probes, waiters and
        # discovery all verify against this one file (the cloud's CA).
        sections['identity']['ca_certificates_file'] = tlsmode.verify(state)
    for comp in components.enabled(state):
        comp.tempest_options(state, sections, cli_command(state))
    for name, values in sections.items():
        if name != 'DEFAULT':
            conf.add_section(name)
        for key, value in values.items():
            conf.set(name, key, value)
    return conf


def write_all(state):
    """Write clouds.yaml and the tempest workspace into the state dir."""
    with open(state.path('clouds.yaml'), 'w') as f:
        yaml.safe_dump(clouds(state), f, default_flow_style=False)
    os.chmod(state.path('clouds.yaml'), 0o600)
    state.makedirs('tempest', 'etc')
    state.makedirs('tempest', 'logs')
    with open(state.path('tempest', 'etc', 'tempest.conf'), 'w') as f:
        tempest_conf(state).write(f)
    import tempest
    discover = os.path.join(os.path.dirname(tempest.__file__),
                            'test_discover')
    with open(state.path('tempest', '.stestr.conf'), 'w') as f:
        f.write('[DEFAULT]\ntest_path=%s\ntop_dir=%s\n'
                'group_regex=([^\\.]*\\.)*\n' % (
                    discover, os.path.dirname(os.path.dirname(
                        tempest.__file__))))


def plugin_only_stestr_conf(source, dest):
    """Write dest: the .stestr.conf source, discovering this plugin alone.

    test_path at the plugin's tests package, top_dir at the package's
    parent, so the test ids stay those of tempest's own discovery
    (tempest/test_discover: tempest's tests and every plugin's). For the
    runs that only ever select this plugin's tests by regex: the
    functional self-tests' and the main job's side runs. A one-test run
    took 54 s and 10.4 CPU-s with tempest's discovery on a loaded 2-core
    machine, 26 s and 6.5 CPU-s without.
    """
    # NOTE: where the plugin's tests are, found without importing the
    # plugin (only tempest loads it).
    spec = importlib.util.find_spec('glance_multiapi_tests.tests')
    conf = configparser.ConfigParser(interpolation=None)
    conf.read(source)
    tests = os.path.dirname(os.path.abspath(spec.origin))
    conf.set('DEFAULT', 'test_path', tests)
    conf.set('DEFAULT', 'top_dir', os.path.dirname(os.path.dirname(tests)))
    with open(dest, 'w') as f:
        conf.write(f)
