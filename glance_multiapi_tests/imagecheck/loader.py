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
import time

from glance_multiapi_kernel import input_files
from glance_multiapi_kernel import kube
from glance_multiapi_kernel import polling
from glance_multiapi_tests.common import commands
from glance_multiapi_tests.common import rollout
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
    # NOTE: how long the running Deployments may still roll out before
    # their pods are read (0: not waited for; a rollout is then named).
    rollout_timeout: float = 0.0


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
    found, versions = [], None
    if inputs.version_file or inputs.version_command:
        if inputs.version_file:
            text = read_text(inputs.version_file, 'OpenStackVersion')
            where = inputs.version_file
        else:
            text = run_get_command(inputs.version_command,
                                   inputs.command_timeout)
            where = 'output of `%s`' % inputs.version_command
        found, versions = sources.parse_version_document(text, where)
    listing = []
    if inputs.env_file:
        listing.append(sources.parse_env_listing(
            read_text(inputs.env_file, 'RELATED_IMAGE listing'),
            inputs.env_file))
    elif inputs.env_list:
        listing.append(sources.parse_env_listing(inputs.env_list,
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

    def judge(read):
        cr, cr_versions, running, pods = read
        kwargs = dict(known_names=known, versions=cr_versions,
                      running=running, pods=pods)
        if image_mapping is None:
            return declared.check_declared(cr + listing, fields, **kwargs)
        return check.check(image_mapping, cr + listing,
                           targets=inputs.targets, **kwargs)

    if not inputs.kubernetes:
        return judge((found, versions, None, None))
    started = time.monotonic()
    result = judge(read_kubernetes(inputs))
    # NOTE: pods named on two builds are read again, one by one, before
    # they are accused: one replaced since the list (a rollout that began
    # after the wait) means the cluster moved, and it is read once more.
    if not _still_there(inputs.kubernetes, result):
        remaining = max(0.0, inputs.rollout_timeout - (
            time.monotonic() - started))
        result = judge(read_kubernetes(dataclasses.replace(
            inputs, rollout_timeout=remaining)))
    return result


def read_kubernetes(inputs):
    """([Source, ...], Versions, running Source, Pods) from the API.

    The running Deployments are read once their rollouts are over (and
    the OpenStackVersion's update, if one runs), waiting at most
    inputs.rollout_timeout; those still rolling out then are named so.
    Then their pods, through each Deployment's own selector.
    """
    names = [name for name, _ in inputs.running_deployments]
    fields = dict(inputs.running_deployments)
    where = 'the Kubernetes API'
    try:
        version = _read_version(inputs)
        found, versions = sources.parse_version(version.obj, version.source)
        if not names:
            return found, versions, None, None
        deployments, where, unsettled, waited, version = _settled(
            inputs, names, version)
        if version is not None:
            found, versions = sources.parse_version(version.obj,
                                                    version.source)
        running = sources.parse_running(deployments, fields, where)
        listed = {name: inputs.kubernetes.pods_of(deployments[name])
                  for name in names if name not in unsettled}
        listed = _resolved(inputs, listed, waited)
    except kube.KubeError as exc:
        raise image_errors.InputUnavailable(str(exc)) from None
    except rollout.RolloutError as exc:
        raise image_errors.MalformedInput(where, None, str(exc)) from None
    pods = sources.parse_pods(listed, fields, where)
    return found, versions, running, dataclasses.replace(
        pods, deployments={fields[name]: name for name in names},
        unsettled=unsettled, waited=waited)


def _read_version(inputs):
    return inputs.kubernetes.openstack_version(
        inputs.openstackversion_name, inputs.version_name_option)


def _update_in_progress(version):
    """What an update of the OpenStackVersion shows, or None (pure)."""
    obj = version.obj if isinstance(version.obj, dict) else {}
    spec = obj.get('spec') if isinstance(obj.get('spec'), dict) else {}
    status = obj.get('status') if isinstance(obj.get('status'),
                                             dict) else {}
    target, deployed = spec.get('targetVersion'), status.get(
        'deployedVersion')
    if target is None or deployed is None or target == deployed:
        return None
    # NOTE: openstack-operator's "minor update in progress"
    # (openstackversion_controller.go): the services move to the target
    # version's images one after the other.
    return 'an update of the OpenStackVersion to targetVersion %s is in ' \
           'progress (deployedVersion %s)' % (target, deployed)


def _settled(inputs, names, version):
    """Deployments read once rolled out, or when the wait ends.

    (deployments, where, {name: what was seen} of those unsettled,
    seconds waited, the OpenStackVersion last read or None).
    """
    access = inputs.kubernetes
    started = time.monotonic()
    last = {'version': None}

    def probe():
        found, where = access.deployments(names)
        update = None
        if last['version'] is not None or _update_in_progress(version):
            last['version'] = _read_version(inputs)
            update = _update_in_progress(last['version'])
        unsettled = {}
        for name in names:
            done, seen = rollout.rolled_out(found[name])
            if update:
                unsettled[name] = update
            elif not done:
                unsettled[name] = seen
        return not unsettled, (found, where, unsettled)

    try:
        found, where, unsettled = polling.poll(
            probe, timeout=inputs.rollout_timeout, interval=1.0,
            max_interval=5.0, what='the Deployments %s to be rolled out' %
            ', '.join(names), describe=lambda last: '; '.join(
                '%s: %s' % item for item in sorted(last[2].items())))
    except polling.PollTimeout as exc:
        found, where, unsettled = exc.last
    return (found, where, unsettled, time.monotonic() - started,
            last['version'])


def _resolved(inputs, listed, waited):
    """The pods, each read again until its image resolved, within bound."""
    remaining = max(0.0, inputs.rollout_timeout - waited)
    for name, pods in listed.items():
        for index, pod in enumerate(pods):
            if _image_id(pod, name) or _deleted(pod):
                continue
            pod_name = kube.name_of(pod)

            def probe(pod_name=pod_name):
                fresh = inputs.kubernetes.read_pod(pod_name)
                return bool(_image_id(fresh, name)), fresh

            try:
                pods[index] = polling.poll(
                    probe, timeout=remaining, interval=1.0,
                    max_interval=5.0, what='pod %s to resolve its image'
                    % pod_name, describe=lambda p: str(
                        rollout.pod_state(p)))
            except polling.PollTimeout as exc:
                pods[index] = exc.last
    return listed


def _image_id(pod, deployment):
    try:
        found = sources.parse_pods({deployment: [pod]}, {deployment: 'f'},
                                   'pod')
    except image_errors.MalformedInput:
        return True
    images = found.by_field['f']
    return not images or images[0].digest is not None


def _deleted(pod):
    meta = pod.get('metadata') if isinstance(pod, dict) else None
    return isinstance(meta, dict) and bool(meta.get('deletionTimestamp'))


def _still_there(access, result):
    """Whether every pod a running-digests finding names is as read."""
    for finding in result.findings:
        if finding.kind != check.RUNNING_DIGESTS:
            continue
        for pod_name, digest in finding.pods:
            try:
                pod = access.read_pod(pod_name)
            except kube.KubeError as exc:
                if exc.missing:
                    return False
                raise image_errors.InputUnavailable(str(exc)) from None
            if _deleted(pod):
                return False
            statuses = (pod.get('status') or {}).get(
                'containerStatuses') or []
            if not any(sources.image_id_digest(
                    entry.get('imageID'))[0] == digest
                    for entry in statuses if isinstance(entry, dict)):
                return False
    return True


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
