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

"""The one base class of every test of the plugin.

``BasePluginTest`` is the only class here on tempest's
``test.BaseTestCase``. It holds what every test shares: the skip checks
(the services a class needs, its group's ``enabled`` switch, the opt-in
of a disruptive scenario), the credentials (primary unless a class asks
for others), the one way the class reaches the deployment (``access``,
built once per class: glance_multiapi_tests/deployment_access.py), the
cleanup that deletes what a test made, and the recording of what each
test checked for the deployment map (``recording.RecordedTest``). The
bases of the checks are its subclasses, each in the folder of what it
serves: ``multiapi/base.py`` ``MultiApiTest`` (and
``multiapi/scenario_base.py`` ``MultiApiScenarioTest``),
``heat/base.py`` ``HeatTest``, ``consolidated_images/base.py``
``ConsolidatedImageTest`` and ``uploader/base.py``
``UploaderScenarioTest``; a test that changes the deployment also takes
the ``restoration.DisruptiveTest`` mixin.

The plugin's service clients are registered with tempest
(``plugin.get_service_clients``), so a class reaches them as tempest
reaches its own, e.g. ``cls.os_primary.consolidated_heat.HeatClient()``.
"""

from tempest import config
from tempest.lib.common.utils import test_utils
from tempest import test

from glance_multiapi_tests import deployment_access
from glance_multiapi_tests.tests import recording

CONF = config.CONF

# NOTE: the skip reason when a service a class needs is not available,
# in the words each base used before there was one base.
UNAVAILABLE = {
    'glance': 'Glance is not available ([service_available] glance)',
    'heat': 'heat is not available ([service_available] heat = False)',
}


class BasePluginTest(recording.RecordedTest, test.BaseTestCase):
    """Skip checks, credentials, cleanups and recording of every test."""

    credentials = ['primary']
    # NOTE: the [service_available] services a class needs.
    required_services = ()
    # NOTE: the option group whose "enabled" switches the class off.
    enabled_group = None

    @classmethod
    def skip_checks(cls):
        """Skip without a service the class needs, or when it is off."""
        super().skip_checks()
        # NOTE: built here, with no I/O, so that the skip checks can ask
        # it what it can do; it connects at its first call.
        cls.access = cls.choose_access()
        for service in cls.required_services:
            if not getattr(CONF.service_available, service):
                raise cls.skipException(UNAVAILABLE.get(
                    service, '%s is not available ([service_available] '
                    '%s)' % (service, service)))
        if cls.enabled_group and not getattr(CONF,
                                             cls.enabled_group).enabled:
            raise cls.skipException('[%s] enabled is False'
                                    % cls.enabled_group)

    @classmethod
    def choose_access(cls):
        """The class's way to the deployment, as [glance_multiapi] says."""
        return deployment_access.choose(CONF.glance_multiapi)

    @classmethod
    def resource_cleanup(cls):
        """Close the class's connection to the deployment, if it opened."""
        try:
            super().resource_cleanup()
        finally:
            cls.access.close()

    @classmethod
    def skip_unless_opted_in(cls, group, option, changes):
        """Skip a disruptive scenario unless [group] option opts into it.

        :param changes: what the scenario does to the deployment, for the
            reason, e.g. 'patches keystoneEndpoint'.
        """
        if not getattr(getattr(CONF, group), option):
            raise cls.skipException(
                '[%s] %s is False (the default): this disruptive scenario '
                '%s of the deployment it checks; set [%s] %s = True to run '
                'it (a maintenance window or a periodic job)' % (
                    group, option, changes, group, option))

    def delete_at_cleanup(self, delete, *args, wait=None):
        """At cleanup: delete(*args), a 404 counting as done; then wait().

        Call it as soon as the resource has an id, before anything can
        leak it. Cleanups run last in, first out, so the wait is
        registered first.
        """
        if wait is not None:
            self.addCleanup(wait)
        self.addCleanup(test_utils.call_and_ignore_notfound_exc, delete,
                        *args)
