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

"""Recorded runs for the results unit tests, written by the real Recorder.

Each helper writes what the plugin's tests write in one situation: a
healthy run, api1's endpoints down, a run killed in the middle, a run on
two workers; and, as stestr reports it, how each test ended: the run's
subunit stream, ``tempest_results.subunit`` beside the records (as a
test-operator pod leaves it; a killed run leaves none). Test ids and
element patterns are the plugin's own (results.runmap.inventory), so a
change of a test shows here.
"""

import itertools
import os

from glance_multiapi_tests.results.runmap import inventory
from glance_multiapi_tests.results.runmap import outcomes as outcomes_mod
from glance_multiapi_tests.results.runmap import publish
from glance_multiapi_tests.results.runmap import recorder
from selftests.unit import synthetic_subunit

T = 'glance_multiapi_tests.tests.'
ENDPOINTS = T + 'api.test_endpoints.ImageEndpointsTest.' \
    'test_image_endpoints_answer'
ONE_SERVICE = T + 'api.test_catalog.CatalogOwnershipTest.' \
    'test_catalog_has_one_image_service'
OWNERSHIP = T + 'api.test_catalog.CatalogOwnershipTest.' \
    'test_image_endpoints_belong_to_keystone_endpoint_api'
UPLOAD = T + 'api.test_store_placement.StorePlacementTest.' \
    'test_upload_lands_in_api_default_store'
SWITCHOVER = T + 'scenario.test_switchover.' \
    'KeystoneEndpointSwitchoverTest.test_switch_keystone_endpoint'
HEAT_ENGINES = T + 'api.test_heat_services.HeatServicesTest.' \
    'test_list_engine_services'
URLS = {('api0', 'public'): 'https://127.0.0.1:20001',
        ('api0', 'internal'): 'https://127.0.0.1:20002',
        ('api1', 'public'): 'https://127.0.0.1:20003',
        ('api1', 'internal'): 'https://127.0.0.1:20004',
        ('edge1', 'internal'): 'https://127.0.0.1:20005'}
ROUTE0 = 'https://127.0.0.1:20010'
ROUTE1 = 'https://127.0.0.1:20011'
_TESTS = {}
# NOTE: results dir -> [(test id, subunit status, details)], in order.
_RESULTS = {}
SUBUNIT = {'passed': 'success', 'failed': 'fail', 'skipped': 'skip',
           'unfinished': 'inprogress'}
TRACEBACK = ('''Traceback (most recent call last):
  File "/venv/glance_multiapi_tests/tests/base.py", line 1, in test
    self.fail(message)
AssertionError: %s
''')


def plugin_tests():
    if not _TESTS:
        _TESTS.update(inventory.plugin_tests())
    return _TESTS


def full(bare):
    return plugin_tests()[bare]['id']


class Clock(object):
    """A clock that moves one second a call, from a fixed start."""

    def __init__(self, start=1700000000.0):
        self._ticks = itertools.count()
        self.start = start

    def __call__(self):
        return self.start + next(self._ticks)


def worker(results_dir, *, pid, run='run-1', label='tempest', clock=None,
           scheduled=None):
    """A Recorder of one worker that has written its first records."""
    rec = recorder.Recorder(results_dir, run=run, label=label, pid=pid,
                            clock=clock or Clock())
    rec.write('worker', scheduled=[full(b) for b in scheduled]
              if scheduled is not None else None)
    rec.write('inventory', tests=plugin_tests())
    return rec


def apis():
    found = []
    for name, kind, store in (('api0', 'split', 'ceph0'),
                              ('api1', 'split', 'ceph1'),
                              ('edge1', 'edge', 'ceph2')):
        endpoints = {i: u for (a, i), u in URLS.items() if a == name}
        if name == 'api0':
            endpoints['public'] = ROUTE0
        found.append({'name': name, 'type': kind, 'replicas': 1,
                      'endpoints': endpoints, 'default_store': store,
                      'store_type': 'rbd', 'stores': [store]})
    return found


def discovered(rec, cls):
    rec.write('deployment', label='discovered by %s' % cls, added=False,
              keystone_endpoint='api0',
              glance={'namespace': 'openstack', 'name': 'glance',
                      'read_from': 'Glance openstack/glance via the '
                                   'Kubernetes API at https://127.0.0.1:1'},
              apis=apis(), **{'class': cls})
    rec.write('catalog', label='seen by %s' % cls, steady=True,
              entries=[{'interface': 'internal', 'region': 'regionOne',
                        'url': URLS[('api0', 'internal')],
                        'owner': 'api0', 'service': 'glance'},
                       {'interface': 'public', 'region': 'regionOne',
                        'url': ROUTE0, 'owner': 'api0',
                        'service': 'glance'}], **{'class': cls})


