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

"""The other console scripts on bad arguments and files, one row a test.

glance-image-uploader, glance-multiapi-image-check, glance-multiapi-doctor
and glance-multiapi-report: every row is refused before any service is
asked anything (the uploader never reaches Glance, so it makes no image
and no ConfigMap), in well under a second.
"""

import json

import testscenarios

from selftests import cli_runs

load_tests = testscenarios.load_tests_apply_scenarios

MD5 = 'd41d8cd98f00b204e9800998ecf8427e'
IMAGES = ('os_images:\n  cirros:\n    uri: http://127.0.0.1:9/c.img\n'
          '    md5: %s\n    image-format: raw\n' % MD5).encode()
MAPPING = b'heat/heat-api: [heatAPIImage, heatCfnapiImage]\n'
RECORD = json.dumps({'kind': 'worker-end', 't': 1.0, 'pid': 1, 'seq': 1,
                     'run': 'r', 'run_label': 'tempest'}).encode() + b'\n'
RECORDS = 'results/glance-multiapi-records/1-1.jsonl'
WRONG_METRICS = json.dumps({'figures': [{
    'figure': 'grow_answer_seconds', 'labels': {},
    'value': 'slow'}]}).encode()


def _row(name, argv, code, *needles, **extra):
    return (name, dict(argv=argv, code=code, needles=needles, **extra))


def _files(option, code_of, *, unreadable_code, nested_needle='nested',
           prefix=(), **extra):
    """The rows every file option gets: binary, empty, a folder, ..."""
    rows = []
    for kind, path, code in (
            ('binary', '{binary}', code_of['malformed']),
            ('empty', '{empty}', code_of['malformed']),
            ('directory', '{dir}', code_of['unreadable']),
            ('missing', '{missing}', code_of['unreadable']),
            ('symlink_loop', '{loop}', code_of['unreadable']),
            ('deeply_nested', '{nested}', code_of['malformed'])):
        rows.append(_row('%s_%s' % (option.strip('-').replace('-', '_'),
                                    kind),
                         list(prefix) + [option, path], code, path,
                         **extra))
    rows.append(_row('%s_unreadable' % option.strip('-').replace('-', '_'),
                     list(prefix) + [option, '{unreadable}'],
                     unreadable_code, '{unreadable}', unreadable=True,
                     **extra))
    return rows


UPLOADER_CODES = {'malformed': 22, 'unreadable': 2}
CHECK_CODES = {'malformed': 22, 'unreadable': 23}
DOCTOR_CODES = {'malformed': 22, 'unreadable': 22}


class TestUploaderBadInput(testscenarios.WithScenarios,
                           cli_runs.BadInputCase):

    script = 'glance-image-uploader'
    extra_files = {'images.yaml': IMAGES,
                   'wrong-types.yaml': b'os_images: [cirros]\n'}
    scenarios = _files('--images-info', UPLOADER_CODES,
                       unreadable_code=2) + [
        _row('images_info_wrong_types',
             ['--images-info', '{work}/wrong-types.yaml'], 22,
             'wrong-types.yaml', 'os_images'),
        _row('images_info_env_binary', [], 22, '{binary}',
             env={'OS_IMAGES_INFO_PATH': '{binary}'}),
        _row('temp_dir_is_a_file', ['--images-info', '{work}/images.yaml',
                                    '--temp-dir', '{afile}'], 22,
             '{afile}'),
        _row('in_progress_timeout_negative',
             ['--images-info', '{work}/images.yaml',
              '--in-progress-timeout', '-1'], 22, '--in-progress-timeout'),
        _row('in_progress_timeout_huge', ['--images-info',
                                          '{work}/images.yaml'], 22,
             'IMAGE_IN_PROGRESS_TIMEOUT',
             env={'IMAGE_IN_PROGRESS_TIMEOUT': '1e999'}),
        _row('wait_queued_not_a_number',
             ['--images-info', '{work}/images.yaml',
              '--wait-queued-image', 'nan'], 22, '--wait-queued-image'),
        _row('progress_interval_negative',
             ['--images-info', '{work}/images.yaml',
              '--progress-interval', '-5'], 22, '--progress-interval'),
        _row('unknown_option', ['--no-such-option'], 22,
             '--no-such-option'),
    ]


class TestImageCheckBadInput(testscenarios.WithScenarios,
                             cli_runs.BadInputCase):

    script = 'glance-multiapi-image-check'
    extra_files = {'mappings.yaml': MAPPING,
                   'wrong-types.yaml': b'heat/heat-api: {a: 1}\n'}
    scenarios = _files('--mappings', CHECK_CODES, unreadable_code=23) + \
        _files('--version-file', CHECK_CODES, unreadable_code=23,
               prefix=('--mappings', '{work}/mappings.yaml')) + [
        _row('mappings_wrong_types', ['--mappings',
                                      '{work}/wrong-types.yaml'], 22,
             'wrong-types.yaml', 'heat/heat-api'),
        _row('env_file_binary', ['--mappings', '{work}/mappings.yaml',
                                 '--env-file', '{binary}'], 22, '{binary}'),
        _row('known_names_directory',
             ['--mappings', '{work}/mappings.yaml', '--known-names',
              '{dir}'], 23, '{dir}'),
        _row('kubeconfig_binary', ['--mappings', '{work}/mappings.yaml',
                                   '--kubernetes', '--kubeconfig',
                                   '{binary}'], 23, '{binary}'),
        _row('kubeconfig_symlink_loop',
             ['--mappings', '{work}/mappings.yaml', '--kubernetes',
              '--kubeconfig', '{loop}'], 23, '{loop}'),
        _row('command_timeout_negative',
             ['--mappings', '{work}/mappings.yaml', '--version-command',
              'true', '--command-timeout', '-1'], 2, '--command-timeout'),
        _row('kube_timeout_huge',
             ['--mappings', '{work}/mappings.yaml', '--kubernetes',
              '--kube-timeout', '1e999'], 2, '--kube-timeout'),
        _row('running_not_a_pair', ['--mappings', '{work}/mappings.yaml',
                                    '--kubernetes', '--running', 'x'], 2,
             '--running'),
        _row('rollout_timeout_negative',
             ['--mappings', '{work}/mappings.yaml', '--kubernetes',
              '--rollout-timeout', '-1'], 2, '--rollout-timeout'),
        _row('rollout_timeout_nan',
             ['--mappings', '{work}/mappings.yaml', '--kubernetes',
              '--rollout-timeout', 'nan'], 2, '--rollout-timeout'),
    ]


