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

``RecordedTest`` is a mixin of the plugin's one base class
(``tests.base.BasePluginTest``), so of every test: it records each
test's start (with the elements it checks: the class's
``result_checks`` and a method's ``@checks(...)``), its outcome as the
test result gets it (passed, failed or skipped, with the first line of
the message; the run's subunit stream decides instead when the map is
rebuilt with it, see results/runmap/outcomes.py), a class that was skipped or
failed in setUpClass, and rebuilds the map and the metrics after every
test and every class (``results.runmap.publish``). A worker's first record
says which tests stestr gave it (its ``--load-list``), so a test never
reached shows as not run.

Tests add finer facts: ``checking(element)`` around the check of one
element, ``record_verdict``, ``record_figure`` (a measured figure; with
its bound set and exceeded, ``assertWithinBounds`` fails the test),
``record_deployment`` and ``record_catalog``. Recording never fails a
test: an error is logged once and recording goes on without it.
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
import testtools

from glance_multiapi_tests.multiapi import catalog as catalog_rules
from glance_multiapi_tests.results.runmap import inventory
from glance_multiapi_tests.results.runmap import metrics
from glance_multiapi_tests.results.runmap import model
from glance_multiapi_tests.results.runmap import publish
from glance_multiapi_tests.results.runmap import recorder as recorder_mod

CONF = config.CONF
LOG = logging.getLogger(__name__)
_state = {'recorder': None, 'inventory': None, 'warned': False}
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
        try:
            _state['inventory'] = inventory.plugin_tests()
        except Exception as exc:  # noqa: B902 - never fail a test
            _warn_once('listing the plugin\'s tests', exc)
        rec.write('inventory', tests=_state['inventory'] or {})
        atexit.register(_at_exit)
        return rec


def write(kind, **fields):
    """Record one fact; never raises."""
    try:
        return recorder().write(kind, **fields)
    except Exception as exc:  # noqa: B902 - never fail a test
        _warn_once('recording %s' % kind, exc)
        return False


def rebuild():
    """Rebuild the map and metrics from every record so far."""
    rec = _state['recorder']
    if rec is None:
        return
    try:
        publish.rebuild(rec.results_dir, tests=_state['inventory'])
    except Exception as exc:  # noqa: B902 - never fail a test
        _warn_once('rebuilding the map in %s' % rec.results_dir, exc)


def _at_exit():
    write('worker-end')
    rebuild()
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


class _OutcomeResult(testtools.ExtendedToOriginalDecorator):
    """Passes every result on; records the outcome of one test first.

    NOTE: the subunit stream holds these outcomes too, and the map takes
    them from it when it is given (results/runmap/outcomes.py). They are
    recorded here all the same because the map is rebuilt while the run
    goes on, and a killed run must leave its map, when no worker can
    read the stream: stestr's runner keeps it in a buffered temporary
    file until the run ends, each worker writes only its own part to a
    pipe, and in a test-operator pod tempest_results.subunit appears
    after tempest exits.
    """

    def __init__(self, decorated, case):
        super().__init__(decorated)
        self._case = case

    def addSuccess(self, test, details=None):
        self._case._record_end(model.PASSED, '')
        return super().addSuccess(test, details=details)

    def addFailure(self, test, err=None, details=None):
        self._case._record_end(model.FAILED, self._case._message(details))
        return super().addFailure(test, err, details=details)

    def addError(self, test, err=None, details=None):
        self._case._record_end(model.FAILED, self._case._message(details))
        return super().addError(test, err, details=details)

    def addSkip(self, test, reason=None, details=None):
        why = reason
        if why is None and details and 'reason' in details:
            why = details['reason'].as_text()
        self._case._record_end(model.SKIPPED, why or '')
        # NOTE: passed on as given: testtools refuses both at once.
        return super().addSkip(test, reason, details=details)

    def addExpectedFailure(self, test, err=None, details=None):
        self._case._record_end(model.PASSED, 'expected failure')
        return super().addExpectedFailure(test, err, details=details)

    def addUnexpectedSuccess(self, test, details=None):
        self._case._record_end(model.FAILED, 'unexpected success')
        return super().addUnexpectedSuccess(test, details=details)

    def stopTest(self, test):
        super().stopTest(test)
        rebuild()


class RecordedTest(object):
    """Mixin recording checks, outcomes and figures of each test."""

    # NOTE: element patterns (results.runmap.model) every test of a class
    # checks, and those its set-up checks (passed once a test starts);
    # both gathered over the class's bases.
    result_checks = ()
    result_setup_checks = ()

    @classmethod
    def result_elements(cls):
        """Element ids the class knows, to resolve patterns; None: unknown."""
        return None

    @classmethod
    def setUpClass(cls):
        try:
            super().setUpClass()
        except cls.skipException as exc:
            write('class-skip', message=str(exc), **{'class': _class_id(cls)})
            rebuild()
            raise
        except Exception as exc:
            write('class-error', message=exception_text(exc),
                  **{'class': _class_id(cls)})
            rebuild()
            raise

    @classmethod
    def tearDownClass(cls):
        try:
            super().tearDownClass()
        except Exception as exc:
            write('class-teardown-error', message=exception_text(exc),
                  **{'class': _class_id(cls)})
            raise
        finally:
            rebuild()

    def run(self, result=None):
        self._recorded_exceptions = []
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
        self.addOnException(self._note_exception)
        return super().run(_OutcomeResult(
            result if result is not None else testtools.TestResult(), self))

    def _note_exception(self, exc_info):
        self._recorded_exceptions.append(exc_info[1])

    def _message(self, details):
        for exc in self._recorded_exceptions:
            if not isinstance(exc, self.skipException):
                return exception_text(exc)
        try:
            return details['traceback'].as_text().strip().splitlines()[-1]
        except Exception:  # noqa: B902 - no traceback to read
            return ''

    def _record_end(self, status, message):
        write('test-end', test=self.id(), status=status,
              message=recorder_mod.cut(message))

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