def start(rec, bare, elements=None):
    info = plugin_tests()[bare]
    fields = {'class': info['class'], 'checks': info['checks'],
              'setup': info['setup']}
    if elements is not None:
        fields['elements'] = elements
    rec.write('test-start', test=info['id'], **fields)


def result(rec, test_id, status='passed', message=''):
    """How a test (or 'setUpClass (cls)') ended, as the stream says it."""
    details = {}
    if status == 'failed':
        details['traceback'] = TRACEBACK % message
    elif status == 'skipped':
        details['reason'] = message
    _RESULTS.setdefault(rec.results_dir, []).append(
        (test_id, SUBUNIT[status], details))


def end(rec, bare, status='passed', message=''):
    result(rec, full(bare), status, message)


def class_skip(rec, cls, reason):
    result(rec, 'setUpClass (%s)' % cls, 'skipped', reason)


def stream(results_dir, name=outcomes_mod.TEST_OPERATOR_STREAM):
    """Add the results so far to the stream beside the records; its path.

    Streams concatenate: a second run's results follow the first's.
    """
    path = os.path.join(results_dir, name)
    with open(path, 'ab') as f:
        f.write(synthetic_subunit.stream(*_RESULTS.pop(results_dir, [])))
    return path


def rebuild(results_dir, **kwargs):
    """publish.rebuild with the stream beside the records, as the report."""
    return publish.rebuild(results_dir, outcomes=outcomes(results_dir),
                           **kwargs)


def outcomes(results_dir, label=None):
    """{label: Outcomes} of the stream beside the records, or {}."""
    path = os.path.join(results_dir, outcomes_mod.TEST_OPERATOR_STREAM)
    if not os.path.isfile(path):
        return {}
    return {label: outcomes_mod.read(path)}


def verdict(rec, bare, element, status, message=''):
    rec.write('verdict', test=full(bare), element=element, status=status,
              message=message)


def endpoints_test(rec, down=()):
    """test_endpoints; the APIs in down fail their probes (TCP)."""
    start(rec, ENDPOINTS)
    failed = []
    for (api, interface), url in sorted(URLS.items()):
        if api == 'api0' and interface == 'public':
            url = ROUTE0
        if api in down:
            text = '%s %s %s: TCP: [Errno 111] Connection refused' % (
                api, interface, url)
            failed.append(text)
            verdict(rec, ENDPOINTS, 'endpoint:%s:%s' % (api, interface),
                    'failed', text)
        else:
            verdict(rec, ENDPOINTS, 'endpoint:%s:%s' % (api, interface),
                    'passed', 'DNS, TCP, TLS and a v2 version document')
    for interface in ('public', 'internal'):
        verdict(rec, ENDPOINTS, 'catalog:%s' % interface, 'passed')
    if failed:
        end(rec, ENDPOINTS, 'failed', '%d of 7 image endpoints fail the '
            'probe (probe timeout 5.0 s per stage):\n%s' % (
                len(failed), '\n'.join(failed)))
    else:
        end(rec, ENDPOINTS)


def catalog_tests(rec):
    start(rec, ONE_SERVICE)
    end(rec, ONE_SERVICE)
    start(rec, OWNERSHIP)
    verdict(rec, OWNERSHIP, 'keystone_endpoint', 'passed')
    end(rec, OWNERSHIP)


def upload_test(rec):
    start(rec, UPLOAD)
    for api, store, rate in (('api0', 'ceph0', 80.5), ('api1', 'ceph1', 75.0),
                             ('edge1', 'ceph2', 60.25)):
        rec.write('checking', test=full(UPLOAD), element='store:%s' % api)
        rec.write('figure', test=full(UPLOAD),
                  figure='upload_bytes_per_second',
                  value=rate * 1048576, element='store:%s' % api,
                  labels={'api': api, 'store': store,
                          'interface': 'public'}, exceeded=False,
                  bound={'option': '[glance_multiapi] min_upload_mib_per_'
                                   'second', 'value': None, 'kind': 'min'})
        verdict(rec, UPLOAD, 'store:%s' % api, 'passed')
    end(rec, UPLOAD)


