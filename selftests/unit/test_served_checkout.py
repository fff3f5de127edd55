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

"""The pre_tests hook's served checkout, cloned as a test-operator pod
clones an externalPlugin.

The hook's own shell (playbooks/podified/pre-tests.yaml, rendered as
Ansible renders it) makes the bare clone of a checkout whose HEAD is
detached, as Zuul may leave it; Python's http.server serves it on
loopback, as the hook serves it with ``python3 -m http.server``; and
``git clone URL`` (run_tempest.sh's, without changeRepository) gets the
commit under test.
"""

import functools
import http.server
import os
import subprocess
import threading

import fixtures
import testtools
import yaml

from selftests.manifests import zuul_jobs
from selftests.unit import manifest_tools

HOOK = os.path.join(manifest_tools.REPO, 'playbooks', 'podified',
                    'pre-tests.yaml')
CLONE_TASK = 'Make a bare clone of the commit Zuul prepared, to serve'


def git(*args, cwd=None):
    env = dict(os.environ, GIT_AUTHOR_NAME='t', GIT_AUTHOR_EMAIL='t@t',
               GIT_COMMITTER_NAME='t', GIT_COMMITTER_EMAIL='t@t',
               GIT_CONFIG_NOSYSTEM='1', HOME=cwd or os.getcwd())
    return subprocess.run(['git'] + list(args), cwd=cwd, env=env,
                          check=True, capture_output=True, text=True,
                          timeout=60).stdout.strip()


class ServedCheckoutTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        if zuul_jobs.jinja2() is None:
            self.skipTest('jinja2 is not installed')
        self.work = self.useFixture(fixtures.TempDir()).path

    def hook_shell(self, name, **variables):
        with open(HOOK) as f:
            tasks = yaml.safe_load(f)[0]['tasks']
        task = next(t for t in tasks if t['name'] == name)
        env = zuul_jobs.jinja2().Environment(
            undefined=zuul_jobs.jinja2().StrictUndefined)
        return env.from_string(task['ansible.builtin.shell']).render(
            variables)

    def checkout(self):
        """A checkout with two commits, HEAD detached at the second."""
        src = os.path.join(self.work, 'src')
        os.makedirs(src)
        git('init', '-q', '-b', 'main', cwd=src)
        for text in ('one', 'two'):
            with open(os.path.join(src, 'f'), 'w') as f:
                f.write(text)
            git('add', 'f', cwd=src)
            git('commit', '-q', '-m', text, cwd=src)
        head = git('rev-parse', 'HEAD', cwd=src)
        git('checkout', '-q', '--detach', 'HEAD', cwd=src)
        git('reset', '-q', '--hard', 'HEAD', cwd=src)
        git('branch', '-q', '-f', 'main', 'HEAD~1', cwd=src)
        return src, head

    def serve(self, folder):
        handler = functools.partial(http.server.SimpleHTTPRequestHandler,
                                    directory=folder)
        handler.log_message = lambda *args: None
        server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        self.addCleanup(thread.join, 10)
        self.addCleanup(server.shutdown)
        return 'http://127.0.0.1:%d' % server.server_address[1]

    def test_pod_clones_the_commit_zuul_prepared(self):
        src, head = self.checkout()
        serve_dir = os.path.join(self.work, 'served')
        shell = self.hook_shell(CLONE_TASK, gmt_src=src,
                                gmt_serve_dir=serve_dir)
        subprocess.run(['bash', '-c', shell], check=True, timeout=60,
                       capture_output=True, cwd=self.work)
        url = self.serve(serve_dir) + '/glance-multiapi-tests.git'
        git('clone', '-q', url, cwd=self.work)
        cloned = os.path.join(self.work, 'glance-multiapi-tests')
        self.assertEqual(head, git('rev-parse', 'HEAD', cwd=cloned))
        with open(os.path.join(cloned, 'f')) as f:
            self.assertEqual('two', f.read())


class PodifiedDoctorTest(testtools.TestCase):
    """The pre_tests hook's doctor: doctor.yaml's Job, this job's values.

    The hook's template rendered as Ansible renders it (its lookup and
    YAML filters played by PyYAML).
    """

    def render(self, **variables):
        jinja2 = zuul_jobs.jinja2()
        if jinja2 is None:
            self.skipTest('jinja2 is not installed')
        env = jinja2.Environment(undefined=jinja2.StrictUndefined,
                                 loader=jinja2.FileSystemLoader(
                                     os.path.dirname(HOOK)))
        env.filters['from_yaml_all'] = yaml.safe_load_all
        env.filters['to_nice_yaml'] = lambda value, indent=4, width=80: (
            yaml.safe_dump(value, indent=indent, width=width,
                           default_flow_style=False))

        def lookup(kind, path):
            with open(path) as f:
                return f.read()
        template = env.get_template('templates/doctor.yaml.j2')
        return list(yaml.safe_load_all(template.render(
            lookup=lookup, gmt_src=manifest_tools.REPO, **variables)))

    def test_job_runs_this_jobs_image_checkout_token_and_overrides(self):
        with open(HOOK) as f:
            image = yaml.safe_load(f)[0]['vars']['gmt_manifest_image']
        with open(os.path.join(manifest_tools.ETC, 'doctor.yaml')) as f:
            manifest_job = list(yaml.safe_load_all(f))[1]
        self.assertEqual(manifest_job['spec']['template']['spec'][
            'containers'][0]['image'], image)
        configmap, job = self.render(
            gmt_served='http://192.0.2.10:8767/glance-multiapi-tests.git\n',
            gmt_manifest_image=image,
            glance_multiapi_doctor_image='quay.io/x/tempest:py312\n',
            glance_multiapi_token_secret='glance-multiapi-tests-'
                                         'disruptive-token',
            glance_multiapi_overrides='glance_multiapi.kubernetes_api true\n'
                                      'glance_multiapi.run_switchover '
                                      'true\n')
        self.assertEqual(('ConfigMap', 'Job'), (configmap['kind'],
                                                job['kind']))
        pod = job['spec']['template']['spec']
        container = pod['containers'][0]
        self.assertEqual('quay.io/x/tempest:py312', container['image'])
        self.assertEqual('http://192.0.2.10:8767/glance-multiapi-tests.git',
                         {e['name']: e['value'] for e in container['env']}[
                             'REPOSITORY'])
        secrets = [v['secret']['secretName'] for v in pod['volumes']
                   if 'secret' in v]
        self.assertIn('glance-multiapi-tests-disruptive-token', secrets)
        self.assertNotIn('glance-multiapi-tests-token', secrets)
        self.assertIn('run_switchover = true',
                      configmap['data']['doctor.conf'])
