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

"""What a cloud's state.json holds, typed: one dataclass per record.

``Record`` is the whole file: the spec the cloud runs, the options ``up``
was given (``Options``, a field per setting the components declare), its
ports and passwords, its Kubernetes API's identities and names
(``Kube``), and what reconciling wrote (the
published endpoints, the pass the Glance controller played, the route,
the API keys). ``from_json`` reads a document (a field missing takes its
default: a state written by an earlier release loads), refusing a field
it does not know or of the wrong type with one line naming it;
``to_json`` writes it back. Pure: state.py does the file's I/O.
"""

import dataclasses
import typing

from glance_multiapi_cloud import components
from glance_multiapi_cloud.kubeapi import embedded


class RecordError(ValueError):
    """A document that is not a cloud's record; the message says where."""


# NOTE: one field per option of ``up`` (components.settings(): the cloud's
# own and those each component declares), with the setting's type and
# default and the Setting itself in the field's metadata.
Options = dataclasses.make_dataclass('Options', [
    (setting.field, setting.kind, dataclasses.field(
        default=setting.default, metadata={'setting': setting}))
    for setting in components.settings().values()])
Options.__module__ = __name__
Options.__doc__ = """What ``up`` was asked for, kept for every later verb."""


@dataclasses.dataclass
class Kube:
    """The embedded Kubernetes API's identities, names and versions."""

    namespace: str = embedded.NAMESPACE
    # NOTE: the kubeconfig's token; tokens: token -> service account;
    # secrets: token Secret -> token; rules: account -> its Role rules
    # (None: every request allowed, no RBAC manifest given).
    token: str = ''
    tokens: dict = dataclasses.field(default_factory=dict)
    secrets: dict = dataclasses.field(default_factory=dict)
    rules: typing.Optional[dict] = None
    account: str = ''
    uid_seed: str = ''
    created: str = ''
    # NOTE: metadata.generation of the Glance CR and the control plane.
    generation: int = 1
    # NOTE: metadata.generation of each API's GlanceAPI CRs, one more at
    # each pass that changes the API (deployed.advance); and the
    # status.observedGeneration the controllers' last written pass says,
    # {'glance': n, 'apis': {api: n}}: observed_before until the time
    # observed_after, observed from then on (deployed.observe).
    api_generations: dict = dataclasses.field(default_factory=dict)
    observed: dict = dataclasses.field(default_factory=dict)
    observed_before: dict = dataclasses.field(default_factory=dict)
    observed_after: float = 0.0
    # NOTE: with heat: the digest its images are named by (kubeapi/
    # embedded/heat.py).
    heat_digest: typing.Optional[str] = None


@dataclasses.dataclass
class Record:
    """Everything one cloud knows about itself (state.json)."""

    spec: dict
    options: Options = dataclasses.field(default_factory=Options)
    # NOTE: [[fault name, arg or None], ...] (faults.parse).
    faults: list = dataclasses.field(default_factory=list)
    # NOTE: the Glance CR's metadata.annotations the operator reads.
    annotations: dict = dataclasses.field(default_factory=dict)
    base_port: typing.Optional[int] = None
    port_block: typing.Optional[int] = None
    ports: dict = dataclasses.field(default_factory=dict)
    passwords: dict = dataclasses.field(default_factory=dict)
    # NOTE: this machine's measured speed (speed.py), for the holds.
    speed: typing.Optional[dict] = None
    kube: Kube = dataclasses.field(default_factory=Kube)
    # NOTE: what the last reconcile published (status.apiEndpoint), for
    # which spec, when, and the pass the Glance controller played
    # (deployed.py).
    status: dict = dataclasses.field(default_factory=dict)
    reconciled_spec: typing.Optional[dict] = None
    reconciled_at: typing.Optional[float] = None
    deployed: typing.Optional[dict] = None
    # NOTE: {'api': the API the public route leads to} (router.py).
    route: typing.Optional[dict] = None
    # NOTE: API -> the key its database rows were made with (glance.py).
    api_keys: dict = dataclasses.field(default_factory=dict)
    startup_seconds: typing.Optional[float] = None
    startup_steps: dict = dataclasses.field(default_factory=dict)

    def to_json(self):
        """The record as the JSON document state.json holds."""
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, document, where='state.json'):
        """The Record of a document; RecordError naming what is wrong."""
        if not isinstance(document, dict) or not isinstance(
                document.get('spec'), dict):
            raise RecordError('%s is not the record of a cloud (no spec)'
                              % where)
        values = _fields(cls, document, where)
        for name, kind in (('options', Options), ('kube', Kube)):
            if name in values:
                values[name] = kind(**_fields(kind, values[name],
                                              '%s: %s' % (where, name)))
        return cls(**values)


# NOTE: what a JSON value of each annotated type may be; bool is no int.
_JSON_TYPES = {
    bool: (bool,), int: (int,), float: (int, float), str: (str,),
    dict: (dict,), list: (list,),
}


def _fields(kind, document, where):
    """{field: value} of document for dataclass kind, types checked."""
    if not isinstance(document, dict):
        raise RecordError('%s: expected an object, got %s' % (
            where, _kind(document)))
    known = {f.name: f for f in dataclasses.fields(kind)}
    unknown = sorted(set(document) - set(known))
    if unknown:
        raise RecordError('%s: %s not known to this release (written by '
                          'another one? run "down" with it)' % (
                              where, ', '.join(unknown)))
    values = {}
    for name, value in document.items():
        wanted = _allowed(known[name].type)
        if value is None and None in wanted:
            values[name] = None
            continue
        if wanted and not _matches(value, wanted):
            raise RecordError('%s: %s is %s, not what this release '
                              'writes' % (where, name, _kind(value)))
        values[name] = value
    return values


def _allowed(annotation):
    """The Python types (and None) a field's annotation admits."""
    if annotation in (Options, Kube):
        return (dict,)
    args = typing.get_args(annotation)
    if args:
        found = []
        for arg in args:
            found += [None] if arg is type(None) else list(
                _JSON_TYPES.get(arg, ()))
        return tuple(found)
    return _JSON_TYPES.get(annotation, ())


def _kind(value):
    """What a JSON value is, in words."""
    if isinstance(value, bool):
        return 'true or false'
    for types, words in (((int, float), 'a number'), ((str,), 'a string'),
                         ((list,), 'a list'), ((dict,), 'an object')):
        if isinstance(value, types):
            return words
    return 'null' if value is None else type(value).__name__


def _matches(value, wanted):
    if isinstance(value, bool):
        return bool in wanted
    return isinstance(value, tuple(t for t in wanted if t is not None))