def switchover_test(rec, left_behind=None, bound=None):
    """A switchover api0 -> api1; left_behind: an interface that stays."""
    start(rec, SWITCHOVER)
    entries, verdicts = [], {}
    for interface, took in (('internal', 0.8), ('public', 1.4)):
        element = 'catalog:%s' % interface
        if interface == left_behind:
            text = ('did not show api1\'s URL within 20 s (convergence_'
                    'timeout) of the patch api0 -> api1: catalog public '
                    'entry is %s (api0); expected api1\'s %s' % (
                        ROUTE0, ROUTE1))
            verdicts[interface] = {'status': 'failed', 'message': text}
            verdict(rec, SWITCHOVER, element, 'failed', text)
            entries.append({'interface': interface, 'url': ROUTE0,
                            'region': 'regionOne', 'owner': 'api0'})
            continue
        verdict(rec, SWITCHOVER, element, 'passed', 'showed api1\'s URL')
        exceeded = bound is not None and took > bound
        rec.write('figure', test=full(SWITCHOVER),
                  figure='switchover_convergence_seconds', value=took,
                  element=element, exceeded=exceeded,
                  labels={'from_api': 'api0', 'to_api': 'api1',
                          'interface': interface},
                  bound={'option': '[glance_multiapi] max_switchover_'
                                   'seconds', 'value': bound,
                         'kind': 'max'})
        if exceeded:
            verdict(rec, SWITCHOVER, element, 'failed', 'over its bound')
        verdicts[interface] = {'status': 'passed', 'message': 'moved'}
        entries.append({'interface': interface, 'region': 'regionOne',
                        'url': ROUTE1 if interface == 'public' else
                        URLS[('api1', 'internal')], 'owner': 'api1'})
    rec.write('catalog', label='after keystoneEndpoint api0 -> api1%s' % (
        ' (did not converge)' if left_behind else ''), entries=entries,
        verdicts=verdicts, test=full(SWITCHOVER))
    if left_behind:
        verdict(rec, SWITCHOVER, 'keystone_endpoint', 'failed',
                'waiting for the catalog ...')
        end(rec, SWITCHOVER, 'failed', 'timed out after 20.0 s waiting '
            'for the catalog to hold exactly one image service, owned by '
            'api1')
    else:
        verdict(rec, SWITCHOVER, 'keystone_endpoint', 'passed')
        end(rec, SWITCHOVER)


def healthy(results_dir, rec=None):
    """One worker, every multi-API test passes; heat skipped."""
    rec = rec or worker(results_dir, pid=100, scheduled=[
        ENDPOINTS, ONE_SERVICE, OWNERSHIP, UPLOAD, SWITCHOVER,
        HEAT_ENGINES])
    discovered(rec, T + 'api.test_endpoints.ImageEndpointsTest')
    endpoints_test(rec)
    catalog_tests(rec)
    upload_test(rec)
    switchover_test(rec)
    class_skip(rec, T + 'api.test_heat_services.HeatServicesTest',
               'heat is not available ([service_available] heat = False)')
    rec.write('worker-end')
    stream(results_dir)
    return rec


def upload_failing(rec, api='api1'):
    """test_upload_lands_in_api_default_store, failing at api."""
    start(rec, UPLOAD)
    for name in ('api0', 'api1', 'edge1'):
        rec.write('checking', test=full(UPLOAD), element='store:%s' % name)
        if name == api:
            text = ('uploading an image through %s (%s) failed: '
                    'ConnectionRefusedError: [Errno 111]' % (name, URLS[(
                        name, 'public')]))
            verdict(rec, UPLOAD, 'store:%s' % name, 'failed', text)
            end(rec, UPLOAD, 'failed', text)
            return
        verdict(rec, UPLOAD, 'store:%s' % name, 'passed')
    end(rec, UPLOAD)


def api_down(results_dir):
    """api-down=api1: api1's URLs fail the probe and its upload."""
    rec = worker(results_dir, pid=300, scheduled=[
        ENDPOINTS, ONE_SERVICE, OWNERSHIP, UPLOAD])
    discovered(rec, T + 'api.test_endpoints.ImageEndpointsTest')
    endpoints_test(rec, down=('api1',))
    catalog_tests(rec)
    upload_failing(rec, 'api1')
    rec.write('worker-end')
    stream(results_dir)
    return rec


def killed(results_dir):
    """A worker killed in test_catalog_has_one_image_service: no stream."""
    rec = worker(results_dir, pid=400, scheduled=[
        ENDPOINTS, ONE_SERVICE, OWNERSHIP, UPLOAD, SWITCHOVER])
    discovered(rec, T + 'api.test_endpoints.ImageEndpointsTest')
    endpoints_test(rec)
    start(rec, ONE_SERVICE)
    _RESULTS.pop(results_dir, None)
    return rec


def two_workers(results_dir, clock=None):
    """One run on two workers, their records interleaved in time."""
    clock = clock or Clock()
    one = worker(results_dir, pid=501, clock=clock, scheduled=[
        ENDPOINTS, ONE_SERVICE, OWNERSHIP])
    two = worker(results_dir, pid=502, clock=clock, scheduled=[
        UPLOAD, SWITCHOVER])
    discovered(one, T + 'api.test_endpoints.ImageEndpointsTest')
    discovered(two, T + 'api.test_store_placement.StorePlacementTest')
    endpoints_test(one)
    upload_test(two)
    catalog_tests(one)
    switchover_test(two)
    one.write('worker-end')
    two.write('worker-end')
    stream(results_dir)
    return one, two
