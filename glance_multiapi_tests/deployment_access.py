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

"""The one way the plugin reads and changes the deployment.

``choose`` is the only reader of ``kubernetes_api``: it builds one of the
two implementations of ``Access``, once per test class
(``tests/base.py``), per doctor run and per image check:

* ``KubernetesAccess``: the API server, through the kernel's one client
  (glance_multiapi_kernel/kube.py), with one connection, opened at the
  first call and kept until ``close``; it uses only the verbs
  etc/test-operator/rbac.yaml and rbac-disruptive.yaml grant: get and
  list of glances and openstackversions, get of the GlanceAPI CRs (by the
  names the operator gives them) and of Deployments; for the disruptive
  scenarios patch of openstackcontrolplanes (or of glances where no
  control plane owns the Glance CR), get of the run's own pod, list and
  delete of pods. The uploader scenarios build one for their ConfigMap
  API, which is always a Kubernetes API.
* ``CommandAccess``: the configured commands (``discovery_command``,
  ``patch_command``), which ``oc`` or the embedded cloud's CLI answer
  with the same documents.

What they read is handed on as plain dicts (``Read``: the object and
where it was read); what it means is judged by pure functions:
multiapi/discovery (the Deployment), readiness (the operator's
conditions), patching (which object a patch goes to), common/rollout
(a restart's rollout) and the image check's sources. An access keeps
the last Glance CR it read (``last_glance``): a note added to a failure
(``note``) reuses it, so a failure costs no second connection and no
second read of the Glance CR.
"""

import dataclasses
import logging
import time

from glance_multiapi_kernel import glance_cr
from glance_multiapi_kernel import kube
from glance_multiapi_kernel import polling
from glance_multiapi_kernel import redaction
from glance_multiapi_tests.common import commands
from glance_multiapi_tests.common import rollout
from glance_multiapi_tests.multiapi import discovery
from glance_multiapi_tests.multiapi import patching
from glance_multiapi_tests.multiapi import readiness

LOG = redaction.logger(logging.getLogger(__name__))


def choose(opts, switch=None):
    """The access the options configure.

    :param opts: the [glance_multiapi] options: where the deployment is
        and how to read and patch it.
    :param switch: the option group whose kubernetes_api decides, when
        not opts ([consolidated_images] has its own).
    """
    if (switch or opts).kubernetes_api:
        return KubernetesAccess(kube.Settings.from_opts(opts), opts)
    return CommandAccess(opts)


@dataclasses.dataclass(frozen=True)
class Read:
    """An object as read, and where it was read (for messages)."""

    obj: dict
    source: str


class Access(object):
    """What the checks may ask of the deployment; see the two below."""

    # NOTE: what this way can do at all, for the skip checks.
    reads_glance = False
    restarts_pods = False
    reads_objects = False

    def __init__(self, opts):
        self.opts = opts
        self.last_glance = None

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def close(self):
        """Let go of what this access holds open (nothing by default)."""

    # -- the Glance CR --------------------------------------------------
    def has_source(self):
        """Whether the options say where to learn the APIs from."""
        return bool(self.reads_glance or self.opts.api_names)

    def read_glance(self):
        """The Glance CR, read now (DiscoveryError naming the source)."""
        try:
            self.last_glance = self._read_glance()
        except (kube.KubeError, commands.CommandError) as exc:
            raise discovery.DiscoveryError(str(exc)) from None
        return self.last_glance

    def fetch(self, strict=True):
        """The Deployment the Glance CR describes, without the overrides."""
        read = self.read_glance()
        return discovery.parse_cr(read.obj, read.source, strict=strict)

    def discover(self):
        """The Deployment: the Glance CR's, with explicit options on top."""
        read = self.read_glance() if self.reads_glance else None
        return discovery.discover(self.opts, *(
            (read.obj, read.source) if read else ()))

    def report(self):
        """The Glance CR, read now, and its APIs' GlanceAPI CRs."""
        return self._report(self.read_glance())

    def note(self, apis, one_line=False):
        """What the operator says of apis, to append to a finding, or ''.

        From the Glance CR last read (none read: ''), and the GlanceAPI
        CRs of apis read now through the same connection: each CR not
        Ready as readiness.problems words it, a status.observedGeneration
        behind its metadata.generation first (its conditions are then of
        an earlier spec). Best effort: a CR that cannot be read only costs
        the note, logged.
        """
        apis = sorted({a for a in apis if a})
        if not apis or self.last_glance is None:
            return ''
        try:
            report = self._report(self.last_glance, apis)
        except Exception as exc:  # noqa: B902 - a note must not fail a check
            LOG.warning('could not read the conditions of %s: %s',
                        ', '.join(apis), exc)
            return ''
        return readiness.note(report, apis, one_line=one_line)

    def _report(self, glance, only=None):
        # NOTE: strict=False: an API the operator did not deploy has no
        # status.apiEndpoint keys, and its conditions say why.
        apis = discovery.parse_cr(glance.obj, glance.source,
                                  strict=False).apis
        types = {name: api.type for name, api in apis.items()
                 if only is None or name in only}
        try:
            crs, source = self._read_api_crs(glance.obj, types)
        except kube.KubeError as exc:
            raise discovery.DiscoveryError(str(exc)) from None
        return readiness.Report(glance.obj, glance.source, crs, source)

    def _read_glance(self):
        raise NotImplementedError

    def _read_api_crs(self, glance, types):
        return None, readiness.NOT_READ

    # -- changes ----------------------------------------------------------
    def patch_problem(self):
        """Why the spec cannot be patched this way, or None."""
        return None

    def patch_spec(self, spec_patch):
        """Apply a merge patch of the Glance spec; what was patched."""
        try:
            return self._patch(spec_patch)
        except (kube.KubeError, commands.CommandError, ValueError) as exc:
            raise patching.PatchError(str(exc)) from None

    def manual_patch(self, spec_patch):
        """The shell command that applies spec_patch by hand."""
        raise NotImplementedError

    def _patch(self, spec_patch):
        raise NotImplementedError

    def restart(self, name, timeout, interval=1.0):
        """Delete Deployment name's pods and wait for its rollout."""
        raise rollout.RolloutError(
            'restarting Deployment %s needs the Kubernetes API '
            '([glance_multiapi] kubernetes_api)' % name)


