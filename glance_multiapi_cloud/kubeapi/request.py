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

"""What a request to the Kubernetes API stand-in asks, and its answer.

The verb and resource read from the path (against the stand-in's
``resources.Resources``), the answer raised as a Response, and the body
of a get or list: JSON, or a Table when kubectl asks for one. A list
honours labelSelector as the API server parses it.
"""

import datetime
import json
import re

from glance_multiapi_cloud.kubeapi import resources as resources_mod
from glance_multiapi_cloud.kubeapi import status
from glance_multiapi_cloud.kubeapi import tables

MERGE_PATCH = 'application/merge-patch+json'
VERBS_BY_METHOD = {'GET': 'get', 'PATCH': 'patch', 'PUT': 'update',
                   'POST': 'create', 'DELETE': 'delete'}


class Response(Exception):
    """An answer: HTTP code and JSON body (raised to stop early)."""

    def __init__(self, code, body):
        super().__init__(code)
        self.code = code
        self.body = body


class Request(object):
    """What a resource request asks for, parsed from its path.

    served: the stand-in's resources.Resources; a path of a resource it
    does not serve is a 404 Response, as on an API server without the
    CRD.
    """

    def __init__(self, method, path, query, served):
        self.method = method
        self.query = query
        self.resource = None
        self.namespace = None
        self.name = None
        self.group = self.version = None
        self.discovery = False
        # NOTE: set once the token is known (the audit log names who).
        self.user = None
        parts = [p for p in path.split('/') if p]
        self._parse(parts, served)
        verb = VERBS_BY_METHOD.get(method, method.lower())
        if method == 'GET' and not self.name:
            verb = 'list'
        if method == 'DELETE' and not self.name:
            verb = 'deletecollection'
        if method == 'GET' and query.get('watch', [''])[0] in ('1', 'true'):
            verb = 'watch'
        self.verb = verb

    def _parse(self, parts, served):
        if parts[:2] == ['api', 'v1']:
            group, version, rest = '', 'v1', parts[2:]
        elif parts[:1] == ['apis'] and len(parts) >= 3:
            group, version, rest = parts[1], parts[2], parts[3:]
        else:
            self.discovery = True
            return
        self.group, self.version = group, version
        if not rest:
            self.discovery = True
            return
        if rest[0] == 'namespaces' and len(rest) >= 3:
            self.namespace, plural, tail = rest[1], rest[2], rest[3:]
        else:
            plural, tail = rest[0], rest[1:]
        self.resource = served.find(group, version, plural)
        if self.resource is None or len(tail) > 1:
            raise Response(404, status.no_such_path())
        self.name = tail[0] if tail else None
        if self.namespace and not self.resource.namespaced:
            raise Response(404, status.no_such_path())
        # NOTE: a namespaced object has no cluster-wide path; only the
        # collection may be listed across namespaces.
        if self.name and self.resource.namespaced and not self.namespace:
            raise Response(404, status.no_such_path())

    def audit(self, code):
        """The audit log's record of this request and its answer."""
        return {'verb': self.verb, 'apiGroup': self.resource.group,
                'resource': self.resource.plural, 'name': self.name or '',
                'namespace': self.namespace or '', 'code': code,
                'user': self.user or ''}


def json_body(body):
    """The JSON document of a request body (None when empty).

    Not JSON: a 400 Response.
    """
    try:
        return json.loads(body or b'null')
    except ValueError as exc:
        raise Response(400, status.bad_request(
            'error decoding body: %s' % exc))


def content_type(headers):
    """The media type of a request body, without its parameters."""
    return (headers.get('Content-Type') or '').split(';')[0].strip()


_SET_RE = re.compile(r'^\s*(!?)\s*([A-Za-z0-9_./-]+)\s*(?:(notin|in)\s*'
                     r'\(([^()]*)\))?\s*$')
_EQ_RE = re.compile(r'^\s*([A-Za-z0-9_./-]+)\s*(==|!=|=)\s*'
                    r'([A-Za-z0-9_.-]*)\s*$')


def _requirements(text):
    """Split a label selector at the commas outside parentheses."""
    parts, depth, current = [], 0, ''
    for char in text:
        depth += {'(': 1, ')': -1}.get(char, 0)
        if char == ',' and depth == 0:
            parts.append(current)
            current = ''
        else:
            current += char
    return [p for p in parts + [current] if p.strip()]


def selector_matcher(text):
    """A function labels -> bool for a label selector.

    Parsed as the API server does: key=v, key==v, key!=v, key in (..),
    key notin (..), key, !key; a 400 Response for what it cannot parse.
    """
    tests = []
    for part in _requirements(text or ''):
        match = _EQ_RE.match(part)
        if match:
            key, op, value = match.groups()
            tests.append(lambda lb, k=key, o=op, v=value:
                         (lb.get(k) != v) if o == '!=' else lb.get(k) == v)
            continue
        match = _SET_RE.match(part)
        if not match or (match.group(1) and match.group(3)):
            raise Response(400, status.bad_request(
                'unable to parse requirement: %r' % part.strip()))
        negate, key, op, values = match.groups()
        if op:
            wanted = {v.strip() for v in values.split(',') if v.strip()}
            tests.append(lambda lb, k=key, o=op, w=wanted:
                         (lb.get(k) in w) == (o == 'in'))
        else:
            tests.append(lambda lb, k=key, n=bool(negate):
                         (k in lb) != n)
    return lambda labels: all(test(labels or {}) for test in tests)


def listing(res, items, headers, request, single=False, version=None):
    """One object or a List of items; a Table when kubectl asks.

    A list honours the request's labelSelector; version: the List's
    resourceVersion when the store keeps one.
    """
    if not single and request.query.get('labelSelector'):
        matches = selector_matcher(request.query['labelSelector'][0])
        items = [i for i in items
                 if matches((i.get('metadata') or {}).get('labels'))]
    accept = headers.get('Accept') or ''
    if 'as=Table' in accept:
        include = request.query.get('includeObject', ['Metadata'])[0]
        return tables.table(res, items, datetime.datetime.now(
            datetime.timezone.utc), include)
    if single:
        return items[0]
    return resources_mod.object_list(res, items, version)
