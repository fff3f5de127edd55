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


"""What the doctor reads of tempest.conf, the way the plugin reads it.

The plugin's own option groups (config.OPT_GROUPS) plus the few tempest
options the checks need, registered on a private ConfigOpts so nothing
of tempest is loaded. Every problem is a ConfigProblem whose one line
names the file and, where it can, the option.
"""

import configparser
import dataclasses
import math
import ssl

from oslo_config import cfg
import requests
import stevedore

from glance_multiapi_kernel import deadlines
from glance_multiapi_kernel import documents
from glance_multiapi_tests import config
from glance_multiapi_kernel import errors
from glance_multiapi_kernel import input_files
from glance_multiapi_kernel import redaction
from glance_multiapi_kernel import values

# NOTE: the same names, types and defaults as tempest's own options; only
# what the doctor reads. Options of other groups are ignored by oslo.config.
TEMPEST_OPTS = {
    'identity': [
        cfg.URIOpt('uri_v3', schemes=['http', 'https']),
        cfg.StrOpt('region', default='RegionOne'),
        cfg.StrOpt('ca_certificates_file'),
        cfg.BoolOpt('disable_ssl_certificate_validation', default=False),
    ],
    'image': [
        cfg.StrOpt('region', default=''),
    ],
    'auth': [
        cfg.StrOpt('admin_username'),
        cfg.StrOpt('admin_password', secret=True),
        cfg.StrOpt('admin_project_name'),
        cfg.StrOpt('admin_domain_name', default='Default'),
        cfg.StrOpt('admin_user_domain_name'),
        cfg.StrOpt('admin_project_domain_name'),
    ],
}


# NOTE: the [glance_multiapi] timeouts the doctor's checks use; oslo.config
# takes any number, but zero fails every probe and a negative one crashes
# the socket layer.
TIMEOUTS = ('probe_timeout', 'kubernetes_timeout', 'command_timeout')
# NOTE: the longest text of an error quoted in a problem: oslo.config
# quotes the whole offending line, however long.
LIMIT = 400
# NOTE: how long reading the configuration may take, a remote
# config_source included (--config-timeout): oslo.config 9.1.1 (2023.1)
# fetches one with no timeout at all, later ones 60 s per read.
CONFIG_TIMEOUT = 60.0


class ConfigProblem(errors.OneLineError):
    """The configuration cannot be used; str() is one line."""


@dataclasses.dataclass(frozen=True)
class Credentials:
    """Password credentials for keystone v3 and how to trust its TLS."""

    auth_url: str
    username: str
    password: str
    project_name: str
    user_domain_name: str
    project_domain_name: str
    cafile: str = None
    insecure: bool = False

    def who(self):
        return 'user %s (project %s)' % (self.username, self.project_name)


def _groups():
    """(group name, [opt]) of every option the doctor registers."""
    for group, opts in config.OPT_GROUPS:
        yield group.name, opts
    yield from TEMPEST_OPTS.items()


def _register(conf):
    for group, opts in config.OPT_GROUPS:
        conf.register_group(group)
    for name, opts in _groups():
        conf.register_opts(opts, group=name)


def _check_values(conf, where):
    """Read every registered option now, so a bad value fails here."""
    for group_name, opts in _groups():
        group = getattr(conf, group_name)
        for opt in opts:
            try:
                getattr(group, opt.dest)
            except RecursionError:
                # NOTE: "$identity.region" naming itself, or two options
                # naming each other: oslo.config substitutes for ever.
                raise ConfigProblem(
                    '%s: [%s] %s: invalid value: its $ substitutions '
                    'lead back to it (a loop)' % (
                        where, group_name, opt.name)) from None
            # NOTE: cfg.Error too: "$other" names an option to substitute,
            # which may not exist (NoSuchOptError).
            except (cfg.Error, ValueError) as exc:
                # NOTE: oslo.config's text embeds a LocationInfo repr
                # before the reason; the reason is what a reader needs.
                reason = errors.one_line(exc, LIMIT).partition(
                    'is not valid: ')[2]
                raise ConfigProblem('%s: [%s] %s: invalid value: %s' % (
                    where, group_name, opt.name,
                    reason or errors.one_line(exc, LIMIT))) from None


def _check_timeouts(conf, where):
    for name in TIMEOUTS:
        value = getattr(conf.glance_multiapi, name)
        # NOTE: "name =" gives None; nan and inf pass oslo.config's float
        # and would reach the socket layer.
        if value is None:
            raise ConfigProblem('%s: [glance_multiapi] %s: invalid value: '
                                'empty; give a number of seconds' % (
                                    where, name))
        if not math.isfinite(value) or value <= 0:
            raise ConfigProblem('%s: [glance_multiapi] %s: invalid value: '
                                '%s seconds is not %s' % (
                                    where, name, value, 'positive' if
                                    math.isfinite(value) else 'a finite '
                                    'number'))


def url_problem(url):
    """Why url cannot be probed (its host, port, bytes), or None."""
    return values.url_problem(url, schemes=())


def _check_float_values(conf, where):
    """nan, inf and negative numbers pass oslo.config's FloatOpt."""
    for group_name, opts in _groups():
        for opt in opts:
            if not isinstance(opt, cfg.FloatOpt):
                continue
            value = getattr(getattr(conf, group_name), opt.dest)
            if value is not None and (not math.isfinite(value) or
                                      value < 0):
                raise ConfigProblem('%s: [%s] %s: invalid value: %s is '
                                    'not %s' % (
                                        where, group_name, opt.name, value,
                                        'a finite number' if not
                                        math.isfinite(value) else
                                        'zero or more'))


