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

"""The status conditions glance-operator writes, and how to read them.

lib-common's condition model (``modules/common/condition``: the types,
reasons, severities and messages, ``Mirror`` and
``GetHigherPrioCondition``) and the conditions glance-operator's two
controllers leave at the end of a reconcile pass: a GlanceAPI CR's
(``internal/controller/glanceapi_controller.go``) and the Glance CR's
(``internal/controller/glance_controller.go``). The embedded cloud
builds its objects' status with them; the plugin reads any object's
conditions with the same words (``of``, ``not_true``, ``describe``).
Pure logic: a condition is a dict as in a CR's ``status.conditions``.

Readiness as the operator writes it has two more parts than Ready True:
the CR's ``status.observedGeneration`` must have reached its
``metadata.generation`` (each controller sets it at the start of a pass
and writes it with the conditions at its end, so until then every
condition describes an older spec; the Glance controller also holds
Ready back until every GlanceAPI's has: ``glance_controller.go``
``checkGlanceAPIsGeneration``), and a condition may be Unknown, which
means not decided yet rather than failed (``glanceapi_controller.go``
leaves DeploymentReady Unknown while its StatefulSet's generation is
unobserved). ``generation_lag`` and ``settling`` read those.

Upstream: glance-operator 65990ce, and lib-common fdcb3ee3699d, the
commit its go.mod pins (the condition code was read at 0959e9d, the
newest commit a snapshot here holds: see doc/source/
supported-versions.rst).
"""

from glance_multiapi_kernel import errors
from glance_multiapi_kernel import glance_cr

# -- lib-common modules/common/condition/conditions.go -----------------------
READY = 'Ready'
CINDER_READY = 'CinderReady'  # glance-operator api/v1beta1/conditions.go
CREATE_SERVICE_READY = 'CreateServiceReady'
CRONJOB_READY = 'CronJobReady'
DB_READY = 'DBReady'
DB_SYNC_READY = 'DBSyncReady'
DEPLOYMENT_READY = 'DeploymentReady'
GLANCE_API_READY = 'GlanceAPIReady'  # glance-operator conditions.go
INPUT_READY = 'InputReady'
KEYSTONE_ENDPOINT_READY = 'KeystoneEndpointReady'
KEYSTONE_SERVICE_READY = 'KeystoneServiceReady'
MEMCACHED_READY = 'MemcachedReady'
NETWORK_ATTACHMENTS_READY = 'NetworkAttachmentsReady'
NOTIFICATION_BUS_READY = 'NotificationBusInstanceReady'
ROLE_BINDING_READY = 'RoleBindingReady'
ROLE_READY = 'RoleReady'
SERVICE_ACCOUNT_READY = 'ServiceAccountReady'
SERVICE_CONFIG_READY = 'ServiceConfigReady'
TLS_INPUT_READY = 'TLSInputReady'

READY_REASON = 'Ready'
REQUESTED = 'Requested'
ERROR = 'Error'
INIT = 'Init'
SEVERITY_ERROR = 'Error'
SEVERITY_WARNING = 'Warning'
SEVERITY_INFO = 'Info'

SETUP_COMPLETE = 'Setup complete'  # ReadyMessage
SETUP_STARTED = 'Setup started'  # ReadyInitMessage
DEPLOYMENT_NOT_STARTED = 'Deployment not started'  # ...ReadyInitMessage
NETWORK_ATTACHMENTS_NOT_STARTED = 'NetworkAttachments not started'
DEPLOYMENT_COMPLETED = 'Deployment completed'  # DeploymentReadyMessage
DEPLOYMENT_IN_PROGRESS = 'Deployment in progress'  # ...RunningMessage
CRONJOB_NOT_STARTED = 'CronJob not started'  # CronJobReadyInitMessage
# NOTE: what each controller marks True on its way through a healthy
# pass, with the words it marks them with (lib-common's messages; the
# leading space of the memcached one is upstream's). KeystoneService- and
# KeystoneEndpointReady mirror keystone-operator's Ready ("Setup
# complete"), and so does the KeystoneEndpointReady an API without the
# keystoneEndpoint annotation marks True itself. MariaDBAccountReady
# (mariadb-operator's words) and TopologyReady (only with a topologyRef)
# are left out.
_GLANCE_TRUE = (
    (CRONJOB_READY, 'CronJob completed'),
    (DB_READY, 'DB create completed'),
    (DB_SYNC_READY, 'DBsync completed'),
    (INPUT_READY, 'Input data complete'),
    (KEYSTONE_SERVICE_READY, SETUP_COMPLETE),
    (MEMCACHED_READY, ' Memcached instance has been provisioned'),
    (NETWORK_ATTACHMENTS_READY, 'NetworkAttachments completed'),
    (NOTIFICATION_BUS_READY, 'NotificationBusInstance successfully created'),
    (ROLE_BINDING_READY, 'RoleBinding created'),
    (ROLE_READY, 'Role created'),
    (SERVICE_ACCOUNT_READY, 'ServiceAccount created'),
    (SERVICE_CONFIG_READY, 'Service config create completed'),
)
_GLANCEAPI_TRUE = (
    (CINDER_READY, 'Cinder resources exist'),
    (CREATE_SERVICE_READY, 'Create service completed'),
    (CRONJOB_READY, 'CronJob completed'),
    (INPUT_READY, 'Input data complete'),
    (KEYSTONE_ENDPOINT_READY, SETUP_COMPLETE),
    (MEMCACHED_READY, ' Memcached instance has been provisioned'),
    (NETWORK_ATTACHMENTS_READY, 'NetworkAttachments completed'),
    (SERVICE_CONFIG_READY, 'Service config create completed'),
    # NOTE: marked True with InputReady's words (glanceapi_controller.go).
    (TLS_INPUT_READY, 'Input data complete'),
)


