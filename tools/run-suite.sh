#!/bin/bash
# The main job, from a fresh machine: install what is needed, bring up the
# embedded cloud (real keystone, N glance APIs, OCI registry, file server),
# run the pre-flight doctor, then the whole glance_multiapi_tests tempest
# suite against it, print the results, tear the cloud down. Ends with
# "N passed, N failed, N skipped".
# The cloud runs heat too, so the consolidated heat checks run as well.
# It serves https under its own CA (up --tls), as the operators deploy by
# default; tempest.conf names the CA ([identity] ca_certificates_file).
# The plugin reaches the deployment through the cloud's Kubernetes API,
# authorised by the RBAC manifests shipped for clusters, as the account
# of the disruptive CR (etc/test-operator/rbac.yaml and
# rbac-disruptive.yaml, account glance-multiapi-tests-disruptive: the main
# job runs the disruptive scenarios); after tempest, check_role_usage.py
# shows that no request was refused and that every grant was used, and
# counts as one more check in the summary (its failure fails the job).
# The doctor (glance-multiapi-doctor) counts as one check too; its failure
# does not stop tempest. Both checks are testcases of suite.junit.xml
# (checks.doctor, checks.role-usage), so a CI that reads JUnit shows them.
# Results ($RESULTS, default results/): suite.subunit, suite.junit.xml,
# suite.html, the deployment map of both passes (deployment-map.html,
# deployment-map.json) and their figures (metrics.json, metrics.prom),
# and artifacts/: doctor.json and doctor.txt, tempest.conf and
# clouds.yaml (all with secrets masked), status.json, the plugin's records
# (glance-multiapi-records/); when the job failed also tempest.log, the
# services' logs and configuration, kubeapi-audit.log. The map is checked
# against both subunit streams (tools/check_results_map.py), one more
# check of the summary and of suite.junit.xml (checks.results-map).
# Environment: CONCURRENCY (tempest workers of each pass, 4), SPEC (a
# cloud spec file), WITH_HEAT=0 (no heat; its checks skip), TLS=0 (plain
# http everywhere), REQUIRED_GROUPS (groups that must run, see
# tools/subunit_summary.py; default every group this cloud configures,
# empty for none), KEEP_ARTIFACTS=always (keep the logs of a job that
# passed too; default failure), KEEP_STATE=1 keeps the cloud's folder,
# BASELINE (the metrics.json of an earlier run, a path or an http(s) URL:
# the figures are compared with it, and one that regressed beyond its
# tolerance fails the check checks.figures; FAIL_ON_REGRESSION=0 only
# reports it; see glance-multiapi-report --help).
set -uo pipefail
. "$(dirname "$0")/cloud-cleanup.sh" || exit 1
# NOTE: the passes wait on real services and on the uploader scenarios'
# holds far more than they compute: on two cores, 2 workers a pass left
# the machine 66 % busy and took 105.9-107.5 s, 3 took 86.2-88.6 s and 4
# took 78.8-89.7 s, every run 51 passed (doc/source/contributor/
# benchmarks.rst, 2026-12-07).
WORKERS=${CONCURRENCY:-4}
. "$(dirname "$0")/stage-timer.sh" || exit 1
cd "$(dirname "$0")/.."
keep_artifacts_setting >/dev/null || exit 2
stage_begin set-up
tools/setup-env.sh || exit $?
VENV=${VENV:-.venv}
RESULTS=${RESULTS:-results}
mkdir -p "$RESULTS"
RESULTS=$(cd "$RESULTS" && pwd)
ARTIFACTS_DIR=$RESULTS/artifacts
# NOTE: the functional tests' artifacts (artifacts/functional) belong to
# tools/run-tests.sh, which may have run into the same folder before.
rm -f "$RESULTS"/suite.*
# NOTE: nor may an earlier run's map stand for this one.
MAP_FILES=(deployment-map.html deployment-map.json metrics.json metrics.prom)
for name in "${MAP_FILES[@]}"; do rm -f "${RESULTS:?}/$name"; done
if [ -d "$ARTIFACTS_DIR" ]; then
    find "$ARTIFACTS_DIR" -mindepth 1 -maxdepth 1 ! -name functional \
        -exec rm -rf {} +
fi
mkdir -p "$ARTIFACTS_DIR"

if [ "${WITH_HEAT:-1}" != 0 ]; then
    default_groups=multiapi,switchover,grow_shrink,uploader
    default_groups+=,consolidated_images,heat,heat_engine_restart
