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

"""The shipped Tempest CR: CRD fields, overrides, token mount, style."""

import copy
import io
import os
import shutil

import fixtures
import testtools
import yaml

from glance_multiapi_tests import config
from selftests.manifests import crd_schema
from selftests.manifests import rbac
from selftests.manifests import tempest_cr
from selftests.unit import manifest_tools

CR = os.path.join(manifest_tools.ETC, 'tempest-glance-multiapi.yaml')


def shipped_cr():
    with open(CR) as stream:
        return yaml.safe_load(stream)


def shipped_rbac():
    return [doc for name in ('rbac.yaml', 'rbac-disruptive.yaml')
            for doc in rbac.load_documents(os.path.join(manifest_tools.ETC,
                                                        name))]


def disruptive_cr():
    with open(os.path.join(manifest_tools.ETC,
                           'tempest-glance-multiapi-disruptive.yaml')) as f:
        return yaml.safe_load(f)


class ShippedManifestsTest(testtools.TestCase):

    def test_check_test_operator_passes(self):
        code, out, err = manifest_tools.run(self, 'check_test_operator')
        self.assertEqual((0, ''), (code, err), out)
        self.assertIn('agree with the Tempest CRD', out)

    def test_check_names_an_unknown_field(self):
        path = self.write_cr(lambda cr: cr['spec']['tempestRun'].update(
            externalPlugins=[]))
        code, out, _ = manifest_tools.run(self, 'check_test_operator',
                                          '--cr', path)
        self.assertEqual(1, code)
        self.assertIn('spec.tempestRun.externalPlugins: no such field in '
                      'the Tempest CRD', out)

    def test_unreadable_schema_exits_2(self):
        code, _, err = manifest_tools.run(self, 'check_test_operator',
                                          '--schema', '/nonexistent/s.json')
        self.assertEqual(2, code)
        self.assertEqual(1, err.count('\n'), err)
        self.assertIn('s.json', err)

    def test_every_tempest_cr_of_the_folder_is_checked(self):
        # NOTE: a second CR beside the first is found without naming it.
        etc = self.useFixture(fixtures.TempDir()).path
        for name in ('rbac.yaml', 'tempest-crd-schema.json',
                     'tempest-glance-multiapi.yaml'):
            shutil.copy(os.path.join(manifest_tools.ETC, name), etc)
        cr = shipped_cr()
        cr['spec']['tempestRun']['concurrency'] = 'two'
        cr['spec']['parallell'] = True
        with open(os.path.join(
                etc, 'tempest-glance-multiapi-disruptive.yaml'), 'w') as f:
            f.write('---\n' + yaml.safe_dump(cr))
        tool = manifest_tools.load('check_test_operator')
        tool.ETC = etc
        out, err = io.StringIO(), io.StringIO()
        self.useFixture(fixtures.MonkeyPatch('sys.stdout', out))
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', err))
        self.assertEqual(1, tool.main([]))
        where = os.path.relpath(os.path.join(
            etc, 'tempest-glance-multiapi-disruptive.yaml'))
        self.assertEqual(
            ['%s: spec.parallell: no such field in the Tempest CRD' % where,
             '%s: spec.tempestRun.concurrency: is string, the CRD wants '
             'integer' % where], out.getvalue().splitlines())
        self.assertEqual('', err.getvalue())

    def test_no_cr_found_exits_2(self):
        tool = manifest_tools.load('check_test_operator')
        tool.ETC = self.useFixture(fixtures.TempDir()).path
        err = io.StringIO()
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', err))
        self.assertEqual(2, tool.main([]))
        self.assertIn('no Tempest CR (tempest-*.yaml)', err.getvalue())

    def write_cr(self, change):
        cr = shipped_cr()
        change(cr)
        path = self.useFixture(fixtures.TempDir()).join('cr.yaml')
        with open(path, 'w') as stream:
            stream.write('---\n' + yaml.safe_dump(cr))
        return path


