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

"""What a Tempest CR becomes in test-operator's pod, word for word.

Two upstream files decide it, and this module follows each rule of them
(the test-operator stage, tools/run-test-operator.sh, runs the result):

* test-operator ``internal/controller/tempest_controller.go``
  (``setTempestConfigVars``, ``setTempestconfConfigVars``) and
  ``internal/controller/common.go`` (``SetFileEnvVar``,
  ``SetDictEnvVar``): the CR's fields become the pod's environment and
  the files of its config ConfigMap (``pod_env``), with the CRD's
  defaults (``api/v1beta1/tempest_types.go``) for fields the CR omits.
* tcib ``container-images/tcib/base/os/tempest/run_tempest.sh``: that
  environment becomes the ``discover-tempest-config`` command line
  (``tempestconf_argv``) through bash's unquoted expansions (word
  splitting and pathname expansion, ``shell_words.bash_words``) and
  ``xargs`` (``shell_words.xargs_words``, GNU findutils' quote rules),
  and the ``tempest run`` command line (``tempest_run_argv``).

Pure logic: nothing here (or in shell_words) reads the cluster or runs
anything but ``glob`` on the directory named.
"""

import re

from selftests.manifests import shell_words

TEST_OPERATOR_COMMIT = 'd0ef1c343d8cca281f2ab538da610a286e15edeb'
TCIB_COMMIT = '4b51b3593706bc8c4457a0a05228e9971fae8ecf'

# test-operator internal/controller/common.go testOperatorBaseDir: where
# the config ConfigMap (include.txt, exclude.txt, ...) is mounted.
BASE_DIR = '/etc/test_operator/'
# run_tempest.sh HOMEDIR, TEMPEST_DIR and (USE_EXTERNAL_FILES is always
# set by test-operator) TEMPEST_PATH, the logs volume.
HOMEDIR = '/var/lib/tempest'
TEMPEST_DIR = HOMEDIR + '/openshift'
EXTERNAL_FILES = HOMEDIR + '/external_files/'
PLUGIN_DIR = HOMEDIR + '/external-plugins'

# CRD defaults (api/v1beta1/tempest_types.go) of the fields used below.
INCLUDE_DEFAULT = 'tempest.api.identity.v3'
OVERRIDES_DEFAULT = 'identity.v3_endpoint_type public'
TEMPESTCONF_BOOLS = (
    # (env var, CR field, CRD default)
    ('TEMPESTCONF_CREATE', 'create', True),
    ('TEMPESTCONF_COLLECT_TIMING', 'collectTiming', False),
    ('TEMPESTCONF_INSECURE', 'insecure', False),
    ('TEMPESTCONF_NO_DEFAULT_DEPLOYER', 'noDefaultDeployer', False),
    ('TEMPESTCONF_DEBUG', 'debug', False),
    ('TEMPESTCONF_VERBOSE', 'verbose', False),
    ('TEMPESTCONF_NON_ADMIN', 'nonAdmin', False),
    ('TEMPESTCONF_RETRY_IMAGE', 'retryImage', False),
    ('TEMPESTCONF_CONVERT_TO_RAW', 'convertToRaw', False),
)
TEMPESTCONF_INTS = (('TEMPESTCONF_TIMEOUT', 'timeout'),
                    ('TEMPESTCONF_FLAVOR_MIN_MEM', 'flavorMinMem'),
                    ('TEMPESTCONF_FLAVOR_MIN_DISK', 'flavorMinDisk'))
TEMPESTCONF_STRINGS = (('TEMPESTCONF_OUT', 'out'),
                       ('TEMPESTCONF_CREATE_ACCOUNTS_FILE',
                        'createAccountsFile'),
                       ('TEMPESTCONF_GENERATE_PROFILE', 'generateProfile'),
                       ('TEMPESTCONF_IMAGE_DISK_FORMAT', 'imageDiskFormat'),
                       ('TEMPESTCONF_IMAGE', 'image'),
                       ('TEMPESTCONF_NETWORK_ID', 'networkID'),
                       ('TEMPESTCONF_APPEND', 'append'),
                       ('TEMPESTCONF_REMOVE', 'remove'))
