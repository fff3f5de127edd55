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


"""Reading the keystone catalog the doctor judges, with one-line failures.

Either with the [auth] admin credentials of tempest.conf (keystoneauth
v3 password) or with a clouds.yaml cloud (openstacksdk's loader, so every
auth type it knows works). The identity URL is first resolved and
connected to with the endpoint probe's own stages, so an unreachable
keystone reads like an unreachable image endpoint: ``DNS: Name or service
not known`` rather than a urllib3 retry chain. Reading the catalog is one
exchange bounded by --keystone-timeout from connect to the last byte
(deadlines.py), with the plugin's lock guarded against keystoneauth's
deadlock on a 401 to discovery (keystone_lock.py).
"""

import dataclasses
import re
import urllib.parse

from glance_multiapi_kernel import clouds_yaml
from glance_multiapi_kernel import deadlines
from glance_multiapi_kernel import errors
from glance_multiapi_kernel import keystone_lock
from glance_multiapi_kernel import redaction
from glance_multiapi_tests.common import trust
from glance_multiapi_tests.doctor import report
from glance_multiapi_tests.doctor import settings
from glance_multiapi_tests.multiapi import probes

# NOTE: requests wraps the OS or TLS error several layers deep; the
# bracketed part is the only bit a reader needs.
_CAUSE_RE = re.compile(r"\[(?:SSL: [A-Z_]+|Errno -?\d+)\][^'\")]*")
# NOTE: keystoneauth appends these to the server's message; the status is
# already named and a request id does not help before tempest runs.
_NOISE_RE = re.compile(r' ?\((?:HTTP \d+|Request-ID: [^)]*)\)')


class KeystoneProblem(Exception):
    """The catalog could not be read; one line and the exit code."""

    def __init__(self, message, exit_code):
        super().__init__(message)
        self.exit_code = exit_code


@dataclasses.dataclass(frozen=True)
class Access:
    """How to reach keystone, and who asks, for messages."""

    auth_url: str
    who: str
    region: str
    cafile: str
    insecure: bool
    make_session: object


def _cause(exc):
    text = _NOISE_RE.sub('', errors.one_line(exc))
    found = _CAUSE_RE.findall(text)
    return found[-1].strip() if found else (text or type(exc).__name__)


def from_credentials(creds, region, source):
    """Access with the password credentials read from tempest.conf."""

    def make_session(timeout):
        from keystoneauth1.identity import v3
        from keystoneauth1 import session as ks_session

        auth = v3.Password(
            auth_url=creds.auth_url, username=creds.username,
            password=creds.password, project_name=creds.project_name,
            user_domain_name=creds.user_domain_name,
            project_domain_name=creds.project_domain_name)
        verify = False if creds.insecure else (creds.cafile or True)
        return ks_session.Session(
            auth=keystone_lock.guard(auth, creds.auth_url), verify=verify,
            timeout=timeout)

    return Access(auth_url=creds.auth_url,
                  who='%s from [auth] of %s' % (creds.who(), source),
                  region=region, cafile=creds.cafile,
                  insecure=creds.insecure, make_session=make_session)


