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

"""glance-multiapi-cloud: an embedded real cloud for the suite."""

import argparse
import json
import os
import sys

import yaml

from glance_multiapi_kernel import documents
from glance_multiapi_kernel import errors as cli_errors
from glance_multiapi_kernel import input_files
from glance_multiapi_kernel import interrupts
from glance_multiapi_kernel import redaction
from glance_multiapi_kernel import shared_files
from glance_multiapi_cloud import cloud
from glance_multiapi_cloud import components
from glance_multiapi_cloud.components import glance
from glance_multiapi_cloud.components import heat
from glance_multiapi_cloud import deployed
from glance_multiapi_cloud import errors
from glance_multiapi_cloud import faults as faults_mod
from glance_multiapi_cloud.kubeapi.embedded import glance as kubeglance
from glance_multiapi_cloud.kubeapi.embedded import heat as kubeheat
from glance_multiapi_cloud import processes
from glance_multiapi_cloud import record as record_mod
from glance_multiapi_cloud import spec as spec_mod
from glance_multiapi_cloud import state as state_mod
from glance_multiapi_kernel import version

PROG = 'glance-multiapi-cloud'
DEFAULT_STATE_DIR = '.glance-multiapi-cloud'
DEFAULT_SPEC = os.path.join('etc', 'glance-multiapi-cloud.yaml')


def _default_spec_text():
    path = DEFAULT_SPEC
    if not os.path.exists(path):
        # NOTE: outside the source tree: its etc/, or the installed copy
        # (setup.cfg's data_files, share/glance-multiapi-tests/etc).
        path = shared_files.find(DEFAULT_SPEC)
    if path:
        with open(path) as f:
            return f.read(), path
    # NOTE: an installed wheel may lack etc/; this is the same demo spec.
    return json.dumps(DEMO_SPEC), '<built-in demo spec>'


def _api_spec(api_type, default, stores):
    return {'type': api_type, 'replicas': 1, 'customServiceConfig': (
        '[DEFAULT]\nenabled_backends = %s\n[glance_store]\n'
        'default_backend = %s\n' % (
            ', '.join('%s:rbd' % s for s in stores), default))}


# NOTE: the DCN layout of etc/glance-multiapi-cloud.yaml.
DEMO_SPEC = {'keystoneEndpoint': 'api0', 'glanceAPIs': {
    'api0': _api_spec('split', 'ceph0', ('ceph0', 'ceph2')),
    'api1': _api_spec('split', 'ceph1', ('ceph1',)),
    'edge0': _api_spec('edge', 'ceph2', ('ceph0', 'ceph2'))}}


class _UpSettings(object):
    """Adds the flags of the settings the components declare to ``up``.

    NOTE: in the order of ``up --help`` as users know it, the cloud's own
    options among them; a setting this order does not place (a new
    component's) comes last.
    """

    def __init__(self, parser):
        self.parser = parser
        self.left = components.settings()

    def add(self, *fields):
        for field in fields:
            self.left.pop(field).add_to(self.parser)

    def add_the_rest(self):
        self.add(*list(self.left))