class CommandAccess(Access):
    """The deployment through discovery_command and patch_command."""

    @property
    def reads_glance(self):
        return bool(self.opts.discovery_command)

    def _read_glance(self):
        if not self.opts.discovery_command:
            raise discovery.DiscoveryError(
                '[glance_multiapi]: neither kubernetes_api nor '
                'discovery_command is set, so the Glance CR cannot be read')
        source = 'discovery command %r' % self.opts.discovery_command
        text = commands.run(self.opts.discovery_command,
                            timeout=self.opts.command_timeout,
                            what='discovery command')
        return Read(discovery.load_cr(text, source), source)

    def patch_problem(self):
        command = self.opts.patch_command
        if not command:
            return ('[glance_multiapi] patch_command is unset and '
                    'kubernetes_api is False, so the deployment cannot be '
                    'changed')
        if patching.PLACEHOLDER not in command:
            return '[glance_multiapi] patch_command %r lacks the %s ' \
                   'placeholder' % (command, patching.PLACEHOLDER)
        return None

    def _patch(self, spec_patch):
        commands.run(self.manual_patch(spec_patch),
                     timeout=self.opts.command_timeout, what='patch command')
        return 'patch command %r' % self.opts.patch_command

    def manual_patch(self, spec_patch):
        return patching.render_command(
            self.opts.patch_command,
            patching.nest(self.opts.patch_spec_path, spec_patch))


