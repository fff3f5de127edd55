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

"""The one Kubernetes client of the plugin, the image check and the uploader.

What it holds, in the order a request needs it:

* the resources the project reads and writes (``Resource``: group,
  version, plural, kind, as the operators' CRDs and Kubernetes' own types
  declare them), declared once here; the embedded cloud's stand-in serves
  these same declarations;
* where the API is (``Settings``) and the one connection builder
  (``connect``): a kubeconfig or the pod's service account, with the
  python ``kubernetes`` package's loaders, and the namespace it works in.
  A kubeconfig is read once, by the bounded reader, and so are the
  files it names (certificates, keys, ``tokenFile``): the package is
  given their contents, never a path it would open again (a FIFO swapped
  in would block it). Its ``user.exec`` credential plugin runs through
  the kernel's command runner, within the request timeout, killed with
  its process group, rather than the package's unbounded one;
* the ``Client``: plain JSON requests over the urllib3 pool that package
  builds from its Configuration (TLS, client certificates, proxy, token
  refresh). NOTE: its typed APIs are not used: kubernetes 37 generates
  pydantic models, and importing CoreV1Api takes 1.9 CPU-s on an idle
  core (AppsV1Api 1.3 s) against 0.6 s for the loaders and the pool; a
  process that makes a few calls (the uploader writing its ConfigMap, a
  scenario's namespace) would pay that on every run. The package is
  imported only when a connection is built, so what imports this module
  loads without it;
* the one error, ``KubeError``: its single line names the API server, the
  call, the object and what the answer means (one reader of a
  ``Status`` document, ``status_message``); the client's exceptions and
  tracebacks never reach a caller. Each request is one exchange of
  deadlines.py: ``Settings.timeout`` bounds it from connect to the last
  byte, however slowly the server trickles;
* the readers of what an object holds (``metadata``, ``name_of``,
  ``describe``, ``controller_owner``), which never raise: an operator of
  another version, or a proxy, may answer anything that is JSON.

The plugin uses only the verbs etc/test-operator/rbac.yaml and
rbac-disruptive.yaml grant; the client makes no call by itself.
"""

import base64
import dataclasses
import datetime
import errno
import json
import os
import re
import ssl
import threading
import urllib.parse

from glance_multiapi_kernel import commands
from glance_multiapi_kernel import deadlines
from glance_multiapi_kernel import documents
from glance_multiapi_kernel import errors
from glance_multiapi_kernel import input_files
from glance_multiapi_kernel import redaction
from glance_multiapi_kernel import values
from glance_multiapi_kernel import version

IN_CLUSTER_ENV = 'KUBERNETES_SERVICE_HOST'
DEFAULT_KUBECONFIG = '~/.kube/config'
# NOTE: beside the token and ca.crt of a pod's service account (and of
# the token Secret the Tempest CRs mount there): the pod's own namespace.
NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace'
# NOTE: where the openstack-operator deployments keep the control plane.
DEFAULT_NAMESPACE = 'openstack'


@dataclasses.dataclass(frozen=True)
class Resource:
    """A resource type: its API group, version, plural and kind.

    short_names and namespaced as its CRD (or Kubernetes) declares them.
    """

    group: str
    version: str
    plural: str
    kind: str
    short_names: tuple = ()
    namespaced: bool = True

    @property
    def full_name(self):
        """How Kubernetes names it in messages: deployments.apps."""
        return '%s.%s' % (self.plural, self.group) if self.group else (
            self.plural)

    @property
    def singular(self):
        return self.kind.lower()


# NOTE: names, short names and scope as in glance-operator's and
# openstack-operator's CRDs (config/crd/bases) and Kubernetes' own types.
GLANCE = Resource('glance.openstack.org', 'v1beta1', 'glances', 'Glance')
GLANCE_API = Resource('glance.openstack.org', 'v1beta1', 'glanceapis',
                      'GlanceAPI')
