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

"""etc/test-operator/doctor.yaml against the gate CR it stands in front of.

The doctor's Job must check what the gate CR's pod would run against:
the same overrides (its ConfigMap's doctor.conf, plus the CA bundle test-
operator mounts into tempest pods), the same image (the CR's
containerImage, or test-operator's default when that is empty), the
same git URL and the same token; and it must be a Job that runs once,
with no token of the namespace's default account and no namespace named.
``problems`` says what differs, one line each; ``parts`` is what the
test-operator stage plays of it (tools/tcib_pod.py doctor).
"""

import configparser
import os
import shlex

from selftests.manifests import tempest_cr

# test-operator d0ef1c3 api/v1beta1/common_webhook.go
# DefaultTempestContainerImageURL: what an empty containerImage means.
DEFAULT_IMAGE = ('quay.io/podified-antelope-centos9/openstack-tempest-all:'
                 'current-podified')
# test-operator internal/util/volumes.go: the CA bundle of tempest pods.
CA_SECRET, CA_KEY = 'combined-ca-bundle', 'tls-ca-bundle.pem'
CONF_KEY = 'doctor.conf'


class DoctorManifestError(ValueError):
    """The file is not a ConfigMap and a Job."""


def split(docs):
    """(ConfigMap, Job) of the manifest's documents."""
    kinds = {d.get('kind'): d for d in docs if isinstance(d, dict)}
    if sorted(kinds) != ['ConfigMap', 'Job'] or len(docs) != 2:
        raise DoctorManifestError('want a ConfigMap and a Job, found %s'
                                  % ', '.join(str(d.get('kind'))
                                              for d in docs))
    return kinds['ConfigMap'], kinds['Job']


def conf_pairs(text):
    """{section.option: value} of an ini text (doctor.conf)."""
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str
    parser.read_string(text)
    return {'%s.%s' % (section, key): value
            for section in parser.sections()
            for key, value in parser.items(section)}


def _pod(job):
    return ((job.get('spec') or {}).get('template') or {}).get('spec') or {}


def _container(job):
    containers = _pod(job).get('containers') or [{}]
    return containers[0]


def mounts(job):
    """{mountPath: (volume, subPath)} of the doctor's container."""
    volumes = {v.get('name'): v for v in _pod(job).get('volumes') or []}
    return {m.get('mountPath'): (volumes.get(m.get('name')) or {},
                                 m.get('subPath'))
            for m in _container(job).get('volumeMounts') or []}


def config_file(job):
    """The --config-file the doctor's script passes."""
    words = shlex.split(' '.join(_container(job).get('args') or []),
                        comments=True)
    for index, word in enumerate(words[:-1]):
        if word == '--config-file':
            return words[index + 1]
    return None


def env(job):
    return {e.get('name'): e.get('value')
            for e in _container(job).get('env') or []}


def parts(docs):
    """What the stage needs to play the pod: script, env, files."""
    configmap, job = split(docs)
    return {'script': '\n'.join(_container(job).get('args') or []),
            'env': env(job), 'config_file': config_file(job),
            'conf': (configmap.get('data') or {}).get(CONF_KEY, ''),
            'image': _container(job).get('image')}


def _identity_problems(configmap, job):
    problems = []
    for doc in (configmap, job):
        if (doc.get('metadata') or {}).get('namespace'):
            problems.append('%s %s names a namespace; leave it to oc apply '
                            '-n, as the gate CR does' % (
                                doc['kind'], doc['metadata'].get('name')))
    if (job.get('spec') or {}).get('backoffLimit') != 0:
        problems.append('Job: backoffLimit must be 0 (a failed doctor is '
                        'a verdict, not a reason to retry)')
    pod = _pod(job)
    if pod.get('restartPolicy') != 'Never':
        problems.append('Job: restartPolicy must be Never')
    if pod.get('automountServiceAccountToken') is not False:
        problems.append('Job: automountServiceAccountToken must be false, '
                        'or the default account\'s token is mounted where '
                        'rbac.yaml\'s goes')
    return problems


def problems(docs, gate_cr):
    """Problems of the doctor manifest's documents against the gate CR."""
    try:
        configmap, job = split(docs)
    except DoctorManifestError as exc:
        return [str(exc)]
    found = _identity_problems(configmap, job)
    spec = gate_cr.get('spec') or {}
    by_path = mounts(job)
    # the token
    token = (by_path.get(tempest_cr.TOKEN_DIR) or ({}, None))[0]
    want = tempest_cr.mounted_token_secret(gate_cr)
    got = (token.get('secret') or {}).get('secretName')
    if got != want:
        found.append('Job mounts Secret %s at %s; the gate CR mounts %s' % (
            got, tempest_cr.TOKEN_DIR, want))
    # the image
    want_image = spec.get('containerImage') or DEFAULT_IMAGE
    if _container(job).get('image') != want_image:
        found.append('Job runs image %s; the gate CR\'s pod runs %s' % (
            _container(job).get('image'), want_image))
    # the git URL
    plugins = (spec.get('tempestRun') or {}).get('externalPlugin') or [{}]
    if env(job).get('REPOSITORY') != plugins[0].get('repository'):
        found.append('Job installs from %r; the gate CR from %r' % (
            env(job).get('REPOSITORY'), plugins[0].get('repository')))
    # the configuration
    path = config_file(job)
    conf_mount = by_path.get(os.path.dirname(path or '')) or ({}, None)
    if (conf_mount[0].get('configMap') or {}).get('name') != (
            configmap.get('metadata') or {}).get('name') or \
            os.path.basename(path or '') != CONF_KEY:
        found.append('Job reads --config-file %s, which is not ConfigMap '
                     '%s\'s %s mounted' % (path, (configmap.get(
                         'metadata') or {}).get('name'), CONF_KEY))
    try:
        pairs = conf_pairs((configmap.get('data') or {}).get(CONF_KEY, ''))
    except configparser.Error as exc:
        return found + ['ConfigMap %s: not an ini file: %s' % (
            CONF_KEY, str(exc).splitlines()[0])]
    ca = pairs.pop('identity.ca_certificates_file', None)
    ca_mount = by_path.get(ca) or ({}, None)
    if (ca_mount[0].get('secret') or {}).get('secretName') != CA_SECRET or \
            ca_mount[1] != CA_KEY:
        found.append('doctor.conf [identity] ca_certificates_file %s is not '
                     'where the Job mounts %s\'s %s' % (ca, CA_SECRET,
                                                        CA_KEY))
    overrides = dict(tempest_cr.override_pairs(
        (spec.get('tempestconfRun') or {}).get('overrides') or ''))
    for name in sorted(set(overrides) | set(pairs)):
        if pairs.get(name) != overrides.get(name):
            found.append('doctor.conf %s is %r; the gate CR\'s override is '
                         '%r' % (name, pairs.get(name), overrides.get(name)))
    return found
