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

"""The services of the embedded cloud, one module each, devstack-style.

Every component module offers the same module-level verbs, so that
cloud.py drives them all alike; a verb with nothing to do for a service
is a no-op there:

``enabled(state)``
    Whether this cloud runs the component (``up`` options).
``binaries_needed(state)``
    Raise MissingBinary before anything starts if a program is missing.
``prepare(state)``
    Its files and databases in the state dir (copied from a bootstrap
    template); a line to tell the user (a template was built) or None.
``start(state)``
    Start its processes without waiting; the names started.
``wait_ready(state, started)``
    Wait until those of the started names that are its own answer.
``register(state, admin)``
    Its users, services and endpoints in keystone (admin.Admin).
``reconcile(state)``
    Make it match the spec and faults again (after ``patch``, and at the
    end of ``up``).
``stop(state)``
    Stop its processes; the names that were running. The components of
    one of the stop_waves() stop at once, in threads.
``status(state)``
    ``{service: {'url', 'running', 'ready'}}`` for ``status``.
``tempest_options(state, sections, cli)``
    Add to the tempest.conf ``sections`` ({group: {option: value}}); cli
    is how tempest calls this cloud's CLI.
``restartable(state)``
    The names ``restart`` takes for it on this cloud.
``restart(state, name)``
    Restart name on its own ports; (seconds to stop, seconds until ready
    again), or None when name is not one of its services.

and its ``ENTRIES``: the entries of the state dir it writes (``up``
clears them before it starts a cloud again in that dir).

A new service is one more module here with these verbs, and one more
Component in COMPONENTS, in start order: the options of ``up`` it owns
(a Setting each: its field of record.Options, its flag and help, and
which service of the OpenStackControlPlane it turns on, if it does) and
whether it stops before the others. Nothing else lists it: record.Options
takes its fields from here, cli.py its flags, cloud.py the state-dir
entries and the stop waves, the Kubernetes API's control plane which
services are on (the unit tests check that every module is declared and
has every verb).
"""

import dataclasses
import importlib
import math
import typing

from glance_multiapi_kernel import errors as cli_errors
from glance_multiapi_cloud import heatconf
from glance_multiapi_cloud.kubeapi import embedded
from glance_multiapi_cloud.kubeapi.embedded import heat as kubeheat

VERBS = ('enabled', 'binaries_needed', 'prepare', 'start', 'wait_ready',
         'register', 'reconcile', 'stop', 'status', 'tempest_options',
         'restartable', 'restart')


@dataclasses.dataclass(frozen=True)
class Setting:
    """One option of ``up``: a field of record.Options and its flag.

    kind: the field's type (bool, int, str, typing.Optional[str]); a bool
    is a flag that turns default around; parse, choices and metavar are
    argparse's type, choices and metavar; controlplane: the service of
    the OpenStackControlPlane's spec that this bool turns on.
    """

    field: str
    kind: typing.Any
    default: typing.Any
    flag: str
    help: str
    parse: typing.Optional[typing.Callable] = None
    choices: typing.Optional[tuple] = None
    metavar: typing.Optional[str] = None
    controlplane: typing.Optional[str] = None

    def add_to(self, parser):
        """Add the flag to an argparse parser, its value in args.<field>."""
        options = {'dest': self.field, 'default': self.default,
                   'help': self.help}
        if self.kind is bool:
            options['action'] = 'store_false' if self.default else \
                'store_true'
        for key, value in (('type', self.parse), ('choices', self.choices),
                           ('metavar', self.metavar)):
            if value is not None:
                options[key] = value
        parser.add_argument(self.flag, **options)


@dataclasses.dataclass(frozen=True)
class Component:
    """A service of the cloud: its module's name and what it declares."""

    name: str
    settings: tuple = ()
    # NOTE: stops in the first wave, before the others stop together.
    stops_first: bool = False


def _whole_seconds(text):
    """argparse type: positive seconds, rounded up (oslo's IntOpt)."""
    return int(math.ceil(cli_errors.positive_seconds(text)))