def build_parser():
    common = cli_errors.OneLineParser(add_help=False)
    common.add_argument(
        '--state-dir', default=argparse.SUPPRESS,
        help='folder holding the cloud (default: $GLANCE_MULTIAPI_CLOUD_DIR'
             ' or ./%s)' % DEFAULT_STATE_DIR)
    parser = cli_errors.OneLineParser(
        prog=PROG, parents=[common],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description='Run a real Keystone, N real Glance APIs (one per API '
                    'of a Glance CR-shaped spec), a real OCI registry and '
                    'an HTTP file server on loopback, and reconcile them '
                    'like the glance-operator.',
        epilog=errors.EXIT_CODES_HELP + '\nfaults:\n' +
        faults_mod.describe())
    version.add_option(parser)
    verbs = parser.add_subparsers(dest='verb', metavar='VERB')
    verbs.required = True
    fault_help = 'inject a fault NAME or NAME=API (repeatable; see faults)'

    up = verbs.add_parser('up', parents=[common], help='start a cloud',
                          epilog=errors.EXIT_CODES_HELP + '\nfaults:\n' +
                          faults_mod.describe(),
                          formatter_class=argparse.RawDescriptionHelpFormatter)
    up.add_argument('--spec', help='YAML spec shaped like a Glance CR spec, '
                                   'or a whole Glance CR (its metadata.'
                                   'annotations count too) (default: %s)'
                    % DEFAULT_SPEC)
    up.add_argument('--fault', action='append', default=[], help=fault_help)
    settings = _UpSettings(up)
    settings.add('registry', 'fileserver')
    up.add_argument('--base-port', type=int,
                    help='use ports from this one up, failing if one is '
                         'busy (default: any free ports)')
    up.add_argument('-q', '--quiet', action='store_true',
                    help='print only errors, not the status table')
    settings.add('heat', 'heat_state', 'tls', 'heat_profile',
                 'heat_rpc_timeout')
    up.add_argument('--kube-role', metavar='FILE', action='append',
                    default=[],
                    help='RBAC manifests (ServiceAccounts, their token '
                         'Secrets, Roles, RoleBindings; repeatable) that '
                         'authorise every request to the Kubernetes API, '
                         'e.g. etc/test-operator/rbac.yaml; each token '
                         'Secret gets a token of its own (in '
                         'state.json); default: all allowed')
    settings.add('kube_account', 'kube_namespace')
    settings.add_the_rest()
    restart = verbs.add_parser(
        'restart', parents=[common],
        help='stop one service gracefully and start it again on its ports')
    restart.add_argument('service', help='keystone, glance-API, registry, '
                         'fileserver, or with heat: %s' % ', '.join(
                             heat.RESTARTABLE))

    verbs.add_parser('down', parents=[common],
                     help='stop what this state dir started')
    status = verbs.add_parser('status', parents=[common],
                              help='which services are up and ready')
    status.add_argument('-o', '--output', choices=['text', 'json'],
                        default='text')
    get = verbs.add_parser('get', parents=[common],
                           help='print the Glance CR-shaped document')
    get.add_argument('-o', '--output', choices=['json', 'yaml'],
                     default='yaml')
    patch = verbs.add_parser('patch', parents=[common],
                             help='merge-patch the spec and reconcile')
    patch.add_argument('--type', choices=['merge'], default='merge')
    patch.add_argument('-p', '--patch', help='JSON merge patch of the '
                                             'object, e.g. \'{"spec": '
                                             '{"keystoneEndpoint": "api1"}}\'')
    patch.add_argument('--fault', action='append', default=[],
                       help=fault_help)
    patch.add_argument('--clear-faults', action='store_true',
                       help='remove every injected fault first')
    patch.add_argument('--heat-state', choices=tuple(kubeheat.STATES),
                       help='put heat\'s images in this state from now on, '
                            'as an operator whose defaults changed, a user '
                            'who overrides them or an update would (see up '
                            '--heat-state)')
    return parser


def _state_dir(args):
    return getattr(args, 'state_dir', None) or os.environ.get(
        'GLANCE_MULTIAPI_CLOUD_DIR') or DEFAULT_STATE_DIR


def _read_spec(path):
    if not path:
        return _default_spec_text()
    try:
        return input_files.read_text(path, 'spec'), path
    except input_files.InputFileError as exc:
        raise errors.Invalid(str(exc)) from None


def status_report(state):
    """Every service of the cloud: running, ready, URLs."""
    state.load()
    report = {'state_dir': state.root, 'services': cloud.status(state),
              'apis': {}}
    doc = kubeglance.document(state)
    spec = doc['spec']
    endpoints = doc['status'].get('apiEndpoint', {})
    running = deployed.apis(state)
    catalog_api = deployed.catalog_api(state)
    for api, api_spec in sorted(spec['glanceAPIs'].items()):
        pid = processes.pid_of(state, glance.api_service(api))
        report['apis'][api] = {
            'type': api_spec['type'],
            'store': spec_mod.api_stores(spec, api)[0],
            'stores': spec_mod.api_stores(spec, api)[1],
            'public': endpoints.get(api + '-public'),
            'internal': endpoints.get(api + '-internal'),
            'in_catalog': api == catalog_api,
            # NOTE: False when the Glance controller stopped before it
            # (the Glance CR's conditions say why).
            'deployed': api in running,
            'running': bool(pid),
            'ready': api in running and glance.api_ready(state, api)}
    report['faults'] = ['%s=%s' % tuple(f) if f[1] else f[0]
                        for f in state.record.faults]
    report['startup'] = {'seconds': state.record.startup_seconds,
                         'steps': state.record.startup_steps}
    return report


def _print_status(report, out):
    out.write('state dir: %s\n' % report['state_dir'])
    for name, item in report['services'].items():
        out.write('%-12s %-8s %s\n' % (name, 'ready' if item['ready'] else
                                       ('running' if item['running'] else
                                        'DOWN'), item['url']))
    for api, item in report['apis'].items():
        out.write('%-12s %-8s type=%s store=%s public=%s internal=%s%s%s\n'
                  % ('api ' + api, 'ready' if item['ready'] else 'DOWN',
                     item['type'], item['store'], item['public'],
                     item['internal'],
                     ' (in catalog)' if item['in_catalog'] else '',
                     '' if item['deployed'] else ' (not deployed: see the '
                     'Glance CR\'s conditions, get -o json)'))
    if report['faults']:
        out.write('faults: %s\n' % ', '.join(report['faults']))