else
    default_groups=multiapi,switchover,grow_shrink,uploader
fi
required=${REQUIRED_GROUPS-$default_groups}
# NOTE: a bad group name is told now, not after the cloud and tempest ran.
"$VENV/bin/python" tools/subunit_summary.py --require "$required" \
    /dev/null >/dev/null
[ $? = 2 ] && { echo "run-suite: bad REQUIRED_GROUPS=$required"; exit 2; }
cloud_workdir suite
cloud_artifacts "$ARTIFACTS_DIR"

ROLES=(etc/test-operator/rbac.yaml etc/test-operator/rbac-disruptive.yaml)
ACCOUNT=glance-multiapi-tests-disruptive
role_args=(--role "${ROLES[0]}" --role "${ROLES[1]}"
           --service-account "$ACCOUNT")
# NOTE: the suite names neither the Glance nor the OpenStackVersion, so
# the plugin lists them; the Role's "get" of each serves configurations
# that name them. Only a run inside a pod reads its own Pod. The grants
# only scenarios that did not run need (without heat: the OpenStackVersion,
# the heat Deployments, the heat-engine restart's pods) are judged by the
# run's streams (check_role_usage.py --ran), not listed here.
allow_unused=(--allow-unused get:glances
              --allow-unused get:openstackversions
              --allow-unused get:pods)
spec_args=(--kube-role "${ROLES[0]}" --kube-role "${ROLES[1]}"
           --kube-service-account "$ACCOUNT")
[ "${TLS:-1}" != 0 ] && spec_args+=(--tls)
[ -n "${SPEC:-}" ] && spec_args+=(--spec "$SPEC")
[ "${WITH_HEAT:-1}" != 0 ] && spec_args+=(--with-heat)
stage_begin "cloud up"
"$VENV/bin/glance-multiapi-cloud" --state-dir "$state" up "${spec_args[@]}"
up_rc=$?
if [ "$up_rc" != 0 ]; then
    # A report of no results, so that a CI reading JUnit shows the failure.
    "$VENV/bin/python" tools/subunit_report.py "$RESULTS/suite.subunit"
    exit "$up_rc"
fi
conf=$state/tempest/etc/tempest.conf
# NOTE: the plugin records into [DEFAULT] log_dir of the tempest.conf it
# runs with (unless [glance_multiapi] results_dir says otherwise); both
# passes below share that log_dir, so one folder holds the records of
# both, from which the map is built once, after them.
map_dir=$("$VENV/bin/python" - "$conf" <<'PYEOF'
import configparser
import sys

parser = configparser.ConfigParser(interpolation=None)
parser.read(sys.argv[1])
print(parser.get('glance_multiapi', 'results_dir', fallback='') or
      parser.get('DEFAULT', 'log_dir', fallback=''))
PYEOF
)
map_dir=${map_dir:-$state/tempest}
rm -rf "$map_dir/glance-multiapi-records"

echo "== pre-flight doctor"
stage_begin doctor
doctor=$VENV/bin/glance-multiapi-doctor
doctor_rc=""
# NOTE: the doctor bounds each probe; this bounds the whole of it.
DOCTOR_TIMEOUT=${DOCTOR_TIMEOUT:-300}
if [ -x "$doctor" ]; then
    # NOTE: with --output-file the doctor writes JSON there and its text
    # report on stdout, so one run gives both.
    # NOTE: --strict: every check this cloud configures must run.
    timeout "$DOCTOR_TIMEOUT" "$doctor" --config-file "$conf" --strict \
        -o json --output-file "$ARTIFACTS_DIR/doctor.json" \
        | tee "$ARTIFACTS_DIR/doctor.txt"
    doctor_rc=${PIPESTATUS[0]}
    # NOTE: the reports repeat the configuration (a discovery command's
    # --token=...); masked as the cloud's other artifacts are.
    doctor_files=()
    for f in "$ARTIFACTS_DIR"/doctor.json "$ARTIFACTS_DIR"/doctor.txt; do
        [ -e "$f" ] && doctor_files+=(--mask "$f")
    done
    if [ "${#doctor_files[@]}" != 0 ] && ! "$VENV/bin/python" \
            tools/collect_artifacts.py --state-dir "$state" \
            "${doctor_files[@]}"; then
        # NOTE: an unmasked report is not kept.
        rm -f "$ARTIFACTS_DIR/doctor.json" "$ARTIFACTS_DIR/doctor.txt"
    fi
    echo "doctor: exit $doctor_rc (report in $ARTIFACTS_DIR/doctor.json)"
