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

"""Property test: the image check's verdict is a function of the cluster.

An OpenStackVersion is drawn in any state heat's images can be in: any
upstream layout of the defaults, under any registry, mirror or vendor
name, pinned by tag or digest; overrides of any fields with any of those
references (another build, another image, the same one); status drifting
from both or lacking a field; an update in progress or not; the version
map present or not. Every optional input that agrees with that CR -- the
RELATED_IMAGE env of the target version, an env of another version, the
known names of every image it names, the running Deployments on what
status names and their pods on one digest per image (its pin, else what
its tag resolved to), a mapping file grouping the fields as status does
-- is
then given or left out in every combination, and the verdict must not
change: the same pass or fail, and but for a mapping file (whose targets
name the findings their own way) and the pods (which follow a status
already split) the same kinds of finding.
"""

import dataclasses
import hashlib
import itertools

from hypothesis import given
from hypothesis import strategies as st
import testtools

from glance_multiapi_kernel import heat_images
from glance_multiapi_kernel import image_mappings
from glance_multiapi_tests.imagecheck import check
from glance_multiapi_tests.imagecheck import declared
from glance_multiapi_tests.imagecheck import identity
from glance_multiapi_tests.imagecheck import pullspec
from glance_multiapi_tests.imagecheck import sources
from selftests import fuzzing  # noqa: F401 (the profiles)

FIELDS = heat_images.FIELDS
TARGET, NEXT = '0.0.1', '0.0.2'
REGISTRIES = ('quay.io/podified-antelope-centos9/',
              'registry.redhat.io/rhoso/',
              'mirror.example.com:5000/rhoso/',
              'quay.io/openstack-k8s-operators/')
SUFFIXES = ('', '-rhel9')
PINS = ('@sha256:' + 'a' * 64, '@sha256:' + 'b' * 64,
        ':current-podified', ':18.0')
NAMES = ('openstack-heat-api', 'openstack-heat-api-cfn',
         'openstack-heat-engine')
DEPLOYMENTS = {'heat-api': heat_images.API,
               'heat-cfnapi': heat_images.CFNAPI,
               'heat-engine': heat_images.ENGINE}
OPTIONAL = ('env', 'env_of_next', 'known_names', 'running', 'pods',
            'mapping')
# NOTE: inputs whose findings are phrased their own way (a mapping's
# targets, the pods of an image status already splits): for them only
# the verdict itself is held the same.
OWN_WORDS = ('mapping', 'pods')


def references(suffix):
    """Any reference of heat's image names under one vendor suffix."""
    return st.builds(lambda registry, name, pin: registry + name + pin,
                     st.sampled_from(REGISTRIES),
                     st.sampled_from(NAMES).map(lambda n: n + suffix),
                     st.sampled_from(PINS))


@st.composite
def clusters(draw):
    """An OpenStackVersion (a dict) in any state of heat's images."""
    suffix = draw(st.sampled_from(SUFFIXES))
    layout = draw(st.sampled_from(sorted(heat_images.LAYOUTS)))
    defaults = {}
    for name, fields in heat_images.LAYOUTS[layout]:
        ref = draw(st.sampled_from(REGISTRIES)) + name + suffix + draw(
            st.sampled_from(PINS))
        defaults.update((field, ref) for field in fields)
    refs = references(suffix)
    pool = st.one_of(st.sampled_from(sorted(set(defaults.values()))), refs)
    custom = draw(st.dictionaries(st.sampled_from(FIELDS), pool,
                                  max_size=3))
    deployed = dict(defaults, **custom)
    change = draw(st.sampled_from(('none', 'none', 'drift', 'missing')))
    if change != 'none':
        field = draw(st.sampled_from(FIELDS))
        if change == 'drift':
            deployed[field] = draw(pool)
        else:
            del deployed[field]
    status = {'availableVersion': draw(st.sampled_from((TARGET, NEXT))),
              'deployedVersion': TARGET, 'containerImages': deployed}
    if draw(st.booleans()):
        status['containerImageVersionDefaults'] = {TARGET: defaults}
        if status['availableVersion'] == NEXT:
            status['containerImageVersionDefaults'][NEXT] = {
                field: draw(refs) for field in FIELDS}
    return {'kind': 'OpenStackVersion',
            'spec': {'targetVersion': TARGET, 'customContainerImages': custom},
            'status': status}