CONTROLPLANE = Resource('core.openstack.org', 'v1beta1',
                        'openstackcontrolplanes', 'OpenStackControlPlane',
                        ('osctlplane', 'osctlplanes', 'oscp', 'oscps'))
VERSION = Resource('core.openstack.org', 'v1beta1', 'openstackversions',
                   'OpenStackVersion', ('osv', 'osvs'))
DEPLOYMENT = Resource('apps', 'v1', 'deployments', 'Deployment',
                      ('deploy',))
POD = Resource('', 'v1', 'pods', 'Pod', ('po',))
CONFIGMAP = Resource('', 'v1', 'configmaps', 'ConfigMap', ('cm',))
NAMESPACE = Resource('', 'v1', 'namespaces', 'Namespace', ('ns',),
                     namespaced=False)


class KubeError(errors.OneLineError):
    """The Kubernetes API could not be used; str() is one line.

    ``status`` is the HTTP status the API server answered: 0 when a
    request got no answer, None when none was made. ``missing`` is True when it
    answered that the object does not exist (404 for the object, not
    for its resource type). Its text is redacted: it names the server
    URL of a kubeconfig, and may quote what a library said of one.
    """

    status = None
    missing = False

    def __init__(self, message='', *args):
        super().__init__(redaction.text(errors.one_line(message)), *args)


@dataclasses.dataclass(frozen=True)
class Settings:
    """Where the API is and how long a request may take."""

    kubeconfig: str = None
    context: str = None
    # NOTE: None: the pod's own, else the kubeconfig context's, else
    # DEFAULT_NAMESPACE (see namespace_for).
    namespace: str = None
    # NOTE: of each request, from connect to the last byte, and of a
    # kubeconfig's credential plugin.
    timeout: float = 30.0
    # NOTE: None: timeout bounds the connect too.
    connect_timeout: float = None
    # NOTE: what names kubeconfig in messages: the option of tempest.conf,
    # or a command's flag (--kubeconfig).
    kubeconfig_option: str = '[glance_multiapi] kubeconfig'
    # NOTE: Sylva's uploader takes the pod's service account whenever it
    # can and falls back to $KUBECONFIG; kubectl's order (an explicit
    # kubeconfig, then $KUBECONFIG, then the pod's) is the default.
    pod_account_first: bool = False

    @classmethod
    def from_opts(cls, opts):
        """Settings from the [glance_multiapi] option group."""
        return cls(kubeconfig=opts.kubeconfig or None,
                   context=opts.kubernetes_context or None,
                   namespace=opts.namespace or None,
                   timeout=opts.kubernetes_timeout)


# -- where the API is -------------------------------------------------------
def in_cluster(settings):
    """Whether settings reach the API with the pod's own token.

    NOTE: the order kubectl and the client's load_config use: an explicit
    kubeconfig, then $KUBECONFIG, then the pod's own token; a CI pod that
    exports KUBECONFIG for another cluster must reach that one.
    """
    if settings.pod_account_first and not settings.kubeconfig:
        return bool(os.environ.get(IN_CLUSTER_ENV))
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


def context_namespace(settings):
    """The namespace the kubeconfig's context names, else None."""
    try:
        kubeconfig = read_kubeconfig(*_kubeconfig_path(settings))
    except KubeError:
        return None
    context = kubeconfig.entry('contexts', settings.context or
                               kubeconfig.document.get('current-context'))
    namespace = context.get('namespace')
    return namespace if isinstance(namespace, str) and namespace else None


def namespace_for(settings):
    """The namespace the objects are read in and patched.

    [glance_multiapi] namespace when set; else in a pod its own (the
    service-account namespace file: the Tempest CRs run in the control
    plane's namespace), else the kubeconfig context's, as kubectl does;
    else DEFAULT_NAMESPACE.
    """
    if settings.namespace:
        return checked_namespace(settings.namespace, 'the namespace setting')
    if in_cluster(settings):
        found, where = own_namespace(), NAMESPACE_FILE
    else:
        found, where = context_namespace(settings), 'the kubeconfig context'
    return checked_namespace(found, where) if found else DEFAULT_NAMESPACE


