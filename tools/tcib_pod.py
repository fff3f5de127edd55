#!/usr/bin/env python3
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

"""What tools/run-test-operator.sh needs of a Tempest CR, as files.

Usage:
  tcib_pod.py env --cr FILE --files-dir DIR [--set VAR=VALUE ...]
      the pod's environment as test-operator sets it from the CR
      (NUL-separated VAR=VALUE on stdout) and its config ConfigMap's
      files (include.txt, ...) written into DIR; --set adds or replaces
      a variable (the stage's stand-ins).
  tcib_pod.py discover-argv [--first-cwd DIR]
      the discover-tempest-config arguments run_tempest.sh builds from
      this process's environment in the current directory (NUL-separated).
  tcib_pod.py tempest-argv
      the ``tempest run`` arguments (NUL-separated).
  tcib_pod.py clouds --state-dir DIR --out-dir DIR
      clouds.yaml and secure.yaml of the embedded cloud's admin, shaped
      as keystone-operator writes them for the pod.
  tcib_pod.py deployment --state-dir DIR
      what a disruptive run must leave as it found: keystoneEndpoint, the
      APIs of spec.glanceAPIs and the heat-engine Deployment (spec, ready
      replicas, pods not terminating), as JSON read from the cloud's state
      (not through the API: no request of the pod's account is made).
  tcib_pod.py groups --cr FILE
      the groups of tests the CR must run (comma-separated): the gate's,
      and each disruptive scenario it turns on.
  tcib_pod.py identity --cr FILE --rbac FILE [--rbac FILE ...]
      the token Secret the CR mounts at the service-account path, the
      account it is a token of and the RBAC file declaring it, on one
      line separated by spaces (what the cluster admin applies for it).
  tcib_pod.py doctor --manifest FILE --out-dir DIR [--set VAR=VALUE ...]
      the pod of the doctor's Job (etc/test-operator/doctor.yaml): its
      environment on stdout (NUL-separated VAR=VALUE; --set adds or
      replaces a variable: the stage's git URL, what kubelet adds), its
      script as DIR/doctor.sh, its ConfigMap's doctor.conf as
      DIR/conf/<name> and, in DIR/conf-dir, the folder the Job mounts
      that ConfigMap at.
  tcib_pod.py python39-verdict --pod-dir DIR --pod-rc N --constraints NAME
      the verdict on the pod of podified-master-centos9 (pod_install.py):
      "skip" or "fail" on the first line, the reason on the second, from
      the pod's pip.log, pip.rc, steps.txt, tempest_run.rc and
      tempest-run.log; NAME is the constraints file as the reason says it.
  tcib_pod.py prefix-stream --prefix TEXT FILE
      FILE's subunit v2 stream on stdout with TEXT before every test id
      (another pod's results beside the default pod's in one stream).
  tcib_pod.py compare-pods --default FILE --other FILE --other-name TEXT
      one line: whether every test that passed in the other pod's results
      passed in the default pod's (exit 0) or which did not (exit 1).
  tcib_pod.py heat-cases [--regex]
      the heat cases the stage plays (selftests/manifests/heat_states.py),
      one a line: NAME STATE [FAULT ...]; --regex: the regex of the tests
      each case runs.
  tcib_pod.py heat-conf --case NAME --conf FILE --out FILE
      writes to --out the tempest.conf case NAME runs with, --conf (the
      pod's) with the case's options set, and prints "options"; prints
      nothing and writes nothing when the case runs with the pod's own.
  tcib_pod.py heat-verdict --case NAME FILE
      one line: whether the gate CR's consolidated tests in FILE (a
      subunit v2 stream of their run in case NAME) got the verdict the
      case wants (exit 0) or what differed (exit 1).
Exit status: 0, 1 when run_tempest.sh would fail there (the reason on
stderr), 2 for bad usage.
"""

import argparse
import configparser
import json
import os
import sys

import subunit
import testtools
import yaml

import checkout_path  # noqa: F401 (selftests/ on sys.path)
from glance_multiapi_tests.results.gate import subunit_stream
from selftests.manifests import doctor_manifest
from selftests.manifests import heat_states
from selftests.manifests import pod_install
from selftests.manifests import rbac
from selftests.manifests import tcib_pod
from selftests.manifests import tempest_cr


def _emit(words):
    sys.stdout.write(''.join(w + '\0' for w in words))


def cmd_env(args):
    with open(args.cr) as stream:
        cr = yaml.safe_load(stream)
    env, files = tcib_pod.pod_env(cr)
    for item in args.set or []:
        name, sep, value = item.partition('=')
        if not sep:
            raise SystemExit('tcib_pod: --set %s: want VAR=VALUE' % item)
        env[name] = value
    os.makedirs(args.files_dir, exist_ok=True)
    for name, content in files.items():
        with open(os.path.join(args.files_dir, name), 'w') as out:
            out.write(content)
    _emit('%s=%s' % item for item in sorted(env.items()))
    return 0


