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

"""glance-multiapi-image-check: do consolidated image references agree?"""

import argparse
import sys

from glance_multiapi_kernel import errors as cli_errors
from glance_multiapi_kernel import interrupts
from glance_multiapi_kernel import kube
from glance_multiapi_kernel import redaction
from glance_multiapi_tests import deployment_access
from glance_multiapi_tests.imagecheck import check
from glance_multiapi_kernel import image_errors
from glance_multiapi_tests.imagecheck import loader
from glance_multiapi_tests.imagecheck import report
from glance_multiapi_kernel import version

PROG = 'glance-multiapi-image-check'

DESCRIPTION = """\
Check that the OpenStackVersion fields of one consolidated image name the
same image, and the same digest, in every source of deployed references.
With --mappings, the file's targets say which fields are one image (a
field of a target naming another image is a finding). Without it, heat's
fields (heatAPIImage, heatCfnapiImage, heatEngineImage) are judged as the
deployment declares them: in each source, the fields naming the same
repository are one image, so tcib's three images, s2i's two and one for
all pass alike, each when its references agree. Prints a table (target,
field, source, reference, digest, verdict) and one line per disagreement
naming the fields and their values.
"""

EPILOG = """\
sources of deployed references (any of them, or none for a mapping-only
check):
  status.containerImages       of the OpenStackVersion (what is deployed;
                               must list every mapped field)
  spec.customContainerImages   of the OpenStackVersion (overrides; one
                               naming an image a field it leaves alone keeps
                               must pin that default's build)
  status.containerImageVersionDefaults[spec.targetVersion]
                               of the OpenStackVersion: the defaults
                               overrides and status are judged against
  RELATED_IMAGE env            openstack-operator defaults; must list every
                               mapped field. RELATED_IMAGE_HEAT_API_IMAGE_
                               URL_DEFAULT sets heatAPIImage: drop the prefix
                               and _URL_DEFAULT, capitalise each word, join,
                               spell Api as API, lower-case the first letter.
                               Judged only when it belongs to
                               spec.targetVersion (its OPENSTACK_RELEASE_
                               VERSION, else status.availableVersion);
                               otherwise "not compared: version X".
  running Deployments          --kubernetes with --running DEPLOYMENT=FIELD:
                               the image of the Deployment's container named
                               like it (else its only one); the Deployments
                               of one image must agree, and each must run
                               what status.containerImages names for its
                               field. Once their rollouts are over (within
                               --rollout-timeout), their pods: the digest
                               each runs (containerStatuses imageID) must be
                               that of every pod of the same image, and the
                               one status pins.

checks:%(kinds)s

exit codes (each failure is one line on stderr):
  0   consistent
  1   inconsistent (each disagreement is listed with its fields and values)
  2   usage error (bad options, a timeout that is not a positive finite
      number, a --rollout-timeout below 0, unknown --target)
  22  malformed input (mapping, OpenStackVersion, env listing or names
      file: larger than 2 MiB, not UTF-8, not YAML or JSON, nested too
      deep, a key given twice, YAML aliases adding more than 10,000
      nodes, wrong types; the message names the file and the field or
      line)
  23  an input could not be read (missing, not a regular file: a folder, a
      FIFO, a device, a symlink loop; no permission; the same for the
      kubeconfig), the get command failed, timed out, printed more than
      16 MiB or text that is not UTF-8, or the Kubernetes API refused or
      did not answer, or answered something that is no object (the
      message names the call, the object and the HTTP status; a request
      that does not end within --kube-timeout, from connect to its last
      byte, too)
  130 interrupted (SIGINT): the --version-command is killed with its
      process group
  143 terminated (SIGTERM), the same way
"""


