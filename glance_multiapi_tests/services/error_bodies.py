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

"""Error answers tempest's RestClient cannot read, reported as tempest errors.

tempest.lib's ``RestClient._error_checker`` reads the message of a 500 or
501 JSON body as ``body['error']['message']`` whenever the body has an
``error`` key. heat-api renders an exception it does not mark as safe (an
oslo.messaging MessagingTimeout when heat-engine does not answer, e.g.
during its restart) as::

    {"code": 500, "title": "Internal Server Error",
     "explanation": "The server has either erred or ...",
     "error": {"type": "MessagingTimeout", "traceback": null}}

with no ``message`` (heat/api/middleware/fault.py adds it only for safe
exceptions), so tempest raises ``KeyError: 'message'`` from inside its
client. ReadableErrors turns that, and any other lookup failure of the
checker on an unusual body, into the tempest exception of the status
(ServerFault, NotImplemented, UnexpectedResponseCode) whose message names
the service, the request, the status and the body.
"""

from tempest.lib import exceptions as lib_exc

from glance_multiapi_kernel import errors

# NOTE: enough of a body to identify it; heat's traceback field is null
# unless debug is on.
BODY_LIMIT = 600


class _Unreadable(Exception):
    """Raised by the checker, caught by request(); never leaves a client."""

    def __init__(self, resp, body, cause):
        super().__init__(str(cause))
        self.resp = resp
        self.body = body
        self.cause = cause


def _text(body):
    if isinstance(body, bytes):
        body = body.decode('utf-8', 'replace')
    return errors.one_line(body, BODY_LIMIT + 3) or '(empty)'


def unreadable_error(service, method, url, resp, body, cause):
    """The tempest exception for an error body tempest could not read."""
    status = getattr(resp, 'status', None)
    # NOTE: tempest's http layer records the full URL it requested there.
    try:
        url = resp.get('content-location') or url
    except AttributeError:
        pass
    message = ('%s answered %s to %s %s with an error body tempest cannot '
               'read (%s: %s): %s' % (service, status, method, url,
                                      type(cause).__name__, cause,
                                      _text(body)))
    if status == 500:
        return lib_exc.ServerFault(body, resp=resp, message=message)
    if status == 501:
        return lib_exc.NotImplemented(body, resp=resp, message=message)
    return lib_exc.UnexpectedResponseCode(message, resp=resp)


class ReadableErrors(object):
    """RestClient mixin: unreadable error bodies become tempest errors.

    Put it before the RestClient class in the bases.
    """

    # NOTE: what tempest's checker raises when a body lacks what it looks
    # up (body['error']['message'], or a string where it wants a dict).
    _LOOKUP_ERRORS = (KeyError, TypeError, AttributeError, IndexError)

    def _error_checker(self, resp, resp_body):
        try:
            return super()._error_checker(resp, resp_body)
        except self._LOOKUP_ERRORS as exc:
            raise _Unreadable(resp, resp_body, exc)

    def error_service_name(self):
        """How the error message names the service."""
        return self.service

    def request(self, method, url, *args, **kwargs):
        try:
            return super().request(method, url, *args, **kwargs)
        except _Unreadable as bad:
            raise unreadable_error(self.error_service_name(), method, url,
                                   bad.resp, bad.body, bad.cause) from None