TEMPESTCONF_FILES = (('TEMPESTCONF_DEPLOYER_INPUT', 'deployerInput',
                      'deployer_input.ini'),
                     ('TEMPESTCONF_TEST_ACCOUNTS', 'testAccounts',
                      'accounts.yaml'),
                     ('TEMPESTCONF_PROFILE', 'profile', 'profile.yaml'))
TEMPEST_FILES = (('TEMPEST_WORKER_FILE', 'workerFile', 'worker_file.yaml'),
                 ('TEMPEST_INCLUDE_LIST', 'includeList', 'include.txt'),
                 ('TEMPEST_EXCLUDE_LIST', 'excludeList', 'exclude.txt'),
                 ('TEMPEST_EXPECTED_FAILURES_LIST', 'expectedFailuresList',
                  'expected_failures.txt'))
TEMPEST_BOOLS = (('TEMPEST_SERIAL', 'serial', False),
                 ('TEMPEST_PARALLEL', 'parallel', True),
                 ('TEMPEST_SMOKE', 'smoke', False))
# run_tempest.sh's boolean and string discover-tempest-config arguments,
# in the order it appends them.
ARG_BOOLS = (('TEMPESTCONF_CREATE', '--create', 'true'),
             ('TEMPESTCONF_INSECURE', '--insecure', None),
             ('TEMPESTCONF_COLLECT_TIMING', '--collect-timing', None),
             ('TEMPESTCONF_NO_DEFAULT_DEPLOYER', '--no-default-deployer',
              None),
             ('TEMPESTCONF_DEBUG', '--debug', 'true'),
             ('TEMPESTCONF_VERBOSE', '--verbose', None),
             ('TEMPESTCONF_NO_RNG', '--no-rng', None),
             ('TEMPESTCONF_NON_ADMIN', '--non-admin', None),
             ('TEMPESTCONF_RETRY_IMAGE', '--retry-image', None),
             ('TEMPESTCONF_CONVERT_TO_RAW', '--convert-to-raw', None))
ARG_STRINGS = (('TEMPESTCONF_TIMEOUT', '--timeout'),
               ('TEMPESTCONF_OUT', '--out'),
               ('TEMPESTCONF_DEPLOYER_INPUT', '--deployer-input'),
               ('TEMPESTCONF_TEST_ACCOUNTS', '--test-accounts'),
               ('TEMPESTCONF_CREATE_ACCOUNTS_FILE', '--create-accounts-file'),
               ('TEMPESTCONF_PROFILE', '--profile'),
               ('TEMPESTCONF_GENERATE_PROFILE', '--generate-profile'),
               ('TEMPESTCONF_IMAGE_DISK_FORMAT', '--image-disk-format'),
               ('TEMPESTCONF_IMAGE', '--image'),
               ('TEMPESTCONF_FLAVOR_MIN_MEM', '--flavor-min-mem'),
               ('TEMPESTCONF_FLAVOR_MIN_DISK', '--flavor-min-disk'),
               ('TEMPESTCONF_NETWORK_ID', '--network-id'))

_NEGATIVE_NUMBER = re.compile(r'^-\d+$|^-\d*\.\d+$')

# NOTE: the error of a CR the pod would not get far with, raised here
# and by shell_words; it keeps its name here, where its callers look.
RenderError = shell_words.RenderError


def _bool(value):
    return 'true' if value else 'false'


def _field(spec, name, default):
    value = spec.get(name)
    return default if value is None else value