def _env(refs, release):
    return sources.parse_env_listing(''.join(
        '%s=%s\n' % (sources.env_name_for_field(field), ref)
        for field, ref in sorted(refs.items())) +
        'OPENSTACK_RELEASE_VERSION=%s\n' % release, 'env')


def optional_inputs(document):
    """{name: the input} of each optional input agreeing with the CR."""
    status = document['status']
    deployed = status['containerImages']
    defaults = (status.get('containerImageVersionDefaults') or {}).get(
        TARGET) or deployed
    named = set()
    for refs in (deployed, document['spec']['customContainerImages'],
                 defaults):
        named |= {identity.image_of(pullspec.parse(ref))
                  for ref in refs.values()}
    running = {name: {'spec': {'template': {'spec': {'containers': [
        {'name': name, 'image': deployed[field]}]}}}}
        for name, field in DEPLOYMENTS.items() if field in deployed}
    by_image = identity.by_image(
        {f: pullspec.parse(r) for f, r in deployed.items()}, FIELDS)
    # NOTE: s2i names a target heat/<dir> and builds openstack-<dir>.
    prefix = image_mappings.IMAGE_NAME_PREFIX
    targets = [image_mappings.Target('heat/' + image[len(prefix):],
                                     tuple(fields))
               for image, fields in by_image.items()]
    targets += [image_mappings.Target('heat/' + field, (field,))
                for field in FIELDS if field not in deployed]
    # NOTE: the pods of one image run one digest: its pin, else the one
    # its tag resolved to.
    resolved = {}
    for image, fields in by_image.items():
        pins = [pullspec.parse(deployed[f]).digest for f in fields]
        resolved[image] = next((pin for pin in pins if pin), 'sha256:' +
                               hashlib.sha256(image.encode()).hexdigest())
    pod_objects = {}
    for name, field in DEPLOYMENTS.items():
        if field not in deployed:
            continue
        ref = pullspec.parse(deployed[field])
        pod_objects[name] = [{
            'metadata': {'name': name + '-x'},
            'spec': {'containers': [{'name': name, 'image': ref.text}]},
            'status': {'containerStatuses': [{
                'name': name, 'imageID': '%s@%s' % (
                    ref.repository, resolved[identity.image_of(ref)])}]}}]
    pods = sources.parse_pods(pod_objects, DEPLOYMENTS, 'api')
    return {
        'pods': dataclasses.replace(pods, deployments={
            field: name for name, field in DEPLOYMENTS.items()
            if name in pod_objects}),
        'env': _env(defaults, TARGET),
        'env_of_next': _env({f: NAMES[0] + ':x' for f in FIELDS}, NEXT),
        'known_names': frozenset(named),
        'running': sources.parse_running(running, {
            name: field for name, field in DEPLOYMENTS.items()
            if name in running}, 'api'),
        'mapping': image_mappings.Mapping('status grouping',
                                          tuple(targets)),
    }


def verdict(document, inputs, given_names):
    found, versions = sources.parse_version(document, 'osv')
    if 'env' in given_names:
        found.append(inputs['env'])
    if 'env_of_next' in given_names:
        found.append(inputs['env_of_next'])
    kwargs = dict(versions=versions,
                  known_names=inputs['known_names']
                  if 'known_names' in given_names else None,
                  running=inputs['running']
                  if 'running' in given_names else None,
                  pods=inputs['pods'] if 'pods' in given_names else None)
    if 'mapping' in given_names:
        return check.check(inputs['mapping'], found, **kwargs)
    return declared.check_declared(found, **kwargs)


def findings(report):
    return {f.kind for f in report.findings}


class VerdictInvarianceTest(testtools.TestCase):

    @given(clusters())
    def test_agreeing_optional_inputs_never_change_the_verdict(
            self, document):
        inputs = optional_inputs(document)
        alone = verdict(document, inputs, ())
        for count in range(1, len(OPTIONAL) + 1):
            for given_names in itertools.combinations(OPTIONAL, count):
                report = verdict(document, inputs, given_names)
                self.assertEqual(
                    alone.consistent, report.consistent,
                    (given_names, sorted(findings(alone)),
                     sorted(findings(report))))
                if not set(OWN_WORDS) & set(given_names):
                    self.assertEqual(findings(alone), findings(report),
                                     given_names)
