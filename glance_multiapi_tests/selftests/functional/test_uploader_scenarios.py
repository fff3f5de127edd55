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

from glance_multiapi_tests.selftests.functional import base

SCENARIOS = 'glance_multiapi_tests.tests.scenario.test_uploader'
BROKEN = ('{python} -m glance_multiapi_tests.selftests.functional.'
          'broken_uploader %s')

# (broken mode, test that must fail, fragment of its failure message)
BROKEN_CASES = (
    ('private', 'test_uploaded_image_is_community',
     'is private, not community'),
    ('redownload', 'test_rerun_reuses_image',
     'the second run downloaded the image again'),
    ('leave-temp', 'test_temp_dir_empty_after_success_and_failure',
     'uploader left'),
    ('no-md5-check', 'test_temp_dir_empty_after_success_and_failure',
     'a wrong md5 was accepted'),
    ('keep-stale-queued', 'test_own_stale_queued_image_replaced',
     'expected exactly one image'),
    ('ignore-saving', 'test_waits_for_saving_image',
     'uploader did not wait for image'),
    ('keep-failed-saving', 'test_saving_then_queued_is_replaced',
     'expected exactly one image'),
    ('delete-foreign', 'test_foreign_queued_image_stops_upload',
     'expected exit 1'),
    ('exit0-foreign', 'test_foreign_queued_image_stops_upload',
     'expected exit 1'),
    ('no-race-protocol', 'test_two_racing_uploaders_make_one_image',
     'expected exactly one image'),
    ('no-race-protocol', 'test_four_racing_uploaders_make_one_image',
     'expected exactly one image'),
)


class TestUploaderScenarios(base.CloudTestCase):
    """Each scenario passes for the real uploader, fails for its breakage."""

    def test_bundled_uploader_passes_all(self):
        results = self.run_tempest(SCENARIOS, concurrency=4)
        failed = {k: v[1][-1500:] for k, v in results.items()
                  if v[0] != 'success'}
        self.assertEqual({}, failed)
        self.assertGreaterEqual(len(results), 8)

    def test_broken_uploaders_fail_their_scenario(self):
        wrong = []
        for mode, test_name, fragment in BROKEN_CASES:
            results = self.run_tempest(
                '%s.*%s' % (SCENARIOS, test_name),
                overrides={'image_uploader': {'command': BROKEN % mode}})
            try:
                self.assertOutcome(results, test_name, 'fail', fragment)
            except self.failureException as exc:
                wrong.append('%s: %s' % (mode, str(exc)[-600:]))
        self.assertEqual([], wrong)
