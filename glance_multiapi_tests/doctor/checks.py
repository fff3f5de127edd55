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


"""The doctor's checks, run in order, each ending as report.Check lines.

The same logic as the plugin's endpoint and catalog tests, without
tempest: the deployment access the options choose learns the APIs
(deployment_access.py: Kubernetes API, command or explicit options),
keystone.read_catalog reads the catalog, probes probes every endpoint
(DNS, TCP, TLS, version document) and catalog judges that exactly the
keystoneEndpoint API is registered. A stage that cannot
run says why as a SKIP; the later stages still run on what is known.
"""

import dataclasses

from glance_multiapi_tests import deployment_access
from glance_multiapi_tests.doctor import keystone
from glance_multiapi_tests.doctor import report
from glance_multiapi_tests.doctor import settings
from glance_multiapi_tests.multiapi import catalog
from glance_multiapi_tests.multiapi import discovery
from glance_multiapi_tests.multiapi import probes


@dataclasses.dataclass(frozen=True)
class Inputs:
    """What the command line asked for."""

    config_file: str = None
    os_cloud: str = None
    keystone_timeout: float = 30.0
    probe_timeout: float = None
    config_timeout: float = settings.CONFIG_TIMEOUT


@dataclasses.dataclass
class Outcome:
    """The checks in the order they ran and the deployment, if learnt."""

    checks: list
    deployment: object = None


def ssl_context(cafile, insecure):
    """The TLS trust the plugin's probes use (probes.ssl_context)."""
    return probes.ssl_context(cafile, insecure)


def check_config(inputs):
    """(ConfigOpts or None, Check): the tempest.conf the plugin reads."""
    if not inputs.config_file:
        return settings.load(None), report.skip(
            'config', 'no --config-file: the [glance_multiapi] defaults, '
            'so the deployment is not discovered')
    try:
        conf = settings.load(inputs.config_file, inputs.config_timeout)
    except settings.ConfigProblem as exc:
        return None, report.fail('config', str(exc),
                                 report.EXIT_BAD_CONFIG)
    return conf, report.ok(
        'config', '%s: [glance_multiapi], [identity] and [auth] read' %
        inputs.config_file)


def check_discovery(opts, has_file):
    """(Deployment or None, Check) from the [glance_multiapi] options."""
    if not has_file:
        return None, report.skip('discovery', 'needs --config-file')
    with deployment_access.choose(opts) as way:
        if not way.has_source():
            return None, report.skip(
                'discovery', '[glance_multiapi] sets none of kubernetes_api, '
                'discovery_command, api_names: the Glance APIs are unknown, '
                'so only the catalog\'s own endpoints are checked')
        try:
            deployment = way.discover()
        except discovery.DiscoveryError as exc:
            return None, report.fail('discovery', str(exc),
                                     report.EXIT_DISCOVERY)
    return deployment, report.ok('discovery', deployment.describe())


def keystone_access(inputs, conf):
    """The keystone Access the inputs name; ConfigProblem if none."""
    region = settings.region(conf)
    if inputs.os_cloud:
        return keystone.from_cloud(inputs.os_cloud, region,
                                   conf.identity.ca_certificates_file)
    creds = settings.credentials(conf, inputs.config_file)
    return keystone.from_credentials(creds, region, inputs.config_file)


def check_keystone(inputs, conf):
    """(catalog or None, Access or None, Check): a token and its catalog."""
    access = None
    try:
        access = keystone_access(inputs, conf)
        found = keystone.read_catalog(access, inputs.keystone_timeout)
    except (settings.ConfigProblem, keystone.KeystoneProblem) as exc:
        code = getattr(exc, 'exit_code', report.EXIT_BAD_CONFIG)
        return None, None, report.fail(
            'keystone', str(exc), code,
            url=access.auth_url if access else None)
    return found, access, report.ok(
        'keystone', 'catalog of %s: %d service(s), %d of type image%s' % (
            access.who, len(found), len(catalog.image_services(found)),
            ' (region %s)' % access.region if access.region else ''),
        url=access.auth_url)


