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

"""Skip checks that more than one test base shares."""

from tempest import config

CONF = config.CONF


def skip_unless_glance(test_class):
    """Raise test_class.skipException unless [service_available] glance."""
    if not CONF.service_available.glance:
        raise test_class.skipException('Glance is not available '
                                       '([service_available] glance)')


def skip_unless_opted_in(test_class, group, option, changes):
    """Skip a disruptive scenario unless [group] option opts into it.

    :param changes: what the scenario does to the deployment, for the
        reason, e.g. 'patches keystoneEndpoint'.
    """
    if not getattr(getattr(CONF, group), option):
        raise test_class.skipException(
            '[%s] %s is False (the default): this disruptive scenario %s '
            'of the deployment it checks; set [%s] %s = True to run it '
            '(a maintenance window or a periodic job)' % (
                group, option, changes, group, option))