class OverridesTest(testtools.TestCase):

    def problems(self, text):
        return tempest_cr.override_problems(text, config.list_opts())

    def test_shipped_overrides_are_plugin_options(self):
        overrides = shipped_cr()['spec']['tempestconfRun']['overrides']
        self.assertEqual([], self.problems(overrides))
        self.assertIn(('glance_multiapi.kubernetes_api', 'true'),
                      tempest_cr.override_pairs(overrides))

    def test_unknown_option_and_bad_value(self):
        problems = self.problems('glance_multiapi.kubernetes true\n'
                                 'glance_multiapi.kubernetes_timeout soon')
        self.assertEqual(2, len(problems), problems)
        self.assertEqual("tempestconfRun.overrides: [glance_multiapi] has "
                         "no option 'kubernetes'", problems[0])
        self.assertIn("[glance_multiapi] kubernetes_timeout = 'soon': ",
                      problems[1])

    def test_other_sections_and_quotes(self):
        self.assertEqual([], self.problems(
            'identity.v3_endpoint_type public '
            'glance_multiapi.kubeconfig "/a b/kubeconfig"'))

    def test_odd_word_count(self):
        problems = self.problems('a.b c true')
        self.assertEqual(1, len(problems), problems)
        self.assertIn("odd number of override words (3 from the CR): "
                      "'true' has no value", problems[0])

    def test_apostrophe_breaks_xargs(self):
        # NOTE: run_tempest.sh pipes the overrides through xargs.
        problems = self.problems('glance_multiapi.glance_name it\'s')
        self.assertEqual(1, len(problems), problems)
        self.assertIn('xargs: unmatched single quote', problems[0])

    def test_unquoted_glob_is_named(self):
        problems = self.problems('glance_multiapi.glance_name glance*\n'
                                 "glance_multiapi.controlplane_name 'o*'")
        self.assertEqual(1, len(problems), problems)
        self.assertIn("'glance*': bash (run_tempest.sh) expands it",
                      problems[0])


class TokenTest(testtools.TestCase):

    def test_shipped_cr_mounts_the_token(self):
        self.assertEqual([], tempest_cr.token_problems(shipped_cr(),
                                                       shipped_rbac()))

    def test_no_mount_means_no_token(self):
        cr = shipped_cr()
        del cr['spec']['extraMounts']
        problems = tempest_cr.token_problems(cr, shipped_rbac())
        self.assertEqual(1, len(problems))
        self.assertIn('mounts no Secret at', problems[0])

    def test_privileged_pod_needs_no_mount(self):
        cr = shipped_cr()
        del cr['spec']['extraMounts']
        cr['spec']['privileged'] = True
        self.assertEqual([], tempest_cr.token_problems(cr, shipped_rbac()))

    def test_namespace_is_left_to_oc_apply(self):
        cr = copy.deepcopy(shipped_cr())
        cr['metadata']['namespace'] = 'tests'
        self.assertIn('metadata.namespace is set',
                      tempest_cr.token_problems(cr, shipped_rbac())[0])

    def test_gate_with_the_disruptive_token_is_refused(self):
        cr = shipped_cr()
        cr['spec']['extraMounts'] = disruptive_cr()['spec']['extraMounts']
        problems = tempest_cr.token_problems(cr, shipped_rbac())
        self.assertEqual(1, len(problems), problems)
        self.assertIn('turns no disruptive scenario on, yet its token',
                      problems[0])
        self.assertIn('delete pods', problems[0])

    def test_disruptive_with_the_gate_token_lacks_its_grants(self):
        cr = disruptive_cr()
        cr['spec']['extraMounts'] = shipped_cr()['spec']['extraMounts']
        problems = tempest_cr.token_problems(cr, shipped_rbac())
        self.assertIn('glance_multiapi.run_switchover is on, which needs '
                      '"patch openstackcontrolplanes.core.openstack.org"',
                      problems[0])

    def test_shipped_disruptive_cr_has_its_grants(self):
        self.assertEqual([], tempest_cr.token_problems(disruptive_cr(),
                                                       shipped_rbac()))

    def test_own_pod_readable_whatever_the_cr_is_called(self):
        # NOTE: ci-framework names the CR <name>-<stage>
        # (roles/test_operator/tasks/runners/tempest_runner.yml).
        for name in ('glance-multiapi-tempest',
                     'glance-multiapi-disruptive-tempest', 'x'):
            cr = disruptive_cr()
            cr['metadata']['name'] = name
            self.assertEqual([], tempest_cr.token_problems(
                cr, shipped_rbac()), name)

    def test_own_pod_named_in_the_role_must_be_the_crs(self):
        rbac_docs = manifest_tools.name_the_pod_in_get(
            copy.deepcopy(shipped_rbac()))
        self.assertEqual([], tempest_cr.token_problems(disruptive_cr(),
                                                       rbac_docs))
        cr = disruptive_cr()
        cr['metadata']['name'] = 'glance-multiapi-tempest'
        problems = tempest_cr.token_problems(cr, rbac_docs)
        self.assertEqual(1, len(problems), problems)
        self.assertIn('a disruptive run reads its own pod glance-multiapi-'
                      'tempest (test-operator names it after the CR)',
                      problems[0])

    def test_pod_names_follow_the_workflow(self):
        cr = disruptive_cr()
        self.assertEqual(['glance-multiapi-disruptive'],
                         tempest_cr.pod_names(cr))
        cr['spec']['workflow'] = [{'stepName': 'switch'}, {}]
        self.assertEqual(['glance-multiapi-disruptive-s00-switch',
                          'glance-multiapi-disruptive-s01-no-name'],
                         tempest_cr.pod_names(cr))
        cr['metadata']['name'] = 'g' * 60
        problems = tempest_cr.token_problems(cr, shipped_rbac())
        self.assertEqual(2, len(problems), problems)
        self.assertIn('test-operator refuses 63 or more', problems[0])


