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

"""The uploader scenarios pass with the bundled uploader and fail, each
with its own message, against a deliberately broken one.

The broken uploaders are broken_uploader.py modes; each row names the
scenario that must catch it and a fragment of the failure message.
"""

import os
import re
import shlex

from selftests.functional import base

SCENARIOS = 'glance_multiapi_tests.tests.scenario.test_uploader'
# NOTE: by its path: the uploader runs in an empty working directory, and
# the self-tests are not installed.
BROKEN = '{python} %s %%s' % shlex.quote(os.path.join(
    base.REPO, 'selftests', 'functional', 'broken_uploader.py'))
# NOTE: the two configurations the bundled uploader must pass whole: every
# source kind, every UUID output worth reading, both foreign policies.
VARIANTS = {
    'http': {'source': 'http', 'uuid_output': 'stdout',
             'foreign_queued_policy': 'refuse'},
    'oci': {'source': 'oci', 'uuid_output': 'configmap',
            'foreign_queued_policy': 'ignore'},
}
# NOTE: each variant's scenarios in two tests of about a minute each
# (together once over 120 s), so that no test waits on the whole suite.
PARTS = {
    'uploads': r'\.',
    'policies_and_races': r'_(policies|races)\.',
}
CONFIGMAP = {'uuid_output': 'configmap'}
OCI = {'source': 'oci'}
IGNORE = {'foreign_queued_policy': 'ignore'}
HANG = {'run_timeout': 20}

# (broken mode, test that must fail, fragments of its failure message,
# [image_uploader] overrides). A tuple among the fragments is a choice:
# one of them, since an uploader may fail the same check in two ways.
# NOTE: without deletes, an uploader that keeps the stale image ends with
# two images, one that insists on deleting it ends in an error.
KEPT = ('expected exactly one image', 'expected exit 0')
BROKEN_CASES = (
    ('private', 'test_uploaded_image_is_community',
     ('is private, not community',), {}),
    ('redownload', 'test_rerun_reuses_image',
     ('the second run downloaded the image again',), {}),
    ('leave-temp', 'test_temp_dir_empty_after_success_and_failure',
     ('in its temp dir',), {}),
    ('write-cwd', 'test_working_directory_stays_empty',
     ('in its working directory', 'uploader.log'), {}),
    ('no-md5-check', 'test_md5_mismatch_uploads_nothing',
     ('a wrong md5 was accepted',), {}),
    ('keep-stale-queued', 'test_own_stale_queued_image_replaced',
     (KEPT,), {}),
    ('ignore-saving', 'test_waits_for_saving_image',
     ('uploader did not wait for image',), {}),
    ('keep-failed-saving', 'test_saving_then_queued_is_replaced',
     (KEPT,), {}),
    ('no-grace', 'test_own_queued_image_saving_in_grace_awaited',
     ('WAIT_QUEUED_IMAGE grace',), {}),
    ('blind-foreign', 'test_foreign_queued_image_refused',
     ('expected exit 1',), {}),
    ('crash-exit1', 'test_foreign_queued_image_refused',
     ('did not name the foreign image',), {}),
    ('refuse-only', 'test_foreign_queued_image_ignored',
     ('expected exit 0',), IGNORE),
    ('only-own-images', 'test_foreign_active_community_image_reused',
     ('did not reuse the foreign active image',), {}),
    ('hang', 'test_upload_image[',
     ('uploader hung', 'after 20 s', 'waiting for nothing, forever'), HANG),
    ('configmap-home', 'test_upload_image[',
     ('wrote no UUID map to ConfigMap upl-',), CONFIGMAP),
    ('no-ca', 'test_upload_image[', ('expected exit 0',), OCI),
    ('no-race-protocol', 'test_two_racing_uploaders_make_one_image',
     ('expected exactly one image',), {}),
    ('no-race-protocol', 'test_four_racing_uploaders_make_one_image',
     ('expected exactly one image',), {}),
    # NOTE: from an OCI source the racers meet at the registry gate
    # (tests/uploader/gates.py), which the message names; without it this
    # uploader passed about one run in five.
    ('no-race-protocol', 'test_two_racing_uploaders_make_one_image',
     ('expected exactly one image', 'registry gate 127.0.0.1:'), OCI),
    ('no-race-protocol', 'test_four_racing_uploaders_make_one_image',
     ('expected exactly one image', 'registry gate 127.0.0.1:'), OCI),
)