def cmd_discover_argv(args):
    try:
        argv = tcib_pod.tempestconf_argv(dict(os.environ), args.first_cwd,
                                         os.getcwd())
        tcib_pod.override_pairs_as_passed(dict(os.environ), args.first_cwd,
                                          os.getcwd())
    except tcib_pod.RenderError as exc:
        print('run_tempest.sh would fail here: %s' % exc, file=sys.stderr)
        return 1
    _emit(argv)
    return 0


def cmd_tempest_argv(args):
    _emit(tcib_pod.tempest_run_argv(dict(os.environ)))
    return 0


def cmd_clouds(args):
    with open(os.path.join(args.state_dir, 'clouds.yaml')) as stream:
        admin = yaml.safe_load(stream)['clouds']['admin']
    clouds, secure = tcib_pod.operator_clouds_yaml(admin)
    os.makedirs(args.out_dir, exist_ok=True)
    for name, doc in (('clouds.yaml', clouds), ('secure.yaml', secure)):
        path = os.path.join(args.out_dir, name)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        with os.fdopen(fd, 'w') as out:
            yaml.safe_dump(doc, out, default_flow_style=False)
    return 0


# NOTE: what every CR runs, and the group of each disruptive scenario.
GATE_GROUPS = ('multiapi', 'uploader', 'consolidated_images', 'heat')
SCENARIO_GROUPS = {
    'glance_multiapi.run_switchover': 'switchover',
    'glance_multiapi.run_grow_shrink': 'grow_shrink',
    'consolidated_heat.run_heat_engine_restart': 'heat_engine_restart',
}


def cmd_deployment(args):
    import time

    from glance_multiapi_cloud.kubeapi.embedded import (
        glance as kubeglance)
    from glance_multiapi_cloud.kubeapi.embedded import (
        heatpods as kubeapi_heatpods)
    from glance_multiapi_cloud.kubeapi.embedded import (
        objects as kubeobjects)
    from glance_multiapi_cloud import state as state_mod
    state = state_mod.State(args.state_dir).load()
    world = kubeobjects.world(state.record, kubeglance.document(state),
                              kubeapi_heatpods.facts(state), time.time())
    glance, = world['glances']
    found = {'keystoneEndpoint': glance['spec'].get('keystoneEndpoint'),
             'glanceAPIs': sorted(glance['spec']['glanceAPIs'])}
    for dep in world['deployments']:
        if dep['metadata']['name'] != 'heat-engine':
            continue
        found['heat-engine'] = {
            'spec': dep['spec'],
            'readyReplicas': dep['status'].get('readyReplicas', 0),
            'pods': sum(1 for p in world['pods']
                        if p['metadata']['labels'].get('component') ==
                        'engine' and not p['metadata'].get(
                            'deletionTimestamp'))}
    print(json.dumps(found, sort_keys=True))
    return 0


def cmd_groups(args):
    with open(args.cr) as stream:
        cr = yaml.safe_load(stream)
    print(','.join(list(GATE_GROUPS) + [
        SCENARIO_GROUPS[o] for o in tempest_cr.disruptive_options(cr)]))
    return 0


def cmd_identity(args):
    with open(args.cr) as stream:
        cr = yaml.safe_load(stream)
    secret = tempest_cr.mounted_token_secret(cr)
    for path in args.rbac:
        owner = rbac.token_secrets(rbac.load_documents(path)).get(secret)
        if owner:
            print(secret, owner, path)
            return 0
    print('tcib_pod: %s mounts no token Secret that %s declares (%s)' % (
        args.cr, ', '.join(args.rbac), secret), file=sys.stderr)
    return 1


def cmd_doctor(args):
    with open(args.manifest) as stream:
        docs = [d for d in yaml.safe_load_all(stream) if d]
    parts = doctor_manifest.parts(docs)
    env = dict(parts['env'])
    for item in args.set or []:
        name, sep, value = item.partition('=')
        if not sep:
            raise SystemExit('tcib_pod: --set %s: want VAR=VALUE' % item)
        env[name] = value
    conf_dir = os.path.join(args.out_dir, 'conf')
    os.makedirs(conf_dir, exist_ok=True)
    with open(os.path.join(conf_dir, os.path.basename(
            parts['config_file'])), 'w') as out:
        out.write(parts['conf'])
    with open(os.path.join(args.out_dir, 'conf-dir'), 'w') as out:
        out.write(os.path.dirname(parts['config_file']))
    with open(os.path.join(args.out_dir, 'doctor.sh'), 'w') as out:
        out.write(parts['script'])
    _emit('%s=%s' % item for item in sorted(env.items()))
    return 0


def _read(folder, name, default=None):
    try:
        with open(os.path.join(folder, name)) as stream:
            return stream.read()
    except FileNotFoundError:
        return default


def cmd_python39_verdict(args):
    pip_rc = _read(args.pod_dir, 'pip.rc')
    tempest_rc = _read(args.pod_dir, 'tempest_run.rc')
    after = pod_install.after_pip(
        _read(args.pod_dir, 'steps.txt', ''),
        int(tempest_rc) if tempest_rc else None,
        _read(args.pod_dir, 'tempest-run.log', ''), args.pod_rc)
    status, reason = pod_install.python39_verdict(
        int(pip_rc) if pip_rc else None, _read(args.pod_dir, 'pip.log', ''),
        after, args.constraints)
    print(status)
    print(' '.join(reason.split()))
    return 0


