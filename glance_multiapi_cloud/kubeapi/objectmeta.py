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

"""What the metadata (ObjectMeta) of every object served is made of.

Its times (creationTimestamp, deletionTimestamp, a condition's
lastTransitionTime: RFC 3339 in UTC, to the second, as the API server
writes them) and its resourceVersion, which clients only compare: here
decimal digits that change whenever the object does.
"""

import datetime
import hashlib
import json
import time

TIME_FORMAT = '%Y-%m-%dT%H:%M:%SZ'


def timestamp(when=None):
    """when (seconds since the epoch, default now) as an object's time."""
    return datetime.datetime.fromtimestamp(
        time.time() if when is None else when,
        datetime.timezone.utc).strftime(TIME_FORMAT)


def digits(value):
    """A resourceVersion: decimal digits that change with value."""
    text = json.dumps(value, sort_keys=True).encode()
    return str(int(hashlib.sha256(text).hexdigest()[:12], 16))


def versioned(obj):
    """obj, its metadata.resourceVersion the digits of all else of it."""
    obj['metadata'].pop('resourceVersion', None)
    obj['metadata']['resourceVersion'] = digits(obj)
    return obj
