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


"""glance-multiapi-doctor: is the multi-API Glance deployment fit to test?"""

import argparse
import logging
import os
import sys

from glance_multiapi_kernel import errors
from glance_multiapi_kernel import input_files
from glance_multiapi_kernel import interrupts
from glance_multiapi_kernel import redaction
from glance_multiapi_tests.doctor import checks
from glance_multiapi_tests.doctor import report
from glance_multiapi_tests.doctor import settings
from glance_multiapi_kernel import version

PROG = 'glance-multiapi-doctor'

DESCRIPTION = """\
Pre-flight checks before tempest (and before discover-tempest-config, which
aborts on the first unreachable image endpoint): learn the Glance APIs the
way the plugin does, read the keystone catalog, probe every API and catalog
image endpoint (DNS, TCP, TLS, version document) and check that the catalog
holds exactly one image service, the keystoneEndpoint API's. One line per
check: OK, FAIL or SKIP, the check, the API, interface and URL, and why.
A check that cannot run is a SKIP and later checks still run; with
--strict every SKIP is a FAIL.
"""

EPILOG = """\
checks, in this order:
  config            reading --config-file
  discovery         the Glance APIs, as the plugin learns them
  keystone          a token and its catalog
  endpoint          each endpoint of each API (DNS, TCP, TLS, version doc)
  catalog-endpoint  each image endpoint of the catalog (the same probe)
  catalog           exactly one image service, with the keystoneEndpoint
                    API's endpoints and no other API's

inputs:
  --config-file reads [glance_multiapi] (kubernetes_api, discovery_command
  or the explicit endpoints; probe_timeout, catalog_interfaces), [identity]
  uri_v3, region, ca_certificates_file, disable_ssl_certificate_validation
  and the [auth] admin credentials. --os-cloud reads the catalog with a
  clouds.yaml cloud instead ($OS_CLIENT_CONFIG_FILE or the usual places).

output:
  -o text (default) or json ({"ok", "exit_code", "counts", "checks":
  [{"name", "status", "api", "interface", "url", "message"}],
  "deployment"}) on stdout. With --output-file the -o rendering goes to
  that file and the text one to stdout, so one run gives both.

%s

When several checks fail, the code is that of the first one listed; a
failed run also prints one line on stderr naming the first failure.
SIGINT ends it with exit 130, SIGTERM with 143, in one line: the
discovery command is killed with its process group, and no
--output-file is left half written.
"""