def checked_namespace(name, where):
    """name when it is a namespace (a DNS-1123 label); else KubeError.

    NOTE: it goes into every request path; where names what gave it.
    """
    problem = values.namespace_problem(name)
    if problem:
        raise KubeError('Kubernetes access: %s of %s' % (problem, where))
    return name


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


# -- a kubeconfig, read once -----------------------------------------------
# NOTE: the entries a kubeconfig's lists hold, under which key.
_SECTIONS = {'clusters': 'cluster', 'users': 'user', 'contexts': 'context'}
# NOTE: (list, key of a file, key of its contents): what the package
# would open itself.
_FILE_KEYS = (('clusters', 'certificate-authority',
               'certificate-authority-data'),
              ('users', 'client-certificate', 'client-certificate-data'),
              ('users', 'client-key', 'client-key-data'))
# NOTE: an ExecCredential is a token or a certificate and its key.
EXEC_OUTPUT_LIMIT = input_files.MIB


@dataclasses.dataclass
class Kubeconfig:
    """The kubeconfig files of a path list, merged as kubectl merges them.

    document: the merged document (the first file naming an entry or the
    current-context wins); folders: {(list, name): the folder of the
    file the entry came from}, which its relative paths start from.
    """

    path: str
    what: str
    document: dict
    folders: dict

    def entry(self, section, name):
        """The mapping under the entry called name ({} if none)."""
        for item in self.document.get(section) or ():
            if isinstance(item, dict) and item.get('name') == name:
                value = item.get(_SECTIONS[section])
                return value if isinstance(value, dict) else {}
        return {}


def read_kubeconfig(path, what, required=False):
    """The Kubeconfig of path (a path list); KubeError if unreadable.

    Each file must be a regular file of at most
    input_files.DOCUMENT_LIMIT holding a YAML mapping without duplicate
    keys or alias bombs; one that does not exist is skipped, as kubectl
    skips it, unless required.
    """
    merged = {section: [] for section in _SECTIONS}
    folders = {}
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
        for key, value in doc.items():
            if key in _SECTIONS:
                _merge(merged[key], value, key, folders,
                       os.path.dirname(os.path.abspath(one)))
            else:
                merged.setdefault(key, value)
    return Kubeconfig(path, what, merged, folders)


def _merge(entries, found, section, folders, folder):
    if not isinstance(found, list):
        # NOTE: the package names what is wrong with it.
        entries.append(found)
        return
    for item in found:
        name = item.get('name') if isinstance(item, dict) else None
        if isinstance(name, str) and (section, name) in folders:
            continue
        if isinstance(name, str):
            folders[section, name] = folder
        entries.append(item)


def check_kubeconfig(path, what, required=False):
    """KubeError unless each file of path (a path list) can be read."""
    read_kubeconfig(path, what, required)


def _kubeconfig_path(settings):
    """(path list, what names it) of settings' kubeconfig."""
    if settings.kubeconfig:
        return settings.kubeconfig, settings.kubeconfig_option, True
    path = os.environ.get('KUBECONFIG') or DEFAULT_KUBECONFIG
    if not any(os.path.isfile(os.path.expanduser(p))
               for p in path.split(os.pathsep) if p):
        raise KubeError(
            'Kubernetes access: no kubeconfig: %s is unset, %s is unset '
            '(not in a pod) and %s does not exist' % (
                settings.kubeconfig_option, IN_CLUSTER_ENV,
                path if os.environ.get('KUBECONFIG') else
                DEFAULT_KUBECONFIG + ' ($KUBECONFIG unset)'))
    return path, ('kubeconfig' if path == DEFAULT_KUBECONFIG
                  else '$KUBECONFIG'), False