# NOTE: start order. Keystone first: everything registers with it. The
# broker takes ~16 s to boot; start it next. The Glance APIs need
# keystone only once requests come, so they load while keystone does;
# this halves the start-up time. (The others start in milliseconds;
# their order is that of the lines of "status" and of tempest.conf.) The
# route after glance: it forwards to an API's Service (glance's reconcile
# places it before it publishes). The Kubernetes API last: it serves what
# the others are. heat stops first: its engine drains over RPC before
# the broker goes (and may still call the other services while it does);
# the others then stop together, as fast as the slowest of them.
COMPONENTS = (
    Component('keystone'),
    Component('rabbitmq'),
    Component('registry', (
        Setting('registry', bool, True, '--no-registry',
                'do not start the OCI registry'),)),
    Component('fileserver', (
        Setting('fileserver', bool, True, '--no-fileserver',
                'do not start the HTTP file server'),)),
    Component('heat', (
        Setting('heat', bool, False, '--with-heat',
                'also run heat-api, heat-api-cfn and heat-engine (one '
                'openstack-heat package) with RabbitMQ',
                controlplane='heat'),
        Setting('heat_state', str, kubeheat.DEFAULT_STATE,
                '--heat-state',
                'the state of heat\'s images, as the OpenStackVersion, the '
                'Deployments and their pods show them: %s (default: '
                '%%(default)s)' % '; '.join(
                    '"%s" %s' % (name, help_text) for name, (help_text, _m)
                    in kubeheat.STATES.items()),
                choices=tuple(kubeheat.STATES)),
        Setting('heat_profile', str, heatconf.DEFAULT_PROFILE,
                '--heat-profile',
                'heat.conf of --with-heat: "operator" as the heat-operator '
                'renders it (4 engine workers, quorum queues), "embedded" '
                "one worker and oslo.messaging's queue manager (default: "
                '%(default)s)', choices=tuple(sorted(heatconf.PROFILES))),
        Setting('heat_rpc_timeout', int, heatconf.RPC_TIMEOUT,
                '--heat-rpc-timeout',
                'how long heat-api waits for heat-engine '
                '(rpc_response_timeout; default %(default)s): the tests '
                'that stop the engine wait less with a short one',
                parse=_whole_seconds, metavar='SECONDS'),
    ), stops_first=True),
    Component('glance'),
    Component('router'),
    Component('kubeapi', (
        Setting('kube_account', typing.Optional[str], None,
                '--kube-service-account',
                'the service account the kubeconfig acts as (default: the '
                'only one --kube-role binds)', metavar='NAME'),
        Setting('kube_namespace', str, embedded.NAMESPACE,
                '--kube-namespace',
                'namespace of the control plane\'s objects and of the RBAC '
                'manifests (default: %(default)s)', metavar='NAMESPACE'),
    )),
)

# NOTE: the one setting of up no component owns: every listener's scheme
# (tlsmode.py).
TLS = Setting('tls', bool, False, '--tls',
              'serve keystone and every Glance API (public and internal) '
              'over https, signed by the CA of this cloud '
              '(STATE_DIR/tls/ca.crt), as the operators deploy by default')


def settings():
    """{field: Setting} of every option of ``up``, components' in order."""
    found = {TLS.field: TLS}
    for comp in COMPONENTS:
        found.update((setting.field, setting) for setting in comp.settings)
    return found


def modules():
    """The component modules, in start order."""
    return [importlib.import_module('%s.%s' % (__name__, comp.name))
            for comp in COMPONENTS]


def enabled(state):
    """The components this cloud runs, in start order."""
    return [comp for comp in modules() if comp.enabled(state)]


def stop_waves():
    """The component modules in the waves they stop in, one after another.

    The components of one wave stop at once, in threads.
    """
    first, then = [], []
    for comp, module in zip(COMPONENTS, modules()):
        (first if comp.stops_first else then).append(module)
    return [wave for wave in (first, then) if wave]
