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

"""Base class of the consolidated image checks: runs the image check.

The check itself is glance_multiapi_tests.imagecheck (also a CLI); this
base feeds it the configured inputs and fails a test with every
disagreement it finds.
"""

from oslo_log import log as logging
from tempest import config

from glance_multiapi_kernel import image_errors
from glance_multiapi_kernel import redaction
from glance_multiapi_tests import deployment_access
from glance_multiapi_tests.imagecheck import loader
from glance_multiapi_tests.imagecheck import report
from glance_multiapi_tests.tests import base

CONF = config.CONF
LOG = redaction.logger(logging.getLogger(__name__))


def uses_builtin_groups():
    """Whether heat's built-in fields, as deployed, stand in for a file."""
    return not CONF.consolidated_images.mappings_file


class ConsolidatedImageTest(base.BasePluginTest):
    """Runs the image check; needs no cloud and no credentials.

    Without [consolidated_images] mappings_file, heat's fields
    (glance_multiapi_kernel/heat_images.py, from openstack-operator's
    OpenStackVersion
    types) are checked as the deployment groups them
    (imagecheck/declared.py), so a pod needs no CI file.
    """

    credentials = []
    enabled_group = 'consolidated_images'
    result_checks = ('consolidated_images',)

    @classmethod
    def choose_access(cls):
        """The Kubernetes API when [consolidated_images] kubernetes_api."""
        return deployment_access.choose(CONF.glance_multiapi,
                                        switch=CONF.consolidated_images)

    @classmethod
    def has_references(cls):
        """Whether a source of deployed image references is configured."""
        opts = CONF.consolidated_images
        return any((cls.access.reads_objects, opts.version_file,
                    opts.version_command, opts.env_file, opts.env_list))

    @classmethod
    def inputs(cls, with_references, with_running=False):
        """The image check's inputs from [consolidated_images]."""
        opts = CONF.consolidated_images
        kwargs = {}
        if with_references:
            kwargs = dict(version_file=opts.version_file,
                          version_command=opts.version_command,
                          env_file=opts.env_file, env_list=opts.env_list,
                          env_list_name='[consolidated_images] env_list',
                          command_timeout=opts.command_timeout)
        if (with_references or with_running) and cls.access.reads_objects:
            kwargs.update(
                kubernetes=cls.access,
                openstackversion_name=opts.openstackversion_name,
                version_name_option='[consolidated_images] '
                                    'openstackversion_name')
        if with_running:
            kwargs['running_deployments'] = tuple(sorted(
                (opts.running_deployments or {}).items()))
            kwargs['rollout_timeout'] = float(opts.rollout_timeout)
        return loader.Inputs(
            mappings_file=opts.mappings_file,
            builtin=not opts.mappings_file,
            known_names_file=opts.known_image_names_file,
            known_names=tuple(opts.known_image_names),
            targets=tuple(opts.targets), **kwargs)

    def run_check(self, with_references, with_running=False):
        """Return the check's report; an unusable input fails the test."""
        try:
            result = loader.run(self.inputs(with_references, with_running))
        except image_errors.ImageCheckError as exc:
            self.fail('the consolidated image check could not run: %s'
                      % exc)
        LOG.info('consolidated image check:\n%s', report.as_text(result))
        return result

    def assertNoFindings(self, result, findings, what):
        """Fail with every finding and the check's table, if any."""
        if not findings:
            return
        self.fail('%s: %d disagreement(s):\n%s\n\n%s' % (
            what, len(findings),
            '\n'.join('%s: %s' % (f.kind, f.message) for f in findings),
            report.table(result.rows)))
