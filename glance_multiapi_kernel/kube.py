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

"""Reading and patching the deployment's objects through the Kubernetes API.

The other way to a cluster besides the commands: the python ``kubernetes``
package's loaders, with a kubeconfig or the pod's service account, and
plain JSON requests over its connection pool
(glance_multiapi_kernel/kube_rest.py; its
typed APIs cost seconds of CPU to import). The package is imported only
when this access is used, so the plugin loads without it.
Every failure becomes one ``KubeError`` whose single line names the API
server, the call, the object and what the HTTP status means; the
client's exceptions and tracebacks never reach a test.

Only the verbs etc/test-operator/rbac.yaml and rbac-disruptive.yaml grant
are used: get and list of glances and openstackversions, get of the
GlanceAPI CRs (by the names the operator gives them) and of the heat
Deployments; and, for the disruptive scenarios, patch of
openstackcontrolplanes (or of glances where no control plane owns the
Glance CR), get of the run's own pod, list and delete of pods.
"""

import dataclasses
import errno
import os
import urllib.parse

from glance_multiapi_kernel import documents
from glance_multiapi_kernel import errors
from glance_multiapi_kernel import input_files
from glance_multiapi_kernel import kube_errors
from glance_multiapi_kernel import kube_objects

IN_CLUSTER_ENV = 'KUBERNETES_SERVICE_HOST'
DEFAULT_KUBECONFIG = '~/.kube/config'
# NOTE: beside the token and ca.crt of a pod's service account (and of
# the token Secret the Tempest CRs mount there): the pod's own namespace.
NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace'
# NOTE: where the openstack-operator deployments keep the control plane.
DEFAULT_NAMESPACE = 'openstack'


@dataclasses.dataclass(frozen=True)
class Resource:
    """A resource type: its API group, version, plural and kind."""

    group: str
    version: str
    plural: str
    kind: str

    @property
    def full_name(self):
        """How Kubernetes names it in messages: deployments.apps."""
        return '%s.%s' % (self.plural, self.group) if self.group else (
            self.plural)


GLANCE = Resource('glance.openstack.org', 'v1beta1', 'glances', 'Glance')
GLANCE_API = Resource('glance.openstack.org', 'v1beta1', 'glanceapis',
                      'GlanceAPI')
CONTROLPLANE = Resource('core.openstack.org', 'v1beta1',
                        'openstackcontrolplanes', 'OpenStackControlPlane')
VERSION = Resource('core.openstack.org', 'v1beta1', 'openstackversions',
                   'OpenStackVersion')
DEPLOYMENT = Resource('apps', 'v1', 'deployments', 'Deployment')
POD = Resource('', 'v1', 'pods', 'Pod')


class KubeError(errors.OneLineError):
    """The Kubernetes API could not be used; str() is one line.

    ``missing`` is True when the API server answered that the object
    does not exist (404 for the object, not for its resource type).
    """

    missing = False


@dataclasses.dataclass(frozen=True)
class Settings:
    """Where the API is and how long a request may take."""

    kubeconfig: str = None
    context: str = None
    # NOTE: None: the pod's own, else the kubeconfig context's, else
    # DEFAULT_NAMESPACE (see namespace_for).
    namespace: str = None
    timeout: float = 30.0
    # NOTE: what names kubeconfig in messages: the option of tempest.conf,
    # or a command's flag (--kubeconfig).
    kubeconfig_option: str = '[glance_multiapi] kubeconfig'

    @classmethod
    def from_opts(cls, opts):
        """Settings from the [glance_multiapi] option group."""
        return cls(kubeconfig=opts.kubeconfig or None,
                   context=opts.kubernetes_context or None,
                   namespace=opts.namespace or None,
                   timeout=opts.kubernetes_timeout)


def in_cluster(settings):
    """Whether settings reach the API with the pod's own token.

    NOTE: the order kubectl and the client's load_config use: an explicit
    kubeconfig, then $KUBECONFIG, then the pod's own token; a CI pod that
    exports KUBECONFIG for another cluster must reach that one.
    """
    return bool(not settings.kubeconfig and not os.environ.get('KUBECONFIG')
                and os.environ.get(IN_CLUSTER_ENV))


def own_namespace(path=None):
    """The namespace of the pod this runs in, else None."""
    try:
        with open(path or NAMESPACE_FILE, encoding='utf-8') as f:
            name = f.read().strip()
    except (OSError, UnicodeDecodeError):
        return None
    return name or None


