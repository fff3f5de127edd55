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

"""Deliberately broken variants of glance-image-uploader.

Test-only: ``python selftests/functional/broken_uploader.py MODE
[uploader args]`` runs the bundled uploader with one
behaviour broken, so that the functional tests can show that the matching
Tempest scenario fails. Nothing in the product imports this module.
"""

import hashlib
import json
import os
import re
import signal
import sys
import tempfile

import requests
import yaml

from glance_image_uploader import cli

# NOTE: every breakage acts at the uploader's edges (its environment, its
# files, its HTTP calls to Glance), not on its internals, so it keeps
# meaning the same whatever algorithm the bundled uploader runs.
_IMAGE = re.compile(r'/images/[0-9a-f-]{36}$')


def _intercept(before=None, after=None):
    """Hook every Glance call the uploader makes through keystoneauth.

    before(session, METHOD, path, kwargs) may change kwargs or return a
    response to answer without calling Glance; after(session, METHOD,
    path, body) may change a JSON answer in place.
    """
    from keystoneauth1 import session

    original = session.Session.request

    def request(self, url, method, *args, **kwargs):
        path = url.split('?', 1)[0].rstrip('/')
        verb = method.upper()
        if before is not None:
            answer = before(self, verb, path, kwargs)
            if answer is not None:
                return answer
        response = original(self, url, method, *args, **kwargs)
        if after is not None and response.status_code == 200 and \
                'json' in (response.headers.get('Content-Type') or ''):
            body = response.json()
            after(self, verb, path, body)
            response._content = json.dumps(body).encode()
        return response
    session.Session.request = request


def _listed(path, verb):
    return verb == 'GET' and path.endswith('/images')


def _private():
    def before(session, verb, path, kwargs):
        body = kwargs.get('json')
        if verb == 'POST' and path.endswith('/images') and body:
            body['visibility'] = 'private'
        if verb == 'PATCH' and isinstance(body, list):
            for op in body:
                if op.get('path') == '/visibility':
                    op['value'] = 'private'
    _intercept(before=before)


def _redownload():
    """Active images are not seen in listings: nothing is ever reused."""
    def after(session, verb, path, body):
        if _listed(path, verb):
            body['images'] = [i for i in body.get('images', [])
                              if i.get('status') != 'active']
    _intercept(after=after)


def _ignore_saving():
    """A saving image looks active at once: nobody waits for it."""
    def after(session, verb, path, body):
        images = body.get('images', []) if _listed(path, verb) else (
            [body] if verb == 'GET' and _IMAGE.search(path) else [])
        for image in images:
            if image.get('status') == 'saving':
                image['status'] = 'active'
    _intercept(after=after)


def _no_delete():
    """DELETE of an image answers 204 and deletes nothing."""
    def before(session, verb, path, kwargs):
        if verb == 'DELETE' and _IMAGE.search(path):
            response = requests.models.Response()
            response.status_code = 204
            response._content = b''
            return response
    _intercept(before=before)


def _no_race_protocol():
    """Only active images are seen: racing runs each upload their own."""
    def after(session, verb, path, body):
        if _listed(path, verb):
            body['images'] = [i for i in body.get('images', [])
                              if i.get('status') == 'active']
    _intercept(after=after)


def _blind_foreign():
    """Another project's queued image is not seen: ours goes up anyway."""
    def after(session, verb, path, body):
        if _listed(path, verb):
            project = session.get_project_id()
            body['images'] = [i for i in body.get('images', [])
                              if i.get('owner') == project or
                              i.get('status') != 'queued']
    _intercept(after=after)


def _only_own_images():
    """Glance image listings lose every image of another project."""
    def after(session, verb, path, body):
        if _listed(path, verb):
            project = session.get_project_id()
            body['images'] = [i for i in body.get('images', [])
                              if i.get('owner') == project]
    _intercept(after=after)


def _leave_temp():
    handle, _path = tempfile.mkstemp(prefix='glance-image-uploader-',
                                     suffix='.part')
    os.write(handle, b'half an image')
    os.close(handle)


def _no_md5_check():
    """Trust the source, not the md5 it was given (http sources)."""
    path = os.environ['OS_IMAGES_INFO_PATH']
    with open(path) as f:
        info = yaml.safe_load(f)
    for entry in info['os_images'].values():
        if entry['uri'].startswith('http'):
            data = requests.get(entry['uri'], timeout=60).content
            entry['md5'] = hashlib.md5(
                data, usedforsecurity=False).hexdigest()
    fixed = path + '.trusted'
    with open(fixed, 'w') as f:
        yaml.safe_dump(info, f)
    os.environ['OS_IMAGES_INFO_PATH'] = fixed