def pod_env(cr):
    """(environment, {file name: content}) test-operator gives the pod.

    Only the variables run_tempest.sh reads and test-operator sets; the
    CRD defaults fill what the CR omits (an omitted field, not one set
    empty: a CR that sets ``overrides: ""`` gets no default).
    """
    spec = cr.get('spec') or {}
    run = spec.get('tempestRun') or {}
    conf = spec.get('tempestconfRun') or {}
    env, files = {}, {}

    def file_var(var, content, filename):
        # NOTE: SetFileEnvVar sets nothing for empty content.
        if content:
            files[filename] = content
            env[var] = BASE_DIR + filename

    for var, field, filename in TEMPEST_FILES:
        default = INCLUDE_DEFAULT if field == 'includeList' else ''
        file_var(var, _field(run, field, default), filename)
    for var, field, default in TEMPEST_BOOLS:
        env[var] = _bool(_field(run, field, default))
    env['USE_EXTERNAL_FILES'] = 'true'
    concurrency = int(_field(run, 'concurrency', 0))
    if concurrency > 0:
        env['TEMPEST_CONCURRENCY'] = str(concurrency)
    for plugin in run.get('externalPlugin') or []:
        # NOTE: SetDictEnvVar appends "value," for each plugin, and the
        # change fields get "-" when empty.
        for var, value in (
                ('TEMPEST_EXTERNAL_PLUGIN_GIT_URL', plugin.get('repository')),
                ('TEMPEST_EXTERNAL_PLUGIN_CHANGE_URL',
                 plugin.get('changeRepository') or '-'),
                ('TEMPEST_EXTERNAL_PLUGIN_REFSPEC',
                 plugin.get('changeRefspec') or '-')):
            env[var] = env.get(var, '') + (value or '') + ','
    # NOTE: GetPodName: the CR's name when it has no workflow.
    env['TEMPEST_WORKFLOW_STEP_DIR_NAME'] = (
        cr.get('metadata') or {}).get('name', '')

    for var, field, filename in TEMPESTCONF_FILES:
        file_var(var, _field(conf, field, ''), filename)
    for var, field, default in TEMPESTCONF_BOOLS:
        env[var] = _bool(_field(conf, field, default))
    for var, field in TEMPESTCONF_INTS:
        value = int(_field(conf, field, 0))
        env[var] = str(value) if value > 0 else ''
    for var, field in TEMPESTCONF_STRINGS:
        env[var] = str(_field(conf, field, ''))
    env['TEMPESTCONF_OVERRIDES'] = str(_field(conf, 'overrides',
                                              OVERRIDES_DEFAULT))
    env['TEMPEST_DEBUG_MODE'] = _bool(spec.get('debug', False))
    env['TEMPEST_CLEANUP'] = _bool(spec.get('cleanup', False))
    return env, files


def tempest_path(env):
    """run_tempest.sh TEMPEST_PATH: the logs volume with external files."""
    return EXTERNAL_FILES if env.get('USE_EXTERNAL_FILES') else (
        HOMEDIR + '/')


def logs_dir(env):
    """run_tempest.sh TEMPEST_LOGS_DIR (its double slash kept)."""
    step = env.get('TEMPEST_WORKFLOW_STEP_DIR_NAME') or 'tempest'
    return '%s/%s/' % (tempest_path(env), step)


def overrides_text(env, first_cwd=None):
    """run_tempest.sh's TEMPESTCONF_OVERRIDES after its own additions."""
    joined = shell_words.bash_echo(shell_words.bash_words(
        env.get('TEMPESTCONF_OVERRIDES', ''), first_cwd)).replace('\n', ' ')
    return (joined + ' identity.v3_endpoint_type public ' +
            'DEFAULT.log_dir %s ' % logs_dir(env))


def tempestconf_args_text(env):
    """run_tempest.sh's TEMPESTCONF_ARGS."""
    text = ''
    for var, flag, default in ARG_BOOLS:
        value = env.get(var) or default
        if value == 'true':
            text += flag + ' '
    for var, flag in ARG_STRINGS:
        if env.get(var):
            text += '%s %s ' % (flag, env[var])
    for var, flag in (('TEMPESTCONF_APPEND', '--append'),
                      ('TEMPESTCONF_REMOVE', '--remove')):
        for line in (env.get(var) or '').split('\n'):
            words = shell_words.split_ifs(line)
            if words:
                text += '%s %s=%s ' % (flag, words[0],
                                       words[1] if len(words) > 1 else '')
    return text


def tempestconf_argv(env, first_cwd=None, cwd=None):
    """Arguments run_tempest.sh gives discover-tempest-config.

    first_cwd: where the script starts (its first expansion of the
    overrides); cwd: TEMPEST_DIR, where ``discover_tempest_config`` runs.
    RenderError when xargs would refuse them.
    """
    words = (shell_words.bash_words(tempestconf_args_text(env), cwd) +
             shell_words.bash_words(overrides_text(env, first_cwd), cwd))
    return shell_words.xargs_words(' '.join(words) + '\n')


