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

"""The five console scripts on input no reader may wait on or read whole.

For every file input of every script: a FIFO nobody writes to,
/dev/zero, a 50 MB file and, where it is YAML, an alias bomb and a key
given twice, each answered within 5 s (cli_runs.BadInputCase
max_seconds) in one line naming the file, with a documented code and
nothing left behind. Beside them, one row per other class of issue 47:
damaged subunit streams, text a configured command prints that is not
UTF-8, values that are no URL, number, image name or replica count,
clouds.yaml read before openstacksdk, and refusals that must leave a
folder as they found it. None starts a service.
"""

import testscenarios

from selftests import cli_runs
from selftests.unit import recorded_runs
from selftests.unit import synthetic_subunit
from selftests.unit import test_cli_bad_input_tools \
    as tools

load_tests = testscenarios.load_tests_apply_scenarios

FAST = 5
IMAGES = tools.IMAGES.decode()
MAPPINGS = '{work}/mappings.yaml'
STREAM = synthetic_subunit.stream(
    (recorded_runs.ENDPOINTS, 'success'),
    (recorded_runs.UPLOAD, 'fail', {'traceback': 'boom'}),
    (recorded_runs.SWITCHOVER, 'skip', {'reason': 'not configured'}))
# NOTE: cut inside the second packet; one bit of the first flipped.
TRUNCATED = STREAM[:len(STREAM) // 2]
ALTERED = STREAM[:20] + bytes([STREAM[20] ^ 1]) + STREAM[21:]
RECORDS_FILE = tools.RECORDS


def _row(name, argv, code, *needles, **extra):
    return (name, dict(argv=argv, code=code, needles=needles, **extra))


def bounded(name, argv, unavailable, malformed, yaml=True, needle=None,
            env=None, **extra):
    """The rows of one file input, given where argv (or env) has {path}.

    unavailable: the code of a FIFO or a device; malformed: of a huge
    file, an alias bomb and a key given twice (yaml only).
    """
    kinds = [('fifo', '{fifo}', unavailable, 'is a FIFO'),
             ('device', '{zero}', unavailable, 'is a character device'),
             ('huge', '{huge}', malformed, 'is 50 MiB, more than')]
    if yaml:
        kinds += [('alias_bomb', '{bomb}', malformed,
                   'YAML aliases would add more than 10000 nodes'),
                  ('duplicate_keys', '{dupkeys}', malformed,
                   'the key a is given twice (lines 1 and 3)')]
    rows = []
    for kind, path, code, problem in kinds:
        needles = (path, problem) + ((needle,) if needle else ())
        rows.append(_row(
            '%s_%s' % (name, kind),
            [arg.replace('{path}', path) for arg in argv], code, *needles,
            env={k: v.replace('{path}', path)
                 for k, v in (env or {}).items()},
            max_seconds=FAST, **extra))
    return rows


def _images(**entry):
    """An images-info file whose one image has entry's keys changed."""
    keys = dict(uri='http://127.0.0.1:9/c.img', md5=tools.MD5,
                **{'image-format': 'raw'})
    keys.update(entry)
    name = keys.pop('name', 'cirros')
    return ('os_images:\n  %s:\n' % name + ''.join(
        '    %s: %s\n' % item for item in keys.items())).encode()


UPLOAD = ['--images-info', '{work}/images.yaml']
CLOUDS = UPLOAD + ['--os-cloud', 'demo', '--os-client-config-file']


class TestUploaderBoundedInput(testscenarios.WithScenarios,
                               cli_runs.BadInputCase):

    script = 'glance-image-uploader'
    extra_files = {
        'images.yaml': tools.IMAGES,
        'extra-bomb.yaml': ('lols:\n' + ''.join(
            '  ' + line + '\n' for line in cli_runs.ALIAS_BOMB.splitlines())
            + IMAGES + '    extra: *a8\n').encode(),
        'clouds-broken.yaml': b'clouds: [\n',
        'clouds-list.yaml': b'- demo\n',
        'clouds-auth.yaml': b'clouds:\n  demo:\n    auth: 5\n'}
    scenarios = bounded('images_info', ['--images-info', '{path}'], 2, 22) + \
        bounded('clouds_yaml', CLOUDS + ['{path}'], 22, 22) + \
        bounded('kubeconfig', UPLOAD, 22, 22, needle='$KUBECONFIG',
                env={'UUID_OUTPUT': 'configmap', 'TARGET_NAMESPACE': 'ns',
                     'KUBECONFIG': '{path}'}) + \
        bounded('ssl_cert_file', UPLOAD, 22, 22, yaml=False,
                needle='SSL_CERT_FILE', env={'SSL_CERT_FILE': '{path}'}) + [
        _row('ssl_cert_file_not_pem', UPLOAD, 22, 'CA file SSL_CERT_FILE '
             '{afile} cannot be loaded', env={'SSL_CERT_FILE': '{afile}'}),
        _row('images_info_env_fifo', [], 2, '{fifo}', 'FIFO',
             env={'OS_IMAGES_INFO_PATH': '{fifo}'}, max_seconds=FAST),
        _row('alias_bomb_under_extra', ['--images-info',
                                        '{work}/extra-bomb.yaml'], 22,
             'extra-bomb.yaml', 'aliases', max_seconds=FAST),
        _row('md5_read_as_a_number', ['--images-info', '{work}/i.yaml'],
             22, 'os_images.cirros.md5 is a YAML number', 'quote it',
             files={'i.yaml': _images(md5='0' * 30 + '17')}),
        _row('image_name_empty', ['--images-info', '{work}/i.yaml'], 22,
             'the name is empty', files={'i.yaml': _images(name='""')}),
        _row('image_name_newline', ['--images-info', '{work}/i.yaml'], 22,
             'holds a line break', files={'i.yaml': _images(
                 name='"a\\nb"')}),
        _row('image_name_slash', ['--images-info', '{work}/i.yaml'], 22,
             'holds a "/"', files={'i.yaml': _images(name='a/b')}),
        _row('image_name_dot_dot', ['--images-info', '{work}/i.yaml'], 22,
             'names a folder', files={'i.yaml': _images(name='".."')}),
        _row('uri_nul', ['--images-info', '{work}/i.yaml'], 22,
             'os_images.cirros.uri', 'NUL', files={'i.yaml': _images(
                 uri='"http://127.0.0.1:9/\\0"')}),
        _row('uri_no_host', ['--images-info', '{work}/i.yaml'], 22,
             'os_images.cirros.uri', 'no host', files={'i.yaml': _images(
                 uri='"http:///c.img"')}),
        _row('progress_interval_nan', UPLOAD + ['--progress-interval',
                                                'nan'], 22,
             '--progress-interval', 'finite'),
        _row('progress_interval_inf', UPLOAD + ['--progress-interval',
                                                'inf'], 22,
             '--progress-interval', 'finite'),
        _row('clouds_yaml_broken', CLOUDS + ['{work}/clouds-broken.yaml'],
             22, 'clouds-broken.yaml', 'not valid YAML at line'),
        _row('clouds_yaml_a_list', CLOUDS + ['{work}/clouds-list.yaml'],
             22, 'clouds-list.yaml', 'expected a mapping, got a list'),
        _row('clouds_yaml_auth_not_a_map',
             CLOUDS + ['{work}/clouds-auth.yaml'], 22, 'clouds-auth.yaml',
             'clouds.demo.auth: expected a mapping, got an int'),
        _row('clouds_yaml_missing', CLOUDS + ['{missing}'], 22,
             '--os-client-config-file {missing} does not exist'),
    ]


CHECK = ['--mappings', MAPPINGS]


class TestImageCheckBoundedInput(testscenarios.WithScenarios,
                                 cli_runs.BadInputCase):

    script = 'glance-multiapi-image-check'
    extra_files = {'mappings.yaml': tools.MAPPING}
    scenarios = bounded('mappings', ['--mappings', '{path}'], 23, 22) + \
        bounded('version_file', CHECK + ['--version-file', '{path}'], 23,
                22) + \
        bounded('env_file', CHECK + ['--env-file', '{path}'], 23, 22,
                yaml=False) + \
        bounded('known_names', CHECK + ['--known-names', '{path}'], 23, 22,
                yaml=False) + \
        bounded('kubeconfig', CHECK + ['--kubernetes', '--kubeconfig',
                                       '{path}'], 23, 23,
                needle='--kubeconfig') + [
        _row('version_file_json_duplicate_keys',
             CHECK + ['--version-file', '{work}/v.json'], 22, 'v.json',
             'the key kind is given twice (lines 1 and 2)',
             files={'v.json': b'{"kind": "OpenStackVersion",\n'
                              b' "kind": "List"}\n'}),
        _row('version_command_not_utf8',
             CHECK + ['--version-command', r"printf 'a\377'"], 23,
             'get command', 'not UTF-8 (line 1, column 2: byte 0xff'),
        _row('version_command_endless',
             CHECK + ['--version-command', 'cat /dev/zero'], 23,
             'cat /dev/zero', 'printed more than 16 MiB', max_seconds=FAST),
    ]


DOCTOR = ['--config-file', '{work}/t.conf']


def _conf(text):
    return {'t.conf': text}


class TestDoctorBoundedInput(testscenarios.WithScenarios,
                             cli_runs.BadInputCase):

    script = 'glance-multiapi-doctor'
    extra_files = {'clouds-auth.yaml': b'clouds:\n  demo:\n    auth: 5\n'}
    scenarios = bounded('config_file', ['--config-file', '{path}'], 22, 22,
                        yaml=False) + \
        bounded('clouds_yaml', ['--os-cloud', 'demo'], 22, 22,
                env={'OS_CLIENT_CONFIG_FILE': '{path}'}) + [
        _row('clouds_yaml_auth_not_a_map', ['--os-cloud', 'demo'], 22,
             'clouds-auth.yaml', 'clouds.demo.auth: expected a mapping',
             env={'OS_CLIENT_CONFIG_FILE': '{work}/clouds-auth.yaml'}),
        _row('ca_file_fifo', DOCTOR, 22, '[identity] ca_certificates_file',
             '{fifo}', 'FIFO', max_seconds=FAST, files=_conf(
                 '[identity]\nca_certificates_file = {fifo}\n')),
        _row('endpoint_unclosed_ipv6', DOCTOR, 22,
             '[glance_multiapi] public_endpoints: api0: invalid URL',
             'Invalid IPv6 URL', files=_conf(
                 '[glance_multiapi]\napi_names = api0\n'
                 'public_endpoints = api0:http://[::1\n')),
        _row('uri_v3_nul', DOCTOR, 22, '[identity] uri_v3', 'NUL',
             files=_conf('[identity]\nuri_v3 = http://127.0.0.1/\0v3\n')),
        _row('float_option_nan', DOCTOR, 22,
             '[glance_multiapi] convergence_interval', 'finite',
             files=_conf('[glance_multiapi]\nconvergence_interval = nan\n')),
        _row('float_option_inf', DOCTOR, 22,
             '[glance_multiapi] pod_watch_interval', 'finite',
             files=_conf('[glance_multiapi]\npod_watch_interval = inf\n')),
        _row('discovery_command_not_utf8', DOCTOR, 23, 'discovery command',
             'not UTF-8', files=_conf(
                 "[glance_multiapi]\ndiscovery_command = printf '\\377'\n")),
        _row('output_file_fifo', ['--os-cloud', 'demo', '--output-file',
                                  '{fifo}'], 2, '--output-file {fifo} is a '
             'FIFO', max_seconds=FAST),
        _row('clouds_yaml_in_a_deleted_working_folder',
             ['--os-cloud', 'demo'], 2,
             'the working folder no longer exists', cwd_gone=True),
        _row('substitution_naming_itself', DOCTOR, 22,
             '[identity] region: invalid value', 'lead back to it',
             files=_conf('[identity]\nregion = $identity.region\n')),
        _row('substitutions_naming_each_other', DOCTOR, 22,
             'invalid value', 'lead back to it', files=_conf(
                 '[identity]\nregion = $image.region\n'
                 '[image]\nregion = $identity.region\n')),
        _row('kubeconfig_option_fifo', DOCTOR, 23,
             '[glance_multiapi] kubeconfig {fifo} is a FIFO',
             max_seconds=FAST, files=_conf(
                 '[glance_multiapi]\nkubernetes_api = true\n'
                 'kubeconfig = {fifo}\n')),
    ]


SPEC = ('glanceAPIs:\n  api0:\n    replicas: %s\n    customServiceConfig: '
        '"[glance_store]\\ndefault_backend = ceph0\\n[DEFAULT]\\n'
        'enabled_backends = ceph0:rbd\\n"\n')


def _up(option):
    return ['up', '--state-dir', '{work}/cloud', option, '{path}']


class TestCloudBoundedInput(testscenarios.WithScenarios,
                            cli_runs.BadInputCase):

    script = 'glance-multiapi-cloud'
    scenarios = bounded('spec', _up('--spec'), 22, 22) + \
        bounded('kube_role', _up('--kube-role'), 22, 22) + [
        _row('replicas_beyond_int32', ['up', '--state-dir', '{work}/cloud',
                                       '--spec', '{work}/s.yaml'], 22,
             'replicas', 'int32',
             files={'s.yaml': SPEC % '99999999999999999999'}),
        _row('replicas_negative', ['up', '--state-dir', '{work}/cloud',
                                   '--spec', '{work}/s.yaml'], 22,
             'replicas', 'non-negative', files={'s.yaml': SPEC % '-1'}),
        # NOTE: nothing of the folder changes, its mode neither (the
        # table compares every entry's mode).
        _row('state_dir_not_empty', ['up', '--state-dir', '{work}/mine'],
             22, '{work}/mine is not empty',
             files={'mine/keep.txt': b'not a cloud\n'}),
        _row('default_state_dir_in_a_deleted_working_folder', ['get'], 2,
             'the working folder no longer exists', cwd_gone=True),
        _row('state_json_fifo', ['status', '--state-dir', '{work}/c'], 1,
             'state.json is a FIFO', max_seconds=FAST,
             files={'c/state.json': cli_runs.Fifo()}),
    ]


RESULTS = ['{work}/results']
SUBUNIT = 'results/tempest_results.subunit'


class TestReportBoundedInput(testscenarios.WithScenarios,
                             cli_runs.BadInputCase):

    script = 'glance-multiapi-report'
    records = {RECORDS_FILE: tools.RECORD}
    scenarios = [
        _row('stream_fifo', ['{fifo}'], 22, 'subunit stream {fifo} is a '
             'FIFO', max_seconds=FAST),
        _row('stream_device', ['{zero}'], 22, '{zero} is a character '
             'device', max_seconds=FAST),
        _row('stream_huge', ['{huge}'], 22, '{huge} is not a subunit v2 '
             'stream', max_seconds=FAST),
        _row('stream_truncated', ['{work}/s.subunit'], 22,
             '{work}/s.subunit: damaged subunit stream at byte',
             'cut short', files={'s.subunit': TRUNCATED}),
        _row('stream_altered', ['{work}/s.subunit'], 22,
             '{work}/s.subunit: damaged subunit stream at byte 0',
             'CRC32', files={'s.subunit': ALTERED}),
        _row('stream_garbage_after', ['{work}/s.subunit'], 22,
             'damaged subunit stream at byte %d' % len(STREAM),
             'not subunit v2', files={'s.subunit': STREAM + b'\n'}),
        _row('records_fifo', RESULTS, 22, 'records file',
             '1-1.jsonl is a FIFO', max_seconds=FAST,
             files={RECORDS_FILE: cli_runs.Fifo()}),
        _row('records_huge', RESULTS, 22, '1-1.jsonl is 65 MiB, more than '
             'the 64 MiB', max_seconds=FAST,
             files={RECORDS_FILE: cli_runs.Sparse(65 * 1024 * 1024)}),
        _row('map_stream_truncated', RESULTS, 22,
             'tempest_results.subunit: damaged subunit stream at byte',
             files=dict(records, **{SUBUNIT: TRUNCATED})),
        _row('map_stream_fifo', RESULTS + ['--subunit', '{fifo}'], 22,
             '{fifo} is a FIFO', max_seconds=FAST, files=records),
        # NOTE: no records: OUT_DIR must not be made.
        _row('out_dir_without_records', ['{dir}', '{work}/out'], 22,
             'holds no records'),
        _row('relative_path_in_a_deleted_working_folder', ['results'], 2,
             'the working folder no longer exists', cwd_gone=True),
    ]
