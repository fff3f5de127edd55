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

"""Reading objects that came from a Kubernetes API, whatever they hold.

An object is input: an operator of another version, or a proxy, may
answer anything that is JSON. These readers never raise on a field that
is missing or of the wrong type; they answer "unknown" (None, {}, '?').
Pure: no client, no I/O.
"""

from glance_multiapi_kernel import documents


def metadata(obj):
    """obj's metadata, {} when it has none or none that is a mapping."""
    meta = obj.get('metadata') if isinstance(obj, dict) else None
    return meta if isinstance(meta, dict) else {}


def name_of(obj):
    """metadata.name of obj when it is a string, else None."""
    name = metadata(obj).get('name')
    return name if isinstance(name, str) else None


def describe(obj, kind=None):
    """'Glance openstack/glance' for an object read from the API."""
    obj_kind = obj.get('kind') if isinstance(obj, dict) else None
    namespace = metadata(obj).get('namespace')
    # NOTE: real names are at most 253 characters; cut what is not one.
    return '%s %s/%s' % tuple(documents.short(str(part), 100) for part in (
        kind or (obj_kind if isinstance(obj_kind, str) else '') or 'object',
        namespace if isinstance(namespace, str) and namespace else '?',
        name_of(obj)))


def controller_owner(obj, kind):
    """Name of the controller ownerReference of that kind, else None."""
    refs = metadata(obj).get('ownerReferences')
    for ref in refs if isinstance(refs, list) else ():
        if (isinstance(ref, dict) and ref.get('controller') is True and
                ref.get('kind') == kind and isinstance(ref.get('name'), str)):
            return ref['name']
    return None