def endpoint_targets(deployment, found, interfaces, region):
    """[(check name, api, interface, url)] of every endpoint to probe."""
    targets = []
    if deployment is not None:
        for api in deployment.apis.values():
            for interface, url in sorted(api.endpoints.items()):
                targets.append(('endpoint', api.name, interface, url))
    for service in catalog.image_services(found or []):
        urls = catalog.endpoints_by_interface(service, region)
        for interface in sorted(urls):
            if interface not in interfaces:
                continue
            for url in urls[interface]:
                owner = (catalog.owner_of(url, deployment)
                         if deployment is not None else None)
                targets.append(('catalog-endpoint', owner, interface, url))
    return targets


def endpoint_rows(targets, failures):
    """A Check per target; failures are probes.Failure of their URLs."""
    failed = {failure.target.url: failure for failure in failures}
    rows = []
    for name, api, interface, url in targets:
        where = dict(api=api, interface=interface, url=url)
        failure = failed.get(url)
        if failure is None:
            tls = 'TLS, ' if url.startswith('https:') else ''
            rows.append(report.ok(name, 'answers: DNS, TCP, %sversion '
                                  'document offers v2' % tls, **where))
        else:
            rows.append(report.fail(name, '%s: %s' % (
                failure.stage, failure.error), **where))
    return rows


def check_endpoints(targets, timeout, context):
    """Probe every target (each URL once) and return its rows."""
    if not targets:
        return [report.skip('endpoint', 'no endpoint known: neither '
                            'discovery nor the catalog gave one')]
    failures = probes.probe_all(
        [probes.Target(api or name, interface, url)
         for name, api, interface, url in targets], timeout, context)
    return endpoint_rows(targets, failures)


def catalog_rows(found, deployment, interfaces, region):
    """Checks of the catalog's image services against keystoneEndpoint."""
    if found is None:
        return [report.skip('catalog', 'the catalog was not read (see the '
                            'keystone check)')]
    summary = catalog.summary(found, region)
    if deployment is None:
        services = catalog.image_services(found)
        if len(services) == 1:
            return [report.ok('catalog', 'one image service: %s; which API '
                              'owns it is not judged without discovery' %
                              summary)]
        return [report.fail('catalog', 'the catalog holds %d services of '
                            'type image, expected exactly one: %s' % (
                                len(services), summary))]
    owner = deployment.keystone_endpoint
    problems = catalog.ownership_problems(found, deployment, interfaces,
                                          region)
    if not problems:
        return [report.ok('catalog', 'exactly one image service, with the '
                          'keystoneEndpoint API\'s (%s) endpoints: %s' % (
                              owner, summary))]
    return [report.fail('catalog', problem) for problem in problems]


def run(inputs):
    """Every check in order; an Outcome (never raises for bad input)."""
    conf, config_check = check_config(inputs)
    checks = [config_check]
    if conf is None:
        return Outcome(checks)
    opts = conf.glance_multiapi
    deployment, check = check_discovery(opts, bool(inputs.config_file))
    checks.append(check)
    found, access, check = check_keystone(inputs, conf)
    checks.append(check)
    region = access.region if access else settings.region(conf)
    interfaces = list(opts.catalog_interfaces)
    if access is not None:
        context = ssl_context(access.cafile, access.insecure)
    else:
        context = ssl_context(conf.identity.ca_certificates_file,
                              conf.identity.disable_ssl_certificate_validation)
    timeout = inputs.probe_timeout or opts.probe_timeout
    checks.extend(check_endpoints(
        endpoint_targets(deployment, found, interfaces, region), timeout,
        context))
    checks.extend(catalog_rows(found, deployment, interfaces, region))
    return Outcome(checks, deployment)