def _inline_files(kubeconfig, section, name):
    """The entry's file keys replaced by the files' contents, read once."""
    entry = kubeconfig.entry(section, name)
    folder = kubeconfig.folders.get((section, name), '')
    for listed, file_key, data_key in _FILE_KEYS:
        value = entry.get(file_key)
        if listed != section or not isinstance(value, str) or not value \
                or entry.get(data_key):
            continue
        data = _read_named(kubeconfig, folder, value, '%s %s %s' % (
            section[:-1], name, file_key))
        entry.pop(file_key)
        entry[data_key] = base64.b64encode(data).decode('ascii')
    return entry


def _read_named(kubeconfig, folder, path, key):
    try:
        return input_files.read_bytes(os.path.join(folder, path),
                                      '%s %s: %s' % (kubeconfig.what,
                                                     kubeconfig.path, key))
    except input_files.InputFileError as exc:
        raise KubeError('Kubernetes access: %s' % exc) from None


def _user_token_file(kubeconfig, name, user):
    """user's tokenFile read once (a FIFO is refused), as its token."""
    path = user.get('tokenFile')
    if user.get('token'):
        # NOTE: kubectl's order: a token given inline wins.
        user.pop('tokenFile', None)
        return
    if not isinstance(path, str) or not path:
        return
    data = _read_named(kubeconfig, kubeconfig.folders.get(('users', name),
                                                          ''),
                       path, 'user %s tokenFile' % name)
    user.pop('tokenFile')
    user['token'] = data.decode('utf-8', 'replace').strip()


def run_exec_plugin(kubeconfig, name, spec, cluster, timeout):
    """(token or None, certificate, key, expiry) of a user.exec plugin.

    Run as kubectl runs it (the argv, its env added to ours,
    KUBERNETES_EXEC_INFO, in the kubeconfig's folder), through the
    kernel's runner: timeout seconds at most, its process group killed
    past them or on an interrupt, 1 MiB of output at most.
    """
    where = '%s %s: user %s exec' % (kubeconfig.what, kubeconfig.path,
                                     name)
    command = spec.get('command') if isinstance(spec, dict) else None
    api_version = spec.get('apiVersion') if isinstance(spec, dict) else None
    if not isinstance(command, str) or not command or not isinstance(
            api_version, str):
        raise KubeError('Kubernetes access: %s needs a command and an '
                        'apiVersion' % where)
    args = spec.get('args') or []
    env = dict(os.environ)
    for item in spec.get('env') or ():
        if isinstance(item, dict) and isinstance(item.get('name'), str):
            env[item['name']] = str(item.get('value', ''))
    info = {'apiVersion': api_version, 'kind': 'ExecCredential',
            'spec': {'interactive': False}}
    if spec.get('provideClusterInfo'):
        info['spec']['cluster'] = cluster
    env['KUBERNETES_EXEC_INFO'] = json.dumps(info)
    try:
        out = commands.run(
            [command] + [str(arg) for arg in (
                args if isinstance(args, list) else [args])],
            timeout=timeout, what='%s command' % where,
            limit=EXEC_OUTPUT_LIMIT, env=env,
            cwd=kubeconfig.folders.get(('users', name)) or None)
    except commands.CommandError as exc:
        raise KubeError('Kubernetes access: %s' % exc) from None
    try:
        status = documents.load_json(out).get('status')
    except (documents.DocumentError, AttributeError):
        status = None
    if not isinstance(status, dict):
        raise KubeError('Kubernetes access: %s command printed no '
                        'ExecCredential (a JSON object with a status)' %
                        where)
    token = status.get('token')
    cert, key = status.get('clientCertificateData'), status.get(
        'clientKeyData')
    if not isinstance(token, str) and not (
            isinstance(cert, str) and isinstance(key, str)):
        raise KubeError('Kubernetes access: %s command gave neither a '
                        'token nor a client certificate and key' % where)
    return (token if isinstance(token, str) else None, cert, key,
            _timestamp(status.get('expirationTimestamp')))