else
    echo "doctor: $doctor is not installed; skipped"
fi

tempest=$(cd "$VENV/bin" && pwd)/tempest
stestr=$(dirname "$tempest")/stestr
# NOTE: stestr balances its workers by the durations of a run it has seen
# (tools/suite-times.json, refreshed with tools/suite_times.py refresh);
# a fresh workspace has none, and then deals test classes round robin.
seed=$work/suite-times.subunit
"$VENV/bin/python" tools/suite_times.py seed tools/suite-times.json "$seed"
seed_workspace() {
    (cd "$1" && "$stestr" load --force-init --subunit < "$seed" \
        >/dev/null 2>&1) || \
        echo "run-suite: could not seed $1 with test durations (unbalanced)"
}

# NOTE: the OCI pass and the heat-engine restart's workspace look for this
# plugin's tests alone (glance_multiapi_cloud/tempestconf.py, the same test ids, as
# the functional self-tests' runs do). The disruptive run and
# the main pass discover as tempest does (its own tests and every
# plugin's), as users run it, and so prove that discovery; the two side
# runs repeated it in each of their processes (2 to 4 CPU-s each) while
# the main pass needed the same two cores.
plugin_only_stestr_conf() {
    "$VENV/bin/python" -c 'import sys
from glance_multiapi_cloud import tempestconf
tempestconf.plugin_only_stestr_conf(*sys.argv[1:])' \
        "$state/tempest/.stestr.conf" "$1/.stestr.conf"
}

# NOTE: the scenarios run from one kind of source per pass; the main pass
# uses tempest.conf's (an http file server). The OCI pass judges the same
# uploader from the HTTPS registry, its map in a ConfigMap and another
# project's queued image ignored. It runs at the same time as the main
# pass, in a workspace of its own (stestr keeps one repository per
# folder), against the same cloud: the serial scenarios still run alone,
# since both passes share [oslo_concurrency] lock_path. The copy of
# tempest.conf stays outside the state dir (test_credentials_are_private)
# and goes with $work.
oci_ws=$work/oci
mkdir -p "$oci_ws/etc"
plugin_only_stestr_conf "$oci_ws"
oci_conf=$oci_ws/etc/tempest.conf
"$VENV/bin/python" - "$conf" "$oci_conf" <<'PYEOF'
import configparser
import os
import sys

parser = configparser.ConfigParser(interpolation=None)
parser.optionxform = str
parser.read(sys.argv[1])
# NOTE: an empty kubeconfig makes the suite serve its own loopback
# ConfigMap API: the job's Role grants ConfigMaps in no namespace the
# scenarios make.
parser['image_uploader'].update({
    'source': 'oci', 'uuid_output': 'configmap',
    'foreign_queued_policy': 'ignore', 'kubeconfig': ''})
# NOTE: its own log beside the main pass's (artifacts keep both).
parser['DEFAULT']['log_file'] = 'tempest-oci.log'
fd = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
with os.fdopen(fd, 'w') as f:
    parser.write(f)
PYEOF
seed_workspace "$state/tempest"
seed_workspace "$oci_ws"

DISRUPTIVE='\[.*\bdisruptive\b.*\]'
HEAT_RESTART='glance_multiapi_tests\.tests\.scenario\.test_heat_engine_restart'
# NOTE: the checks that read heat or its Deployments: they wait for the
# heat-engine restart to end, the rest of the main pass does not.
HEAT_CHECKS='glance_multiapi_tests\.tests\.api\.'
HEAT_CHECKS+='(test_heat_services|test_consolidated_images)\.'
# NOTE: the disruptive scenarios are serial: tempest gives each the whole
# cloud, waiting until no other test class runs (a shared lock in
# [oslo_concurrency] lock_path). With the OCI pass beside the main pass
# such a wait lasted until the OCI pass ended, so the Glance ones run
# first, alone, and then the rest of the main pass and the OCI pass run
# side by side. The heat-engine restart disturbs heat alone and the others
# Glance alone, so on this cloud, which nobody else uses, the restart
# runs at the same time in a workspace of its own with a lock_path of its
# own (on a cluster the CRs keep them serial: other users share it), and
# the heat checks after it there, while the two passes already run. Its
# folder is called tempest, as the main pass's: the records of a run are
# labelled with their folder's name, and these are the main pass's runs.
heat_ws=$work/heat-restart/tempest
mkdir -p "$heat_ws/etc" "$heat_ws/locks"
plugin_only_stestr_conf "$heat_ws"
heat_conf=$heat_ws/etc/tempest.conf
"$VENV/bin/python" - "$conf" "$heat_conf" "$heat_ws/locks" <<'PYEOF'
import configparser
import os
import sys