def _hang():
    sys.stderr.write('broken uploader: waiting for nothing, forever\n')
    sys.stderr.flush()
    # NOTE: hung on purpose until the suite kills it at run_timeout.
    while True:
        signal.pause()


def _write_cwd():
    # NOTE: a log file where the job happens to start.
    with open('uploader.log', 'w') as f:
        f.write('broken uploader: logging into its working directory\n')


def _no_grace():
    os.environ['WAIT_QUEUED_IMAGE'] = '0'


def _crash_exit1():
    sys.stderr.write('broken uploader: unexpected KeyError\n')
    sys.exit(1)


def _refuse_only():
    os.environ['FOREIGN_QUEUED_POLICY'] = 'refuse'


def _no_ca():
    for name in ('SSL_CERT_FILE', 'REQUESTS_CA_BUNDLE'):
        os.environ.pop(name, None)


def _configmap_home():
    """Write the ConfigMap to the kubeconfig's namespace, not the target."""
    import kubernetes.config
    _contexts, current = kubernetes.config.list_kube_config_contexts(
        config_file=os.environ.get('KUBECONFIG'))
    os.environ['TARGET_NAMESPACE'] = (current.get('context') or {}).get(
        'namespace', 'default')


def _oci_entries():
    """(key, https://HOST/v2/REPO, TAG) of each oci:// image of the input."""
    with open(os.environ['OS_IMAGES_INFO_PATH']) as f:
        info = yaml.safe_load(f)
    for key, entry in sorted(info['os_images'].items()):
        uri = entry.get('uri', '')
        if uri.startswith('oci://'):
            host, _, rest = uri[len('oci://'):].partition('/')
            repository, _, tag = rest.rpartition(':')
            yield key, 'https://%s/v2/%s' % (host, repository), tag


def _registry_get(url, **kwargs):
    # NOTE: the trust the uploader gets: REQUESTS_CA_BUNDLE, or none.
    verify = os.environ.get('INSECURE_CLIENT', '').lower() != 'true'
    return requests.get(url, verify=verify, timeout=60, **kwargs)


def _read_manifests():
    """Each oci:// image's manifest: what a production uploader rereads.

    A missing manifest ends the run with exit 1, as such an uploader does.
    """
    manifests = {}
    for key, base, tag in _oci_entries():
        response = _registry_get(base + '/manifests/' + tag, headers={
            'Accept': 'application/vnd.oci.image.manifest.v1+json'})
        if response.status_code != 200:
            sys.stderr.write('broken uploader: %s: manifest %s/manifests/%s: '
                             'HTTP %d\n' % (key, base, tag,
                                            response.status_code))
            sys.exit(1)
        manifests[key] = (base, response.json())
    return manifests


def _reads_manifest():
    """Every run rereads the manifests (to refresh properties), no blob."""
    _read_manifests()


def _fetches_blob():
    """Every run fetches the first KiB of each image's layer blob."""
    for key, (base, manifest) in sorted(_read_manifests().items()):
        url = '%s/blobs/%s' % (base, manifest['layers'][0]['digest'])
        response = _registry_get(url, stream=True)
        try:
            if response.status_code != 200:
                sys.stderr.write('broken uploader: %s: download failed: GET '
                                 '%s: HTTP %d\n' % (key, url,
                                                    response.status_code))
                sys.exit(3)
            next(response.iter_content(1024), b'')
        finally:
            response.close()


MODES = {
    'private': _private,
    'redownload': _redownload,
    'ignore-saving': _ignore_saving,
    'keep-stale-queued': _no_delete,
    'keep-failed-saving': _no_delete,
    'blind-foreign': _blind_foreign,
    'crash-exit1': _crash_exit1,
    'refuse-only': _refuse_only,
    'only-own-images': _only_own_images,
    'no-grace': _no_grace,
    'no-race-protocol': _no_race_protocol,
    'leave-temp': _leave_temp,
    'write-cwd': _write_cwd,
    'no-md5-check': _no_md5_check,
    'hang': _hang,
    'no-ca': _no_ca,
    'configmap-home': _configmap_home,
    'reads-manifest': _reads_manifest,
    'fetches-blob': _fetches_blob,
}


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in MODES:
        sys.stderr.write('usage: broken_uploader {%s} [uploader args]\n'
                         % ','.join(sorted(MODES)))
        return 64
    MODES[argv[0]]()
    return cli.main(argv[1:])


if __name__ == '__main__':
    sys.exit(main())