# NOTE: the scenarios that make an image's bytes unavailable and require
# a run that reuses it; from an OCI source its manifest stays readable.
REUSE_TESTS = ('test_rerun_reuses_image',
               'test_foreign_active_community_image_reused')
# NOTE: docker-registry's access log lines (combined log format); the
# scenarios' own registry requests say who they are (tests/uploader/oci.py).
ACCESS = re.compile(r'"(?P<verb>[A-Z]+) /v2/(?P<repo>glance-multiapi-tests/'
                    r'[^/ ]+)/(?P<kind>manifests|blobs)/(?P<ref>[^ ]+) '
                    r'HTTP/[0-9.]+" (?P<status>[0-9]{3}) .* '
                    r'"(?P<agent>[^"]*)"$')
SUITE_AGENT = 'glance-multiapi-tests'


class TestUploaderScenarios(base.CloudTestCase):
    """Each scenario passes for the real uploader, fails for its breakage."""

    cloud_env = base.ENV_UPLOADER_CLOUD

    def _passes(self, variant, part):
        results = self.run_tempest(
            SCENARIOS + PARTS[part], concurrency=4,
            overrides={'image_uploader': VARIANTS[variant]})
        failed = {k: v[1][-1500:] for k, v in results.items()
                  if v[0] == 'fail'}
        self.assertEqual({}, failed)
        # NOTE: at most the other foreign policy's test skips; a part
        # that ran nothing (a renamed module) must not pass.
        skipped = sorted(k for k, v in results.items() if v[0] == 'skip')
        self.assertLessEqual(len(skipped), 1, skipped)
        passed = [k for k, v in results.items() if v[0] == 'success']
        self.assertGreaterEqual(len(passed), 6, sorted(results))

    def test_bundled_uploader_passes_uploads_from_http(self):
        self._passes('http', 'uploads')

    def test_bundled_uploader_passes_policies_and_races_from_http(self):
        self._passes('http', 'policies_and_races')

    def test_bundled_uploader_passes_uploads_from_oci(self):
        self._passes('oci', 'uploads')

    def test_bundled_uploader_passes_policies_and_races_from_oci(self):
        self._passes('oci', 'policies_and_races')

    def test_namespace_env_names_what_the_uploader_reads(self):
        # NOTE: an uploader that reads NAMESPACE (the bundled one behind a
        # shell that renames it) passes with namespace_env = NAMESPACE;
        # the bundled one alone, which reads TARGET_NAMESPACE, must not.
        # NOTE: "$$" is oslo.config's escape of a "$" (which would name
        # another option), so the shell sees $NAMESPACE and $0.
        reads_namespace = (
            'sh -c \'TARGET_NAMESPACE="$$NAMESPACE" exec "$$0" -m '
            'glance_image_uploader.cli\' {python}')
        test = '%s.*test_upload_image\\[' % SCENARIOS
        results = self.run_tempest(test, overrides={'image_uploader': dict(
            CONFIGMAP, namespace_env='NAMESPACE', command=reads_namespace)})
        self.assertOutcome(results, 'test_upload_image[', 'success')
        results = self.run_tempest(test, overrides={'image_uploader': dict(
            CONFIGMAP, namespace_env='NAMESPACE')})
        self.assertOutcome(results, 'test_upload_image[', 'fail',
                           'expected exit 0', 'TARGET_NAMESPACE')


def _drop_leaked_configmap(state_dir):
    """configmap-home wrote into the kubeconfig's own namespace."""
    import kubernetes.client
    import kubernetes.config
    client = kubernetes.config.new_client_from_config(
        config_file=os.path.join(state_dir, 'kubeconfig'))
    try:
        kubernetes.client.CoreV1Api(client).delete_namespaced_config_map(
            'openstack-images-uuids', 'openstack')
    except kubernetes.client.exceptions.ApiException as exc:
        if exc.status != 404:
            raise
    finally:
        client.close()


class _BrokenUploaders(base.CloudTestCase):
    """Each broken uploader fails the scenario meant to catch it.

    One test per row of BROKEN_CASES (added below), so that the runner's
    workers share the rows: most of a row is waiting (on Glance, on the
    uploader's grace, on a hang's timeout).
    """

    cloud_env = base.ENV_UPLOADER_CLOUD

    def check_row(self, mode, test_name, fragments, overrides):
        if mode == 'configmap-home':
            self.addCleanup(_drop_leaked_configmap, self.state_dir)
        results = self.run_tempest(
            '%s.*%s' % (SCENARIOS, re.escape(test_name)),
            overrides={'image_uploader': dict(overrides,
                                              command=BROKEN % mode)})
        details = self.assertOutcome(
            results, test_name, 'fail',
            *[f for f in fragments if isinstance(f, str)])
        for choice in [f for f in fragments if isinstance(f, tuple)]:
            self.assertTrue(any(f in details for f in choice),
                            '%s: message lacks all of %s' % (mode, choice))


