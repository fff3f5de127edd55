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

"""What every test of the plugin records while it runs, for the map.

``RecordedTest``, a mixin of the plugin's one base class
(``tests.base.BasePluginTest``), gives every test one small API to
append records to (JSON lines, one file per worker:
``results/runmap/recorder.py``): ``checking(element)`` around the check
of one element, ``record_verdict``, ``record_figure`` (a measured
figure; with its bound set and exceeded, ``assertWithinBounds`` fails
the test), ``record_deployment`` and ``record_catalog``. Recording
never fails a test: an error is logged once and recording goes on
without it.

It hooks no part of tempest's class set-up, tear-down or run. What the
run's subunit stream carries -- how each test ended, a class skipped or
failed in setUpClass or tearDownClass -- is read from that stream when
``glance-multiapi-report`` builds the map, once, after the run
(``results/runmap/outcomes.py``). The records add what no stream holds:
at each test's ``setUp``, the elements it checks (the class's
``result_checks`` and a method's ``@checks(...)``, resolved against the
deployment its class learnt); a worker's first record, which tests
stestr gave it (its ``--load-list``), so a test never reached shows as
not run; its last, at exit, that it ended. A run killed part way leaves
its records and no stream: the map then shows what its checks judged,
the test each worker was killed in, and what they never reached.
"""

import atexit
import contextlib
import os
import socket
import sys
import threading

from oslo_log import log as logging
from tempest import config
from tempest.lib import exceptions as lib_exc

from glance_multiapi_kernel import redaction
from glance_multiapi_tests.multiapi import catalog as catalog_rules
from glance_multiapi_tests.results.runmap import inventory
from glance_multiapi_tests.results.runmap import metrics
from glance_multiapi_tests.results.runmap import model
from glance_multiapi_tests.results.runmap import recorder as recorder_mod

CONF = config.CONF
LOG = redaction.logger(logging.getLogger(__name__))
_state = {'recorder': None, 'warned': False}
_lock = threading.Lock()


def checks(*patterns):
    """Decorator: element patterns a test checks besides its class's."""
    def decorate(func):
        setattr(func, inventory.METHOD_ATTR, tuple(patterns))
        return func
    return decorate


def results_dir():
    """[glance_multiapi] results_dir, else tempest's log_dir, else cwd."""
    try:
        chosen = CONF.glance_multiapi.results_dir
    except Exception:  # noqa: B902 - options not registered (unit tests)
        chosen = None
    try:
        log_dir = CONF.log_dir
    except Exception:  # noqa: B902 - oslo.log options not registered
        log_dir = None
    return chosen or log_dir or os.getcwd()


def _warn_once(what, exc):
    if not _state['warned']:
        _state['warned'] = True
        LOG.warning('glance-multiapi results: %s failed (%s: %s); the '
                    'map of this run may be incomplete', what,
                    type(exc).__name__, exc)


def recorder():
    """This worker's Recorder, started (worker, inventory) on first use."""
    with _lock:
        if _state['recorder'] is not None:
            return _state['recorder']
        rec = recorder_mod.Recorder(results_dir())
        _state['recorder'] = rec
        rec.write('worker', scheduled=recorder_mod.load_list(sys.argv),
                  host=socket.gethostname(), cwd=os.getcwd())
        tests = {}
        try:
            tests = inventory.plugin_tests()
        except Exception as exc:  # noqa: B902 - never fail a test
            _warn_once('listing the plugin\'s tests', exc)
        rec.write('inventory', tests=tests)
        atexit.register(_at_exit)
        return rec


def write(kind, **fields):
    """Record one fact; never raises."""
    try:
        return recorder().write(kind, **fields)
    except Exception as exc:  # noqa: B902 - never fail a test
        _warn_once('recording %s' % kind, exc)
        return False


def _at_exit():
    write('worker-end')
    if _state['recorder'] is not None:
        _state['recorder'].close()


def exception_text(exc):
    """The message of exc as a reader wants it (type only when useful).

    tempest's HTTP errors read "Bad request\nDetails: {...}": their first
    line alone says nothing, so their lines are joined, type first.
    """
    if isinstance(exc, lib_exc.RestClientException):
        return '%s: %s' % (type(exc).__name__, ' '.join(str(exc).split()))
    if isinstance(exc, AssertionError):
        return str(exc)
    return '%s: %s' % (type(exc).__name__, exc)


def _class_id(cls):
    return '%s.%s' % (cls.__module__, cls.__name__)


