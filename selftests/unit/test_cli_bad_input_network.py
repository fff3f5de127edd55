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

"""The console scripts against servers that trickle, keep silent or lie.

Each row points a script at a real loopback server (selftests/trickle.py)
that sends its answer one byte every 0.2 s (the body, the headers, a
redirect), reads the request and answers nothing, or breaks HTTP (a
status line that is none, a header over 64 KiB, 150 headers, a chunked
body cut short), with the script's deadline option at 1 s: every
per-read timeout is longer than the trickle's interval, so only the
deadline of the whole exchange can end it. The script must end within
that deadline (and the time it takes to start), in one line naming the
URL and the deadline, with the code it documents for an unreachable
service, and leave nothing behind.
"""

import importlib.metadata

from oslo_config.sources import _uri
import testscenarios

from selftests import cli_runs
from selftests.unit import test_cli_bad_input_tools as tools

load_tests = testscenarios.load_tests_apply_scenarios

# NOTE: a script's start (imports: tempest's options, keystoneauth,
# openstacksdk) on a loaded machine, plus the 1 s deadline.
WALL = 25
TRICKLES = (('trickled_body', 'trickle', 'no complete answer within 1 s'),
            ('slow_headers', 'slow-headers', 'no complete answer within 1 s'),
            ('slow_redirect', 'slow-redirect', 'no complete answer within 1'),
            ('silent', 'silent', 'no answer within 1 s'))
BROKEN = (('bad_status_line', 'bad-status-line', 'not HTTP'),
          ('header_over_64_kib', 'long-header', 'line'),
          ('150_headers', 'many-headers', 'more than 100 headers'),
          ('chunk_cut_short', 'cut-chunk', 'cut short'))


def _row(name, argv, code, *needles, **extra):
    return (name, dict(argv=argv, code=code, needles=needles, **extra))


def network(name, argv, code, *needles, deadline=(), env=None, files=None,
            broken=True, stdout=False, broken_words=False,
            silent_words=None):
    """The rows of one exchange: each trickle, and each broken answer.

    deadline: the arguments that set the deadline to 1 s, given to the
    trickles only (a broken answer comes at once); stdout: the needles
    and the trickle's words are looked for in stdout, not stderr;
    broken_words: the line names what was wrong with a broken answer in
    the project's words (not a library's); silent_words: what it says of
    a server that sends nothing, when not the deadline's words.
    """
    rows = []
    kinds = [(kind, mode, (silent_words if mode == 'silent' and
                           silent_words else words,),
              list(argv) + list(deadline))
             for kind, mode, words in TRICKLES]
    if broken:
        kinds += [(kind, mode, (words,) if broken_words else (), argv)
                  for kind, mode, words in BROKEN]
    extra = {}
    if env is not None:
        extra['env'] = env
    if files is not None:
        extra['files'] = files
    for kind, mode, words, args in kinds:
        if stdout:
            rows.append(_row('%s_%s' % (name, kind), args, code,
                             stdout_needles=needles + words, server=mode,
                             max_wall=WALL, **extra))
        else:
            rows.append(_row('%s_%s' % (name, kind), args, code,
                             *(needles + words), server=mode,
                             max_wall=WALL, **extra))
    return rows


REPORT = ['{work}/results', '--baseline', '{server}/metrics.json']


class TestReportNetwork(testscenarios.WithScenarios, cli_runs.BadInputCase):

    script = 'glance-multiapi-report'
    files = {tools.RECORDS: tools.RECORD}
    scenarios = network('baseline', REPORT, 22,
                        'baseline {server}/metrics.json could not be '
                        'fetched', deadline=['--baseline-timeout', '1'],
                        broken_words=True) + [
        _row('baseline_url_holding_a_newline',
             ['{work}/results', '--baseline',
              'http://127.0.0.1:9/a\nb/metrics.json'], 22,
             'baseline http://127.0.0.1:9/a b/metrics.json could not be '
             'fetched', 'control characters'),
    ]


DOCTOR = ['--config-file', '{work}/t.conf']
CREDENTIALS = ('[auth]\nadmin_username = u\nadmin_password = p\n'
               'admin_project_name = x\n')


def _clouds(auth_url):
    return ('clouds:\n  demo:\n    auth:\n      auth_url: %s\n'
            '      username: u\n      password: p\n      project_name: x\n'
            '      user_domain_name: Default\n'
            '      project_domain_name: Default\n' % auth_url)


# NOTE: block style: the files' text is filled with str.format.
KUBECONFIG = ('clusters:\n- name: c\n  cluster:\n    server: {server}\n'
              'users:\n- name: u\n  user:\n    token: t\n'
              'contexts:\n- name: c\n  context:\n    cluster: c\n'
              '    user: u\ncurrent-context: c\n')


