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

"""Values checked where read, to their real grammar, one row a value.

Issue 55's classes, over the console scripts that read them: image
references (lower-case hex digests of their algorithm's length, the OCI
tag grammar, registry ports), Kubernetes namespaces (DNS-1123 labels,
refused before any request), figures of a baseline (OpenMetrics names,
finite and non-negative values, integers a float holds), YAML keys that
are strings, apiTimeout as glance-operator's CRD has it and an --output
that is no regular file. Each refused in one line with its documented
code, nothing left behind, nothing asked of a service.
"""

import json

import testscenarios

from selftests import cli_runs
from selftests.unit import test_cli_bad_input_tools as tools

load_tests = testscenarios.load_tests_apply_scenarios

FAST = 5
HEAT = 'quay.io/podified-antelope-centos9/openstack-heat-api'
DIGEST = 'ae0609cd276000676a96413261783ecc074d2434857d881ad1ade605b55a428a'


def _row(name, argv, code, *needles, **extra):
    return (name, dict(argv=argv, code=code, needles=needles, **extra))


def _version(api, cfnapi):
    """An OpenStackVersion whose status names these heat references."""
    return json.dumps({
        'apiVersion': 'core.openstack.org/v1beta1',
        'kind': 'OpenStackVersion', 'metadata': {'name': 'openstack'},
        'status': {'containerImages': {'heatAPIImage': api,
                                       'heatCfnapiImage': cfnapi}}}).encode()


def _check(name, api, cfnapi, *needles):
    return _row(name, ['--mappings', '{work}/mappings.yaml',
                       '--version-file', '{work}/version.json'], 22,
                'status.containerImages', *needles,
                files={'version.json': _version(api, cfnapi)})


KUBECONFIG = ('apiVersion: v1\nkind: Config\nclusters:\n- name: c\n'
              '  cluster:\n    server: http://127.0.0.1:{port}\nusers:\n'
              '- name: u\n  user:\n    token: t\ncontexts:\n- name: x\n'
              '  context:\n    cluster: c\n    user: u\n    namespace: '
              '%s\ncurrent-context: x\n')


class TestImageReferenceValues(testscenarios.WithScenarios,
                               cli_runs.BadInputCase):

    script = 'glance-multiapi-image-check'
    extra_files = {'mappings.yaml': tools.MAPPING}
    scenarios = [
        _check('digest_upper_case', '%s@sha256:%s' % (HEAT, DIGEST.upper()),
               '%s@sha256:%s' % (HEAT, DIGEST.upper()),
               'not lower-case hex', 'write it in lower case'),
        # NOTE: one digest in two cases is an input to fix, not a
        # digest-mismatch finding (exit 1) of two different pins.
        _check('one_digest_in_mixed_case', '%s@sha256:%s' % (HEAT, DIGEST),
               '%s@sha256:%s' % (HEAT, DIGEST[:10].upper() + DIGEST[10:]),
               'heatCfnapiImage', 'not lower-case hex'),
        _check('digest_of_sha512_too_short', '%s@sha512:%s' % (HEAT, DIGEST),
               '%s:1' % HEAT, 'sha512 digest of 64 hex digits, not 128'),
        _check('digest_algorithm_unknown', '%s@md5:%s' % (HEAT, DIGEST[:32]),
               '%s:1' % HEAT, "algorithm 'md5'", 'known: blake3'),
        _check('tag_not_ascii', '%s:curr\u00e9nt' % HEAT, '%s:1' % HEAT,
               'invalid tag', 'ASCII'),
        _check('tag_too_long', '%s:%s' % (HEAT, 'a' * 129), '%s:1' % HEAT,
               'invalid tag'),
        _check('registry_port_out_of_range',
               'quay.io:99999999/ns/openstack-heat-api:1', '%s:1' % HEAT,
               "registry port '99999999' out of range (1-65535)"),
        _check('registry_port_zero', 'quay.io:0/ns/openstack-heat-api:1',
               '%s:1' % HEAT, "registry port '0' out of range"),
        _check('name_too_long', 'quay.io/%s/openstack-heat-api:1' % (
            'a' * 250), '%s:1' % HEAT, 'more than the 255'),
        _row('namespace_flag_not_a_label',
             ['--mappings', '{work}/mappings.yaml', '--kubernetes',
              '--kubeconfig', '{work}/kubeconfig', '--namespace', 'a/b'],
             23, 'DNS-1123', "'a/b'", max_seconds=FAST,
             files={'kubeconfig': KUBECONFIG % 'openstack'}),
        _row('namespace_of_context_not_a_label',
             ['--mappings', '{work}/mappings.yaml', '--kubernetes',
              '--kubeconfig', '{work}/kubeconfig'], 23, 'DNS-1123',
             'Open_Stack', 'kubeconfig context', max_seconds=FAST,
             files={'kubeconfig': KUBECONFIG % 'Open_Stack'}),
    ]


def _baseline(name, figure, *needles, path='{work}/results'):
    document = {'figures': [dict({'figure': 'grow_answer_seconds',
                                  'labels': {'api': 'api0'},
                                  'value': 1.0}, **figure)]}
    text = json.dumps(document)
    if figure.get('value') == 'huge':
        text = text.replace('"huge"', '1' + '0' * 400)
    return _row(name, [path, '--baseline', '{work}/base.json'], 22,
                'base.json', 'figures[0]', *needles,
                files={tools.RECORDS: tools.RECORD,
                       'base.json': text.encode()})