def _print_summary(state, out):
    report = status_report(state)
    _print_status(report, out)
    slowest = sorted(report['startup']['steps'].items(),
                     key=lambda kv: -kv[1])[:3]
    if slowest:
        # NOTE: the whole list is in status -o json (startup).
        out.write('slowest steps of up: %s\n' % ', '.join(
            '%s %.1f s' % kv for kv in slowest))
    out.write(
        'up in %.1f s. Use it:\n'
        '  export OS_CLIENT_CONFIG_FILE=%s OS_CLOUD=demo\n'
        '  cd %s && tempest run --regex glance_multiapi_tests\n'
        '  %s --state-dir %s down\n' % (
            state.record.startup_seconds or 0, state.path('clouds.yaml'),
            state.path('tempest'), PROG, state.root))


# NOTE: the verbs that only read a cloud; they write nothing at all.
READ_ONLY_VERBS = ('status', 'get')


class _Redacted(object):
    """A stream each write to which goes through the kernel redaction."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, text):
        return self.stream.write(redaction.text(text))

    def flush(self):
        self.stream.flush()


def run(args, out):
    # NOTE: what the cloud says of itself (up's steps, status, patch)
    # is redacted; get prints the object as an API server answers it,
    # customServiceConfig as the spec gave it (doc/source/cli.rst).
    if args.verb != 'get':
        out = _Redacted(out)
    state = state_mod.State(_state_dir(args),
                            read_only=args.verb in READ_ONLY_VERBS)
    if args.verb == 'up':
        text, source = _read_spec(args.spec)
        options = record_mod.Options(**{
            field: getattr(args, field) for field in components.settings()})
        cloud.up(state, cloud.UpRequest(
            spec_text=text, spec_source=source, options=options,
            fault_args=tuple(args.fault), base_port=args.base_port,
            kube_roles=tuple(args.kube_role)),
            log=lambda msg: out.write(msg + '\n'))
        if not args.quiet:
            _print_summary(state, out)
    elif args.verb == 'restart':
        state.load()
        with cloud.locked(state):
            stop, start = cloud.restart(state, args.service)
        out.write('%s restarted in %.1f s (stopped in %.1f s, ready again '
                  '%.1f s later)\n' % (args.service, stop + start, stop,
                                       start))
    elif args.verb == 'down':
        stopped = cloud.down(state)
        out.write('stopped: %s\n' % (', '.join(stopped) or 'nothing was '
                                     'running'))
    elif args.verb == 'status':
        report = status_report(state)
        if args.output == 'json':
            out.write(json.dumps(redaction.value(report), indent=2,
                                 sort_keys=True) + '\n')
        else:
            _print_status(report, out)
        return 0 if all(item['ready'] for item in list(
            report['services'].values()) + list(report['apis'].values())
            if item.get('running', True)) else errors.EXIT_FAILED
    elif args.verb == 'get':
        doc = kubeglance.document(state)
        if args.output == 'json':
            json.dump(doc, out, indent=2, sort_keys=True)
            out.write('\n')
        else:
            yaml.safe_dump(doc, out, default_flow_style=False)
    elif args.verb == 'patch':
        if args.patch is None and not (args.fault or args.clear_faults or
                                       args.heat_state):
            raise errors.CloudError('patch needs -p JSON, --fault, '
                                    '--clear-faults or --heat-state',
                                    errors.EXIT_USAGE)
        acted = cloud.patch(state, patch_text=args.patch,
                            fault_args=args.fault,
                            clear_faults=args.clear_faults,
                            heat_state=args.heat_state)
        out.write('glance.glance.openstack.org/glance patched%s\n' % (
            '' if acted else ' (not reconciled: fault patch-not-reconciled)'))
    return 0


def main(argv=None):
    # NOTE: SIGINT and SIGTERM end it in one line, exit 130 or 143; an
    # interrupted up stops what it started (cloud.up).
    with interrupts.ending_cleanly(PROG) as ended:
        return _main(argv)
    return ended['code']


def _main(argv):
    parser = build_parser()
    args = parser.parse_args(argv)
    # NOTE: confs, keys, databases and logs of the cloud (and of the
    # services it starts, which inherit this) are for this user only.
    os.umask(0o077)
    try:
        return run(args, sys.stdout)
    except errors.CloudError as exc:
        _error('%s: error: %s' % (PROG, exc))
        return exc.exit_code
    except spec_mod.SpecError as exc:
        _error('%s: error: %s' % (PROG, exc))
        return errors.EXIT_INVALID
    except Exception as exc:  # noqa: B902 - one line, never a traceback
        gone = cli_errors.working_folder_problem()
        if gone:
            _error('%s: error: %s' % (PROG, gone))
            return errors.EXIT_USAGE
        _error('%s: internal error: %s: %s' % (
            PROG, type(exc).__name__, documents.short(str(exc), 300)))
        return errors.EXIT_INTERNAL


def _error(line):
    """The one line of a failed run, on stderr, with no secret in it."""
    sys.stderr.write(redaction.text(line) + '\n')


if __name__ == '__main__':
    sys.exit(main())