parser = configparser.ConfigParser(interpolation=None)
parser.optionxform = str
parser.read(sys.argv[1])
if not parser.has_section('oslo_concurrency'):
    parser.add_section('oslo_concurrency')
parser['oslo_concurrency']['lock_path'] = sys.argv[3]
parser['DEFAULT']['log_file'] = 'tempest-heat-restart.log'
fd = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
with os.fdopen(fd, 'w') as f:
    parser.write(f)
PYEOF
echo "== tempest: the disruptive scenarios first (serial; the heat-engine" \
    "restart beside them, then the heat checks, its console:" \
    "$RESULTS/suite-heat-restart.log)"
stage_begin "tempest: disruptive scenarios"
heat_times=$work/heat.times
# skips_only STREAM: whether STREAM holds tests, every one skipped.
# NOTE: stestr exits 1 when no test passed ("No tests were successful"):
# without heat every test of the heat pass skips, which fails nothing.
# (The heat pass runs in its own workspace: absolute paths.)
summary_py=$(dirname "$tempest")/python
summary_tool=$PWD/tools/subunit_summary.py
skips_only() {
    local p f s
    read -r p _ f _ s _ <<<"$("$summary_py" "$summary_tool" "$1" \
        | tail -n 1)"
    [ "${p:-0}" = 0 ] && [ "${f:-0}" = 0 ] && [ "${s:-0}" -gt 0 ]
}
(
    t0=$(date +%s.%N)
    cd "$heat_ws" || exit 1
    "$tempest" run --config-file "$heat_conf" --regex "^$HEAT_RESTART" \
        --concurrency 1 > "$RESULTS/suite-heat-restart.log" 2>&1
    rc=$?
    "$stestr" last --subunit > "$work/suite-heat-restart.subunit"
    [ "$rc" != 0 ] && skips_only "$work/suite-heat-restart.subunit" && rc=0
    "$tempest" run --config-file "$heat_conf" --regex "^$HEAT_CHECKS" \
        --concurrency "$WORKERS" \
        >> "$RESULTS/suite-heat-restart.log" 2>&1
    checks_rc=$?
    "$stestr" last --subunit > "$work/suite-heat-checks.subunit"
    [ "$checks_rc" != 0 ] && skips_only "$work/suite-heat-checks.subunit" \
        && checks_rc=0
    echo "$t0 $(date +%s.%N)" > "$heat_times"
    [ "$rc" = 0 ] && rc=$checks_rc
    exit $rc
) &
heat_pid=$!
(cd "$state/tempest" && "$tempest" run \
    --regex "^(?!$HEAT_RESTART)glance_multiapi_tests\..*$DISRUPTIVE" \
    --concurrency "$WORKERS")
rc=$?
(cd "$state/tempest" && "$stestr" last --subunit \
    > "$work/suite-disruptive.subunit")

echo "== tempest: the rest of the suite, and the uploader scenarios from" \
    "an OCI source at the same time (its console: $RESULTS/suite-oci.log)"
stage_begin "tempest: both passes"
oci_times=$work/oci.times
(
    t0=$(date +%s.%N)
    cd "$oci_ws" && "$tempest" run --config-file "$oci_conf" \
        --regex '^glance_multiapi_tests\.tests\.scenario\.test_uploader' \
        --concurrency "$WORKERS" > "$RESULTS/suite-oci.log" 2>&1
    rc=$?
    "$stestr" last --subunit > "$RESULTS/suite-oci.subunit"
    echo "$t0 $(date +%s.%N)" > "$oci_times"
    exit $rc
) &
oci_pid=$!
main_t0=$(date +%s.%N)
(cd "$state/tempest" && "$tempest" run --regex '^glance_multiapi_tests\.' \
    --exclude-regex "$DISRUPTIVE|^$HEAT_CHECKS" \
    --concurrency "$WORKERS")
