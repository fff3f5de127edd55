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

Upstream: lib-common 0959e9d (the module glance-operator 65990ce pins),
glance-operator 65990ce.
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
    deferred patch mirrors the most severe condition into it.
    """
    if completed and all(c['status'] == 'True' for c in conds):
        ready = true(READY, SETUP_COMPLETE)
    else:
        ready = mirror(conds + [unknown(READY, INIT, 'Setup started')],
                       READY)
    return ordered([ready] + conds)


def glanceapi_conditions(ready_count, replicas):
    """A GlanceAPI CR's conditions after a pass of its controller.

    DeploymentReady is True ("Deployment completed") when readyCount
    equals replicas (0 of 0 included), else False, Requested, Info,
    "Deployment in progress" (glanceapi_controller.go reconcileNormal);
    Ready mirrors it.
    """
    conds = [true(ctype, message) for ctype, message in _GLANCEAPI_TRUE]
    if ready_count == replicas:
        conds.append(true(DEPLOYMENT_READY, DEPLOYMENT_COMPLETED))
    else:
        conds.append(false(DEPLOYMENT_READY, REQUESTED, SEVERITY_INFO,
                           DEPLOYMENT_IN_PROGRESS))
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


def glance_conditions(api_readies, stopped_at):
    """The Glance CR's conditions after a pass of its controller.

    api_readies: api_ready() of each API the pass reconciled, in name
    order. Each is Set on the Glance CR in turn, so GlanceAPIReady ends
    as the LAST one's (NOTE: an earlier API's failure shows only on its
    own GlanceAPI CRs). stopped_at: the API the pass refused
    (glance_cr.reconcile_pass), else None: then GlanceAPIReady is False
    with the operator's words and the pass never got to the CronJob.
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
    return _with_ready(conds + [api], stopped_at is None)


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
