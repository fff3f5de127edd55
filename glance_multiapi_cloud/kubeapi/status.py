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

"""The Status documents of the Kubernetes API stand-in's refusals.

The kinds, reasons and messages of the API server (k8s.io/apimachinery
errors), so that a client reading them, kubectl or the kubernetes
Python client, reports them as it would a cluster's.
"""


def status(code, reason, message, details=None):
    """A v1 Status of a failure."""
    body = {'kind': 'Status', 'apiVersion': 'v1', 'metadata': {},
            'status': 'Failure', 'message': message, 'reason': reason,
            'code': code}
    if details is not None:
        body['details'] = details
    return body


def _details(name, group, kind):
    details = {'kind': kind}
    if name:
        details['name'] = name
    if group:
        details['group'] = group
    return details


def qualified(group, resource):
    """deployments.apps, configmaps: how the API server names a resource."""
    return '%s.%s' % (resource, group) if group else resource


def unauthorized():
    return status(401, 'Unauthorized', 'Unauthorized')


def forbidden(user, verb, group, resource, name, namespace):
    """403 with the API server's wording (RBAC denial)."""
    subject = qualified(group, resource)
    if name:
        subject += ' "%s"' % name
    scope = ('in the namespace "%s"' % namespace if namespace
             else 'at the cluster scope')
    message = ('%s is forbidden: User "%s" cannot %s resource "%s" in API '
               'group "%s" %s' % (subject, user, verb, resource, group,
                                  scope))
    return status(403, 'Forbidden', message,
                  _details(name, group, resource))


def not_found(group, resource, name):
    return status(404, 'NotFound', '%s "%s" not found' % (
        qualified(group, resource), name), _details(name, group, resource))


def no_such_path():
    return status(404, 'NotFound', 'the server could not find the '
                  'requested resource', {})


def method_not_allowed(verb):
    return status(405, 'MethodNotAllowed', 'the server does not allow this '
                  'method on the requested resource (%s is not served by '
                  'this stand-in)' % verb, {})


def unsupported_media_type(content_type):
    return status(415, 'UnsupportedMediaType', 'the body of the request '
                  'was in an unknown format (%s) - accepted media types '
                  'include: application/merge-patch+json' % (
                      content_type or 'no Content-Type'), {})


def bad_request(message):
    return status(400, 'BadRequest', message)


def invalid(group, kind, name, reason, field='spec'):
    """422 as an admission webhook's apierrors.NewInvalid comes back."""
    message = '%s.%s "%s" is invalid: %s: %s' % (
        kind, group, name, field, reason)
    details = _details(name, group, kind)
    details['causes'] = [{'reason': 'FieldValueInvalid',
                          'message': reason, 'field': field}]
    return status(422, 'Invalid', message, details)


def internal_error(message):
    return status(500, 'InternalError', 'Internal error occurred: %s' %
                  message, {'causes': [{'message': message}]})