main_rc=$?
[ "$main_rc" != 0 ] && rc=$main_rc
stage_record "  main pass" "$(_stage_minus "$(date +%s.%N)" "$main_t0")"
wait "$heat_pid"
heat_rc=$?
[ "$heat_rc" != 0 ] && rc=$heat_rc
echo "== tempest: the heat-engine restart, then the heat checks (results)"
grep -E '^(\{[0-9]+\} |Ran: | - (Passed|Skipped|Failed))' \
    "$RESULTS/suite-heat-restart.log" | sed 's/^/heat: /'
# NOTE: one stream of the main pass: subunit v2 streams concatenate.
(cd "$state/tempest" && "$stestr" last --subunit) \
    | cat "$work/suite-disruptive.subunit" \
        "$work/suite-heat-restart.subunit" "$work/suite-heat-checks.subunit" \
        - > "$RESULTS/suite.subunit"
wait "$oci_pid"
oci_rc=$?
stage_end
if [ -s "$oci_times" ]; then
    read -r oci_t0 oci_t1 < "$oci_times"
    stage_record "  OCI pass (concurrently)" "$(_stage_minus "$oci_t1" \
        "$oci_t0")"
fi
# NOTE: timed from the start of the disruptive scenarios' stage.
if [ -s "$heat_times" ]; then
    read -r heat_t0 heat_t1 < "$heat_times"
    stage_record "  heat restart, heat checks" \
        "$(_stage_minus "$heat_t1" "$heat_t0")"
fi
echo "== tempest: uploader scenarios from an OCI source (results)"
grep -E '^(\{[0-9]+\} |Ran: |Totals| - (Passed|Skipped|Failed))' \
    "$RESULTS/suite-oci.log" | sed 's/^/oci: /'
"$VENV/bin/python" tools/subunit_report.py "$RESULTS/suite-oci.subunit"
oci_summary=$("$VENV/bin/python" tools/subunit_summary.py --list-failures \
    "$RESULTS/suite-oci.subunit")
echo "$oci_summary" | sed 's/^/oci: /'
[ "$oci_rc" != 0 ] && rc=1

stage_begin "deployment map"
echo "== deployment map and metrics of both passes (from the tests' records)"
map_ok=1
figures_rc=""
baseline_args=()
if [ -n "${BASELINE:-}" ]; then
    baseline_args=(--baseline "$BASELINE")
    [ "${FAIL_ON_REGRESSION:-1}" != 0 ] && \
        baseline_args+=(--fail-on-regression)
fi
# NOTE: the tests' verdicts are the streams' (each run is labelled with
# its workspace's folder: tempest, oci); the records add what the tests
# saw and measured.
map_out=$("$VENV/bin/glance-multiapi-report" "$map_dir" "$RESULTS" \
    --subunit "tempest=$RESULTS/suite.subunit" \
    --subunit "oci=$RESULTS/suite-oci.subunit" "${baseline_args[@]}" 2>&1)
case $? in
    0) [ -n "${BASELINE:-}" ] && figures_rc=0 ;;
    # NOTE: 3: the files were written, a figure regressed.
    3) figures_rc=3 ;;
    *) map_ok=0 ;;