def true(ctype, message):
    """lib-common TrueCondition (no severity: it is omitted when empty)."""
    return {'type': ctype, 'status': 'True', 'reason': READY_REASON,
            'message': message}


def false(ctype, reason, severity, message):
    """lib-common FalseCondition."""
    return {'type': ctype, 'status': 'False', 'reason': reason,
            'severity': severity, 'message': message}


def unknown(ctype, reason, message):
    """lib-common UnknownCondition."""
    return {'type': ctype, 'status': 'Unknown', 'reason': reason,
            'message': message}


def get(conds, ctype):
    """The condition of type ctype in conds, else None."""
    return next((c for c in conds if c.get('type') == ctype), None)


def ordered(conds):
    """conds as Conditions.Sort keeps them: Ready first, then by type."""
    return sorted(conds, key=lambda c: (c.get('type') != READY,
                                        str(c.get('type'))))


def _group(cond):
    """lib-common groupOrder: False by severity, Unknown, True."""
    status, severity = cond.get('status'), cond.get('severity') or ''
    if status == 'False':
        return {SEVERITY_ERROR: 0, SEVERITY_WARNING: 1,
                SEVERITY_INFO: 2}.get(severity, 5)
    return {'Unknown': 3, 'True': 4}.get(status, 5)


def mirror(conds, ctype):
    """lib-common Conditions.Mirror: conds summed up as one of type ctype.

    Ready's words when Ready is True, else those of the most severe
    group (False Error, Warning, Info, then Unknown, then True). NOTE:
    within a group upstream takes the latest lastTransitionTime; the
    stand-in's conditions share one, so the first in type order.
    """
    if not conds:
        return None
    ready = get(conds, READY)
    if ready is not None and ready.get('status') == 'True':
        return true(ctype, ready.get('message', ''))
    for group in range(6):
        members = [c for c in ordered(conds) if _group(c) == group]
        if not members:
            continue
        top = members[0]
        if top.get('status') == 'True':
            return true(ctype, top.get('message', ''))
        if top.get('status') == 'False':
            return false(ctype, top.get('reason'), top.get('severity'),
                         top.get('message', ''))
        return unknown(ctype, top.get('reason'), top.get('message', ''))
    return None


def higher_priority(first, second):
    """lib-common GetHigherPrioCondition (equal groups: the first)."""
    if first is None or second is None:
        return first if second is None else second
    return second if _group(second) < _group(first) else first


def _with_ready(conds, completed):
    """conds with Ready as the deferred status patch leaves it.

    True ("Setup complete") when the pass got to its end with every
    other condition True; else the pass left Ready Unknown, and the
    deferred patch mirrors the most severe condition into it (Ready's
    own Unknown "Setup started" when nothing else is below True).
    """
    if completed and all(c['status'] == 'True' for c in conds):
        ready = true(READY, SETUP_COMPLETE)
    else:
        ready = mirror(conds + [unknown(READY, INIT, SETUP_STARTED)],
                       READY)
    return ordered([ready] + conds)


def glanceapi_conditions(ready_count, replicas, statefulset_observed=True):
    """A GlanceAPI CR's conditions after a pass of its controller.

    DeploymentReady is True ("Deployment completed") when readyCount
    equals replicas (0 of 0 included), else False, Requested, Info,
    "Deployment in progress" (glanceapi_controller.go reconcileNormal);
    Ready mirrors it. Only when the StatefulSet's generation is observed:
    until then the controller leaves DeploymentReady and
    NetworkAttachmentsReady as it initialised them, Unknown (Init), and
    Ready mirrors that Unknown.
    """
    if statefulset_observed:
        conds = [true(ctype, message)
                 for ctype, message in _GLANCEAPI_TRUE]
        if ready_count == replicas:
            conds.append(true(DEPLOYMENT_READY, DEPLOYMENT_COMPLETED))
        else:
            conds.append(false(DEPLOYMENT_READY, REQUESTED, SEVERITY_INFO,
                               DEPLOYMENT_IN_PROGRESS))
        return _with_ready(conds, True)
    conds = [true(ctype, message) for ctype, message in _GLANCEAPI_TRUE
             if ctype != NETWORK_ATTACHMENTS_READY]
    conds += [unknown(DEPLOYMENT_READY, INIT, DEPLOYMENT_NOT_STARTED),
              unknown(NETWORK_ATTACHMENTS_READY, INIT,
                      NETWORK_ATTACHMENTS_NOT_STARTED)]
    return _with_ready(conds, True)