class RecordedTest(object):
    """Mixin: the records of each test (its start, checks and figures)."""

    # NOTE: element patterns (results.runmap.model) every test of a class
    # checks, and those its set-up checks (passed once a test starts);
    # both gathered over the class's bases.
    result_checks = ()
    result_setup_checks = ()

    @classmethod
    def result_elements(cls):
        """Element ids the class knows, to resolve patterns; None: unknown."""
        return None

    def setUp(self):
        # NOTE: before tempest's set-up, so that a test whose set-up fails
        # is known to have started; the stream says how it ended.
        self._record_start()
        super().setUp()

    def _record_start(self):
        """The test's start, with the elements it checks."""
        method = getattr(self, self._testMethodName, None)
        patterns = inventory.checks_of(type(self), method)
        known = None
        try:
            known = type(self).result_elements()
        except Exception as exc:  # noqa: B902 - never fail a test
            _warn_once('listing the elements of %s' % type(self).__name__,
                       exc)
        setup = inventory.setup_checks_of(type(self))
        fields = {'class': _class_id(type(self)), 'checks': patterns,
                  'setup': setup}
        if known is not None:
            fields['elements'] = model.resolve(patterns, known)
            fields['setup_elements'] = model.resolve(setup, known)
        write('test-start', test=self.id(), **fields)

    # -- what tests record --------------------------------------------

    def record_verdict(self, element, status, message=''):
        """The verdict of this test on one element (passed, failed...)."""
        write('verdict', test=self.id(), element=element, status=status,
              message=recorder_mod.cut(message))

    @contextlib.contextmanager
    def checking(self, element, record_pass=True):
        """Judge one element by the block: passes, fails or skips with it.

        record_pass=False: a block that ends normally records nothing
        (the test says later, with record_verdict, what it found).
        Within one test the worst verdict of an element stands.
        """
        write('checking', test=self.id(), element=element)
        try:
            yield
        except self.skipException as exc:
            self.record_verdict(element, model.SKIPPED, str(exc))
            raise
        except BaseException as exc:
            self.record_verdict(element, model.FAILED, exception_text(exc))
            raise
        if record_pass:
            self.record_verdict(element, model.PASSED)

    def record_figure(self, key, value, *, check_bound=True, **labels):
        """Record a figure (runmap.metrics.FIGURES); the bound's problem.

        Returns the failure message when the figure's bound option is set
        and exceeded (the element is then marked failed), else None; pass
        it to assertWithinBounds. check_bound=False records only (a
        restore in a cleanup must not fail the test).
        """
        figure = metrics.FIGURES[key]
        group, option, kind, _scale = figure.bound
        try:
            bound = getattr(getattr(CONF, group), option) if check_bound \
                else None
        except Exception:  # noqa: B902 - option group not registered
            bound = None
        labels = {k: str(v) for k, v in labels.items()}
        problem = metrics.bound_problem(key, value, labels, bound)
        element = metrics.element_of(key, labels)
        write('figure', test=self.id(), figure=key, value=value,
              labels=labels, element=element, exceeded=bool(problem),
              bound={'option': metrics.option_name(key), 'value': bound,
                     'kind': kind})
        if problem and element:
            self.record_verdict(element, model.FAILED, problem)
        return problem

    def assertWithinBounds(self, *problems):
        """Fail naming every figure past its bound (None: within)."""
        problems = [p for p in problems if p]
        if problems:
            self.fail('; '.join(problems))

    @classmethod
    def record_deployment(cls, deployment, label, *, added=False,
                          test=None, apis=None):
        """The deployment as learnt (or the APIs a scenario added)."""
        try:
            chosen = [deployment.apis[n] for n in (apis or sorted(
                deployment.apis))]
            write('deployment', label=label, added=added, test=test,
                  keystone_endpoint=deployment.keystone_endpoint,
                  glance={'namespace': deployment.namespace,
                          'name': deployment.name,
                          'read_from': deployment.source},
                  apis=[{'name': api.name, 'type': api.type,
                         'replicas': api.replicas,
                         'endpoints': dict(api.endpoints),
                         'default_store': api.default_store,
                         'store_type': api.store_types.get(
                             api.default_store),
                         'stores': list(api.stores)} for api in chosen],
                  **{'class': _class_id(cls)})
        except Exception as exc:  # noqa: B902 - never fail a test
            _warn_once('recording the deployment', exc)

    @classmethod
    def record_catalog(cls, found, deployment, label, *, steady=False,
                       verdicts=None, test=None, region=None):
        """The catalog's image entries now, with who owns each URL.

        steady: a snapshot of a class's set-up, kept only when it differs
        from the one before; a disruptive scenario's are always kept.
        """
        try:
            entries = []
            for service in catalog_rules.image_services(found):
                for endpoint in service.get('endpoints') or []:
                    if region and endpoint.get('region') not in (None,
                                                                 region):
                        continue
                    entries.append({
                        'service': service.get('name'),
                        'interface': endpoint.get('interface'),
                        'region': endpoint.get('region'),
                        'url': endpoint.get('url'),
                        'owner': catalog_rules.owner_of(
                            endpoint.get('url'), deployment)})
            write('catalog', label=label, steady=steady, test=test,
                  entries=sorted(entries, key=lambda e: (
                      str(e['interface']), str(e['url']))),
                  verdicts=verdicts or {}, **{'class': _class_id(cls)})
        except Exception as exc:  # noqa: B902 - never fail a test
            _warn_once('recording the catalog', exc)
