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

"""What a CI keeps and judges: required groups, kept logs, masking.

Against the cloud of the classes that inject no faults (they read it
only): a tempest run whose discovery is unconfigured fails when the
multi-API group is required, naming the group and the missing options;
the artifacts of a passed run are its configuration, secrets masked.
With a cloud of its own, taken down by the same exit trap as
tools/run-suite.sh's (tools/cloud-cleanup.sh): a job that fails keeps
the service logs.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from xml.etree import ElementTree

import yaml

from selftests.functional import base

TOOLS = os.path.join(base.REPO, 'tools')
MULTIAPI = (r'^glance_multiapi_tests\.tests\.api\.'
            r'(test_endpoints|test_catalog|test_store_placement)\.')
NO_DISCOVERY = {'glance_multiapi': {'kubernetes_api': False,
                                    'discovery_command': '',
                                    'api_names': ''}}


def tool(name, *args, timeout=120, **kwargs):
    return subprocess.run([sys.executable, os.path.join(TOOLS, name)] +
                          list(args), capture_output=True, text=True,
                          timeout=timeout, cwd=base.REPO, **kwargs)


def files_under(folder):
    found = {}
    for root, _dirs, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            with open(path, errors='replace') as f:
                found[os.path.relpath(path, folder)] = f.read()
    return found


class RequiredGroupTest(base.CloudTestCase):
    """Discovery unconfigured: a required multi-API group fails the run."""

    cloud_env = base.ENV_UPLOADER_CLOUD

    def test_unconfigured_discovery_fails_required_multiapi(self):
        proc = self.tempest_stream(MULTIAPI, overrides=NO_DISCOVERY)
        folder = tempfile.mkdtemp(prefix='gmt-required-')
        self.addCleanup(shutil.rmtree, folder, ignore_errors=True)
        stream = os.path.join(folder, 'suite.subunit')
        with open(stream, 'wb') as f:
            f.write(proc.stdout)

        summary = tool('subunit_summary.py', '--require', 'multiapi',
                       stream)
        self.assertEqual(1, summary.returncode, summary.stdout)
        lines = summary.stdout.splitlines()
        self.assertRegex(lines[-1], r'^0 passed, 1 failed, [1-9]\d* '
                                    r'skipped$')
        self.assertIn(
            'FAILED: required group multiapi did not run: [glance_multiapi]'
            ' sets none of kubernetes_api, discovery_command, api_names, '
            'so the Glance APIs are unknown', lines)
        # Without the requirement the same stream is a pass of nothing.
        self.assertNotIn('required group',
                         tool('subunit_summary.py', stream).stdout)

        self.assertEqual(0, tool('subunit_report.py', '--require',
                                 'multiapi', stream).returncode)
        # NOTE: subunit2junitxml's document, the group a test of its own.
        suite = ElementTree.parse(os.path.join(folder, 'suite.junit.xml'))
        failure = [c for c in suite.iter('testcase')
                   if c.find('failure') is not None]
        self.assertEqual([('required_group', 'multiapi')],
                         [(c.get('classname'), c.get('name'))
                          for c in failure])
        self.assertIn('kubernetes_api', failure[0].find('failure').text)


class ArtifactsTest(base.CloudTestCase):
    """tools/collect_artifacts.py and the exit trap that runs it."""

    cloud_env = base.ENV_UPLOADER_CLOUD

    def secrets(self, state_json):
        with open(state_json) as f:
            state = json.load(f)
        return list(state['passwords'].values()) + [state['kube']['token']]

    def assertNoSecret(self, files, secrets):
        for name, text in files.items():
            for secret in secrets:
                self.assertNotIn(secret, text, '%s holds a secret' % name)

    def test_passed_run_keeps_configuration_masked(self):
        dest = tempfile.mkdtemp(prefix='gmt-artifacts-')
        self.addCleanup(shutil.rmtree, dest, ignore_errors=True)
        proc = tool('collect_artifacts.py', '--state-dir', self.state_dir,
                    '--exit-code', '0', dest)
        self.assertEqual(0, proc.returncode, proc.stderr)
        files = files_under(dest)
        self.assertEqual(['clouds.yaml', 'status.json', 'tempest.conf'],
                         sorted(files))
        self.assertIn('admin_password = ***', files['tempest.conf'])
        self.assertIn('api0', json.loads(files['status.json'])['apis'])
        self.assertNoSecret(files, self.secrets(
            os.path.join(self.state_dir, 'state.json')))

    def test_failed_job_keeps_the_service_logs(self):
        folder = tempfile.mkdtemp(prefix='gmt-failing-job-')
        self.addCleanup(shutil.rmtree, folder, ignore_errors=True)
        dest = os.path.join(folder, 'artifacts')
        saved_state = os.path.join(folder, 'state.json')
        # NOTE: a job as run-suite.sh is one, failing after its cloud is
        # up; the trap must keep the logs, then take the cloud down.
        job = '''
            . "$TOOLS/cloud-cleanup.sh" || exit 99
            cloud_workdir failing-job
            cloud_artifacts "$DEST"
            echo "work=$work"
            "$VENV/bin/glance-multiapi-cloud" --state-dir "$state" up -q \\
                --no-registry --no-fileserver || exit 98
            cp "$state/state.json" "$SAVED_STATE"
            exit 3
        '''
        env = {k: v for k, v in os.environ.items()
               if k not in ('KEEP_STATE', 'KEEP_ARTIFACTS')}
        env.update(TOOLS=TOOLS, DEST=dest, SAVED_STATE=saved_state,
                   VENV=os.path.dirname(base.BIN))
        proc = subprocess.run(['bash', '-c', job], capture_output=True,
                              text=True, timeout=600, env=env,
                              cwd=base.REPO)
        self.assertEqual(3, proc.returncode, proc.stdout + proc.stderr)
        work = proc.stdout.split('work=', 1)[1].split()[0]
        self.assertFalse(os.path.exists(work), 'the trap left %s' % work)

        files = files_under(dest)
        for name in ('logs/keystone.log', 'logs/glance-api0.log',
                     'logs/glance-api1.log', 'tempest.conf', 'clouds.yaml',
                     'etc/kubeconfig', 'etc/keystone.conf', 'status.json'):
            self.assertIn(name, files)
        self.assertTrue(files['logs/keystone.log'].strip())
        kubeconfig = yaml.safe_load(files['etc/kubeconfig'])
        self.assertEqual('***', kubeconfig['users'][0]['user']['token'])
        self.assertIn('kept', proc.stdout)
        self.assertNoSecret(files, self.secrets(saved_state))