def _check_endpoint_urls(conf, where):
    for option in ('public_endpoints', 'internal_endpoints'):
        for api, url in sorted(
                (getattr(conf.glance_multiapi, option) or {}).items()):
            problem = values.url_problem(url)
            if problem:
                raise ConfigProblem('%s: [glance_multiapi] %s: %s: %s' % (
                    where, option, api, problem))


def _check_identity_url(conf, where):
    url = conf.identity.uri_v3
    problem = url and url_problem(url)
    if problem:
        raise ConfigProblem('%s: [identity] uri_v3: %s' % (where, problem))


def _check_ca_file(conf, where):
    """[identity] ca_certificates_file must be a CA bundle TLS can load."""
    path = conf.identity.ca_certificates_file
    if not path:
        return
    try:
        # NOTE: ssl would block on a FIFO and read a device without end.
        input_files.check_regular(path, 'CA file')
        ssl.create_default_context(cafile=path)
    except input_files.InputFileError as exc:
        raise ConfigProblem('%s: [identity] ca_certificates_file: %s' % (
            where, exc)) from None
    except (OSError, ssl.SSLError) as exc:
        # NOTE: ssl.SSLError is an OSError; both say why in one line.
        raise ConfigProblem(
            '%s: [identity] ca_certificates_file: cannot load %s: %s' % (
                where, documents.short(path, 200),
                errors.one_line(exc.strerror or exc, LIMIT))) from None


def remote_sources(text):
    """The URIs of the config_source groups the INI text names."""
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    try:
        parser.read_string(text)
        names = parser.defaults().get('config_source', '')
        return [parser.get(name.strip(), 'uri', fallback=name.strip())
                for name in names.split(',') if name.strip()]
    except (configparser.Error, ValueError):
        return []


def _load_source_drivers(conf):
    """Load oslo.config's source drivers before the deadline starts.

    NOTE: oslo.config loads them (stevedore scans every entry point and
    imports each driver, requests among them) when it first meets a
    config_source, inside the exchange: seconds of a loaded machine's
    CPU that are no part of reading the remote files, and more than a
    short --config-timeout. ConfigOpts keeps its manager as _ext_mgr, None
    until then, in oslo.config 9.1.1 (2023.1) as in today's; where it
    does not, the drivers load inside the deadline as before.
    """
    if getattr(conf, '_ext_mgr', False) is None:
        conf._ext_mgr = stevedore.ExtensionManager(
            'oslo.config.driver', invoke_on_load=True)


def load(path, timeout=CONFIG_TIMEOUT):
    """A ConfigOpts of path (or of the defaults when path is None).

    timeout: the most seconds reading it may take, the remote files of
    its config_source included, each from connect to its last byte.
    """
    conf = cfg.ConfigOpts()
    _register(conf)
    args = []
    where = 'defaults'
    sources = []
    if path:
        where = path
        # NOTE: oslo.config reads UTF-8 and would block on a FIFO; read
        # the file once through the bounded reader first.
        try:
            sources = remote_sources(
                input_files.read_text(path, 'tempest.conf'))
        except input_files.InputFileError as exc:
            raise ConfigProblem(str(exc)) from None
        args = ['--config-file', path]
    if sources:
        _load_source_drivers(conf)
    try:
        with deadlines.exchange(', '.join(sources) or where, timeout,
                                'config_source'):
            conf(args=args, project='glance-multiapi-doctor',
                 default_config_files=[], default_config_dirs=[],
                 use_env=False)
    except deadlines.DeadlineExceeded as exc:
        raise ConfigProblem('%s: %s' % (where, exc)) from None
    except cfg.ConfigFileParseError as exc:
        raise ConfigProblem(errors.one_line(exc, LIMIT)) from None
    except cfg.Error as exc:
        raise ConfigProblem('%s: %s' % (
            where, errors.one_line(exc, LIMIT))) from None
    except (OSError, requests.exceptions.RequestException) as exc:
        # NOTE: oslo.config's remote_file driver lets requests' errors
        # through (refused, an HTTP error status, TLS).
        raise ConfigProblem('%s: config_source %s could not be read: %s' % (
            where, ', '.join(sources) or '?',
            errors.one_line(exc, LIMIT))) from None
    _check_values(conf, where)
    _check_timeouts(conf, where)
    _check_float_values(conf, where)
    _check_identity_url(conf, where)
    _check_endpoint_urls(conf, where)
    _check_ca_file(conf, where)
    return conf


def credentials(conf, path):
    """The [auth] admin credentials and [identity] URI and TLS settings."""
    auth = conf.auth
    missing = [name for name in ('admin_username', 'admin_password',
                                 'admin_project_name')
               if not getattr(auth, name)]
    if not conf.identity.uri_v3:
        missing.insert(0, '[identity] uri_v3')
    if missing:
        raise ConfigProblem(
            '%s: cannot read the keystone catalog: %s unset (or give '
            '--os-cloud)' % (path, ', '.join(
                name if name.startswith('[') else '[auth] ' + name
                for name in missing)))
    domain = auth.admin_domain_name
    # NOTE: keystoneauth's and requests' errors may quote either.
    redaction.remember(auth.admin_password)
    redaction.remember_url(conf.identity.uri_v3)
    return Credentials(
        auth_url=conf.identity.uri_v3, username=auth.admin_username,
        password=auth.admin_password, project_name=auth.admin_project_name,
        user_domain_name=auth.admin_user_domain_name or domain,
        project_domain_name=auth.admin_project_domain_name or domain,
        cafile=conf.identity.ca_certificates_file or None,
        insecure=conf.identity.disable_ssl_certificate_validation)


def region(conf):
    """The region whose image endpoints count, as the plugin's tests say."""
    return conf.image.region or conf.identity.region or None
