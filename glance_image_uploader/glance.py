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

"""The Glance calls of the uploader, on an openstacksdk connection.

Raw /v2 requests through the sdk's image adapter (catalog, auth and TLS
from clouds.yaml) keep every call explicit: list by name + md5 tag (or
claim) among community images, wait, delete, create, stream the data and
finalize.
"""

from keystoneauth1 import exceptions as ks_exc
import openstack
from openstack import exceptions as sdk_exc
import requests.adapters
import urllib3.util

from glance_image_uploader import exitcodes
from glance_multiapi_kernel import deadlines
from glance_multiapi_kernel import errors
from glance_multiapi_kernel import keystone_lock
from glance_multiapi_kernel import polling
from glance_multiapi_kernel import redaction

IN_PROGRESS = ('saving', 'uploading', 'importing')
GONE = ('killed', 'deleted', 'pending_delete')
PATCH_TYPE = 'application/openstack-images-v2.1-json-patch'
# NOTE: the most of a client error's text a message quotes (one line): an
# error page of a proxy can be long.
ERROR_TEXT = 500
# NOTE: the image property that marks an upload in progress of this
# uploader; its value is the md5 tag the image gets once verified.
CLAIM = 'sylva-upload-claim'


def _glance_error(message):
    return exitcodes.UploaderError(exitcodes.GLANCE_ERROR, message)


def connect(settings):
    """Return (connection, project id) from clouds.yaml or OS_* vars."""
    auth_url = None
    try:
        config = openstack.config.OpenStackConfig(
            config_files=([settings.client_config_file]
                          if settings.client_config_file else None))
        extra = {'verify': False} if settings.insecure else {}
        region = config.get_one(cloud=settings.cloud, **extra)
        _remember_secrets(region.config.get('auth') or {})
        auth_url = (region.config.get('auth') or {}).get('auth_url')
        conn = openstack.connection.Connection(config=region)
        _retry_dropped_connections(conn.session.session)
        keystone_lock.guard(conn.session.auth, auth_url)
        with deadlines.exchange(auth_url or 'keystone',
                                settings.request_timeout, 'keystone'):
            project = conn.current_project_id
    except deadlines.DeadlineExceeded as exc:
        raise _glance_error('keystone of cloud %r cannot be reached: %s'
                            % (settings.cloud or 'envvars', exc))
    except (sdk_exc.ConfigException, ks_exc.MissingRequiredOptions,
            ks_exc.AuthPluginException) as exc:
        raise exitcodes.UploaderError(
            exitcodes.BAD_CONFIG,
            'cloud %r cannot be configured from %s: %s'
            % (settings.cloud or 'envvars',
               settings.client_config_file or 'clouds.yaml/OS_* variables',
               errors.one_line(exc, ERROR_TEXT)))
    except ks_exc.Unauthorized:
        raise exitcodes.UploaderError(
            exitcodes.AUTH_ERROR,
            'keystone refused the credentials of cloud %r'
            % (settings.cloud or 'envvars'))
    except ks_exc.ClientException as exc:
        raise _glance_error('keystone of cloud %r cannot be reached: %s'
                            % (settings.cloud or 'envvars',
                               errors.one_line(exc, ERROR_TEXT)))
    return conn, project


def _remember_secrets(auth):
    """Mask the cloud's password, token or secret in every line after."""
    # NOTE: keystoneauth's and openstacksdk's errors may quote any of them.
    redaction.remember(*[value for key, value in auth.items()
                         if redaction.is_secret_key(key)])
    if isinstance(auth.get('auth_url'), str):
        redaction.remember_url(auth['auth_url'])


def _retry_dropped_connections(http):
    # NOTE: servers may close an idle keep-alive connection just as the
    # next request goes out on it ("Connection reset by peer"); the server
    # never read that request, so sending it again on a fresh connection is
    # safe. A streamed upload body refuses a second pass (HashedStream).
    retry = urllib3.util.Retry(total=3, connect=3, read=2, status=0,
                               other=0, allowed_methods=None,
                               backoff_factor=0.2, raise_on_status=False)
    for prefix in ('http://', 'https://'):
        http.mount(prefix, requests.adapters.HTTPAdapter(max_retries=retry))