def _context_namespace(settings):
    """The namespace the kubeconfig's context names, else None."""
    try:
        k8s = _client_package()
        path = _kubeconfig_path(settings)
        contexts, active = k8s.config.list_kube_config_contexts(
            config_file=os.path.expanduser(path.split(os.pathsep)[0]))
    except Exception:  # noqa: B902 - connect() reports a bad kubeconfig
        return None
    chosen = active
    if settings.context:
        chosen = next((c for c in contexts or ()
                       if c.get('name') == settings.context), None)
    context = (chosen or {}).get('context') or {}
    return context.get('namespace') or None


def namespace_for(settings):
    """The namespace the objects are read in and patched.

    [glance_multiapi] namespace when set; else in a pod its own (the
    service-account namespace file: the Tempest CRs run in the control
    plane's namespace), else the kubeconfig context's, as kubectl does;
    else DEFAULT_NAMESPACE.
    """
    if settings.namespace:
        return settings.namespace
    found = (own_namespace() if in_cluster(settings)
             else _context_namespace(settings))
    return found or DEFAULT_NAMESPACE


def _client_package():
    try:
        import kubernetes.client
        import kubernetes.config
    except ImportError as exc:
        raise KubeError(
            'the Kubernetes API access (kubernetes_api = True) needs the '
            'python package "kubernetes", which cannot be imported here: '
            '%s; install it with pip' % exc) from None
    return kubernetes


def connect(settings):
    """A Client for settings; KubeError when no access can be built."""
    k8s = _client_package()
    from glance_multiapi_kernel import kube_rest
    if in_cluster(settings):
        credentials = "the pod's service-account token"
        try:
            configuration = kube_rest.configuration(in_cluster=True)
        except k8s.config.ConfigException as exc:
            raise KubeError(
                'Kubernetes access: in-cluster config (%s is set, '
                '[glance_multiapi] kubeconfig is not) failed: %s; '
                'test-operator mounts a token only into privileged pods, '
                'so mount one (etc/test-operator/tempest-glance-multiapi.'
                'yaml mounts the token Secret of rbac.yaml) or set '
                '[glance_multiapi] kubeconfig' % (
                    IN_CLUSTER_ENV, kube_errors.one_line(exc))) from None
        inside = True
    else:
        path = _kubeconfig_path(settings)
        credentials = 'the credentials of kubeconfig %s%s' % (
            path, ' context %s' % settings.context if settings.context
            else '')
        try:
            configuration = kube_rest.configuration(
                kubeconfig=path, context=settings.context)
        except Exception as exc:  # noqa: B902 - config, YAML or file error
            raise KubeError('Kubernetes access: kubeconfig %s cannot be '
                            'used: %s' % (path, kube_errors.one_line(exc))
                            ) from None
        inside = False
    # NOTE: plain JSON requests over the client's connection pool, not
    # its typed APIs (see glance_multiapi_kernel/kube_rest.py), one attempt
    # each: urllib3
    # would otherwise retry a connect error or a GET read timeout 3
    # times, so an API server that never answers would take four
    # timeouts while the message names one.
    api = kube_rest.Client(configuration, connect_timeout=settings.timeout,
                           read_timeout=settings.timeout)
    return Client(settings, api, credentials, inside,
                  namespace_for(settings))


def check_kubeconfig(path, what, required=False):
    """KubeError unless each file of path (a path list) can be read.

    Each that exists must be a regular file of at most
    input_files.DOCUMENT_LIMIT holding a YAML mapping without duplicate
    keys or alias bombs: the kubernetes package would block on a FIFO or
    read a device without end. One that does not exist is skipped, as
    kubectl skips it, unless required.
    """
    for one in path.split(os.pathsep):
        one = os.path.expanduser(one)
        if not one:
            continue
        try:
            doc = input_files.load_yaml(one, what)
        except input_files.InputFileError as exc:
            if exc.errno == errno.ENOENT and not required:
                continue
            raise KubeError('Kubernetes access: %s' % exc) from None
        if not isinstance(doc, dict):
            raise KubeError('Kubernetes access: %s %s: not a kubeconfig '
                            '(a YAML mapping with clusters, users and '
                            'contexts)' % (what, one))


def _kubeconfig_path(settings):
    if settings.kubeconfig:
        path = settings.kubeconfig
        check_kubeconfig(path, settings.kubeconfig_option, required=True)
        return path
    path = os.environ.get('KUBECONFIG') or DEFAULT_KUBECONFIG
    if not any(os.path.isfile(os.path.expanduser(p))
               for p in path.split(os.pathsep) if p):
        raise KubeError(
            'Kubernetes access: no kubeconfig: %s is unset, %s is unset '
            '(not in a pod) and %s does not exist' % (
                settings.kubeconfig_option, IN_CLUSTER_ENV,
                path if os.environ.get('KUBECONFIG') else
                DEFAULT_KUBECONFIG + ' ($KUBECONFIG unset)'))
    check_kubeconfig(path, 'kubeconfig' if path == DEFAULT_KUBECONFIG
                     else '$KUBECONFIG')
    return path


