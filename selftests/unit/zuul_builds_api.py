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

"""A loopback stand-in of Zuul's builds API and of a log server.

It answers ``GET /api/tenant/<tenant>/builds`` as zuul-web does (zuul
14.3.0, zuul/web/__init__.py: ``ZuulWebAPI.builds`` and
``BuildConverter.toDict`` with ``skip_refs=True``): a JSON list of
builds, newest first, filtered by the query's ``job_name``, ``branch``,
``project``, ``pipeline`` and ``result``, cut at ``limit`` (default 50)
after ``skip``; an unknown tenant is a 404. Each build has the fields
zuul-web gives it (uuid, job_name, result, log_url, artifacts with name,
url and metadata, ref with project and branch, buildset, ...). Under
``/logs/`` it serves the files of ``logs`` ({path: bytes}), as a log
server serves a build's uploaded logs. With ``hold`` set, every answer
waits until the test's cleanup releases it: a server that never
answers in time.
"""

import itertools
import json
import threading
import urllib.parse

from selftests.unit import stub_http

_IDS = itertools.count(1000)


def build(uuid, job, branch, result, *, log_url, artifacts=(),
          project='openstack-k8s-operators/glance-multiapi-tests',
          pipeline='periodic', end_time='2026-09-01T06:00:00'):
    """One build as zuul-web's BuildConverter.toDict gives it."""
    return {
        '_id': next(_IDS), 'uuid': uuid, 'job_name': job, 'result': result,
        'held': False, 'execute_time': '2026-09-01T05:00:00',
        'start_time': '2026-09-01T05:00:10', 'end_time': end_time,
        'duration': 3590.0, 'voting': True, 'log_url': log_url,
        'nodeset': 'ubuntu-noble', 'error_detail': None, 'final': True,
        'artifacts': [dict(a) for a in artifacts], 'provides': [],
        'ref': {'project': project, 'branch': branch, 'change': None,
                'patchset': None, 'ref': 'refs/heads/' + branch,
                'oldrev': None, 'newrev': 'a' * 40,
                'ref_url': None},
        'pipeline': pipeline, 'event_id': None,
        'event_timestamp': '2026-09-01T05:00:00',
        'queue_item_uuid': uuid + '-item',
        'buildset': {'uuid': uuid + '-buildset'}}


class ZuulApi(object):
    """The served state: tenants' builds, log files, the requests."""

    def __init__(self, tenant='openstack-k8s-operators'):
        self.tenant = tenant
        self.builds = []
        self.logs = {}
        self.requests = []
        self.hold = None

    def answer_builds(self, query):
        """(status, JSON text) of a builds query on this tenant."""
        def one(name):
            return query.get(name, [None])[0]
        wanted = [b for b in sorted(self.builds, key=lambda b: -b['_id'])
                  if (one('job_name') in (None, b['job_name']))
                  and (one('branch') in (None, b['ref']['branch']))
                  and (one('project') in (None, b['ref']['project']))
                  and (one('pipeline') in (None, b['pipeline']))
                  and (one('result') in (None, b['result']))]
        try:
            limit, skip = int(one('limit') or 50), int(one('skip') or 0)
        except ValueError:
            return 400, json.dumps('limit and skip must be integers')
        return 200, json.dumps(wanted[skip:skip + limit])


def serve(test, api):
    """Serve api on 127.0.0.1 until test's cleanups; its base URL."""
    class Handler(stub_http.JsonHandler):
        def do_GET(self):
            parts = urllib.parse.urlsplit(self.path)
            api.requests.append(self.path)
            if api.hold is not None:
                api.hold.wait()
                return
            prefix = '/api/tenant/%s/' % api.tenant
            if parts.path == prefix + 'builds':
                self.send_json(*api.answer_builds(
                    urllib.parse.parse_qs(parts.query)))
            elif parts.path.startswith('/api/tenant/'):
                self.send_json(404, json.dumps(
                    'Tenant %s does not exist.' % parts.path.split('/')[3]))
            elif parts.path.startswith('/logs/') and \
                    parts.path[len('/logs/'):] in api.logs:
                data = api.logs[parts.path[len('/logs/'):]]
                self.send_response(200)
                self.send_header('Content-Length', str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            else:
                self.send_json(404, json.dumps('not found'))

    port = stub_http.serve(test, Handler)
    return 'http://127.0.0.1:%d' % port


def held(test, api):
    """Make every answer of api wait until test's cleanup."""
    api.hold = threading.Event()
    test.addCleanup(api.hold.set)
