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

"""What the Glance controller left deployed: the GlanceAPI CRs it made.

The spec says what is asked; this says what runs. They differ when the
controller stops its pass at an API it refuses to deploy
(``glance_cr.reconcile_pass``): that API and those after it in name
order are not reconciled. Each reconcile of the embedded cloud plays one
pass (``advance``), kept in the state as ``deployed``; the Glance APIs'
processes, their route and the catalog follow it, not the spec.

And the generations: the GlanceAPI CRs' metadata.generation (one more
whenever a pass changes the API), and the status.observedGeneration the
controllers have written (``observe``, at the end of a reconcile, when
the APIs are up; a fault may hold it behind for a while, and a patch
that is not reconciled leaves it behind).
"""

from glance_multiapi_kernel import glance_cr


def location_api_on(state):
    """Whether the Glance CR's location-API annotation is on."""
    return glance_cr.location_api(state.record.annotations)


def current(state):
    """The last pass (glance_cr.reconcile_pass's shape)."""
    return of_record(state.record)


def of_record(record):
    """The last pass kept in the cloud's record (record.Record)."""
    found = record.deployed
    if found is None:
        # NOTE: a state written before passes were kept: as a fresh one.
        found = glance_cr.reconcile_pass(
            record.spec, glance_cr.location_api(record.annotations))
    return found


def advance(state):
    """Play one pass over the spec from the last; keep and return it.

    An API the pass changes (or makes) gets one more metadata.generation
    on its GlanceAPI CRs; one the pass leaves out loses its CRs, and a
    later one of that name starts again at 1.
    """
    record = state.record
    before = of_record(record)['apis']
    found = glance_cr.reconcile_pass(record.spec, location_api_on(state),
                                     record.deployed)
    kept = record.kube.api_generations
    for api in list(kept):
        if api not in found['apis']:
            del kept[api]
    for api in found['reconciled']:
        if api not in kept:
            kept[api] = 1
        elif found['apis'][api] != before.get(api):
            kept[api] += 1
    record.deployed = found
    return found


def generations(record):
    """{'glance': n, 'apis': {api: n}}: each CR's metadata.generation."""
    return {'glance': record.kube.generation,
            'apis': {api: record.kube.api_generations.get(api, 1)
                     for api in of_record(record)['apis']}}


def observed(record, now):
    """What status.observedGeneration says at time now (generations())."""
    kube = record.kube
    found = kube.observed if now >= kube.observed_after else (
        kube.observed_before)
    return {'glance': found.get('glance', 0),
            'apis': dict(found.get('apis') or {})}


def observe(record, now, lag=0):
    """The controllers write a pass over the current generations.

    NOTE: glance-operator sets observedGeneration at the start of a pass
    and writes it with the conditions at its end; the embedded cloud
    writes it when the reconcile is over (the APIs are up, the catalog
    written). With lag (a fault) the status says what it said before
    for lag seconds more.
    """
    kube = record.kube
    kube.observed_before = observed(record, now)
    kube.observed = generations(record)
    kube.observed_after = now + lag


def apis(state):
    """{API: its entry as its GlanceAPI CRs hold it} of what runs."""
    return current(state)['apis']


def entry(state, api):
    """The API's deployed entry, else its spec entry (not deployed)."""
    return apis(state).get(api) or state.record.spec['glanceAPIs'].get(api)


def as_spec(state):
    """The deployed APIs as a spec (each with its effective config)."""
    return {'glanceAPIs': apis(state)}


def catalog_api(state):
    """The API whose endpoints the catalog holds, else None.

    Only a GlanceAPI CR with the keystoneEndpoint annotation registers
    endpoints (glanceapi_controller.go ensureKeystoneEndpoints): the
    keystoneEndpoint API when it was reconciled, else one a stopped pass
    left annotated; none when neither runs (the image service then has
    no endpoints, as keystone-operator's KeystoneService alone leaves
    it). NOTE: with both, upstream two KeystoneEndpoint CRs would write
    the same service's endpoints; the stand-in registers the first.
    """
    annotated = current(state)['keystoneEndpoint']
    wanted = state.record.spec['keystoneEndpoint']
    if wanted in annotated:
        return wanted
    return annotated[0] if annotated else None