def _timestamp(text):
    """An RFC 3339 time as an aware datetime, else None."""
    if not isinstance(text, str):
        return None
    try:
        return datetime.datetime.fromisoformat(
            text.replace('Z', '+00:00').replace('z', '+00:00'))
    except ValueError:
        return None


def _pem_data(text):
    return base64.b64encode(text.encode('utf-8')).decode('ascii')


def _resolved(kubeconfig, settings):
    """(document for the package, exec refresh or None) of the context.

    Only the context in use is resolved: its cluster's and user's files
    read and inlined, its tokenFile read, its exec plugin run.
    """
    context = kubeconfig.entry('contexts', settings.context or
                               kubeconfig.document.get('current-context'))
    cluster_name, user_name = context.get('cluster'), context.get('user')
    cluster = _inline_files(kubeconfig, 'clusters', cluster_name)
    user = _inline_files(kubeconfig, 'users', user_name)
    _user_token_file(kubeconfig, user_name, user)
    spec = user.pop('exec', None)
    if spec is None:
        return kubeconfig.document, None

    def run():
        return run_exec_plugin(kubeconfig, user_name, spec, cluster,
                               settings.timeout)
    token, cert, key, expiry = run()
    if token is not None:
        user['token'] = token
    else:
        user['client-certificate-data'] = _pem_data(cert)
        user['client-key-data'] = _pem_data(key)
    return kubeconfig.document, (run, expiry) if token is not None and (
        expiry is not None) else None


def _refresh_exec_token(config, run, expiry):
    """Run the exec plugin again once its token expired, as kubectl does.

    NOTE: the package calls refresh_api_key_hook before it reads the
    token (get_api_key_with_prefix), in every version admitted.
    """
    state = {'expiry': expiry}

    def refresh(configuration):
        now = datetime.datetime.now(datetime.timezone.utc)
        ends = state['expiry']
        if ends is None or (ends.tzinfo and now < ends):
            return
        token, _, _, state['expiry'] = run()
        redaction.remember(token)
        for key in ('BearerToken', 'authorization'):
            if key in configuration.api_key:
                configuration.api_key[key] = 'Bearer %s' % token
    config.refresh_api_key_hook = refresh


# -- the one connection builder ---------------------------------------------
def connect(settings):
    """A Client for settings; KubeError when no access can be built.

    Only a kubernetes Configuration is taken from the package, filled by
    load_incluster_config or load_kube_config: what is the same in every
    version requirements.txt admits (24 and later).
    """
    k8s = _client_package()
    config = k8s.client.Configuration()
    if in_cluster(settings):
        try:
            k8s.config.load_incluster_config(client_configuration=config)
        except k8s.config.ConfigException as exc:
            if not settings.pod_account_first:
                raise KubeError(
                    'Kubernetes access: in-cluster config (%s is set, '
                    '[glance_multiapi] kubeconfig is not) failed: %s; '
                    'test-operator mounts a token only into privileged '
                    'pods, so mount one (etc/test-operator/tempest-glance-'
                    'multiapi.yaml mounts the token Secret of rbac.yaml) or '
                    'set [glance_multiapi] kubeconfig' % (
                        IN_CLUSTER_ENV, errors.one_line(exc))) from None
        else:
            return Client(settings, config, "the pod's service-account "
                          "token", True)
    kubeconfig = read_kubeconfig(*_kubeconfig_path(settings))
    path = kubeconfig.path
    document, refresh = _resolved(kubeconfig, settings)
    try:
        k8s.config.load_kube_config_from_dict(
            config_dict=document, context=settings.context,
            client_configuration=config, persist_config=False)
    except Exception as exc:  # noqa: B902 - config, YAML or file error
        raise KubeError('Kubernetes access: kubeconfig %s cannot be used: '
                        '%s' % (path, errors.one_line(exc))) from None
    _remember_secrets(config)
    if refresh is not None:
        _refresh_exec_token(config, *refresh)
    return Client(settings, config, 'the credentials of kubeconfig %s%s' % (
        path, ' context %s' % settings.context if settings.context else ''),
        False)