class Client:
    """One connection to the API server; use it in a with block."""

    def __init__(self, settings, api, credentials, inside, namespace):
        self.settings = settings
        self.namespace = namespace
        self._api = api
        self._credentials = credentials
        self._in_cluster = inside

    @property
    def server(self):
        return self._api.host

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def close(self):
        try:
            self._api.close()
        except Exception:  # noqa: S110 - closing must not hide the result
            pass

    def describe_object(self, obj_name, resource):
        """'Glance openstack/glance via the Kubernetes API at URL'."""
        # NOTE: the name comes from the answer; real ones are short.
        return '%s %s/%s via the Kubernetes API at %s' % (
            resource.kind, self.namespace,
            documents.short(str(obj_name), 100), self.server)

    def get(self, resource, name):
        """The object as a dict."""
        return self._call('get', resource, name, 'GET')

    def list(self, resource, label_selector=None):
        """The objects of that resource in the namespace, as dicts.

        label_selector: only those it selects (kube selector syntax).
        """
        query = {'labelSelector': label_selector} if label_selector else None
        body = self._call('list', resource, None, 'GET', query=query)
        items = body.get('items')
        if not isinstance(items, list):
            raise self._error('list', resource, None,
                              'the answer has no items list')
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                raise self._error('list', resource, None, 'items[%d] of the '
                                  'answer is not an object' % index)
        return items

    def delete(self, resource, name):
        """Delete a pod with its own grace period; the answer as a dict."""
        if resource != POD:
            raise self._error('delete', resource, name, 'only pods are '
                              'deleted by this plugin')
        return self._call('delete', resource, name, 'DELETE')

    def patch(self, resource, name, patch):
        """Apply a JSON merge patch; return the patched object."""
        # NOTE: a merge patch, as the RBAC Role and the operators expect
        # (and as the kubernetes client sends custom object patches).
        return self._call('patch', resource, name, 'PATCH', body=patch,
                          content_type='application/merge-patch+json')

    def named_or_only(self, resource, name, option):
        """The object called name, else the only one in the namespace.

        :param option: the option that names it, for the error when there
            is not exactly one.
        """
        if name:
            return self.get(resource, name)
        items = self.list(resource)
        if len(items) == 1:
            return items[0]
        names = sorted(str(kube_objects.name_of(item)) for item in items)
        found = ('%d found: %s' % (len(names), ', '.join(names)) if names
                 else 'none found')
        raise self._error('list', resource, None, '%s is unset, so exactly '
                          'one %s must exist, but %s; set %s' % (
                              option, resource.kind, found, option))

    def _path(self, resource, name, query):
        """/api/v1/... for the core group, /apis/GROUP/... for the rest."""
        top = ('/apis/%s' % resource.group if resource.group else '/api')
        path = '%s/%s/namespaces/%s/%s' % (
            top, resource.version, urllib.parse.quote(self.namespace),
            resource.plural)
        if name:
            path += '/' + urllib.parse.quote(str(name), safe='')
        if query:
            path += '?' + urllib.parse.urlencode(query)
        return path

    def _call(self, verb, resource, name, method, query=None, body=None,
              content_type='application/json'):
        import urllib3

        from glance_multiapi_kernel import kube_rest
        try:
            answer = self._api.send(method, self._path(resource, name, query),
                                    body, content_type)
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise self._error(verb, resource, name, kube_errors.unreachable(
                exc, self.settings.timeout)) from None
        if not 200 <= answer.status < 300:
            refusal = kube_rest.ApiError(answer.status, answer.reason, '',
                                         body=answer.data)
            problem = kube_errors.explain(
                refusal, verb, resource, name, self.namespace,
                self._credentials, self._in_cluster)
            error = self._error(verb, resource, name, problem)
            error.missing = (answer.status == 404 and
                             kube_errors.MISSING in problem)
            raise error
        try:
            body = documents.load_json(answer.data)
        except documents.DocumentError as exc:
            raise self._error(verb, resource, name, 'the answer is %s' % (
                exc)) from None
        if not isinstance(body, dict):
            raise self._error(verb, resource, name, 'the answer is not a '
                              'JSON object but %s' % type(body).__name__)
        return body

    def _error(self, verb, resource, name, problem):
        what = '%s %s' % (verb, resource.full_name)
        if name:
            what += ' "%s"' % name
        return KubeError('Kubernetes API %s: %s in namespace "%s": %s' % (
            self.server, what, self.namespace, problem))
