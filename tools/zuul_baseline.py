#!/usr/bin/env python3
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

"""Fetch the metrics.json of the last green build of a Zuul job.

Usage: zuul_baseline.py --api URL --job NAME --branch BRANCH --out DIR
                        [--project NAME] [--pipeline NAME]
                        [--artifact NAME] [--log-path PATH]
                        [--timeout SECONDS]

Asks Zuul's REST API for the newest successful build of the job on the
branch (GET URL/builds?job_name=NAME&branch=BRANCH&result=SUCCESS&limit=1,
URL being the tenant's API root, e.g. https://zuul.example/api/tenant/T;
Zuul's "builds" endpoint, zuul/web/__init__.py ZuulWebAPI.builds), then
fetches that build's metrics.json: the URL of its artifact named
--artifact (glance-multiapi-metrics; the post-run publishes it with
zuul_return), else --log-path under the build's log_url. It must be a
metrics.json (an object with a "figures" list) of at most 16 MiB.
Writes DIR/metrics.json when found, and always DIR/lookup.txt, the one
line it prints: "baseline: <where it came from>" or "baseline: none
(<why>)". Every request shares one deadline (--timeout, 30 s). Needs
nothing but Python 3.9's standard library (it runs on the controller).
Exit status: 0 found or not (no baseline is no failure), 2 bad arguments
or DIR cannot be written.
"""

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

ARTIFACT = 'glance-multiapi-metrics'
MAX_BYTES = 16 * 1024 * 1024


class NoBaseline(Exception):
    """Why there is no baseline, in words for the one line."""


def _get(url, deadline, what):
    """The bytes at url, before deadline; NoBaseline naming what failed."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise NoBaseline('out of time before asking for %s' % what)
    if urllib.parse.urlsplit(url).scheme not in ('http', 'https'):
        raise NoBaseline('%s is not an http(s) URL: %s' % (what, url))
    data = b''
    try:
        with urllib.request.urlopen(url, timeout=left) as answer:
            # NOTE: the socket timeout bounds each read, not the whole
            # answer: a server that drips bytes is cut at the deadline.
            while len(data) <= MAX_BYTES:
                chunk = answer.read(65536)
                if not chunk:
                    break
                data += chunk
                if time.monotonic() > deadline:
                    raise NoBaseline('%s was still answering at the '
                                     'deadline: %s' % (what, url))
    except urllib.error.HTTPError as exc:
        raise NoBaseline('%s answered HTTP %d: %s' % (what, exc.code, url))
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, 'reason', exc)
        raise NoBaseline('cannot reach %s (%s): %s' % (what, reason, url))
    if len(data) > MAX_BYTES:
        raise NoBaseline('%s is larger than %d bytes: %s'
                         % (what, MAX_BYTES, url))
    return data


def builds_url(api, job, branch, project=None, pipeline=None):
    """The query of the newest successful build of job on branch."""
    query = [('job_name', job), ('branch', branch), ('result', 'SUCCESS')]
    if project:
        query.append(('project', project))
    if pipeline:
        query.append(('pipeline', pipeline))
    query.append(('limit', '1'))
    return '%s/builds?%s' % (api.rstrip('/'), urllib.parse.urlencode(query))


def metrics_url(build, artifact, log_path):
    """Where a build's metrics.json is: its artifact, else its logs."""
    for item in build.get('artifacts') or []:
        if isinstance(item, dict) and item.get('name') == artifact \
                and item.get('url'):
            return item['url']
    log_url = build.get('log_url')
    if log_path and log_url:
        return urllib.parse.urljoin(log_url.rstrip('/') + '/', log_path)
    raise NoBaseline('build %s has no %s artifact%s'
                     % (build.get('uuid'), artifact,
                        '' if log_path else ' and no --log-path was given'))


def lookup(args, deadline):
    """(metrics.json bytes, where from) of the last green build."""
    if not args.api:
        raise NoBaseline('no Zuul API URL given')
    what = 'Zuul\'s builds API'
    query = builds_url(args.api, args.job, args.branch, args.project,
                       args.pipeline)
    try:
        builds = json.loads(_get(query, deadline, what))
    except ValueError:
        raise NoBaseline('%s answered no JSON: %s' % (what, query))
    if not isinstance(builds, list):
        raise NoBaseline('%s answered no list of builds: %s' % (what, query))
    if not builds or not isinstance(builds[0], dict):
        raise NoBaseline('no successful build of %s on branch %s yet'
                         % (args.job, args.branch))
    build = builds[0]
    url = metrics_url(build, args.artifact, args.log_path)
    what = 'the metrics.json of build %s' % build.get('uuid')
    data = _get(url, deadline, what)
    try:
        metrics = json.loads(data)
    except ValueError:
        raise NoBaseline('%s is no JSON: %s' % (what, url))
    if not isinstance(metrics, dict) or not isinstance(
            metrics.get('figures'), list):
        raise NoBaseline('%s has no "figures" list: %s' % (what, url))
    return data, '%s (%s, %s)' % (url, build.get('uuid'),
                                  build.get('end_time') or 'no end time')


def main(argv=None):
    parser = argparse.ArgumentParser(
        description='Fetch the metrics.json of the last green build of a '
                    'Zuul job.')
    parser.add_argument('--api', default='',
                        help='the tenant\'s API root, '
                             'https://ZUUL/api/tenant/TENANT')
    parser.add_argument('--job', required=True)
    parser.add_argument('--branch', required=True)
    parser.add_argument('--project')
    parser.add_argument('--pipeline')
    parser.add_argument('--artifact', default=ARTIFACT)
    parser.add_argument('--log-path', default='',
                        help='metrics.json under the build\'s log_url when '
                             'it published no artifact')
    parser.add_argument('--out', required=True)
    parser.add_argument('--timeout', type=float, default=30.0)
    args = parser.parse_args(argv)
    if args.timeout <= 0:
        parser.error('--timeout must be positive')
    deadline = time.monotonic() + args.timeout
    try:
        os.makedirs(args.out, exist_ok=True)
        found = os.path.join(args.out, 'metrics.json')
        if os.path.lexists(found):
            os.unlink(found)
        try:
            data, source = lookup(args, deadline)
        except NoBaseline as exc:
            line = 'baseline: none (%s)' % exc
        else:
            with open(found, 'wb') as f:
                f.write(data)
            line = 'baseline: %s' % source
        with open(os.path.join(args.out, 'lookup.txt'), 'w') as f:
            f.write(line + '\n')
    except OSError as exc:
        print('zuul_baseline: cannot write %s: %s'
              % (args.out, exc.strerror), file=sys.stderr)
        return 2
    print(line)
    return 0


if __name__ == '__main__':
    sys.exit(main())
