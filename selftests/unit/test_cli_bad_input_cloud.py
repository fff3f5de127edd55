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

"""glance-multiapi-cloud on bad arguments and files: one row, one test.

Every row fails before any service starts (the busy port, which needs
the cloud to reach its first port, is a functional test:
selftests/functional/test_cli_bad_input.py), so the real console script
runs here, in well under a second.
"""

import testscenarios

from selftests import cli_runs

load_tests = testscenarios.load_tests_apply_scenarios

WRONG_TYPES = b'glanceAPIs: [api0, api1]\nkeystoneEndpoint: {a: 1}\n'
ROLE_WRONG_TYPES = b'kind: Role\nmetadata: x\nrules: {verbs: get}\n'
STATE = 'a-cloud/state.json'


def _row(name, argv, code, *needles, **extra):
    return (name, dict(argv=argv, code=code, needles=needles, **extra))


def _up(name, option, path, *needles, code=22, **extra):
    return _row(name, ['up', '--state-dir', '{work}/cloud', option, path],
                code, *needles, **extra)


def _on_state(name, verb, code, *needles, **extra):
    return _row(name, [verb, '--state-dir', '{work}/a-cloud'], code,
                *needles, **extra)


class TestCloudBadInput(testscenarios.WithScenarios,
                        cli_runs.BadInputCase):

    script = 'glance-multiapi-cloud'
    extra_files = {'wrong-types': WRONG_TYPES,
                   'role-wrong-types': ROLE_WRONG_TYPES}
    scenarios = [
        _up('spec_binary', '--spec', '{binary}', '{binary}', 'UTF-8'),
        _up('spec_empty', '--spec', '{empty}', '{empty}', 'glanceAPIs'),
        _up('spec_directory', '--spec', '{dir}', '{dir}'),
        _up('spec_missing', '--spec', '{missing}', '{missing}'),
        _up('spec_symlink_loop', '--spec', '{loop}', '{loop}'),
        _up('spec_deeply_nested', '--spec', '{nested}', '{nested}',
            'nested'),
        _up('spec_wrong_types', '--spec', '{work}/wrong-types',
            'wrong-types', 'glanceAPIs'),
        _up('spec_unreadable', '--spec', '{unreadable}', '{unreadable}',
            'ermission', unreadable=True),
        _up('role_binary', '--kube-role', '{binary}', '{binary}', 'UTF-8'),
        _up('role_empty', '--kube-role', '{empty}', '{empty}', 'Role'),
        _up('role_directory', '--kube-role', '{dir}', '{dir}'),
        _up('role_symlink_loop', '--kube-role', '{loop}', '{loop}'),
        _up('role_deeply_nested', '--kube-role', '{nested}', '{nested}'),
        _up('role_wrong_types', '--kube-role', '{work}/role-wrong-types',
            'role-wrong-types', 'metadata.name'),
        _up('role_unreadable', '--kube-role', '{unreadable}',
            '{unreadable}', unreadable=True),
        _row('state_dir_is_a_file', ['up', '--state-dir', '{afile}'], 22,
             '{afile}', 'not a folder'),
        _row('state_dir_under_a_file',
             ['up', '--state-dir', '{afile}/cloud'], 22, '{afile}/cloud'),
        _row('state_dir_symlink_loop', ['up', '--state-dir', '{loop}'], 22,
             '{loop}'),
        _row('state_dir_env_is_a_file', ['up'], 22, '{afile}',
             env={'GLANCE_MULTIAPI_CLOUD_DIR': '{afile}'}),
        _up('base_port_negative', '--base-port', '-1', '--base-port -1'),
        _up('base_port_huge', '--base-port', '99999999999',
            '--base-port 99999999999'),
        _up('base_port_not_a_number', '--base-port', 'x', 'x',
            code=2),
        _up('fault_unknown', '--fault', 'no-such-fault', 'no-such-fault'),
        _up('heat_profile_unknown', '--heat-profile', 'x', 'x', code=2),
        _row('status_state_dir_is_a_file',
             ['status', '--state-dir', '{afile}'], 3, '{afile}'),
        _row('down_state_dir_symlink_loop',
             ['down', '--state-dir', '{loop}'], 3, '{loop}'),
        _row('get_no_cloud', ['get', '--state-dir', '{dir}'], 3, '{dir}'),
        _row('restart_missing_state_dir',
             ['restart', 'keystone', '--state-dir', '{missing}'], 3,
             '{missing}'),
        _row('patch_no_cloud',
             ['patch', '--state-dir', '{dir}', '-p', '{{"spec": ['], 3,
             '{dir}'),
        _row('patch_nothing', ['patch', '--state-dir', '{dir}'], 2,
             'patch needs'),
        _on_state('state_json_binary', 'status', 1, STATE, 'corrupt',
                  files={STATE: cli_runs.BINARY}),
        _on_state('state_json_deeply_nested', 'get', 1, STATE, 'corrupt',
                  files={STATE: cli_runs.NESTED.encode()}),
        _on_state('state_json_wrong_types', 'down', 1, STATE, 'corrupt',
                  files={STATE: b'["spec"]'}),
        _on_state('state_json_empty', 'status', 1, STATE, 'corrupt',
                  files={STATE: b''}),
    ]
