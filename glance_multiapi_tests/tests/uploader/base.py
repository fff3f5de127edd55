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

"""Base class of the uploader scenarios: credentials, runs and checks.

Each test gets its own image names (rand_name), its own loopback source
(or OCI repository), temp dir, empty working directory and, in configmap
mode, namespace, so the scenarios are safe under stestr --concurrency N.
Images the uploader makes are deleted by a cleanup registered before the
uploader runs. ``[image_uploader] source`` decides where every image
comes from: the loopback HTTP server or an OCI artifact in the registry.
"""

import os

import fixtures
from tempest import config
from tempest.lib.common.utils import data_utils
from tempest.lib.common.utils import test_utils
from tempest.lib import exceptions
import yaml

from glance_multiapi_kernel import polling
from glance_multiapi_tests.common import trust
from glance_multiapi_tests.tests import base
from glance_multiapi_tests.tests.uploader import configmap_api
from glance_multiapi_tests.tests import option_values
from glance_multiapi_tests.tests.uploader import components
from glance_multiapi_tests.tests.uploader import oci
from glance_multiapi_tests.tests.uploader import process
from glance_multiapi_tests.tests import waiters

CONF = config.CONF
CLOUD = 'uploader-primary'


def reuse_problem(*, who, code, describe, uri, fetches=None,
                  manifest=None, blobs=()):
    """Why a run that had to reuse the image did not; None if it did.

    Only the image's bytes were made unavailable. http source: fetches
    is how many GETs of the file arrived after it was removed. oci:
    manifest is what a GET of its manifest gets after the run ('HTTP
    200'), blobs [(layer blob URL, what a GET of it gets)].
    """
    if fetches:
        return ('%s downloaded the image again: %d GET of %s after its '
                'source was removed (answered 404): %s'
                % (who, fetches, uri, describe))
    if code == 0:
        return None
    if manifest is None:
        return ('%s failed (exit %s) without requesting the image\'s '
                'source %s: %s' % (who, code, uri, describe))
    if manifest != 'HTTP 200':
        return ('%s failed (exit %s) and the manifest of %s cannot be read '
                '(%s): a missing manifest, not a download (the scenario '
                'removes only the image\'s layer blobs): %s'
                % (who, code, uri, manifest, describe))
    return ('%s needed the image\'s bytes again: it failed (exit %s) while '
            'only they were unavailable (%s) and the manifest of %s stays '
            'readable (%s); a run that reuses the image may read the '
            'manifest, never a layer blob: %s' % (
                who, code, '; '.join('GET %s answers %s' % blob
                                     for blob in blobs) or 'no layers',
                uri, manifest, describe))