class TestFigureValues(testscenarios.WithScenarios, cli_runs.BadInputCase):

    script = 'glance-multiapi-report'
    scenarios = [
        _baseline('baseline_value_nan', {'value': float('nan')},
                  'nan is not a finite number'),
        _baseline('baseline_value_infinite', {'value': float('inf')},
                  'inf is not a finite number'),
        _baseline('baseline_value_negative', {'value': -2.5},
                  '-2.5 is negative'),
        _baseline('baseline_value_of_400_digits', {'value': 'huge'},
                  'about 401 digits'),
        _baseline('baseline_figure_name_newline',
                  {'figure': 'x\nglance_multiapi_injected 1'},
                  'no metric name'),
        _baseline('baseline_label_name_newline',
                  {'labels': {'api\ninjected': 'x'}}, 'no label name'),
        _baseline('baseline_label_name_reserved', {'labels': {'_api': 'x'}},
                  "label '_api' is no label name"),
        _row('metrics_json_value_nan', ['{work}/m.json', '--baseline',
                                        '{work}/m.json'], 22, 'm.json',
             'nan is not a finite number', files={'m.json': json.dumps({
                 'figures': [{'figure': 'grow_answer_seconds',
                              'labels': {}, 'value': float('nan')}]})
                 .encode()}),
    ]


def _images(key):
    return ('os_images:\n  %s:\n    uri: http://127.0.0.1:9/c.img\n'
            '    md5: %s\n    image-format: raw\n' % (key, tools.MD5)
            ).encode()


UPLOAD = ['--images-info', '{work}/images.yaml']


class TestUploaderValues(testscenarios.WithScenarios,
                         cli_runs.BadInputCase):

    script = 'glance-image-uploader'
    extra_files = {'images.yaml': tools.IMAGES}
    scenarios = [
        _row('image_key_null', ['--images-info', '{work}/i.yaml'], 22,
             'os_images', 'the key None is not a string',
             files={'i.yaml': _images('null')}),
        _row('image_key_true', ['--images-info', '{work}/i.yaml'], 22,
             'os_images', 'the key True is not a string',
             files={'i.yaml': _images('true')}),
        _row('image_key_tilde', ['--images-info', '{work}/i.yaml'], 22,
             'the key None is not a string', files={'i.yaml': _images('~')}),
        _row('uri_port_out_of_range', ['--images-info', '{work}/i.yaml'],
             22, 'os_images.cirros.uri', 'Port out of range',
             files={'i.yaml': tools.IMAGES.replace(b'127.0.0.1:9',
                                                   b'127.0.0.1:99999999')}),
        _row('uri_port_zero', ['--images-info', '{work}/i.yaml'], 22,
             'os_images.cirros.uri', 'port 0',
             files={'i.yaml': tools.IMAGES.replace(b'127.0.0.1:9',
                                                   b'127.0.0.1:0')}),
        _row('output_is_a_fifo', UPLOAD + ['--output', '{fifo}'], 22,
             '--output {fifo} is a FIFO', max_seconds=FAST),
        _row('output_is_a_device', UPLOAD + ['--output', '/dev/null'], 22,
             '--output /dev/null is a character device'),
        _row('output_is_a_folder', UPLOAD + ['--output', '{dir}'], 22,
             '--output {dir} is a folder'),
        _row('target_namespace_not_a_label', UPLOAD, 22, 'TARGET_NAMESPACE',
             'DNS-1123', env={'UUID_OUTPUT': 'configmap',
                              'TARGET_NAMESPACE': 'a/b'}),
    ]


def _spec(top='', api=''):
    return ('%sglanceAPIs:\n  api0:\n    type: split\n%s'
            '    customServiceConfig: "[DEFAULT]\\nenabled_backends = '
            'ceph0:rbd\\n[glance_store]\\ndefault_backend = ceph0\\n"\n' % (
                top, api)).encode()


class TestCloudValues(testscenarios.WithScenarios, cli_runs.BadInputCase):

    script = 'glance-multiapi-cloud'
    scenarios = [
        _row('api_timeout_negative', ['up', '--state-dir', '{work}/cloud',
                                      '--spec', '{work}/spec.yaml'], 22,
             'spec.apiTimeout: -5 is less than the minimum 1',
             files={'spec.yaml': _spec(top='apiTimeout: -5\n')}),
        _row('api_timeout_of_an_api_text',
             ['up', '--state-dir', '{work}/cloud', '--spec',
              '{work}/spec.yaml'], 22,
             "spec.glanceAPIs.api0.apiTimeout: '60' is not an integer",
             files={'spec.yaml': _spec(api='    apiTimeout: "60"\n')}),
        _row('api_timeout_of_400_digits',
             ['up', '--state-dir', '{work}/cloud', '--spec',
              '{work}/spec.yaml'], 22, 'apiTimeout', 'int64',
             files={'spec.yaml': _spec(top='apiTimeout: 1%s\n' % (
                 '0' * 400))}),
    ]