def _version(name):
    for dist in (name, name.replace('.', '_')):
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            pass
    return '?'


def remote_file_fetches():
    """'' when oslo.config's remote_file driver can fetch, else why not.

    NOTE: oslo.config 10.0.0 (the Python 3.9 pins) declares the driver's
    timeout a StrOpt with default 60, and requests refuses the string
    ("Timeout value connect was 60, but it must be an int, float or
    None"): no remote config_source loads there, for tempest or the
    doctor, so none can be shown trickling. 9.1.1 and 10.7.0 fetch.
    """
    for opt in _uri.URIConfigurationSourceDriver._uri_driver_opts:
        read = opt.type(opt.default) if opt.dest == 'timeout' else 0
        if not isinstance(read, (int, float)):
            return ('oslo.config %s: its remote_file driver fetches nothing '
                    '(its timeout option reads %r, which requests refuses)'
                    % (_version('oslo.config'), read))
    return ''


class TestDoctorNetwork(testscenarios.WithScenarios, cli_runs.BadInputCase):

    script = 'glance-multiapi-doctor'

    def setUp(self):
        if any('config_source' in needle for needle in self.needles):
            broken = remote_file_fetches()
            if broken:
                self.skipTest(broken)
        super().setUp()
    scenarios = network(
        'keystone', DOCTOR, 24, 'first: keystone {server}/v3',
        deadline=['--keystone-timeout', '1'], files={
            't.conf': '[identity]\nuri_v3 = {server}/v3\n' + CREDENTIALS}
    ) + network(
        'keystone_cloud', ['--os-cloud', 'demo'], 24, 'first: keystone '
        '{server}/v3', deadline=['--keystone-timeout', '1'], broken=False,
        files={'clouds.yaml': _clouds('{server}/v3')},
        env={'OS_CLIENT_CONFIG_FILE': '{work}/clouds.yaml'}
    ) + network(
        # NOTE: no keystone is configured, so the first failure (22) is
        # its; the probe's own row is on stdout.
        'endpoint_probe', DOCTOR + ['--probe-timeout', '1'], 22,
        'FAIL endpoint         api0 public {server}/', stdout=True,
        broken=False, silent_words='HTTP: timed out', files={'t.conf': (
            '[glance_multiapi]\napi_names = api0\n'
            'public_endpoints = api0:{server}/\n')}
    ) + network(
        'kubernetes_discovery', DOCTOR, 23, 'first: discovery',
        'Kubernetes API {server}', broken=False, files={
            'kc': KUBECONFIG, 't.conf': (
                '[glance_multiapi]\nkubernetes_api = true\n'
                'kubeconfig = {work}/kc\nkubernetes_timeout = 1\n')}
    ) + network(
        # NOTE: oslo.config warns of a remote source that fails and goes
        # on without it (the doctor as tempest would); one that never
        # ends is the doctor's to cut.
        'config_source', DOCTOR, 22, 'config_source {server}/extra.conf',
        deadline=['--config-timeout', '1'], broken=False, files={'t.conf': (
            '[DEFAULT]\nconfig_source = remote\n[remote]\n'
            'driver = remote_file\nuri = {server}/extra.conf\n')}
    ) + [
        _row('keystone_401_to_discovery', ['--os-cloud', 'demo'], 24,
             'answered 401 Unauthorized to its version discovery',
             server='unauthorized', max_wall=WALL,
             files={'clouds.yaml': _clouds('{server}/identity')},
             env={'OS_CLIENT_CONFIG_FILE': '{work}/clouds.yaml'}),
    ]


class TestImageCheckNetwork(testscenarios.WithScenarios,
                            cli_runs.BadInputCase):

    script = 'glance-multiapi-image-check'
    scenarios = network(
        'kubernetes', ['--kubernetes', '--kubeconfig', '{work}/kc',
                       '--kube-timeout', '1'], 23, 'Kubernetes API {server}',
        'openstackversions', files={'kc': KUBECONFIG})


UPLOAD = ['--images-info', '{work}/images.yaml', '--os-cloud', 'demo',
          '--os-client-config-file', '{work}/clouds.yaml']


class TestUploaderNetwork(testscenarios.WithScenarios,
                          cli_runs.BadInputCase):

    script = 'glance-image-uploader'
    scenarios = network(
        'keystone', UPLOAD, 5, "keystone of cloud 'demo' cannot be reached",
        deadline=['--request-timeout', '1'], files={
            'images.yaml': tools.IMAGES, 'clouds.yaml': _clouds(
                '{server}/v3')}) + [
        _row('keystone_401_to_discovery', UPLOAD, 5,
             'answered 401 Unauthorized to its version discovery',
             server='unauthorized', max_wall=WALL, files={
                 'images.yaml': tools.IMAGES,
                 'clouds.yaml': _clouds('{server}/identity')}),
    ]