class KubernetesAccess(Access):
    """The deployment through the Kubernetes API, one connection."""

    reads_glance = True
    restarts_pods = True
    reads_objects = True

    def __init__(self, settings, opts=None):
        super().__init__(opts)
        self.settings = settings
        self._client = None
        # NOTE: the object each patch_object choice last patched, by
        # name, so a restore that fails can name the object to patch by
        # hand without reading the cluster again.
        self._patched = {}

    @property
    def client(self):
        """The connection, opened at the first call (KubeError)."""
        if self._client is None:
            self._client = kube.connect(self.settings)
        return self._client

    def close(self):
        client, self._client = self._client, None
        if client is not None:
            client.close()

    def _read_glance(self):
        client = self.client
        obj = client.named_or_only(kube.GLANCE, self.opts.glance_name,
                                   '[glance_multiapi] glance_name')
        return Read(obj, client.describe_object(
            kube.name_of(obj) or self.opts.glance_name, kube.GLANCE))

    def _read_api_crs(self, glance, types):
        """One get per GlanceAPI CR the APIs of types should have."""
        name = kube.name_of(glance) or self.opts.glance_name
        found = []
        for api, api_type in types.items():
            for cr_name, _child in glance_cr.glanceapi_crs(name, api,
                                                           api_type):
                found.append(self._api_cr(api, cr_name))
        return found, 'get through the Kubernetes API at %s' % (
            self.client.server)

    def _api_cr(self, api, name):
        try:
            return readiness.ApiCr(api, name, obj=self.client.get(
                kube.GLANCE_API, name))
        except kube.KubeError as exc:
            if not exc.missing:
                raise
        return readiness.ApiCr(api, name, missing='no GlanceAPI "%s" in '
                               'namespace "%s"' % (name,
                                                   self.client.namespace))

    def _patch(self, spec_patch):
        glance = None
        if self.opts.patch_object == 'glance' or \
                not self.opts.controlplane_name:
            self.last_glance = self._read_glance()
            glance = self.last_glance.obj
        resource, name, spec_path = patching.patch_target(self.opts, glance)
        self.client.patch(resource, name, patching.nest(spec_path,
                                                        spec_patch))
        self._patched[self.opts.patch_object] = name
        return '%s at %s' % (self.client.describe_object(name, resource),
                             spec_path)

    def manual_patch(self, spec_patch):
        """An ``oc patch`` of the object patched (kubectl takes the same)."""
        resource, spec_path = patching.TARGETS[self.opts.patch_object]
        name = self._patched.get(self.opts.patch_object)
        if not name and resource == kube.CONTROLPLANE:
            name = self.opts.controlplane_name
        return patching.oc_patch(
            resource, name, kube.namespace_for(self.settings),
            patching.nest(spec_path, spec_patch),
            kubeconfig=self.opts.kubeconfig,
            context=self.opts.kubernetes_context)

    def restart(self, name, timeout, interval=1.0):
        """Delete Deployment name's pods, wait for it to roll out again.

        The pods its own selector chooses, each with its own grace
        period (a test-operator pod has no ``oc rollout``).
        :raises RolloutError: naming the Deployment and what was seen.
        """
        started = time.monotonic()
        try:
            client = self.client
            chosen = rollout.selector(client.get(kube.DEPLOYMENT, name))
            pods = client.list(kube.POD, label_selector=chosen)
            if not pods:
                raise rollout.RolloutError(
                    'Deployment %s (namespace %s) has no pod matching its '
                    'selector %s to delete' % (name, client.namespace,
                                               chosen))
            uids = {kube.metadata(p).get('uid') for p in pods}
            names = tuple(sorted(rollout.name(p) for p in pods))
            for pod in names:
                client.delete(kube.POD, pod)

            def check():
                return rollout.judge(
                    client.get(kube.DEPLOYMENT, name),
                    client.list(kube.POD, label_selector=chosen), uids)

            try:
                polling.poll(check, timeout=timeout, interval=interval,
                             max_interval=interval * 2,
                             what='Deployment %s (namespace %s) to roll out '
                             'again after its pod(s) %s were deleted' % (
                                 name, client.namespace, ', '.join(names)),
                             describe=str)
            except polling.PollTimeout as exc:
                raise rollout.RolloutError(str(exc)) from None
            after = client.list(kube.POD, label_selector=chosen)
        except kube.KubeError as exc:
            raise rollout.RolloutError(str(exc)) from None
        return rollout.Restart(
            deployment=name, deleted=names,
            replaced_by=tuple(sorted(rollout.name(p) for p in after)),
            seconds=time.monotonic() - started)

    # -- other objects (KubeError) -----------------------------------------
    def read_pod(self, name):
        """The Pod called name.

        The run's own, for the restoration; one the image check reads
        again before it names the digest it runs.
        """
        return self.client.get(kube.POD, name)

    def openstack_version(self, name, option):
        """The OpenStackVersion called name, else the only one."""
        obj = self.client.named_or_only(kube.VERSION, name, option)
        return Read(obj, self.client.describe_object(kube.name_of(obj),
                                                     kube.VERSION))

    def deployments(self, names):
        """({name: Deployment}, where they were read)."""
        found = {name: self.client.get(kube.DEPLOYMENT, name)
                 for name in names}
        return found, 'Kubernetes API at %s, namespace %s' % (
            self.client.server, self.client.namespace)

    def pods_of(self, deployment):
        """The Pods a Deployment's own spec.selector chooses (a list).

        :raises rollout.RolloutError: the Deployment has no selector.
        """
        return self.client.list(kube.POD,
                                label_selector=rollout.selector(deployment))

    def home_namespace(self):
        """Where a client told no namespace works (kubectl's rule).

        The kubeconfig context's namespace, else "default".
        """
        return kube.context_namespace(self.settings) or 'default'

    def create_namespace(self, name):
        """Create Namespace name; False when the API serves none."""
        try:
            self.client.create(kube.NAMESPACE, {
                'apiVersion': 'v1', 'kind': 'Namespace',
                'metadata': {'name': name}})
        except kube.KubeError as exc:
            # NOTE: the stand-in refuses to create namespaces (the
            # embedded cloud's API with 405, the loopback one, which
            # serves no Namespaces, with 404) and takes ConfigMaps in any.
            if exc.status in (404, 405):
                return False
            raise
        return True

    def read_configmap(self, name, namespace):
        """The ConfigMap's data, None when there is none of that name."""
        try:
            found = self.client.get(kube.CONFIGMAP, name,
                                    namespace=namespace)
        except kube.KubeError as exc:
            if exc.status == 404:
                return None
            raise
        return dict(found.get('data') or {})

    def delete(self, resource, name, namespace=None):
        """Delete name (a 404 counts as done)."""
        try:
            self.client.delete(resource, name, namespace=namespace)
        except kube.KubeError as exc:
            if exc.status != 404:
                raise