class TestBrokenUploadersA(_BrokenUploaders):
    """The even rows of BROKEN_CASES."""


class TestBrokenUploadersB(_BrokenUploaders):
    """The odd rows of BROKEN_CASES, in a worker of their own.

    tools/run-functional.sh gives this class a worker beside A's.
    """


def _row_test(case):
    def test(self):
        self.check_row(*case)
    mode, test_name, _fragments, overrides = case
    source = overrides.get('source', 'http')
    test.__name__ = 'test_%s_fails_%s%s' % (
        mode.replace('-', '_'), test_name.strip('[').replace('test_', '', 1),
        '_from_oci' if source == 'oci' else '')
    test.__doc__ = 'Broken uploader %s fails %s (source %s).' % (
        mode, test_name, source)
    return test


for _index, _case in enumerate(BROKEN_CASES):
    _test = _row_test(_case)
    setattr(TestBrokenUploadersB if _index % 2 else TestBrokenUploadersA,
            _test.__name__, _test)


class TestUploaderRerunReads(base.CloudTestCase):
    """A rerun may read the manifest, never a blob (source = oci).

    The embedded registry's access log (logs/registry-tls.log of the
    cloud) shows what each broken uploader really asked for; the
    scenarios themselves cannot read a remote registry's log and judge
    by what they made unavailable.
    """

    cloud_env = base.ENV_UPLOADER_CLOUD

    def _run(self, mode):
        log = os.path.join(self.state_dir, 'logs', 'registry-tls.log')
        with open(log, 'rb') as f:
            f.seek(0, os.SEEK_END)
            offset = f.tell()
        results = self.run_tempest(
            '%s.*(%s)' % (SCENARIOS, '|'.join(REUSE_TESTS)),
            overrides={'image_uploader': dict(OCI, command=BROKEN % mode)})
        with open(log, 'rb') as f:
            f.seek(offset)
            lines = f.read().decode('utf-8', 'replace').splitlines()
        # NOTE: the scenario's own requests are left out, its blob
        # DELETEs kept as the marks "bytes gone from here on".
        return results, [m.groupdict() for m in map(ACCESS.search, lines)
                         if m and (m['verb'] == 'DELETE' or not
                                   m['agent'].startswith(SUITE_AGENT))]

    def _after_blob_deletes(self, requests):
        """The uploader's registry requests after the scenario's DELETE.

        requests: the uploader's, and the DELETE lines of the scenario.
        """
        after, deleted = [], set()
        for req in requests:
            if req['verb'] == 'DELETE' and req['kind'] == 'blobs':
                deleted.add(req['repo'])
            elif req['repo'] in deleted:
                after.append(req)
        return deleted, after

    def test_manifest_reading_uploader_passes_reuse_scenarios(self):
        results, requests = self._run('reads-manifest')
        for test_name in REUSE_TESTS:
            self.assertOutcome(results, test_name, 'success')
        deleted, after = self._after_blob_deletes(requests)
        self.assertEqual(2, len(deleted), requests)
        # NOTE: proof that the rerun read the manifest and no blob.
        reads = {(r['repo'], r['kind'], r['status']) for r in after
                 if r['verb'] == 'GET'}
        self.assertEqual({(repo, 'manifests', '200') for repo in deleted},
                         reads)

    def test_blob_fetching_uploader_fails_reuse_scenarios(self):
        results, requests = self._run('fetches-blob')
        for test_name in REUSE_TESTS:
            self.assertOutcome(results, test_name, 'fail',
                               "needed the image's bytes again",
                               '/blobs/sha256:', 'answers HTTP 404 '
                               'BLOB_UNKNOWN', 'stays readable (HTTP 200)')
        self.assertOutcome(results, REUSE_TESTS[1], 'fail',
                           'did not reuse the foreign active image')
        deleted, after = self._after_blob_deletes(requests)
        fetched = {r['repo'] for r in after if r['kind'] == 'blobs' and
                   r['verb'] == 'GET' and r['status'] == '404'}
        self.assertEqual(deleted, fetched, requests)