class UploaderScenarioTest(base.BasePluginTest):
    """Drives the configured uploader against the real cloud."""

    credentials = ['primary', 'alt']
    required_services = ('glance',)
    enabled_group = 'image_uploader'
    result_checks = ('uploader',)

    @classmethod
    def skip_checks(cls):
        """Skip without Glance or when the uploader scenarios are off."""
        super().skip_checks()
        opts = CONF.image_uploader
        if opts.source == 'oci' and not opts.registry:
            raise cls.skipException('[image_uploader] source is oci but '
                                    'registry is unset')
        if opts.uuid_output == 'file' and '{output}' not in opts.command:
            raise cls.skipException('[image_uploader] uuid_output is file '
                                    'but command has no {output}')
        # NOTE: a template the expected names cannot be made from fails
        # the class with the option named, before any image is made.
        try:
            option_values.template('image_uploader', 'name_format',
                                   opts.name_format, ('name', 'commit_tag'))
            option_values.template('image_uploader', 'tag_format',
                                   opts.tag_format, ('md5',))
        except option_values.OptionValueError as exc:
            raise exceptions.InvalidConfiguration(str(exc))

    @classmethod
    def setup_clients(cls):
        """Catalog image clients of the primary and alt projects."""
        super().setup_clients()
        cls.images = cls.os_primary.image_client_v2
        cls.alt_images = cls.os_alt.image_client_v2

    def setUp(self):
        super().setUp()
        self.opts = CONF.image_uploader
        self.workdir = self.useFixture(fixtures.TempDir()).path
        self.temp_dir = os.path.join(self.workdir, 'uploader-tmp')
        os.mkdir(self.temp_dir)
        self.cwd = os.path.join(self.workdir, 'uploader-cwd')
        os.mkdir(self.cwd)
        self.clouds_yaml = self._write_clouds_yaml()
        self.source = self.useFixture(components.ImageSource())
        # NOTE: {key: what remove_source made unavailable}.
        self._removed = {}
        self.configmaps = None
        if self.opts.uuid_output == 'configmap':
            self.configmaps = self.useFixture(
                configmap_api.ConfigMapNamespace(self.opts, self.workdir))

    def _write_clouds_yaml(self):
        creds = self.os_primary.credentials
        auth = {'auth_url': CONF.identity.uri_v3,
                'username': creds.username, 'password': creds.password,
                'project_name': creds.project_name}
        for key in ('user_domain_name', 'user_domain_id',
                    'project_domain_name', 'project_domain_id'):
            if getattr(creds, key, None):
                auth[key] = getattr(creds, key)
        cloud = {'auth': auth, 'identity_api_version': 3,
                 'interface': CONF.image.endpoint_type.replace('URL', '')}
        region = CONF.image.region or CONF.identity.region
        if region:
            cloud['region_name'] = region
        # NOTE: the uploader trusts what tempest trusts (an https keystone
        # and Glance under the deployment's CA): ca_certificates_file, or
        # the system CAs, named, since openstacksdk's requests would use
        # certifi's (common/trust.py; in a test-operator pod tempest.conf
        # has no CA file and the CA is only in the system bundle).
        verify = trust.requests_verify(
            CONF.identity.ca_certificates_file,
            CONF.identity.disable_ssl_certificate_validation)
        if isinstance(verify, str):
            cloud['cacert'] = verify
        elif not verify:
            cloud['verify'] = False
        path = os.path.join(self.workdir, 'clouds.yaml')
        with open(path, 'w') as out:
            yaml.safe_dump({'clouds': {CLOUD: cloud}}, out)
        os.chmod(path, 0o600)
        return path

    # -- what a test sets up ------------------------------------------

    def new_image(self, prefix, *, commit_tag='1.0', data=None,
                  source=None, broken=False):
        """A fresh image entry from the configured source: (key, entry, data).

        source: 'http' or 'oci' to force one; default [image_uploader]
        source. broken: the source breaks half way (the connection closes,
        or the artifact's tar.gz is cut), so every run fails mid-download.
        """
        key = data_utils.rand_name(prefix=CONF.resource_name_prefix,
                                   name=prefix)
        data = data if data is not None else components.image_bytes(
            self.opts.image_size)
        if (source or self.opts.source) == 'oci':
            uri = oci.push_oci_artifact(
                self.opts.registry, 'glance-multiapi-tests/%s' % key.lower(),
                commit_tag or 'latest', key, data,
                verify=self.registry_verify(), cut=broken)
        else:
            uri = self.source.add('/%s.raw' % key, data,
                                  cut_at=len(data) // 2 if broken else None)
        entry = {'uri': uri, 'md5': components.md5_of(data),
                 'image-format': 'raw', 'commit-tag': commit_tag,
                 'scenario': prefix}
        self.addCleanup(self.delete_named, self.glance_name(key, entry))
        return key, entry, data

    def registry_verify(self):
        # NOTE: unset registry_ca_file means the system CAs, not certifi's.
        return trust.requests_verify(self.opts.registry_ca_file,
                                     self.opts.insecure_client)

    def downloads(self, key, entry):
        """GETs of an http source so far; None for an oci:// one."""
        if entry['uri'].startswith('oci://'):
            return None
        return self.source.downloads('/%s.raw' % key)

    def remove_source(self, key, entry):
        """Make the image's bytes unavailable; keep its metadata.

        A run that must reuse the image may read metadata (an OCI
        artifact's manifest, as a production uploader refreshing the
        image's properties does) but never the image's bytes (the http
        file, the artifact's layer blobs). http: the file goes, later GETs
        get 404 and are counted. oci: the layer blobs are deleted, the
        manifest stays; this works against any registry that allows
        deletes, where a registry's log would be readable only on the
        embedded cloud. assertReused judges the run.
        """
        if entry['uri'].startswith('oci://'):
            self._removed[key] = oci.remove_oci_layers(
                entry['uri'], verify=self.registry_verify())
        else:
            path = '/%s.raw' % key
            self.source.remove(path)
            self._removed[key] = self.source.requests(path)

    def assertReused(self, result, key, entry, who, failed=None):
        """The run reused the image: exit 0, none of its bytes fetched.

        Call after remove_source. who names the run in the message
        ("the second run"); failed, when given, starts it.
        """
        verify = self.registry_verify()
        if entry['uri'].startswith('oci://'):
            if result.code == 0:
                return
            # NOTE: read after the run: what it found when it failed.
            manifest, _body = oci.oci_manifest(
                entry['uri'], verify=verify)
            problem = reuse_problem(
                who=who, code=result.code, describe=result.describe(),
                uri=entry['uri'], manifest=manifest, blobs=[
                    (url, oci.blob_answer(url, verify=verify))
                    for url in self._removed[key]])
        else:
            path = '/%s.raw' % key
            problem = reuse_problem(
                who=who, code=result.code, describe=result.describe(),
                uri=entry['uri'],
                fetches=self.source.requests(path) - self._removed[key])
        if problem is not None:
            self.fail('%s: %s' % (failed, problem) if failed else problem)

    def glance_name(self, key, entry):
        if entry.get('commit-tag'):
            return self.opts.name_format.format(
                name=key, commit_tag=entry['commit-tag'])
        return key

    def expected_tag(self, entry):
        return self.opts.tag_format.format(md5=entry['md5'])

    def image_body(self, key, entry):
        """Create-image body the uploader itself would send."""
        body = {'name': self.glance_name(key, entry), 'disk_format': 'raw',
                'container_format': 'bare', 'visibility': 'community',
                'tags': [self.expected_tag(entry)]}
        if self.opts.property_prefix:
            body.update({self.opts.property_prefix + k: str(v)
                         for k, v in entry.items()})
        return body

    def queued_image(self, client, key, entry):
        image = client.create_image(**self.image_body(key, entry))
        self.delete_at_cleanup(client.delete_image, image['id'])
        self.assertEqual('queued', image['status'])
        return image

    def run_uploader(self, images, env=None, extra_ca=None):
        """A run of the uploader under test.

        env: more environment; extra_ca: a CA (PEM) trusted besides the
        registry's (gates.RegistryGate's).
        """
        return self.useFixture(process.UploaderRun(
            self.opts, workdir=self.workdir, images=images,
            clouds_yaml=self.clouds_yaml, cloud=CLOUD,
            temp_dir=self.temp_dir, cwd=self.cwd,
            configmaps=self.configmaps, env=env, extra_ca=extra_ca))

    # -- what a test checks -------------------------------------------

    def images_named(self, client, key, entry):
        """Images of that name and tag, oldest first.

        The default list holds the client's own images of any visibility,
        the community list everyone's community images: together they
        catch an uploader that got the visibility wrong.
        """
        found = {}
        for visibility in (None, 'community'):
            params = {'name': self.glance_name(key, entry),
                      'tag': self.expected_tag(entry)}
            if visibility:
                params['visibility'] = visibility
            for image in client.list_images(params=params)['images']:
                found[image['id']] = image
        return sorted(found.values(),
                      key=lambda i: (i['created_at'], i['id']))

    def delete_named(self, name):
        # NOTE: whatever the uploader under test made, broken or not.
        for image in self.images.list_images(
                params={'name': name})['images']:
            test_utils.call_and_ignore_notfound_exc(
                self.images.delete_image, image['id'])

    def assertExit(self, result, code):
        self.assertEqual(code, result.code,
                         'expected exit %d: %s' % (code, result.describe()))

    def assertOneActive(self, key, entry, result, exclude=()):
        """Exactly one image of name+tag, active, the one reported.

        exclude: ids of images (another project's) left out of the count.
        """
        images = [i for i in self.images_named(self.images, key, entry)
                  if i['id'] not in exclude]
        self.assertEqual(
            1, len(images),
            'expected exactly one image %s tagged %s, found %s'
            % (self.glance_name(key, entry), self.expected_tag(entry),
               ['%s:%s' % (i['id'], i['status']) for i in images]))
        image = images[0]
        self.assertEqual('active', image['status'],
                         'image %s is %s' % (image['id'], image['status']))
        self.assertEqual(entry['md5'], image.get('checksum'))
        self.assertReported(key, image['id'], result)
        return image

    def assertReported(self, key, image_id, result):
        """The UUID map the uploader reported gives image_id for key."""
        if self.opts.uuid_output == 'none':
            return
        self.assertEqual(image_id, result.uuids().get(key),
                         'reported UUID (%s) differs from the image in '
                         'Glance' % result.uuid_where)
        if self.configmaps is not None:
            self.assertNoConfigMapLeak(key)

    def assertNoConfigMapLeak(self, key):
        """Nothing of ours went to the kubeconfig's own namespace."""
        home = self.configmaps.home
        if home == self.configmaps.namespace:
            return
        data, where = self.configmaps.read(home)
        text = (data or {}).get(self.opts.configmap_key) or ''
        self.assertNotIn(key, text, 'the UUID map went to %s, outside '
                         '%s %s' % (where, self.opts.namespace_env,
                                    self.configmaps.namespace))

    def assertTempDirEmpty(self, result):
        left = sorted(os.listdir(self.temp_dir))
        self.assertEqual([], left, 'uploader left %s in its temp dir (%s)'
                         % (left, result.describe()))

    def assertCwdEmpty(self, result):
        left = sorted(os.listdir(self.cwd))
        self.assertEqual([], left, 'uploader left %s in its working '
                         'directory (%s)' % (left, result.describe()))

    def assertGone(self, client, image_id, why):
        try:
            waiters.wait_for_image_deleted(client, image_id,
                                           timeout=CONF.image.build_timeout)
        except polling.PollTimeout as exc:
            self.fail('%s: %s' % (why, exc))