def cmd_prefix_stream(args):
    out = subunit.StreamResultToBytes(sys.stdout.buffer)

    class Prefixed(testtools.StreamResult):
        def status(self, test_id=None, **kwargs):
            if test_id is not None:
                test_id = args.prefix + test_id
            out.status(test_id=test_id, **kwargs)

    with open(args.file, 'rb') as stream:
        # NOTE: what is not subunit (a runner's stray output) is dropped.
        subunit.ByteStreamToStreamResult(stream).run(Prefixed())
    sys.stdout.buffer.flush()
    return 0


def cmd_compare_pods(args):
    default = subunit_stream.read_tests(args.default)
    other = subunit_stream.read_tests(args.other)
    ok, line = pod_install.same_checks(default, other, args.other_name)
    print(line)
    return 0 if ok else 1


def cmd_heat_cases(args):
    if args.regex:
        print(heat_states.REGEX)
        return 0
    for case in heat_states.CASES:
        print(' '.join((case.name, case.state) + case.faults))
    return 0


def cmd_heat_conf(args):
    try:
        case = heat_states.case(args.case)
        with open(args.conf) as f:
            text = heat_states.case_conf(case, f.read())
        if text is not None:
            with open(args.out, 'w') as f:
                f.write(text)
    except KeyError as exc:
        print('tcib_pod.py: %s' % exc.args[0], file=sys.stderr)
        return 2
    except (OSError, configparser.Error) as exc:
        print('tcib_pod.py: heat-conf: %s' % exc, file=sys.stderr)
        return 1
    if text is not None:
        print('options')
    return 0


def cmd_heat_verdict(args):
    try:
        case = heat_states.case(args.case)
    except KeyError as exc:
        print('tcib_pod.py: %s' % exc.args[0], file=sys.stderr)
        return 2
    try:
        with open(args.file, 'rb') as stream:
            results = subunit_stream.parse_subunit(stream)
    except OSError as exc:
        results = {}
        print('%s: %s' % (args.file, exc.strerror), file=sys.stderr)
    ok, line = heat_states.judge(case, results)
    print(line)
    return 0 if ok else 1


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = parser.add_subparsers(dest='command')
    env = sub.add_parser('env')
    env.add_argument('--cr', required=True)
    env.add_argument('--files-dir', required=True)
    env.add_argument('--set', action='append')
    discover = sub.add_parser('discover-argv')
    discover.add_argument('--first-cwd')
    sub.add_parser('tempest-argv')
    clouds = sub.add_parser('clouds')
    clouds.add_argument('--state-dir', required=True)
    clouds.add_argument('--out-dir', required=True)
    deployment = sub.add_parser('deployment')
    deployment.add_argument('--state-dir', required=True)
    groups = sub.add_parser('groups')
    groups.add_argument('--cr', required=True)
    identity = sub.add_parser('identity')
    identity.add_argument('--cr', required=True)
    identity.add_argument('--rbac', action='append', required=True)
    doctor = sub.add_parser('doctor')
    doctor.add_argument('--manifest', required=True)
    doctor.add_argument('--out-dir', required=True)
    doctor.add_argument('--set', action='append')
    verdict = sub.add_parser('python39-verdict')
    verdict.add_argument('--pod-dir', required=True)
    verdict.add_argument('--pod-rc', type=int, required=True)
    verdict.add_argument('--constraints', required=True)
    prefix = sub.add_parser('prefix-stream')
    prefix.add_argument('--prefix', required=True)
    prefix.add_argument('file')
    compare = sub.add_parser('compare-pods')
    compare.add_argument('--default', required=True)
    compare.add_argument('--other', required=True)
    compare.add_argument('--other-name', required=True)
    heat_cases = sub.add_parser('heat-cases')
    heat_cases.add_argument('--regex', action='store_true')
    heat_conf = sub.add_parser('heat-conf')
    heat_conf.add_argument('--case', required=True)
    heat_conf.add_argument('--conf', required=True)
    heat_conf.add_argument('--out', required=True)
    heat_verdict = sub.add_parser('heat-verdict')
    heat_verdict.add_argument('--case', required=True)
    heat_verdict.add_argument('file')
    args = parser.parse_args(argv)
    commands = {'env': cmd_env, 'discover-argv': cmd_discover_argv,
                'tempest-argv': cmd_tempest_argv, 'clouds': cmd_clouds,
                'identity': cmd_identity, 'groups': cmd_groups,
                'deployment': cmd_deployment, 'doctor': cmd_doctor,
                'python39-verdict': cmd_python39_verdict,
                'prefix-stream': cmd_prefix_stream,
                'compare-pods': cmd_compare_pods,
                'heat-cases': cmd_heat_cases,
                'heat-conf': cmd_heat_conf,
                'heat-verdict': cmd_heat_verdict}
    if args.command not in commands:
        parser.print_usage(sys.stderr)
        return 2
    return commands[args.command](args)


if __name__ == '__main__':
    sys.exit(main())
