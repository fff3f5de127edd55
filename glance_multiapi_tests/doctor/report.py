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


"""The doctor's findings, its exit code and their renderings, without I/O.

A report is a list of checks in the order they ran (config, discovery,
keystone, endpoints, catalog endpoints, catalog). Each check is OK, FAIL or
SKIP; a FAIL carries the exit code that kind of problem maps to, and the
run exits with the code of the first FAIL, because the earliest stage that
broke is the one to fix first.
"""

import dataclasses
import json

from glance_multiapi_kernel import errors
from glance_multiapi_kernel import redaction

OK = 'OK'
FAIL = 'FAIL'
SKIP = 'SKIP'

# NOTE: 22 is EINVAL like the other tools' "malformed input"; 70 is
# sysexits' EX_SOFTWARE.
EXIT_HEALTHY = 0
EXIT_PROBLEM = 1
EXIT_USAGE = 2
EXIT_BAD_CONFIG = 22
EXIT_DISCOVERY = 23
EXIT_KEYSTONE_UNREACHABLE = 24
EXIT_CREDENTIALS = 25
EXIT_SKIPPED_STRICT = 26
EXIT_INTERNAL = 70

EXIT_CODES = (
    (EXIT_HEALTHY, 'healthy: every check passed (or was skipped, saying '
                   'why)'),
    (EXIT_PROBLEM, 'a problem found: an image endpoint does not answer, '
                   'or the catalog does not hold exactly the '
                   'keystoneEndpoint API'),
    (EXIT_USAGE, 'usage error (a timeout that is not a positive finite '
                 'number; also: --output-file cannot be written, or a '
                 'relative path was given from a working folder that no '
                 'longer exists)'),
    (EXIT_BAD_CONFIG, 'bad configuration: the config file is missing, '
                      'cannot be read (not a regular file: a folder, a '
                      'FIFO, a device, a symlink loop; no permission) or '
                      'malformed (larger than 2 MiB, not UTF-8, not INI), '
                      'an option value is invalid (a CA file that cannot '
                      'be loaded, an endpoint that is no URL, a number '
                      'that is not finite or negative), the clouds.yaml of '
                      '--os-cloud cannot be used (its file and key named) '
                      'or lacks the cloud, or no credentials are set'),
    (EXIT_DISCOVERY, 'discovery failed: the Glance CR could not be read '
                     '(Kubernetes API, its kubeconfig, or discovery_command: '
                     'failed, timed out, printed more than 16 MiB or text '
                     'that is not UTF-8), does not describe the APIs, or '
                     'the explicit [glance_multiapi] API options '
                     'contradict it'),
    (EXIT_KEYSTONE_UNREACHABLE, 'keystone unreachable: DNS, TCP, TLS or '
                                'HTTP failed on the identity URL'),
    (EXIT_CREDENTIALS, 'keystone refused the credentials (HTTP 401)'),
    (EXIT_SKIPPED_STRICT, '--strict: a check could not run (it would be a '
                          'SKIP), e.g. discovery is unconfigured, so the '
                          'gate would judge less than it should'),
    (EXIT_INTERNAL, 'internal error of the doctor (one line naming it; '
                    'please report it)'),
)

JSON_FIELDS = ('name', 'status', 'api', 'interface', 'url', 'message')


@dataclasses.dataclass(frozen=True)
class Check:
    """One line of the report: what was checked, where, and the outcome."""

    name: str
    status: str
    message: str
    api: str = None
    interface: str = None
    url: str = None
    exit_code: int = EXIT_HEALTHY

    def endpoint_text(self):
        """'api0 public http://...' from the fields that are set."""
        return ' '.join(part for part in (self.api, self.interface,
                                          self.url) if part)


def ok(name, message, **where):
    return Check(name, OK, message, **where)


def skip(name, message, **where):
    return Check(name, SKIP, message, **where)


def fail(name, message, exit_code=EXIT_PROBLEM, **where):
    return Check(name, FAIL, message, exit_code=exit_code, **where)


def strict(checks):
    """checks with every SKIP turned into a FAIL (--strict).

    A gate that cannot learn the deployment (discovery unconfigured) would
    otherwise be "healthy" and then skip every test.
    """
    return [fail(c.name, 'not run, and --strict allows no SKIP: %s'
                 % c.message, EXIT_SKIPPED_STRICT, api=c.api,
                 interface=c.interface, url=c.url)
            if c.status == SKIP else c for c in checks]


def exit_code(checks):
    """The code of the first failed check, else 0."""
    for check in checks:
        if check.status == FAIL:
            return check.exit_code
    return EXIT_HEALTHY


def counts(checks):
    """{status: number} over OK, FAIL and SKIP."""
    found = {OK: 0, FAIL: 0, SKIP: 0}
    for check in checks:
        found[check.status] += 1
    return found


def verdict(checks, prog, first=True):
    """The last line: healthy, or how many failed and the exit code.

    first names the first failure too, for a log that shows only this.
    """
    number = counts(checks)
    code = exit_code(checks)
    skipped = ', %d skipped' % number[SKIP] if number[SKIP] else ''
    if code == EXIT_HEALTHY:
        return '%s: healthy: %d check(s) passed%s' % (
            prog, number[OK], skipped)
    text = '%s: FAILED (exit %d): %d of %d check(s) failed%s' % (
        prog, code, number[FAIL], len(checks), skipped)
    if first:
        text += '; first: %s' % brief(
            next(c for c in checks if c.status == FAIL))
    return redaction.text(text)


def brief(check):
    """'endpoint api1 public http://...: DNS: ...' without padding."""
    where = check.endpoint_text()
    return '%s %s%s' % (check.name, where + ': ' if where else '',
                        check.message)


def line(check):
    """'FAIL endpoint api1 public http://...: DNS: ...' for one check."""
    where = check.endpoint_text()
    return '%-4s %-16s %s%s' % (check.status, check.name,
                                where + ': ' if where else '',
                                check.message)


def as_text(checks, prog):
    """One line per check, then the verdict line; no secret in them."""
    return redaction.text('\n'.join(
        [line(check) for check in checks] +
        [verdict(checks, prog, first=False)])) + '\n'


def deployment_dict(deployment):
    """The discovered deployment as plain data, or None."""
    if deployment is None:
        return None
    return {
        'source': deployment.source,
        'keystone_endpoint': deployment.keystone_endpoint,
        'apis': {name: {'type': api.type,
                        'endpoints': dict(api.endpoints),
                        'default_store': api.default_store}
                 for name, api in deployment.apis.items()},
    }


def as_json(checks, deployment=None):
    """The report as a JSON document (see JSON_FIELDS for each check)."""
    document = {
        'ok': exit_code(checks) == EXIT_HEALTHY,
        'exit_code': exit_code(checks),
        'counts': counts(checks),
        'checks': [{field: getattr(check, field) for field in JSON_FIELDS}
                   for check in checks],
        'deployment': deployment_dict(deployment),
    }
    # NOTE: a URL of the config or of the catalog may hold a userinfo.
    return json.dumps(redaction.value(document), indent=2,
                      sort_keys=True) + '\n'


def exit_code_help():
    """The exit code table --help and the README show."""
    return 'exit codes:\n' + errors.exit_code_table(EXIT_CODES)