def _remember_secrets(config):
    """Mask the kubeconfig's password, token and server userinfo."""
    tokens = [value.split()[-1] for value in (config.api_key or {}).values()
              if isinstance(value, str) and value.split()]
    redaction.remember(config.password, *tokens)
    redaction.remember_url(config.host)


# -- the client -------------------------------------------------------------
class Client:
    """One connection to the API server; use it in a with block.

    Each call is one request (retries=False: urllib3 would otherwise
    retry a connect error or a GET read timeout 3 times, so an API
    server that never answers would take four timeouts while the message
    names one), bounded by settings.timeout (and connect_timeout).
    """

    def __init__(self, settings, config, credentials, inside):
        # NOTE: imported here, as the kubernetes package: the uploader
        # imports this module at start-up, and --help answers fast.
        from kubernetes.client import rest
        import urllib3

        self.settings = settings
        # NOTE: server names the API in messages: a kubeconfig's server
        # URL may hold a userinfo, which requests never need.
        self._base = config.host.rstrip('/')
        self.server = redaction.url(self._base)
        self._config = config
        self._rest = rest
        self._pool = rest.RESTClientObject(config).pool_manager
        self._sending = threading.local()
        self._timeout = urllib3.Timeout(
            connect=settings.connect_timeout or settings.timeout,
            read=settings.timeout)
        self._agent = 'glance-multiapi-tests/%s' % version.version_string()
        self._credentials = credentials
        self._in_cluster = inside
        self.namespace = namespace_for(settings)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def close(self):
        try:
            self._pool.clear()
        except Exception:  # noqa: S110 - closing must not hide the result
            pass

    def describe_object(self, obj_name, resource):
        """'Glance openstack/glance via the Kubernetes API at URL'."""
        # NOTE: the name comes from the answer; real ones are short.
        return '%s %s/%s via the Kubernetes API at %s' % (
            resource.kind, self.namespace,
            documents.short(str(obj_name), 100), self.server)

    def get(self, resource, name, namespace=None):
        """The object as a dict."""
        return self._call('get', resource, name, 'GET', namespace=namespace)

    def list(self, resource, label_selector=None):
        """The objects of that resource in the namespace, as dicts.

        label_selector: only those it selects (kube selector syntax).
        """
        query = {'labelSelector': label_selector} if label_selector else None
        body = self._call('list', resource, None, 'GET', query=query)
        items = body.get('items')
        if not isinstance(items, list):
            raise self._error('list', resource, None, self.namespace,
                              'the answer has no items list')
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                raise self._error('list', resource, None, self.namespace,
                                  'items[%d] of the answer is not an '
                                  'object' % index)
        return items

    def create(self, resource, obj, namespace=None):
        """Create obj (it names itself); return what the server stored."""
        return self._call('create', resource, None, 'POST', body=obj,
                          namespace=namespace, named=name_of(obj))

    def replace(self, resource, obj, namespace=None):
        """PUT obj, conditional on its metadata.resourceVersion."""
        return self._call('update', resource, name_of(obj), 'PUT',
                          body=obj, namespace=namespace)

    def delete(self, resource, name, namespace=None):
        """Delete an object with its own grace period; the answer."""
        return self._call('delete', resource, name, 'DELETE',
                          namespace=namespace)

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
        names = sorted(str(name_of(item)) for item in items)
        found = ('%d found: %s' % (len(names), ', '.join(names)) if names
                 else 'none found')
        raise self._error('list', resource, None, self.namespace,
                          '%s is unset, so exactly one %s must exist, but '
                          '%s; set %s' % (option, resource.kind, found,
                                          option))

    def _path(self, resource, name, query, namespace):
        """/api/v1/... for the core group, /apis/GROUP/... for the rest."""
        path = ('/apis/%s' % resource.group if resource.group else '/api')
        path += '/' + resource.version
        if resource.namespaced:
            path += '/namespaces/' + urllib.parse.quote(checked_namespace(
                namespace, 'the request'), safe='')
        path += '/' + resource.plural
        if name:
            path += '/' + urllib.parse.quote(str(name), safe='')
        if query:
            path += '?' + urllib.parse.urlencode(query)
        return path

    def _send(self, method, path, body, content_type):
        """The urllib3 answer, whatever its status (HTTPError if none)."""
        headers = {'Accept': 'application/json', 'User-Agent': self._agent}
        # NOTE: the loaders keep the token ("Bearer ...") under
        # 'BearerToken' in the clients with pydantic models (37 here),
        # under 'authorization' in the older ones. Either call runs the
        # refresh hook the loader installed (a pod's rotated token, an
        # exec plugin).
        token = (self._config.get_api_key_with_prefix('BearerToken')
                 or self._config.get_api_key_with_prefix('authorization'))
        if token:
            headers['Authorization'] = token
        data = None
        if body is not None:
            data = json.dumps(body).encode('utf-8')
            headers['Content-Type'] = content_type
        # NOTE: only a signal handler starts a request while its thread is
        # inside one (the restoration's undo on SIGTERM); the interrupted
        # request may hold the pool's lock, so this one gets a pool of its
        # own rather than wait for that lock forever.
        inside = getattr(self._sending, 'depth', 0)
        pool = self._pool
        if inside:
            pool = self._rest.RESTClientObject(self._config).pool_manager
        self._sending.depth = inside + 1
        try:
            with deadlines.exchange(self.server + path, self.settings.timeout,
                                    method):
                return pool.request(method, self._base + path, body=data,
                                    headers=headers, timeout=self._timeout,
                                    retries=False)
        finally:
            self._sending.depth = inside
            if inside:
                pool.clear()

    def _call(self, verb, resource, name, method, query=None, body=None,
              content_type='application/json', namespace=None, named=None):
        import urllib3

        namespace = namespace or self.namespace
        where = (verb, resource, name or named, namespace)
        try:
            answer = self._send(method, self._path(
                resource, name, query, namespace), body, content_type)
        except deadlines.DeadlineExceeded as exc:
            error = self._error(*where, exc.problem)
            error.status = 0
            raise error from None
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            error = self._error(*where, unreachable(exc,
                                                    self.settings.timeout))
            error.status = 0
            raise error from None
        if not 200 <= answer.status < 300:
            problem = explain(answer.status, answer.reason, answer.data,
                              verb, resource, name, namespace,
                              self._credentials, self._in_cluster)
            error = self._error(*where, problem)
            error.status = answer.status
            error.missing = answer.status == 404 and MISSING in problem
            raise error
        try:
            found = documents.load_json(answer.data)
        except documents.DocumentError as exc:
            raise self._error(*where, 'the answer is %s' % exc) from None
        if not isinstance(found, dict):
            raise self._error(*where, 'the answer is not a JSON object but '
                              '%s' % type(found).__name__)
        return found

    def _error(self, verb, resource, name, namespace, problem):
        what = '%s %s' % (verb, resource.full_name)
        if name:
            what += ' "%s"' % documents.short(str(name), 100)
        if resource.namespaced:
            what += ' in namespace "%s"' % namespace
        return KubeError('Kubernetes API %s: %s: %s' % (
            self.server, what, problem))


