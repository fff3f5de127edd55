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

"""The inputs of the image check: files, the get command, the API's objects.

The CLI and the Tempest test both describe their inputs with ``Inputs``
and call ``run``; the objects of the Kubernetes API come from the
deployment access layer (glance_multiapi_tests/deployment_access.py) as
plain dicts, and everything after reading is in the pure modules.
"""

import dataclasses

from glance_multiapi_kernel import input_files
from glance_multiapi_kernel import kube
from glance_multiapi_tests.common import commands
from glance_multiapi_tests.imagecheck import check
from glance_multiapi_tests.imagecheck import declared
from glance_multiapi_kernel import image_errors
from glance_multiapi_kernel import image_mappings
from glance_multiapi_tests.imagecheck import sources


@dataclasses.dataclass(frozen=True)
class Inputs:
    """Where each input of the check is; unset ones are not used."""

    mappings_file: str
    # NOTE: without mappings_file, the fields of the built-in groups
    # (heat_images.py) are judged as the deployment groups them
    # (declared.py).
    builtin: bool = False
    version_file: str = None
    version_command: str = None
    env_file: str = None
    env_list: str = None
    env_list_name: str = 'env list'
    known_names_file: str = None
    known_names: tuple = ()
    targets: tuple = ()
    command_timeout: float = 60.0
    # NOTE: with kubernetes (a deployment_access.KubernetesAccess) the
    # OpenStackVersion and the running Deployments are read through the
    # Kubernetes API.
    kubernetes: object = None
    openstackversion_name: str = None
    version_name_option: str = 'the OpenStackVersion name'
    running_deployments: tuple = ()


def run(inputs):
    """Read every input and return the check.Report."""
    if not (inputs.mappings_file or inputs.builtin or
            inputs.running_deployments):
        raise image_errors.ImageCheckError('no image mappings file given')
    if inputs.version_file and inputs.version_command:
        raise image_errors.ImageCheckError(
            'give the OpenStackVersion as a file or a command, not both')
    if inputs.kubernetes and (inputs.version_file or inputs.version_command):
        raise image_errors.ImageCheckError(
            'the OpenStackVersion is read through the Kubernetes API; do not '
            'give a version file or command too')
    if inputs.running_deployments and not inputs.kubernetes:
        raise image_errors.ImageCheckError(
            'the running Deployments can only be read through the '
            'Kubernetes API, which is not configured')
    if inputs.builtin and not inputs.mappings_file and not (
            inputs.kubernetes or inputs.version_file or
            inputs.version_command or inputs.env_file or inputs.env_list):
        # NOTE: without a mapping the deployment's references are all
        # there is to judge; nothing given would pass with nothing read.
        raise image_errors.ImageCheckError(
            'no image mappings file and no deployed references given: '
            'give a mappings file, or the OpenStackVersion or the '
            'RELATED_IMAGE listing to judge')
    if inputs.env_file and inputs.env_list:
        raise image_errors.ImageCheckError(
            'give the RELATED_IMAGE listing as a file or a list, not both')
    image_mapping = None
    if inputs.mappings_file:
        image_mapping = image_mappings.parse_mapping(
            read_text(inputs.mappings_file, 'image mappings'),
            inputs.mappings_file)
    elif inputs.builtin:
        fields = declared.select_fields(inputs.targets)
    else:
        image_mapping = image_mappings.Mapping(where=check.NO_MAPPING,
                                               targets=())
    found, versions, running = [], None, None
    if inputs.kubernetes:
        found, versions, running = read_kubernetes(inputs)
    elif inputs.version_file or inputs.version_command:
        if inputs.version_file:
            text = read_text(inputs.version_file, 'OpenStackVersion')
            where = inputs.version_file
        else:
            text = run_get_command(inputs.version_command,
                                   inputs.command_timeout)
            where = 'output of `%s`' % inputs.version_command
        found, versions = sources.parse_version_document(text, where)
    if inputs.env_file:
        found.append(sources.parse_env_listing(
            read_text(inputs.env_file, 'RELATED_IMAGE listing'),
            inputs.env_file))
    elif inputs.env_list:
        found.append(sources.parse_env_listing(inputs.env_list,
                                               inputs.env_list_name))
    # NOTE: the name check is the user's: without known names there is
    # none, even judged without a mapping (a product names its images
    # openstack-<service>-rhel9, a mirror keeps them elsewhere).
    known = None
    if inputs.known_names_file or inputs.known_names:
        known = set(inputs.known_names)
        if inputs.known_names_file:
            known |= sources.parse_known_names(
                read_text(inputs.known_names_file, 'known image names'),
                inputs.known_names_file)
        known = frozenset(known)
    if image_mapping is None:
        return declared.check_declared(found, fields, known_names=known,
                                       versions=versions, running=running)
    return check.check(image_mapping, found, known_names=known,
                       targets=inputs.targets, versions=versions,
                       running=running)


def read_kubernetes(inputs):
    """([Source, ...], Versions, running Source or None) from the API."""
    try:
        version = inputs.kubernetes.openstack_version(
            inputs.openstackversion_name, inputs.version_name_option)
        deployments, running_where = inputs.kubernetes.deployments(
            [name for name, _ in inputs.running_deployments])
    except kube.KubeError as exc:
        raise image_errors.InputUnavailable(str(exc)) from None
    found, versions = sources.parse_version(version.obj, version.source)
    running = None
    if deployments:
        running = sources.parse_running(
            deployments, dict(inputs.running_deployments), running_where)
    return found, versions, running


def read_text(path, what):
    """Return a file's text; a file that cannot be used is one line.

    InputUnavailable (23) when it cannot be read at all (missing, not a
    regular file, no permission), MalformedInput (22) when it is larger
    than any such input or not UTF-8.
    """
    try:
        return input_files.read_text(path, '%s file' % what)
    except input_files.InputFileError as exc:
        if exc.unavailable:
            raise image_errors.InputUnavailable(str(exc)) from None
        raise image_errors.MalformedInput(path, None, '%s file %s' % (
            what, exc.problem)) from None


def run_get_command(command, timeout):
    """Run a get command line (through the shell); return what it printed."""
    if not command.strip():
        raise image_errors.ImageCheckError('the get command is empty')
    try:
        return commands.run(command, timeout=timeout,
                            what='OpenStackVersion get command')
    except commands.CommandError as exc:
        raise image_errors.InputUnavailable(str(exc))
