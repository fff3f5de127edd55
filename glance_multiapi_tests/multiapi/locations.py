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

"""Where an image's bytes are: its location URLs, minus the image part.

Glance reveals an image's locations only when the API sets
``show_multiple_locations`` (the ``locations`` list) or
``show_image_direct_url`` (``direct_url``, the best one). Two store names
can be backed by the same place, so placement is judged by the backing
location: the URL without what is specific to one image (for
``file:///srv/stores/ceph0/<id>`` the directory, for
``rbd://<fsid>/<pool>/<image>/<snap>`` the cluster fsid and pool).
Pure logic; credentials in a URL never reach the result.
"""

import collections
import posixpath
import urllib.parse

LOCATION_OPTIONS = ('show_image_direct_url', 'show_multiple_locations')

Location = collections.namedtuple('Location', 'url store')
Location.__doc__ = 'One location of an image: URL and store id (or None).'


class LocationError(ValueError):
    """A location URL whose backing place cannot be told (one line)."""


def revealed(image):
    """The Location list an image shows; [] when the API hides them.

    ``locations`` (with each one's store) is preferred; ``direct_url``
    alone still names one place.
    """
    found = []
    for item in image.get('locations') or []:
        if isinstance(item, dict) and item.get('url'):
            store = (item.get('metadata') or {}).get('store')
            found.append(Location(item['url'], store))
    if not found and image.get('direct_url'):
        found.append(Location(image['direct_url'], None))
    return found


def hides_locations(image):
    """Whether the API hides locations (neither option is on)."""
    return 'locations' not in image and 'direct_url' not in image


def _netloc(parts):
    """Host and port of a URL without its user:password part."""
    return parts.netloc.rpartition('@')[2]


def backing(url):
    """The backing location of a location URL (text), or LocationError.

    rbd: ``rbd://<fsid>/<pool>``; file: ``file://<directory>``; any other
    scheme (swift, s3, cinder, http): the URL without credentials and
    without its last path segment, the object of this one image.
    """
    if not isinstance(url, str) or '://' not in url:
        raise LocationError('not a location URL: %r' % (url,))
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == 'rbd':
        # NOTE: glance_store's rbd StoreLocation: rbd://fsid/pool/image/snap,
        # or the legacy rbd://image, which names no cluster at all.
        segments = [urllib.parse.unquote(s) for s in
                    [parts.netloc] + parts.path.split('/')[1:]]
        if len(segments) != 4 or not all(segments[:2]):
            raise LocationError(
                'rbd location %r is not rbd://<fsid>/<pool>/<image>/<snap>;'
                ' it does not say which cluster and pool hold the image'
                % url)
        return 'rbd://%s/%s' % (segments[0], segments[1])
    path = parts.path.rstrip('/')
    if scheme == 'file':
        if not path.startswith('/') or path.count('/') < 2:
            raise LocationError('file location %r names no directory' % url)
        return 'file://%s' % posixpath.dirname(path)
    # NOTE: e.g. cinder://<volume> (a single store) is the image's own
    # object and nothing else; cinder://<store>/<volume> names the store.
    if not path:
        raise LocationError('location %r names no place apart from the '
                            'image\'s own object' % url)
    head = path.rpartition('/')[0]
    return '%s://%s%s' % (scheme, _netloc(parts), head)


def hidden_reason(images):
    """Why a placement check cannot judge: the options to turn on.

    :param images: [(image id, where it was read)], at least one.
    """
    return ('%s show%s neither direct_url nor locations, so where the '
            'bytes are cannot be told: enable %s on that GlanceAPI (the '
            'glance-operator enables both on internal, single and edge '
            'GlanceAPIs, glanceapi_controller.go)' % (
                ', '.join('image %s read through %s' % item
                          for item in images),
                '' if len(images) > 1 else 's',
                ' and/or '.join(LOCATION_OPTIONS)))