# -- what an answer means ---------------------------------------------------
_ERRNO_RE = re.compile(r'\[Errno -?\d+\][^\'")]*')


def unreachable(exc, timeout):
    """Why a request got no HTTP answer (timeout, TLS, refused, DNS)."""
    import urllib3
    reason = getattr(exc, 'reason', None) or exc
    # NOTE: urllib3 2 makes NewConnectionError a ConnectTimeoutError.
    timed_out = isinstance(reason, (urllib3.exceptions.TimeoutError,
                                    TimeoutError)) and not isinstance(
        reason, urllib3.exceptions.NewConnectionError)
    if timed_out:
        return 'no answer within %s s (API server unreachable or ' \
               'overloaded)' % timeout
    if isinstance(reason, (urllib3.exceptions.SSLError, ssl.SSLError)):
        return 'TLS with the API server failed (is the kubeconfig\'s ' \
               'certificate-authority the one that signed it?): %s' % (
                   errors.one_line(reason))
    match = _ERRNO_RE.search(str(reason))
    return 'API server unreachable: %s' % (
        match.group(0).strip() if match else errors.one_line(reason))


# NOTE: what explain() says of a 404 for the object itself (KubeError's
# missing tells it from a resource type the server lacks).
MISSING = 'the object is missing'


def explain(status, reason, body, verb, resource, name, namespace,
            credentials, inside):
    """What the API server's refusal means, in one line."""
    message, details = status_message(body)
    head = '%d %s' % (status, reason or '')
    if status == 401:
        return '%s: the API server refused %s (token or client ' \
               'certificate not accepted)%s' % (
                   head, credentials, _says(message))
    if status == 403:
        who = "the service account" if inside else "the kubeconfig's user"
        return '%s: %s lacks "%s" on "%s" in API group "%s"%s' % (
            head, who, verb, resource.plural, resource.group,
            _says(message))
    if status == 404:
        if name and ((details or {}).get('name') == name or
                     '"%s" not found' % name in (message or '')):
            return '%s: %s: no %s "%s" in namespace "%s"' % (
                head, MISSING, resource.kind, name, namespace)
        return '%s: the API server does not serve %s/%s (is its CRD ' \
               'installed?)%s' % (head, resource.full_name,
                                  resource.version, _says(message))
    if status == 422:
        return '%s: the API server refused the change%s' % (
            head, _says(message))
    return '%s%s' % (head, _says(message))