class TestDoctorBadInput(testscenarios.WithScenarios,
                         cli_runs.BadInputCase):

    script = 'glance-multiapi-doctor'
    extra_files = {
        'wrong-types.conf': b'[glance_multiapi]\nprobe_timeout = fast\n',
        'no-ca.conf': b'[identity]\nca_certificates_file = /nonexistent\n',
        'ok.conf': b'[glance_multiapi]\n'}
    scenarios = _files('--config-file', DOCTOR_CODES,
                       unreadable_code=22) + [
        _row('config_file_wrong_types',
             ['--config-file', '{work}/wrong-types.conf'], 22,
             'probe_timeout'),
        _row('config_file_ca_missing',
             ['--config-file', '{work}/no-ca.conf'], 22,
             'ca_certificates_file'),
        _row('probe_timeout_negative', ['--config-file', '{work}/ok.conf',
                                        '--probe-timeout', '-1'], 2,
             '--probe-timeout'),
        _row('keystone_timeout_not_a_number',
             ['--config-file', '{work}/ok.conf', '--keystone-timeout',
              'nan'], 2, '--keystone-timeout'),
        _row('probe_timeout_huge', ['--config-file', '{work}/ok.conf',
                                    '--probe-timeout', '1e999'], 2,
             '--probe-timeout'),
        _row('output_file_is_a_directory',
             ['--config-file', '{work}/ok.conf', '--output-file', '{dir}'],
             2, '{dir}'),
        _row('output_file_under_a_file',
             ['--config-file', '{work}/ok.conf', '--output-file',
              '{afile}/report.json'], 2, '{afile}'),
        _row('keystone_port_in_use',
             ['--config-file', '{work}/held.conf', '--keystone-timeout',
              '0.3'], 24, '127.0.0.1:{port}',
             files={'held.conf': '[identity]\nuri_v3 = http://127.0.0.1:'
                                 '{port}/v3\n[auth]\nadmin_username = a\n'
                                 'admin_password = b\n'
                                 'admin_project_name = c\n'}),
        _row('no_input', [], 2, '--config-file'),
    ]


class TestReportBadInput(testscenarios.WithScenarios,
                         cli_runs.BadInputCase):

    script = 'glance-multiapi-report'
    records = {RECORDS: RECORD}
    scenarios = [
        _row('results_dir_binary_file', ['{binary}'], 22, '{binary}'),
        _row('results_dir_empty', ['{dir}'], 22, '{dir}'),
        _row('results_dir_missing', ['{missing}'], 22, '{missing}'),
        _row('results_dir_symlink_loop', ['{loop}'], 22, '{loop}'),
        _row('records_binary', ['{work}/results'], 22, 'results',
             files={RECORDS: cli_runs.BINARY}),
        _row('records_deeply_nested', ['{work}/results'], 22, 'results',
             files={RECORDS: cli_runs.NESTED.encode()}),
        _row('records_wrong_types', ['{work}/results'], 22, 'results',
             files={RECORDS: b'{"kind": ["test-end"], "t": "now"}\n'}),
        _row('records_unreadable', ['{work}/results'], 22, 'results',
             files={RECORDS: RECORD},
             modes={'results/glance-multiapi-records': 0},
             unreadable=True),
        _row('out_dir_is_a_file', ['{work}/results', '{afile}'], 23,
             '{afile}', files=records),
        _row('out_dir_under_a_file', ['{work}/results', '{afile}/out'], 23,
             '{afile}', files=records),
        _row('out_dir_symlink_loop', ['{work}/results', '{loop}'], 23,
             '{loop}', files=records),
        _row('no_argument', [], 2, 'PATH'),
        _row('baseline_wrong_types', ['{work}/results', '--baseline',
                                      '{work}/wrong.json'], 22,
             'wrong.json', 'figures[0]',
             files=dict(records, **{'wrong.json': WRONG_METRICS})),
        _row('baseline_not_metrics', ['{work}/results', '--baseline',
                                      '{work}/list.json'], 22,
             'list.json', 'figures', files=dict(records, **{
                 'list.json': b'[1, 2]'})),
        _row('tolerance_unknown_figure',
             ['{work}/results', '--baseline', '{work}/results/x.json',
              '--tolerance', 'nosuch=2'], 2, 'nosuch=2', files=records),
        _row('tolerance_under_one',
             ['{work}/results', '--baseline', '{work}/results/x.json',
              '--tolerance', 'grow_answer_seconds=0.5'], 2,
             'grow_answer_seconds=0.5', files=records),
        _row('fail_on_regression_without_baseline',
             ['{work}/results', '--fail-on-regression'], 2, '--baseline',
             files=records),
        _row('metrics_json_without_baseline', ['{work}/m.json'], 2,
             '--baseline', files={'m.json': b'{"figures": []}'}),
    ] + _files('--baseline', {'malformed': 22, 'unreadable': 22},
               unreadable_code=22, prefix=('{work}/results',),
               files=records)