class StyleTest(testtools.TestCase):

    def test_document_start_and_line_length(self):
        problems = tempest_cr.style_problems('f.yaml', 'a: 1\nb: %s\n'
                                             % ('x' * 80))
        self.assertEqual(['f.yaml:1: no "---" document start',
                          'f.yaml:2: line is 83 characters (at most 80)'],
                         problems)


class MappingsConfigMapExampleTest(testtools.TestCase):
    """The commented ConfigMap mount of the gate CR works as written."""

    def test_uncommented_example_fits_the_crd(self):
        with open(CR) as stream:
            lines = stream.read().splitlines()
        prefix = '        # '
        start = lines.index(prefix + '- volumes:')
        end = start
        while end < len(lines) and lines[end].startswith(prefix):
            end += 1
        uncommented = lines[:start] + [
            '        ' + line[len(prefix):] for line in lines[start:end]
        ] + lines[end:]
        cr = yaml.safe_load('\n'.join(uncommented))
        checker = crd_schema.load(os.path.join(manifest_tools.ETC,
                                               'tempest-crd-schema.json'))
        self.assertEqual([], checker.problems(cr))
        self.assertNotIn('extraConfigmapsMounts', '\n'.join(lines))
        token, mapping = cr['spec']['extraMounts'][0]['extraVol']
        mount, = mapping['mounts']
        self.assertEqual('image-mappings.yaml', mount['subPath'])
        volume, = mapping['volumes']
        self.assertEqual(mount['name'], volume['name'])
        text = '\n'.join(lines)
        self.assertIn('consolidated_images.mappings_file %s'
                      % mount['mountPath'], text)
        self.assertIn('--from-file=%s' % mount['subPath'], text)


class ResultsReaderTest(testtools.TestCase):
    """etc/test-operator/results-reader.yaml: a pod oc cp can read from."""

    def setUp(self):
        super().setUp()
        self.path = os.path.join(manifest_tools.ETC, 'results-reader.yaml')
        with open(self.path) as stream:
            self.text = stream.read()
        self.pod = yaml.safe_load(self.text)

    def test_mounts_the_pvc_read_only_under_results(self):
        spec = self.pod['spec']
        volume, = spec['volumes']
        self.assertEqual({'claimName': 'LOGS_PVC', 'readOnly': True},
                         volume['persistentVolumeClaim'])
        mount, = spec['containers'][0]['volumeMounts']
        self.assertEqual(('/results', True, volume['name']),
                         (mount['mountPath'], mount['readOnly'],
                          mount['name']))
        self.assertEqual('Never', spec['restartPolicy'])
        self.assertNotIn('namespace', self.pod['metadata'])
        self.assertEqual([], tempest_cr.style_problems(self.path,
                                                       self.text))

    def test_recipe_uses_test_operators_pvc_labels_and_this_pod(self):
        # NOTE: test-operator labels its logs PVC with instanceName (the
        # CR's name) and operator=test-operator (common_controller.go).
        self.assertIn('-l instanceName=CR,operator=test-operator', self.text)
        name = self.pod['metadata']['name']
        self.assertIn('pod/%s' % name, self.text)
        self.assertIn('oc cp -n NS %s:/results' % name, self.text)
        self.assertIn('s/LOGS_PVC/$pvc/', self.text)

    def test_image_is_the_test_pods_read_from_the_cluster(self):
        self.assertEqual('READER_IMAGE',
                         self.pod['spec']['containers'][0]['image'])
        self.assertIn("img=$(oc get pod -n NS CR -o jsonpath='{.spec."
                      "containers[0].image}')", self.text)
        self.assertIn('s|READER_IMAGE|$img|', self.text)
