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

"""Consolidated service images: fields of one image stay pinned alike.

The fields one image serves must name that image and one digest wherever
they are declared; each image must carry a name the build system knows.
The check itself is glance_multiapi_tests.imagecheck; these tests feed it
the configured inputs and fail with every disagreement it finds. With a
mapping file, its targets say which fields are one image. Without one,
heat's fields are judged as the deployment declares them
(imagecheck/declared.py): the fields naming one repository are one image,
so heat in tcib's three images, s2i's two or one image passes alike; the
mapping test then asks the deployed OpenStackVersion whether it still
serves every heat field, and, when known image names are configured,
under one of them.
"""

from tempest import config
from tempest.lib import decorators

from glance_multiapi_tests.imagecheck import check
from glance_multiapi_tests.imagecheck import sources
from glance_multiapi_tests.tests.consolidated_images import base

CONF = config.CONF


class ConsolidatedImageMappingTest(base.ConsolidatedImageTest):
    """The image mapping itself (the file's, or heat's built-in fields)."""

    @classmethod
    def skip_checks(cls):
        """Built-in groups are checked against deployed references."""
        super().skip_checks()
        if (base.uses_builtin_groups() and
                not cls.has_references()):
            raise cls.skipException(
                '[consolidated_images] mappings_file is not set, so heat\'s '
                'fields are checked as the deployed OpenStackVersion groups '
                'them, and none of kubernetes_api, version_command, '
                'version_file, env_file, env_list is set')

    @decorators.attr(type='smoke')
    @decorators.idempotent_id('efcb2209-0ad6-438d-9cce-c771bd87d2f8')
    def test_image_mapping_assigns_fields_once_to_known_images(self):
        """No field is assigned twice; each image name is a known one."""
        builtin = base.uses_builtin_groups()
        result = self.run_check(with_references=builtin)
        # NOTE: without a file there is no mapping to be wrong; what can
        # be wrong is the deployment's agreement with the built-in facts:
        # a heat field its OpenStackVersion no longer has (an operator of
        # another version), or, when known names are configured, an
        # image name they do not hold.
        stale = (check.MISSING, check.UNKNOWN_NAME) if builtin else ()
        self.assertNoFindings(
            result, [f for f in result.findings
                     if f.about_mapping or f.kind in stale],
            'image mapping %s' % result.mapping)


class ConsolidatedImageReferencesTest(base.ConsolidatedImageTest):
    """The deployed references of the fields of each image."""

    @classmethod
    def skip_checks(cls):
        """Skip unless a source of deployed references is configured too."""
        super().skip_checks()
        if not cls.has_references():
            raise cls.skipException(
                '[consolidated_images] sets none of kubernetes_api, '
                'version_command, version_file, env_file, env_list')

    @decorators.attr(type='smoke')
    @decorators.idempotent_id('f1e3a88f-3cf9-4bf8-835a-f921df1db754')
    def test_deployed_image_references_agree(self):
        """Every field of one image names the same image and digest."""
        result = self.run_check(with_references=True)
        self.assertNoFindings(
            result, [f for f in result.findings if not f.about_mapping],
            'deployed references of the images of %s' % result.mapping)


class ConsolidatedRunningImagesTest(base.ConsolidatedImageTest):
    """What the Deployments run is what the OpenStackVersion says.

    Each Deployment is compared with status, and the Deployments of one
    image (of the mapping file, or as status groups heat's fields) with
    each other; so are the digests their pods resolved, once their
    rollouts are over (a rollout still going after [consolidated_images]
    rollout_timeout is named as one, not as drift).
    """

    @classmethod
    def skip_checks(cls):
        """Skip unless the Deployments can be read through the API."""
        super().skip_checks()
        opts = CONF.consolidated_images
        if not cls.access.reads_objects:
            raise cls.skipException(
                '[consolidated_images] kubernetes_api is False, so the '
                'running Deployments cannot be read')
        if not opts.running_deployments:
            raise cls.skipException(
                '[consolidated_images] running_deployments is empty')
        # NOTE: the Deployments it reads are heat's; a cloud without heat
        # has none, and the API would answer 404 (or 403 under a Role
        # without the deployments rule), which is no finding.
        if not CONF.service_available.heat:
            raise cls.skipException(
                'the running Deployments are heat\'s and heat is not '
                'available ([service_available] heat = False)')

    @decorators.attr(type='smoke')
    @decorators.idempotent_id('4e9066d2-e554-4d9a-882f-457eb4b76311')
    def test_running_images_match_version(self):
        """Deployments of one image run one digest, the status one."""
        result = self.run_check(with_references=True, with_running=True)
        self.assertNoFindings(
            result, [f for f in result.findings
                     if f.source in (sources.RUNNING, sources.PODS)],
            'images of the running Deployments %s' % ', '.join(
                sorted(CONF.consolidated_images.running_deployments)))
