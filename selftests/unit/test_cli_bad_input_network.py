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

"""The console scripts against servers that trickle, keep silent or lie.

Each row points a script at a real loopback server (selftests/trickle.py)
that sends its answer one byte every 0.2 s (the body, the headers, a
redirect), reads the request and answers nothing, or breaks HTTP (a
status line that is none, a header over 64 KiB, 150 headers, a chunked
body cut short), with the script's deadline option at 1 s: every
per-read timeout is longer than the trickle's interval, so only the
deadline of the whole exchange can end it. The script must end within
that deadline (and the time it takes to start), in one line naming the
URL and the deadline, with the code it documents for an unreachable
service, and leave nothing behind.
"""

import testscenarios

from selftests import cli_runs
from selftests.unit import test_cli_bad_input_tools as tools

load_tests = testscenarios.load_tests_apply_scenarios

# NOTE: a script's start (imports: tempest's options, keystoneauth,
# openstacksdk) on a loaded machine, plus the 1 s deadline.
WALL = 25
TRICKLES = (('trickled_body', 'trickle', 'no complete answer within 1 s'),
            ('slow_headers', 'slow-headers', 'no complete answer within 1 s'),
            ('slow_redirect', 'slow-redirect', 'no complete answer within 1'),
            ('silent', 'silent', 'no answer within 1 s'))
BROKEN = (('bad_status_line', 'bad-status-line', 'not HTTP'),
          ('header_over_64_kib', 'long-header', 'line'),
          ('150_headers', 'many-headers', 'more than 100 headers'),
          ('chunk_cut_short', 'cut-chunk', 'cut short'))


def _row(name, argv, code, *needles, **extra):
    return (name, dict(argv=argv, code=code, needles=needles, **extra))


def network(name, argv, code, *needles, deadline=(), env=None, files=None,
            broken=True):
    """The rows of one exchange: each trickle, and each broken answer.

    deadline: the arguments that set the deadline to 1 s, given to the
    trickles only (a broken answer comes at once).
    """
    rows = []
    kinds = [(kind, mode, (words,), list(argv) + list(deadline))
             for kind, mode, words in TRICKLES]
    if broken:
        kinds += [(kind, mode, (words,), argv)
                  for kind, mode, words in BROKEN]
    extra = {}
    if env is not None:
        extra['env'] = env
    if files is not None:
        extra['files'] = files
    for kind, mode, words, args in kinds:
        rows.append(_row('%s_%s' % (name, kind), args, code,
                         *(needles + words), server=mode, max_wall=WALL,
                         **extra))
    return rows


REPORT = ['{work}/results', '--baseline', '{server}/metrics.json']


class TestReportNetwork(testscenarios.WithScenarios, cli_runs.BadInputCase):

    script = 'glance-multiapi-report'
    files = {tools.RECORDS: tools.RECORD}
    scenarios = network('baseline', REPORT, 22,
                        'baseline {server}/metrics.json could not be '
                        'fetched', deadline=['--baseline-timeout', '1']) + [
        _row('baseline_url_holding_a_newline',
             ['{work}/results', '--baseline',
              'http://127.0.0.1:9/a\nb/metrics.json'], 22,
             'baseline http://127.0.0.1:9/a b/metrics.json could not be '
             'fetched', 'control characters'),
    ]