def build_parser():
    parser = errors.OneLineParser(
        prog=PROG, description=DESCRIPTION,
        epilog=EPILOG % report.exit_code_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    version.add_option(parser)
    parser.add_argument('--config-file', metavar='TEMPEST_CONF',
                        help='the tempest.conf the suite runs with.')
    parser.add_argument('--os-cloud', metavar='NAME',
                        help='read the catalog as this clouds.yaml cloud '
                             'instead of the [auth] admin credentials.')
    parser.add_argument('-o', '--output', choices=('text', 'json'),
                        default='text', help='report format (default: '
                                             '%(default)s).')
    parser.add_argument('--output-file', metavar='FILE',
                        help='write the -o report here; stdout gets the '
                             'text report.')
    parser.add_argument('--probe-timeout', type=errors.positive_seconds,
                        metavar='SECONDS',
                        help='seconds a probe\'s DNS stage may take, and '
                             'its TCP, TLS and HTTP stages together, from '
                             'connect to the last byte (default: '
                             '[glance_multiapi] probe_timeout).')
    parser.add_argument('--strict', action='store_true',
                        help='a check that cannot run (SKIP, e.g. '
                             'discovery unconfigured) fails the run (exit '
                             '%d), as a gate wants.' %
                             report.EXIT_SKIPPED_STRICT)
    parser.add_argument('--keystone-timeout', type=errors.positive_seconds,
                        default=30.0,
                        metavar='SECONDS',
                        help='seconds reading the catalog from keystone '
                             'may take, from connect to the last byte '
                             '(default: %(default)s).')
    parser.add_argument('--config-timeout', type=errors.positive_seconds,
                        default=settings.CONFIG_TIMEOUT, metavar='SECONDS',
                        help='seconds reading --config-file may take, the '
                             'remote files of its config_source included '
                             '(default: %(default)s).')
    return parser


def _not_a_file(path):
    """What path is when it exists and is no regular file, else None."""
    try:
        return path and input_files.kind_of(os.stat(path).st_mode)
    except OSError:
        return None


def render(outcome, output):
    if output == 'json':
        return report.as_json(outcome.checks, outcome.deployment)
    return report.as_text(outcome.checks, PROG)


def _write(path, text):
    """Write text to path through a temporary file beside it and a rename.

    NOTE: an interrupt, a full disk or a closed pipe leaves the earlier
    report (or none), never half of one.
    """
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    interrupts.write_replacing(path, text)


def run(args):
    """Run the checks and write the report; return the exit code."""
    outcome = checks.run(checks.Inputs(
        config_file=args.config_file, os_cloud=args.os_cloud,
        keystone_timeout=args.keystone_timeout,
        probe_timeout=args.probe_timeout,
        config_timeout=args.config_timeout))
    if args.strict:
        outcome = checks.Outcome(report.strict(outcome.checks),
                                 outcome.deployment)
    code = report.exit_code(outcome.checks)
    if args.output_file:
        try:
            _write(args.output_file, render(outcome, args.output))
        except OSError as exc:
            sys.stderr.write(redaction.text(
                '%s: cannot write --output-file %s: %s\n' % (
                    PROG, args.output_file, exc.strerror or exc)))
            return report.EXIT_USAGE
        sys.stdout.write(render(outcome, 'text'))
    else:
        sys.stdout.write(render(outcome, args.output))
    if code:
        # NOTE: a CI log shows stderr; a report on stdout or in a file
        # would hide the cause. One line: the first failure.
        sys.stdout.flush()
        sys.stderr.write(report.verdict(outcome.checks, PROG) + '\n')
    return code


def main(argv=None):
    """Parse the arguments and run; the exit code is documented in --help."""
    # NOTE: SIGINT and SIGTERM end it in one line, exit 130 or 143; the
    # discovery command's process group is killed, a report half written
    # to --output-file removed.
    with interrupts.ending_cleanly(PROG) as ended:
        return _main(argv)
    return ended['code']


def _main(argv):
    # NOTE: library loggers (keystoneauth's discovery warning, urllib3)
    # would otherwise reach Python's last-resort handler on stderr, whose
    # one line is the doctor's.
    logging.getLogger().addHandler(logging.NullHandler())
    parser = build_parser()
    args = parser.parse_args(argv)
    if not (args.config_file or args.os_cloud):
        parser.error('give --config-file, --os-cloud or both')
    kind = _not_a_file(args.output_file)
    if kind:
        # NOTE: opening a FIFO to write waits for a reader, after every
        # check ran; a device or a folder would fail only then.
        parser.error('--output-file %s is %s, not a regular file' % (
            args.output_file, kind))
    try:
        return run(args)
    except Exception as exc:  # noqa: B902 - the promised one line
        gone = errors.working_folder_problem()
        if gone:
            sys.stderr.write('%s: %s\n' % (PROG, redaction.text(gone)))
            return report.EXIT_USAGE
        message = redaction.text('internal error: %s: %s' % (
            type(exc).__name__, errors.one_line(exc)))
        sys.stderr.write('%s: %s\n' % (PROG, message))
        return internal_error(args, message)


def internal_error(args, message):
    """Still give the report a reader or CI expects, as one failed check."""
    outcome = checks.Outcome([report.fail('doctor', message,
                                          report.EXIT_INTERNAL)])
    # NOTE: the error may be the very write that failed (a closed pipe, a
    # full disk); stderr already names it, so nothing more is raised.
    try:
        if args.output_file:
            _write(args.output_file, render(outcome, args.output))
            sys.stdout.write(render(outcome, 'text'))
        elif args.output == 'json':
            sys.stdout.write(render(outcome, 'json'))
        sys.stdout.flush()
    except OSError:
        pass
    return report.EXIT_INTERNAL


if __name__ == '__main__':
    sys.exit(main())