def api_ready(crs_conditions):
    """The GlanceAPIReady one API gives the Glance CR (apiDeployment).

    crs_conditions: the conditions of each of its GlanceAPI CRs, in the
    order apiDeployment makes them (glance_cr.glanceapi_crs). Each is
    mirrored; a split API's two give the one of higher priority.
    """
    found = None
    for conds in crs_conditions:
        found = higher_priority(mirror(conds, GLANCE_API_READY), found)
    return found


def glance_conditions(api_readies, stopped_at, apis_observed=True):
    """The Glance CR's conditions after a pass of its controller.

    api_readies: api_ready() of each API the pass reconciled, in name
    order. Each is Set on the Glance CR in turn, so GlanceAPIReady ends
    as the LAST one's (NOTE: an earlier API's failure shows only on its
    own GlanceAPI CRs). stopped_at: the API the pass refused
    (glance_cr.reconcile_pass), else None: then GlanceAPIReady is False
    with the operator's words and the pass never got to the CronJob.
    apis_observed: whether every GlanceAPI's observedGeneration has
    reached its generation; else Ready is not marked True even when
    every other condition is (checkGlanceAPIsGeneration), and the
    deferred patch leaves it Unknown, "Setup started".
    """
    conds = [true(ctype, message) for ctype, message in _GLANCE_TRUE
             if ctype != CRONJOB_READY]
    api = unknown(GLANCE_API_READY, INIT, 'GlanceAPI not started')
    for found in api_readies:
        if found is not None:
            api = dict(found)
    if stopped_at is not None:
        api = false(GLANCE_API_READY, ERROR, SEVERITY_WARNING,
                    glance_cr.SINGLE_NOT_FILE_MESSAGE)
        conds.append(unknown(CRONJOB_READY, INIT, CRONJOB_NOT_STARTED))
    else:
        conds.append(true(CRONJOB_READY, 'CronJob completed'))
    return _with_ready(conds + [api], stopped_at is None and apis_observed)


# -- reading ------------------------------------------------------------------
def of(obj):
    """The conditions of an object's status, [] when it has none.

    Anything that is not a mapping with a type is left out: a CR of
    another operator version may hold anything there.
    """
    status = obj.get('status') if isinstance(obj, dict) else None
    found = status.get('conditions') if isinstance(status, dict) else None
    if not isinstance(found, list):
        return []
    return [c for c in found if isinstance(c, dict) and c.get('type')]


def is_ready(conds):
    """Whether conds hold Ready with status True."""
    ready = get(conds, READY)
    return ready is not None and ready.get('status') == 'True'


def _count(value):
    """A generation as a count, else None (bool is no count)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return None


def generation_lag(obj):
    """(metadata.generation, status.observedGeneration) when behind.

    None when the status has caught up, or when the object has no
    metadata.generation (a document that was not read from an API
    server, e.g. a hand-written one: nothing to compare). A missing
    observedGeneration is 0, as the operators omit it when empty: no pass
    over this object has been written yet.
    """
    if not isinstance(obj, dict):
        return None
    meta = obj.get('metadata')
    generation = _count(meta.get('generation')) if isinstance(
        meta, dict) else None
    if generation is None:
        return None
    status = obj.get('status')
    observed = _count(status.get('observedGeneration')) if isinstance(
        status, dict) else None
    if observed is not None and observed >= generation:
        return None
    return generation, observed


def describe_lag(lag):
    """One phrase naming the fields and values of generation_lag()."""
    generation, observed = lag
    if observed is None:
        return ('status.observedGeneration missing, metadata.generation '
                '%d: the operator has not written a pass over this CR yet, '
                'so its conditions are not of its spec' % generation)
    return ('status.observedGeneration %d, metadata.generation %d: the '
            'operator has not written a pass over the latest spec, so its '
            'conditions describe an earlier one' % (observed, generation))


def is_settling(conds):
    """Whether Ready is Unknown: the operator has not decided yet.

    Unknown is how a pass leaves what it did not get to (lib-common
    Init), as opposed to False, a finding of the pass.
    """
    ready = get(conds, READY)
    return ready is not None and ready.get('status') == 'Unknown'


def not_true(conds):
    """The conditions whose status is not True, Ready first."""
    return [c for c in ordered(conds) if c.get('status') != 'True']


def describe(cond):
    """One line: 'Ready=False (Error, Warning): message'."""
    detail = ', '.join(str(cond[key]) for key in ('reason', 'severity')
                       if cond.get(key))
    text = '%s=%s' % (cond.get('type'), cond.get('status'))
    if detail:
        text += ' (%s)' % detail
    message = errors.one_line(cond.get('message') or '')
    return '%s: %s' % (text, message) if message else text
