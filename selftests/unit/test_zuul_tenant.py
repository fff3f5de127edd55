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

"""The pasted Zuul job in its tenant, loaded by Zuul's own parser.

tools/check_zuul_tenant.py runs in .venv-zuul (zuul 14.3.0): the tenant
of etc/zuul/tenant.yaml (the pasting project and this one) loads the
paste beside this project's zuul.d/, and the job, its parent chain and
its required project resolve. Each tenant or paste a reader could get
wrong instead fails, in Zuul's words where Zuul refuses it.
"""

import json
import os
import subprocess

import fixtures
import testtools
import yaml

from selftests import ci_venvs

REPO = ci_venvs.REPO
TENANT = os.path.join(REPO, 'etc', 'zuul', 'tenant.yaml')
PASTE = os.path.join(REPO, 'etc', 'zuul', 'paste-job.yaml')
JOB = 'glance-operator-glance-multiapi'
THIS = 'openstack-k8s-operators/glance-multiapi-tests'


def _read(path):
    with open(path) as f:
        return f.read()


class ZuulTenantTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.venv = self.useFixture(ci_venvs.CiVenv('zuul'))
        self.tmp = self.useFixture(fixtures.TempDir()).path

    def check(self, tenant=None, paste=None):
        """(exit code, {"problems", "jobs"}) of check_zuul_tenant.py."""
        argv = [self.venv.bin('python'),
                os.path.join(REPO, 'tools', 'check_zuul_tenant.py'),
                '--json']
        for option, docs in (('--tenant', tenant), ('--paste', paste)):
            if docs is not None:
                path = os.path.join(self.tmp, option[2:] + '.yaml')
                with open(path, 'w') as f:
                    yaml.safe_dump(docs, f)
                argv += [option, path]
        proc = subprocess.run(argv, capture_output=True, text=True,
                              timeout=120)
        self.assertIn(proc.returncode, (0, 1), proc.stderr)
        return proc.returncode, json.loads(proc.stdout)

    def tenant(self):
        return yaml.safe_load(_read(TENANT))

    def projects(self, tenant):
        return tenant[0]['tenant']['source']['github'][
            'untrusted-projects']

    def test_paste_resolves_in_the_documented_tenant(self):
        code, out = self.check()
        self.assertEqual((0, []), (code, out['problems']))
        job = out['jobs'][JOB]
        self.assertEqual('github-check', job['pipeline'])
        self.assertEqual(['glance-multiapi-tests-podified',
                          'glance-multiapi-tests-podified-base',
                          'podified-multinode-hci-deployment-crc-1comp-'
                          'backends'], job['parents'][:3])
        self.assertEqual('base', job['parents'][-1])
        self.assertFalse(job['abstract'])
        self.assertIn('github.com/' + THIS, job['required_projects'])

    def test_frozen_job_has_the_pasting_projects_irrelevant_files(self):
        _code, out = self.check()
        paste = yaml.safe_load(_read(PASTE))
        own = next(d['job'] for d in paste if 'job' in d)[
            'irrelevant-files']
        frozen = out['jobs'][JOB]['irrelevant_files']
        self.assertEqual(sorted(own), frozen)
        self.assertNotIn('^doc/.*$', frozen)

    def test_paste_without_irrelevant_files_inherits_this_projects(self):
        paste = yaml.safe_load(_read(PASTE))
        next(d['job'] for d in paste if 'job' in d).pop('irrelevant-files')
        code, out = self.check(paste=paste)
        self.assertEqual(1, code)
        self.assertIn('^doc/.*$', out['jobs'][JOB]['irrelevant_files'])
        self.assertIn('%s: sets no irrelevant-files, so it inherits this '
                      'project\'s paths' % JOB, out['problems'][0])

    def test_tenant_without_this_project_cannot_resolve_the_parent(self):
        tenant = self.tenant()
        projects = self.projects(tenant)
        projects[:] = [p for p in projects if isinstance(p, str)]
        code, out = self.check(tenant=tenant)
        self.assertEqual(1, code)
        self.assertIn('%s is not among its untrusted-projects' % THIS,
                      out['problems'][0])

    def test_loading_nothing_of_this_project_leaves_the_parent_undefined(
            self):
        tenant = self.tenant()
        self.projects(tenant)[-1][THIS]['include'] = []
        code, out = self.check(tenant=tenant)
        self.assertEqual(1, code)
        self.assertIn('Job glance-multiapi-tests-podified not defined',
                      ' '.join(out['problems']))

    def test_loading_all_of_this_project_breaks_on_its_own_stanzas(self):
        # NOTE: without include: [job] the tenant loads this project's
        # project stanza too, whose jobs its own tenant provides.
        tenant = self.tenant()
        del self.projects(tenant)[-1][THIS]['include']
        code, out = self.check(tenant=tenant)
        self.assertEqual(1, code)
        self.assertIn('Job openstack-tox-pep8 not defined',
                      ' '.join(out['problems']))

    def test_a_class_zuul_does_not_know_is_refused_by_its_schema(self):
        tenant = self.tenant()
        self.projects(tenant)[-1][THIS]['include'] = ['jobs']
        code, out = self.check(tenant=tenant)
        self.assertEqual(1, code)
        self.assertIn('the tenant configuration is refused',
                      out['problems'][0])