def build_parser():
    kinds = ''.join('\n  %-18s %s' % (kind, text)
                    for kind, text in check.KINDS.items())
    parser = cli_errors.OneLineParser(
        prog=PROG, epilog=EPILOG % {'kinds': kinds},
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=DESCRIPTION)
    # NOTE: beside --version-file and --version-command; argparse takes
    # an exact option name before any abbreviation.
    version.add_option(parser)
    parser.add_argument(
        '--mappings', metavar='FILE',
        help='s2i-openstack-containers containers/image-mappings.yaml (or '
             'a flat map of target to field list). Without it: heat\'s '
             'fields as the deployment groups them; --target then names '
             's2i\'s heat targets (heat/heat-api, heat/heat-engine).')
    cr = parser.add_mutually_exclusive_group()
    cr.add_argument('--version-file', metavar='FILE',
                    help='OpenStackVersion CR as JSON or YAML.')
    cr.add_argument('--version-command', metavar='CMD',
                    help='command printing the OpenStackVersion CR, e.g. '
                         '"oc get openstackversion openstack -o json"; run '
                         'through the shell, like the plugin\'s other get '
                         'commands.')
    cr.add_argument('--kubernetes', action='store_true',
                    help='read the OpenStackVersion (and the --running '
                         'Deployments) through the Kubernetes API: '
                         '--kubeconfig, else in-cluster config when '
                         'KUBERNETES_SERVICE_HOST is set, else $KUBECONFIG '
                         'or ~/.kube/config.')
    env = parser.add_mutually_exclusive_group()
    env.add_argument('--env-file', metavar='FILE',
                     help='RELATED_IMAGE_* listing: NAME=VALUE lines, '
                          'comma-separated pairs, or a JSON/YAML list of '
                          '{name, value}.')
    env.add_argument('--env-list', metavar='LIST',
                     help='RELATED_IMAGE_* pairs inline, comma-separated.')
    parser.add_argument('--known-names', metavar='FILE',
                        help='image names the build system knows, one a '
                             'line (e.g. openstack-heat-api); an image no '
                             'name holds is then a finding. Without it and '
                             '--known-name, image names are not checked.')
    parser.add_argument('--known-name', action='append', default=[],
                        metavar='NAME', help='a known image name; '
                                             'repeatable.')
    parser.add_argument('--target', action='append', default=[],
                        metavar='TARGET',
                        help='check only this build target (e.g. '
                             'heat/heat-api); repeatable. Double '
                             'assignments are looked for everywhere.')
    parser.add_argument('--command-timeout', type=cli_errors.positive_seconds,
                        default=60.0,
                        metavar='SECONDS',
                        help='how long --version-command may run; past it '
                             'its process group is killed (default: '
                             '%(default)s).')
    kubernetes = parser.add_argument_group('Kubernetes API (--kubernetes)')
    kubernetes.add_argument('--kubeconfig', metavar='FILE')
    kubernetes.add_argument('--context', metavar='NAME',
                            help='kubeconfig context (default: current).')
    kubernetes.add_argument('--namespace',
                            help='(default: in a pod its own, else the '
                                 'kubeconfig context\'s, else openstack)')
    kubernetes.add_argument('--openstackversion', metavar='NAME',
                            help='name of the OpenStackVersion (default: '
                                 'the only one in the namespace).')
    kubernetes.add_argument('--running', action='append', default=[],
                            metavar='DEPLOYMENT=FIELD',
                            help='check the image this Deployment runs '
                                 'against FIELD, e.g. '
                                 'heat-engine=heatEngineImage; repeatable.')
    kubernetes.add_argument('--rollout-timeout',
                            type=cli_errors.non_negative_seconds,
                            default=120.0, metavar='SECONDS',
                            help='how long the --running Deployments may '
                                 'still roll out before their pods are read '
                                 '(default: %(default)s).')
    kubernetes.add_argument('--kube-timeout',
                            type=cli_errors.positive_seconds, default=30.0,
                            metavar='SECONDS',
                            help='seconds each request may take, from '
                                 'connect to its last byte (default: '
                                 '%(default)s).')
    parser.add_argument('-o', '--output', choices=('table', 'json'),
                        default='table', help='output format.')
    return parser


def main(argv=None):
    """Run the check; return the exit code documented in --help."""
    # NOTE: SIGINT and SIGTERM end it in one line, exit 130 or 143; the
    # version command's process group is killed on the way out.
    with interrupts.ending_cleanly(PROG) as ended:
        return _main(argv)
    return ended['code']


def _main(argv):
    parser = build_parser()
    args = parser.parse_args(argv)
    running = []
    for item in args.running:
        name, sep, field = item.partition('=')
        if not (sep and name.strip() and field.strip()):
            parser.error('--running %r is not DEPLOYMENT=FIELD' % item)
        running.append((name.strip(), field.strip()))
    if running and not args.kubernetes:
        parser.error('--running needs --kubernetes')
    api = None
    if args.kubernetes:
        api = deployment_access.KubernetesAccess(kube.Settings(
            kubeconfig=args.kubeconfig, context=args.context,
            namespace=args.namespace, timeout=args.kube_timeout,
            kubeconfig_option='--kubeconfig'))
    inputs = loader.Inputs(
        mappings_file=args.mappings, builtin=not args.mappings,
        version_file=args.version_file,
        version_command=args.version_command, env_file=args.env_file,
        env_list=args.env_list, env_list_name='--env-list',
        known_names_file=args.known_names,
        known_names=tuple(args.known_name), targets=tuple(args.target),
        command_timeout=args.command_timeout, kubernetes=api,
        openstackversion_name=args.openstackversion,
        version_name_option='--openstackversion',
        running_deployments=tuple(running),
        rollout_timeout=args.rollout_timeout)
    try:
        result = loader.run(inputs)
    except image_errors.ImageCheckError as exc:
        sys.stderr.write(redaction.text('%s: %s\n' % (PROG, exc)))
        return exc.exit_code
    finally:
        if api is not None:
            api.close()
    render = report.as_json if args.output == 'json' else report.as_text
    sys.stdout.write(render(result))
    return result.exit_code


if __name__ == '__main__':
    sys.exit(main())