def from_cloud(name, region=None, cafile=None):
    """Access with a clouds.yaml cloud; ConfigProblem if it is unusable.

    cafile: the CA bundle to verify with when the cloud names none
    (tempest.conf's [identity] ca_certificates_file); else the system's.
    """
    # NOTE: imported here: loading openstacksdk's config reads the
    # environment and files, which the tempest.conf way never needs. So
    # is keystoneauth (with osprofiler, webob) in the functions that
    # reach keystone: a third of the doctor's start, which a run that
    # ends on its input or options (--help, a bad file) never needs.
    from openstack import config as os_config
    try:
        clouds_yaml.check(name)
    except clouds_yaml.CloudsError as exc:
        raise settings.ConfigProblem('--os-cloud %s: %s' % (
            name, exc)) from None
    loader = None
    try:
        loader = os_config.OpenStackConfig()
        cloud = loader.get_one(cloud=name)
    except Exception as exc:  # noqa: B902 - file, YAML or config error
        raise settings.ConfigProblem('--os-cloud %s (%s): %s' % (
            name, getattr(loader, 'config_filename', None) or
            'no usable clouds.yaml', _cause(exc))) from None
    auth = cloud.config.get('auth') or {}
    # NOTE: keystoneauth's and requests' errors may quote any of them.
    redaction.remember(*[value for key, value in auth.items()
                         if redaction.is_secret_key(key)])
    auth_url = auth.get('auth_url')
    if isinstance(auth_url, str):
        redaction.remember_url(auth_url)
    if not auth_url:
        raise settings.ConfigProblem('clouds.yaml %s: cloud %s has no '
                                     'auth.auth_url' % (
                                         loader.config_filename, name))
    problem = settings.url_problem(auth_url)
    if problem:
        raise settings.ConfigProblem('clouds.yaml %s: cloud %s: '
                                     'auth.auth_url: %s' % (
                                         loader.config_filename, name,
                                         problem))

    insecure = not cloud.config.get('verify', True)
    # NOTE: keystone-operator's clouds.yaml names no cacert, and in a
    # venv python-requests from PyPI would verify with certifi's bundle,
    # which never holds the control plane's CA (common/trust.py): the
    # configured bundle, else the system's, where test-operator mounts it.
    verify_with = cloud.config.get('cacert') or cafile or trust.system_ca()

    def make_session(timeout):
        from keystoneauth1 import exceptions as ks_exc

        try:
            session = cloud.get_session()
        except ks_exc.ClientException as exc:
            raise settings.ConfigProblem('clouds.yaml %s: cloud %s: %s' % (
                loader.config_filename, name, _cause(exc))) from None
        session.timeout = timeout
        if not insecure and verify_with:
            session.verify = verify_with
        keystone_lock.guard(session.auth, auth_url)
        return session

    who = 'cloud %s of %s (user %s, project %s)' % (
        name, loader.config_filename, auth.get('username') or '?',
        auth.get('project_name') or auth.get('project_id') or '?')
    return Access(auth_url=auth_url, who=who,
                  region=cloud.get_region_name() or region,
                  cafile=verify_with, insecure=insecure,
                  make_session=make_session)


def _reach(url, timeout):
    """DNS and TCP to the identity URL, with the probe's wording."""
    parts = urllib.parse.urlsplit(url)
    port = parts.port or (443 if parts.scheme == 'https' else 80)
    addresses = probes.resolve(parts.hostname, port, timeout)
    probes.connect(addresses, timeout).close()


def read_catalog(access, timeout):
    """The v3 catalog (list of services) the access's token carries."""
    from keystoneauth1 import exceptions as ks_exc

    try:
        _reach(access.auth_url, timeout)
    except probes.StageError as exc:
        raise KeystoneProblem('%s: %s' % (exc.stage, exc.error),
                              report.EXIT_KEYSTONE_UNREACHABLE) from None
    session = access.make_session(timeout)
    try:
        with deadlines.exchange(access.auth_url, timeout, 'keystone'):
            info = session.auth.get_access(session)
    except deadlines.DeadlineExceeded as exc:
        raise KeystoneProblem(exc.problem,
                              report.EXIT_KEYSTONE_UNREACHABLE) from None
    except ks_exc.Unauthorized as exc:
        raise KeystoneProblem(
            'refused the credentials of %s: HTTP 401: %s' % (
                access.who, _cause(exc)),
            report.EXIT_CREDENTIALS) from None
    except ks_exc.SSLError as exc:
        raise KeystoneProblem('TLS: %s' % _cause(exc),
                              report.EXIT_KEYSTONE_UNREACHABLE) from None
    except ks_exc.ConnectionError as exc:
        raise KeystoneProblem(_cause(exc),
                              report.EXIT_KEYSTONE_UNREACHABLE) from None
    except ks_exc.HttpError as exc:
        raise KeystoneProblem(
            'HTTP %s: %s' % (exc.http_status, _cause(exc)),
            report.EXIT_KEYSTONE_UNREACHABLE) from None
    except ks_exc.OptionError as exc:
        raise settings.ConfigProblem(
            'the credentials of %s are incomplete: %s' % (
                access.who, _cause(exc))) from None
    except ks_exc.ClientException as exc:
        raise KeystoneProblem(_cause(exc),
                              report.EXIT_KEYSTONE_UNREACHABLE) from None
    return info.service_catalog.catalog or []