def tempest_run_argv(env):
    """Arguments run_tempest.sh gives ``tempest run``."""
    text = ''
    for var, flag in (('TEMPEST_SMOKE', '--smoke'),
                      ('TEMPEST_SERIAL', '--serial')):
        if env.get(var) == 'true':
            text += flag + ' '
    for var, flag in (('TEMPEST_INCLUDE_LIST', '--include-list'),
                      ('TEMPEST_EXCLUDE_LIST', '--exclude-list'),
                      ('TEMPEST_CONCURRENCY', '--concurrency'),
                      ('TEMPEST_WORKER_FILE', '--worker-file')):
        if env.get(var):
            text += '%s %s ' % (flag, env[var])
    # NOTE: without a list of the CR's, the script's own file (an include
    # list of tempest.api.identity.v3, an empty exclude list).
    if not env.get('TEMPEST_INCLUDE_LIST'):
        text += '--include-list %s/include.txt ' % tempest_path(env)
    if not env.get('TEMPEST_EXCLUDE_LIST'):
        text += '--exclude-list %s/exclude.txt ' % tempest_path(env)
    return shell_words.split_ifs(text)


def override_pairs_as_passed(env, first_cwd=None, cwd=None):
    """[(section.key, value)] discover-tempest-config will parse.

    python-tempestconf (config_tempest/main.py parse_overrides) takes the
    positional arguments two by two and fails on an odd count or a key
    without exactly one dot; RenderError says which.
    """
    argv = tempestconf_argv(env, first_cwd, cwd)
    positional = []
    takes_value = {flag for _var, flag in ARG_STRINGS} | {
        '--append', '--remove'}
    flags = {flag for _var, flag, _default in ARG_BOOLS}
    words = iter(argv)
    for word in words:
        if word in takes_value:
            next(words, None)
        elif word in flags:
            continue
        elif word.startswith('-') and not _NEGATIVE_NUMBER.match(word):
            # NOTE: argparse takes such a word for an option (only a
            # negative number passes as a positional argument).
            raise RenderError(
                'discover-tempest-config would take override word %r for '
                'an option and stop: a value cannot start with "-"' % word)
        else:
            positional.append(word)
    if len(positional) % 2:
        # NOTE: the last four are run_tempest.sh's own two pairs.
        ours = positional[:-4] or positional
        raise RenderError('discover-tempest-config gets an odd number of '
                          'override words (%d from the CR): %r has no '
                          'value; a value with blanks needs quotes' % (
                              len(ours), ours[-1]))
    pairs = list(zip(positional[::2], positional[1::2]))
    for key, value in pairs:
        if key.count('.') != 1:
            raise RenderError('discover-tempest-config wants "section.key '
                              'value" but gets %r %r' % (key, value))
    return pairs


def operator_clouds_yaml(admin):
    """(clouds.yaml, secure.yaml) documents as the pod gets them.

    keystone-operator (internal/controller/keystoneapi_controller.go
    reconcileCloudConfig, internal/keystone/cloudconfig.go) writes cloud
    "default" into ConfigMap openstack-config: the public keystone URL,
    the admin user and project in domain Default, the region; the
    password goes to Secret openstack-config-secret (secure.yaml).
    test-operator mounts both (internal/tempest/volumes.go). There is no
    cacert: the pod trusts the control plane through its system bundle.
    admin: a clouds.yaml cloud with auth_url, username, password and
    project_name (the embedded cloud's "admin").
    """
    auth = admin['auth']
    url = auth['auth_url'].rstrip('/')
    if url.endswith('/v3'):
        # NOTE: the operator's URL is the endpoint, without a version.
        url = url[:-len('/v3')]
    clouds = {'clouds': {'default': {
        'auth': {'auth_url': url, 'project_name': auth['project_name'],
                 'username': auth['username'],
                 'user_domain_name': 'Default',
                 'project_domain_name': 'Default'},
        'region_name': admin.get('region_name', '')}}}
    secure = {'clouds': {'default': {'auth': {
        'password': auth['password']}}}}
    return clouds, secure