esac
echo "$map_out"
if [ "$map_ok" = 1 ]; then
    rm -rf "$ARTIFACTS_DIR/glance-multiapi-records"
    cp -r "$map_dir/glance-multiapi-records" "$ARTIFACTS_DIR/"
    mask_args=()
    for name in "${MAP_FILES[@]}"; do
        mask_args+=(--mask "$RESULTS/$name")
    done
    for record in "$ARTIFACTS_DIR"/glance-multiapi-records/*.jsonl; do
        [ -e "$record" ] && mask_args+=(--mask "$record")
    done
    if ! "$VENV/bin/python" tools/collect_artifacts.py --state-dir "$state" \
            "${mask_args[@]}"; then
        # NOTE: an unmasked map is not kept, as an unmasked report is not.
        map_ok=0
        map_out="the map and the records could not be masked; removed"
        for name in "${MAP_FILES[@]}"; do rm -f "${RESULTS:?}/$name"; done
        rm -rf "$ARTIFACTS_DIR/glance-multiapi-records"
    fi
fi
if [ "$map_ok" = 1 ]; then
    map_out=$("$VENV/bin/python" tools/check_results_map.py "$RESULTS" \
        "tempest=$RESULTS/suite.subunit" \
        "oci=$RESULTS/suite-oci.subunit" 2>&1) || map_ok=0
    echo "$map_out"
fi
echo "results: map $RESULTS/deployment-map.html (facts:" \
    "deployment-map.json), figures $RESULTS/metrics.json and" \
    "$RESULTS/metrics.prom, records $ARTIFACTS_DIR/glance-multiapi-records/"

stage_begin "role usage"
echo "== Kubernetes API requests against ${ROLES[*]} (account $ACCOUNT)"
role_ok=1
role_out=$("$VENV/bin/python" tools/check_role_usage.py "${role_args[@]}" \
    "${allow_unused[@]}" --ran "$RESULTS/suite.subunit" \
    --ran "$RESULTS/suite-oci.subunit" "$state" 2>&1) || role_ok=0
[ -n "$role_out" ] && echo "$role_out"

# NOTE: the doctor and the role usage fail the job, so the JUnit a CI
# shows holds them too (checks.doctor, checks.role-usage).
if [ "$role_ok" = 1 ]; then
    checks=(--check role-usage=pass)
else
    # NOTE: JUnit's failure message is the last line.
    checks=(--check "role-usage=fail:$role_out
the run's Kubernetes API requests and ${ROLES[*]} disagree")
fi
if [ "$map_ok" = 1 ]; then
    checks+=(--check results-map=pass)
else
    checks+=(--check "results-map=fail:$map_out
the deployment map of this run is missing or disagrees with its streams")
fi
case $figures_rc in
    "") ;;
    0) checks+=(--check figures=pass) ;;
    *) checks+=(--check "figures=fail:$(echo "$map_out" | grep '^REGRESSED')
figures regressed against the baseline $BASELINE") ;;
esac
case $doctor_rc in
    "") checks+=(--check "doctor=skip:$doctor is not installed") ;;
    0) checks+=(--check doctor=pass) ;;
    *) doctor_report=$(cat "$ARTIFACTS_DIR/doctor.txt" 2>/dev/null)
       checks+=(--check "doctor=fail:$doctor_report
exit $doctor_rc: the doctor found a problem (artifacts/doctor.json)") ;;
esac
"$VENV/bin/python" tools/subunit_report.py --require "$required" \
    "${checks[@]}" "$RESULTS/suite.subunit"

echo "== summary (required groups: ${required:-none})"
summary=$("$VENV/bin/python" tools/subunit_summary.py --list-failures \
    --require "$required" "$RESULTS/suite.subunit")
summary_rc=$?
echo "$summary" | sed '$d'
read -r passed _ failed _ skipped _ <<<"$(echo "$summary" | tail -n 1)"
passed=${passed:-0}; failed=${failed:-0}; skipped=${skipped:-0}
read -r o_passed _ o_failed _ o_skipped _ <<<"$(echo "$oci_summary" | tail -n 1)"
passed=$((passed + ${o_passed:-0})); failed=$((failed + ${o_failed:-0}))
skipped=$((skipped + ${o_skipped:-0}))
if [ "$oci_rc" != 0 ] && [ "${o_failed:-0}" = 0 ]; then
    failed=$((failed + 1))
    echo "FAILED: the OCI-source pass of the uploader scenarios (exit $oci_rc)"
fi
if [ "$role_ok" = 1 ]; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
    echo "FAILED: role usage: the run's Kubernetes API requests and" \
        "${ROLES[*]} disagree (see the lines above)"
fi
if [ "$map_ok" = 1 ]; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
    echo "FAILED: results map: see \"deployment map\" above"
fi
case $figures_rc in
    "") ;;
    0) passed=$((passed + 1)) ;;
    *) failed=$((failed + 1))
       echo "FAILED: figures regressed against $BASELINE (REGRESSED:" \
           "lines above; the map shows them)" ;;
esac
case $doctor_rc in
    "") skipped=$((skipped + 1)) ;;
    0) passed=$((passed + 1)) ;;
    *) failed=$((failed + 1))
       echo "FAILED: doctor: exit $doctor_rc, its problems are above and" \
           "in $ARTIFACTS_DIR/doctor.json" ;;
esac
if [ "$rc" = 0 ] && { [ "$summary_rc" != 0 ] || [ "$failed" != 0 ]; }; then
    rc=1
fi
stage_begin teardown
cloud_teardown "$rc"
stage_table "main job stages"
echo "$passed passed, $failed failed, $skipped skipped"
exit $rc