class Glance(object):
    """Image calls made on behalf of one project."""

    def __init__(self, conn, project_id, log, *, request_timeout=120.0,
                 source_timeout=3600.0):
        self.conn = conn
        self.project_id = project_id
        self.log = log
        self.request_timeout = request_timeout
        self.source_timeout = source_timeout
        self._endpoint = None

    def _call(self, method, url, what, ok=(200,), timeout=None, **kwargs):
        """One request, bounded by timeout (REQUEST_TIMEOUT) in all."""
        try:
            with deadlines.exchange(self._shown(url),
                                    timeout or self.request_timeout,
                                    method):
                response = self.conn.image.request(
                    url, method, raise_exc=False, **kwargs)
        except deadlines.DeadlineExceeded as exc:
            raise _glance_error('cannot %s: %s' % (what, exc)) from None
        except ks_exc.Unauthorized:
            raise exitcodes.UploaderError(
                exitcodes.AUTH_ERROR,
                'keystone refused the credentials while trying to %s' % what)
        except (ks_exc.ClientException, sdk_exc.SDKException) as exc:
            raise _glance_error('cannot %s: %s' % (
                what, errors.one_line(exc, ERROR_TEXT)))
        if response.status_code == 401:
            raise exitcodes.UploaderError(
                exitcodes.AUTH_ERROR, 'glance refused our token while trying '
                'to %s' % what)
        if response.status_code not in ok:
            raise _glance_error('cannot %s: glance answered HTTP %d %s'
                                % (what, response.status_code,
                                   _body_line(response)))
        return response

    def _shown(self, url):
        """The URL of a request, for a message: Glance's, if known."""
        if self._endpoint is None:
            try:
                self._endpoint = self.conn.image.get_endpoint() or ''
            except Exception:  # noqa: B902 - a message falls back to url
                self._endpoint = ''
        return self._endpoint.rstrip('/') + url if self._endpoint else url

    def endpoint(self):
        try:
            return self.conn.image.get_endpoint()
        except (ks_exc.ClientException, sdk_exc.SDKException) as exc:
            raise _glance_error('no image endpoint: %s' % errors.one_line(
                exc, ERROR_TEXT))

    def _list(self, params, what):
        images = []
        url = '/images'
        params = dict(params, visibility='community', limit=100)
        while url:
            body = self._call('GET', url, what, params=params).json()
            images.extend(body.get('images', []))
            url = body.get('next')
            params = None
            if url and url.startswith('/v2/'):
                url = url[3:]
        return images

    def find(self, name, tag):
        """Community images named name with tag or claim, oldest first.

        Images tagged from the start are what other uploaders (Sylva's)
        make; claims are ours before their md5 was verified.
        """
        what = 'list images named %s' % name
        found = {}
        for params in ({'name': name, 'tag': tag},
                       {'name': name, CLAIM: tag}):
            for image in self._list(params, what):
                found[image['id']] = image
        return sorted(found.values(), key=age_key)

    def get(self, image_id):
        """The image, or None if it is gone."""
        response = self._call('GET', '/images/%s' % image_id,
                              'read image %s' % image_id, ok=(200, 404))
        return None if response.status_code == 404 else response.json()

    def status_of(self, image_id):
        image = self.get(image_id)
        return image['status'] if image else 'deleted'

    def wait_while(self, image_id, statuses, *, timeout, interval):
        """Poll until the status leaves statuses; return the new status.

        :raises polling.PollTimeout: still in statuses after timeout.
        """
        def check():
            status = self.status_of(image_id)
            return status not in statuses, status
        return polling.poll(check, what='image %s to leave %s'
                            % (image_id, '/'.join(statuses)),
                            timeout=timeout, interval=interval,
                            max_interval=interval)

    def delete(self, image_id):
        self._call('DELETE', '/images/%s' % image_id,
                   'delete image %s' % image_id, ok=(204, 404))

    def owns(self, image):
        return image.get('owner') == self.project_id

    def refresh_properties(self, image, properties):
        """Make the image's sylva/* properties equal to properties."""
        ops = []
        for key, value in sorted(properties.items()):
            if image.get(key) != value:
                ops.append({'op': 'add' if key not in image else 'replace',
                            'path': '/' + _pointer(key), 'value': value})
        if ops:
            self._call('PATCH', '/images/%s' % image['id'],
                       'refresh properties of image %s' % image['id'],
                       json=ops, headers={'Content-Type': PATCH_TYPE})
        return len(ops)

    def create_claim(self, spec):
        """Create our image record: community, claimed, not yet tagged."""
        body = {'name': spec.glance_name, 'disk_format': spec.disk_format,
                'container_format': 'bare', 'visibility': 'community',
                CLAIM: spec.tag}
        body.update(spec.properties)
        return self._call('POST', '/images', 'create image %s'
                          % spec.glance_name, ok=(201,), json=body).json()

    def upload(self, image_id, stream):
        """PUT the stream as the image data (chunked, one pass)."""
        # NOTE: the upload lasts as long as the source's download, which
        # it streams (SOURCE_TIMEOUT), then Glance answers (a request's
        # time): a source cut at its deadline is named as the cause.
        self._call('PUT', '/images/%s/file' % image_id,
                   'upload data of image %s' % image_id, ok=(204,),
                   timeout=self.source_timeout + self.request_timeout,
                   data=stream,
                   headers={'Content-Type': 'application/octet-stream'})

    def finalize(self, image, tag):
        """Tag a verified image and drop its claim: now it is published."""
        # NOTE: glance's JSON pointers do not index into /tags.
        tags = sorted(set(image.get('tags') or ()) | {tag})
        ops = [{'op': 'replace', 'path': '/tags', 'value': tags}]
        if CLAIM in image:
            ops.append({'op': 'remove', 'path': '/' + _pointer(CLAIM)})
        return self._call('PATCH', '/images/%s' % image['id'],
                          'tag image %s' % image['id'], json=ops,
                          headers={'Content-Type': PATCH_TYPE}).json()


def age_key(image):
    """Order of the race protocol: oldest created_at, then lowest id."""
    return (image.get('created_at') or '', image['id'])


def is_published(image, tag):
    return image.get('status') == 'active' and tag in (image.get('tags')
                                                       or ())


def _pointer(key):
    # NOTE: JSON pointer escapes; sylva/<key> names contain a slash.
    return key.replace('~', '~0').replace('/', '~1')


def _body_line(response):
    text = ' '.join((response.text or '').split())
    return text[:200]
