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

"""JSON requests to a Kubernetes API without the client's typed APIs.

NOTE: kubernetes 37 generates pydantic models; importing CoreV1Api takes
1.9 CPU-s on an idle core (AppsV1Api 1.3 s), against 0.6 s for the
configuration loaders and the connection pool. A process that makes a
few calls (the uploader writing its ConfigMap, a scenario's namespace)
pays that import on every run. This module takes from the package only
what is the same in every version requirements.txt admits (29 and
later): a Configuration filled by load_kube_config or
load_incluster_config, and the urllib3 pool its RESTClientObject builds
from it (TLS, client certificates, proxy). The requests and the JSON are
its own.
"""

import json

from glance_multiapi_kernel import version

# NOTE: seconds to connect, then to read: one API server that never
# answers costs the caller this long, not the client's default of
# forever.
CONNECT_TIMEOUT = 10.0
READ_TIMEOUT = 30.0


class ApiError(Exception):
    """A refused or failed request: status 0 when none was answered."""

    def __init__(self, status, reason, message, body=None):
        super().__init__(message)
        self.status = status
        self.reason = reason
        # NOTE: the answer's text (a Status document), as the client's
        # ApiException.body: common/kube_errors.explain reads it.
        self.body = body


def configuration(kubeconfig=None, context=None, in_cluster=False):
    """A kubernetes Configuration from the pod's account or a kubeconfig.

    in_cluster: the service account's token and CA (ConfigException
    when the pod has none); else kubeconfig (None: $KUBECONFIG, then
    ~/.kube/config) and its context (None: its current one).
    """
    import kubernetes.client
    import kubernetes.config

    config = kubernetes.client.Configuration()
    if in_cluster:
        kubernetes.config.load_incluster_config(client_configuration=config)
    else:
        kubernetes.config.load_kube_config(
            config_file=kubeconfig, context=context,
            client_configuration=config, persist_config=False)
    return config


class Client:
    """request(method, path, body) -> the answer's JSON document."""

    def __init__(self, config, connect_timeout=CONNECT_TIMEOUT,
                 read_timeout=READ_TIMEOUT):
        # NOTE: imported here, as the kubernetes package: the uploader
        # imports this module at start-up, and --help answers fast.
        from kubernetes.client import rest
        import urllib3

        self._urllib3 = urllib3
        self.host = config.host.rstrip('/')
        self._config = config
        self._pool = rest.RESTClientObject(config).pool_manager
        self._timeout = urllib3.Timeout(connect=connect_timeout,
                                        read=read_timeout)
        self._agent = 'glance-multiapi-tests/%s' % version.version_string()

    def send(self, method, path, body=None,
             content_type='application/json'):
        """The urllib3 answer, whatever its status.

        urllib3's HTTPError when none came (refused, timed out, TLS);
        retries=False: one request, so a message can name one timeout.
        """
        headers = {'Accept': 'application/json',
                   'User-Agent': self._agent}
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
        return self._pool.request(method, self.host + path, body=data,
                                  headers=headers, timeout=self._timeout,
                                  retries=False)

    def request(self, method, path, body=None):
        """The answer's JSON document; ApiError unless a 2xx came."""
        try:
            answer = self.send(method, path, body)
        except self._urllib3.exceptions.HTTPError as exc:
            raise ApiError(0, None, '%s %s%s: no answer: %s' % (
                method, self.host, path, _first_line(exc))) from None
        text = answer.data.decode('utf-8', 'replace')
        if not 200 <= answer.status < 300:
            raise ApiError(answer.status, answer.reason,
                           '%s %s%s: HTTP %s %s%s' % (
                               method, self.host, path, answer.status,
                               answer.reason, _status_message(text)),
                           body=text)
        try:
            return json.loads(text) if text.strip() else None
        except ValueError:
            raise ApiError(answer.status, answer.reason,
                           '%s %s%s: the answer is not JSON: %.80r'
                           % (method, self.host, path, text)) from None

    def close(self):
        self._pool.clear()


def _status_message(text):
    """': <message>' of a Kubernetes Status document, or ''."""
    try:
        message = json.loads(text).get('message')
    except (ValueError, AttributeError):
        return ''
    return ': %s' % _first_line(message) if message else ''


def _first_line(value):
    text = str(value).strip()
    return text.splitlines()[0] if text else value.__class__.__name__
