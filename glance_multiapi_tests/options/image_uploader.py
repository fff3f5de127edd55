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

"""[image_uploader]: the uploader scenarios drive any Sylva-compatible
uploader through a command template against real Glance, registry and
a loopback HTTP source. Read by glance_multiapi_tests.tests.scenario.
test_uploader and its fixtures.
"""

from oslo_config import cfg

# NOTE: the embedded cloud's stand-in, run as a command (the plugin never
# imports the cloud).
CONFIGMAP_API_COMMAND = ('{python} -m glance_multiapi_cloud.kubeapi.loopback '
                         '--dir {dir}')

image_uploader_group = cfg.OptGroup(
    name='image_uploader',
    title='Image uploader scenarios',
    help='Which uploader the scenarios run, how it gets its input and what '
         'it must produce.')

ImageUploaderGroup = [
    cfg.BoolOpt('enabled', default=True,
                help='Run the image uploader scenarios.'),
    cfg.StrOpt('command',
               default='{python} -m glance_image_uploader.cli',
               help='Command template of the uploader under test, split '
                    'like a shell would. Placeholders: {python} (the '
                    'interpreter running tempest), {info} (the images info '
                    'YAML), {clouds} (a clouds.yaml with the primary '
                    'credentials), {cloud} (its cloud name), {temp_dir} '
                    '(the temp dir the uploader must leave empty), {output} '
                    '(the UUID map file, uuid_output = file). It runs in an '
                    'empty working directory that must stay empty. The '
                    'Sylva environment (OS_IMAGES_INFO_PATH, OS_CLOUD, '
                    'OS_CLIENT_CONFIG_FILE, TMPDIR, WAIT_QUEUED_IMAGE, '
                    'IMAGE_IN_PROGRESS_TIMEOUT, IMAGE_IN_PROGRESS_INTERVAL, '
                    'FOREIGN_QUEUED_POLICY; TARGET_NAMESPACE and KUBECONFIG '
                    'in configmap mode; SSL_CERT_FILE and REQUESTS_CA_BUNDLE '
                    'or INSECURE_CLIENT) is always set too.'),
    cfg.DictOpt('extra_env', default={},
                help='More environment for the uploader, e.g. '
                     'OCI_PLAIN_HTTP:true for a registry on plain HTTP.'),
    cfg.StrOpt('uuid_output', default='stdout',
               choices=[('stdout', 'the os_images UUID map on stdout'),
                        ('file', 'written to the file {output} of command '
                                 'names (the command must use {output})'),
                        ('configmap', 'written to ConfigMap configmap_name '
                                      '(data key configmap_key) in the '
                                      'namespace TARGET_NAMESPACE of the '
                                      'Kubernetes API of KUBECONFIG'),
                        ('none', 'not checked; Glance only')],
               help='Where the uploader reports the os_images UUID map. '
                    'configmap: every scenario gets its own namespace '
                    '(TARGET_NAMESPACE) on the API of kubeconfig, or on a '
                    'loopback ConfigMap API the suite serves itself when '
                    'kubeconfig is unset; the ConfigMap is deleted '
                    'afterwards. The bundled uploader is told the mode by '
                    'UUID_OUTPUT, which other uploaders ignore.'),
    cfg.StrOpt('kubeconfig',
               help='kubeconfig of a Kubernetes API where the scenarios may '
                    'create a namespace (or, on the embedded cloud, just '
                    'use one) and the uploader may write its ConfigMap; '
                    'given to the uploader as KUBECONFIG. Unset: the suite '
                    'serves a loopback ConfigMap API of its own '
                    '(configmap_api_command).'),
    cfg.StrOpt('configmap_api_command',
               default=CONFIGMAP_API_COMMAND,
               help='Command template that serves the loopback ConfigMap '
                    'API when uuid_output is configmap and kubeconfig is '
                    'unset: it must serve on loopback until SIGTERM and, '
                    'once it listens, write {dir}/kubeconfig naming it. '
                    'Placeholders: {python} (the interpreter running '
                    'tempest), {dir} (a folder of the scenario\'s own).'),
    cfg.StrOpt('namespace_env', default='TARGET_NAMESPACE',
               regex=r'^[A-Za-z_][A-Za-z0-9_]*$',
               help='Name of the environment variable that gives the '
                    'uploader the namespace of its ConfigMap in configmap '
                    'mode: Sylva\'s reads TARGET_NAMESPACE, some uploaders '
                    'read NAMESPACE.'),
    cfg.StrOpt('configmap_name', default='openstack-images-uuids',
               help='ConfigMap the uploader writes in configmap mode.'),
    cfg.StrOpt('configmap_key', default='values.yaml',
               help='Data key of that ConfigMap holding the os_images '
                    'UUID map (YAML).'),
    cfg.StrOpt('name_format',
               default='{name}-sylva-diskimage-builder-{commit_tag}',
               help='Glance name of an image with a commit-tag.'),
    cfg.StrOpt('tag_format', default='sylva-md5-{md5}',
               help='Tag marking an image with its md5.'),
    cfg.StrOpt('property_prefix', default='sylva/',
               help='Prefix of the properties copied from the info keys; '
                    'empty skips the property check.'),
    cfg.StrOpt('foreign_queued_policy', default='refuse',
               choices=[('refuse', 'exit foreign_queued_exit_code, upload '
                                   'nothing, name the foreign image id'),
                        ('ignore', 'upload our own copy; exit 0')],
               help='What the uploader does about another project\'s '
                    'queued image of the same name and tag; either way '
                    'the foreign image must stay untouched. Passed to the '
                    'uploader as FOREIGN_QUEUED_POLICY.'),
    cfg.IntOpt('foreign_queued_exit_code', default=1,
               help='Exit code expected when another project holds a '
                    'queued image of the same name and tag (refuse).'),
    cfg.StrOpt('source', default='http', choices=['http', 'oci'],
               help='Where every scenario\'s image comes from: a loopback '
                    'HTTP server of the suite, or an OCI artifact pushed '
                    'to registry.'),
    cfg.StrOpt('registry',
               help='host:port of an OCI registry (HTTPS) the scenarios '
                    'may push to; unset skips the OCI scenarios (and '
                    'source = oci skips them all).'),
    cfg.StrOpt('registry_ca_file',
               help='CA bundle verifying the registry; given to the '
                    'uploader as SSL_CERT_FILE and REQUESTS_CA_BUNDLE. '
                    'Unset: the system CAs.'),
    cfg.BoolOpt('insecure_client', default=False,
                help='Give the uploader INSECURE_CLIENT=true (no TLS '
                     'verification) instead of registry_ca_file.'),
    cfg.IntOpt('image_size', default=4 * 1024 * 1024,
               help='Bytes of each generated image.'),
    cfg.IntOpt('run_timeout', default=300,
               help='Seconds one uploader run may take; then it is killed '
                    'and the test fails reporting it hung, with its last '
                    'output line.'),
    cfg.IntOpt('wait_queued_image', default=3,
               help='WAIT_QUEUED_IMAGE given to the uploader.'),
    cfg.IntOpt('in_progress_interval', default=1,
               help='IMAGE_IN_PROGRESS_INTERVAL given to the uploader.'),
    cfg.IntOpt('in_progress_timeout', default=120,
               help='IMAGE_IN_PROGRESS_TIMEOUT given to the uploader.'),
    cfg.IntOpt('saving_hold', default=8,
               help='Seconds a throttled upload keeps an image saving '
                    'after the uploader under test has downloaded its '
                    'source; the uploader must still be waiting then.'),
    cfg.FloatOpt('max_saving_wait_seconds', min=0,
                 help='Bound of glance_multiapi_uploader_saving_wait_'
                      'seconds (an uploader run while another upload of '
                      'its image is saving, until it exits; it includes '
                      'saving_hold); unset: recorded only.'),
]