def status_message(body):
    """(message, details) of a Kubernetes Status body, else its text."""
    if isinstance(body, bytes):
        body = body.decode('utf-8', 'replace')
    if not body:
        return None, None
    try:
        doc = documents.load_json(body)
    except documents.DocumentError:
        return errors.one_line(body)[:300], None
    if not isinstance(doc, dict):
        return errors.one_line(body)[:300], None
    message, details = doc.get('message'), doc.get('details')
    # NOTE: a Status of another server may carry anything in them.
    return (documents.short(message, 300) if isinstance(message, str)
            else None), (details if isinstance(details, dict) else None)


def _says(message):
    return ': %s' % errors.one_line(message) if message else ''


# -- what an object holds ---------------------------------------------------
def metadata(obj):
    """obj's metadata, {} when it has none or none that is a mapping."""
    meta = obj.get('metadata') if isinstance(obj, dict) else None
    return meta if isinstance(meta, dict) else {}


def name_of(obj):
    """metadata.name of obj when it is a string, else None."""
    name = metadata(obj).get('name')
    return name if isinstance(name, str) else None


def describe(obj, kind=None):
    """'Glance openstack/glance' for an object read from the API."""
    obj_kind = obj.get('kind') if isinstance(obj, dict) else None
    namespace = metadata(obj).get('namespace')
    # NOTE: real names are at most 253 characters; cut what is not one.
    return '%s %s/%s' % tuple(documents.short(str(part), 100) for part in (
        kind or (obj_kind if isinstance(obj_kind, str) else '') or 'object',
        namespace if isinstance(namespace, str) and namespace else '?',
        name_of(obj)))


def controller_owner(obj, kind):
    """Name of the controller ownerReference of that kind, else None."""
    refs = metadata(obj).get('ownerReferences')
    for ref in refs if isinstance(refs, list) else ():
        if (isinstance(ref, dict) and ref.get('controller') is True and
                ref.get('kind') == kind and isinstance(ref.get('name'), str)):
            return ref['name']
    return None
