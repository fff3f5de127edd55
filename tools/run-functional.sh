#!/bin/bash
# Bring up ONE embedded cloud, run the functional self-tests against it
# (they share it; faults are injected and cleared by patch), take it down.
# Extra arguments go to "stestr run" (e.g. a test filter).
# Writes the subunit stream to ${RESULTS:-results}/functional.subunit
# (with functional.junit.xml and functional.html beside it). When the run
# failed, or KEEP_ARTIFACTS=always, the logs and masked configuration of
# the shared cloud and of every cloud a test class brought up itself are
# kept in $RESULTS/artifacts/functional (shared/, and one folder per
# class); otherwise that folder is removed.
set -uo pipefail
. "$(dirname "$0")/cloud-cleanup.sh" || exit 1
cd "$(dirname "$0")/.."
keep=$(keep_artifacts_setting) || exit 2
VENV=${VENV:-.venv}
RESULTS=${RESULTS:-results}
mkdir -p "$RESULTS"
RESULTS=$(cd "$RESULTS" && pwd)
ARTIFACTS_DIR=$RESULTS/artifacts/functional
rm -rf "$ARTIFACTS_DIR"
# NOTE: every cloud of the run logs each service's CPU seconds there as
# it stops it (tools/suite_times.py profile adds them up by kind).
export GLANCE_MULTIAPI_SERVICE_CPU_LOG=$RESULTS/functional-services.jsonl
rm -f "$GLANCE_MULTIAPI_SERVICE_CPU_LOG"
cloud_workdir functional
cloud_artifacts "$ARTIFACTS_DIR/shared" --only-on-failure

# NOTE: the uploader's classes share a second cloud: they inject no
# faults, so they need not wait for the classes that do; both clouds come
# up at once (SERIAL=1: the uploader's classes use the first one too).
# So do test_ci_results' classes, which only read a cloud.
uploader_state=$state
if [ -z "${SERIAL:-}" ]; then
    uploader_state=$work/uploader-cloud
    cloud_also "$uploader_state" "$ARTIFACTS_DIR/uploader"
    "$VENV/bin/glance-multiapi-cloud" --state-dir "$uploader_state" up -q \
        > "$work/uploader-up.log" 2>&1 &
    uploader_up=$!
fi
if ! "$VENV/bin/glance-multiapi-cloud" --state-dir "$state" up; then
    rc=$?
    wait
    exit $rc
fi
if [ -n "${uploader_up:-}" ] && ! wait "$uploader_up"; then
    echo "run-functional: the uploader's cloud did not come up:" >&2
    cat "$work/uploader-up.log" >&2
    exit 1
fi
export GLANCE_MULTIAPI_FUNCTIONAL_CLOUD="$state"
export GLANCE_MULTIAPI_FUNCTIONAL_UPLOADER_CLOUD="$uploader_state"
# NOTE: the clouds the test classes bring up themselves are gone when the
# run ends; base.CloudTestCase keeps theirs here, dropped below on success.
export GLANCE_MULTIAPI_FUNCTIONAL_ARTIFACTS="$ARTIFACTS_DIR"
# NOTE: four workers. The classes that share the first cloud run one at
# a time in one (they inject faults into it); the uploader's classes and
# test_ci_results', on the second cloud, in two (test_ci_results moved
# off the first worker, the run's critical path: 849 s against the
# second's 565 s in a warm run); the classes that bring up clouds of their
# own (OWN_CLOUD) in a third, but for the one in the fourth (FOURTH).
# They wait on their clouds much of the time (a serial run keeps the two
# cores a fifth busy), so the four together take about the longest one's
# time. SERIAL=1: one worker.
OWN_CLOUD='test_heat|test_kubeapi_heat|test_heat_states|test_tls'
OWN_CLOUD+='|test_kubeapi_rbac'
OWN_CLOUD+='|test_dcn_layout|test_role_without_patch|test_cli_bad_input'
OWN_CLOUD+='|test_restarts_under_load|test_cloud_secrets'
OWN_CLOUD+='|test_metrics_baseline'
UPLOADER='test_uploader_scenarios|test_uploader_chaos|test_uploader_cli'
UPLOADER+='|test_ci_results'
# NOTE: two classes of the first worker's modules touch no shared cloud:
# the lifecycle's (small clouds of its own) and the map's in a browser
# (recorded runs). They join the uploader's worker, which ended 250 s
# before the first in a warm run (1,026 s against 773 s).
UPLOADER+='|test_localcloud\.TestCloudLifecycle'
UPLOADER+='|test_deployment_map\.DeploymentMapBrowserTest'
# NOTE: half the broken-uploader rows and half the chaos kills (the B
# and D classes) share the fourth worker on the uploader's cloud: they
# inject no fault, only run uploaders, and mostly wait. The heat
# operator profile's class (a cloud of its own, about 350 s) joins them:
# it was the own-cloud worker's second longest, and that worker the
# run's critical path. So do the restarts under load (a cloud of their
# own, about 200 s in CI), which were the first worker's, then the
# critical path. So does the metrics baseline's class (a cloud of its
# own since its 296 s made the first worker end at 1,336 s, the others
# at 702 to 997 s).
FOURTH='test_uploader_scenarios\.TestBrokenUploadersB'
FOURTH+='|test_uploader_chaos\.TestUploaderChaos[BD]'
FOURTH+='|test_heat\.HeatOperatorProfileTest'
FOURTH+='|test_restarts_under_load|test_metrics_baseline'
prefix='selftests\.functional\.'
workers=$work/workers.yaml
if [ -n "${SERIAL:-}" ]; then
    printf -- "- worker: ['^%s']\n" "$prefix" > "$workers"
else
    {
        printf -- "- worker: ['^%s(?!(%s|%s)\\.)']\n" "$prefix" \
            "$OWN_CLOUD" "$UPLOADER"
        printf -- "- worker: ['^%s(?!(%s)\\.)(%s)\\.']\n" "$prefix" \
            "$FOURTH" "$UPLOADER"
        printf -- "- worker: ['^%s(?!(%s)\\.)(%s)\\.']\n" "$prefix" \
            "$FOURTH" "$OWN_CLOUD"
        printf -- "- worker: ['^%s(%s)\\.']\n" "$prefix" "$FOURTH"
    } > "$workers"
fi
"$VENV/bin/stestr" --test-path ./selftests/functional \
    --top-dir ./ run --worker-file "$workers" --subunit "$@" \
    > "$RESULTS/functional.subunit"
rc=$?
"$VENV/bin/python" tools/subunit_summary.py --list-failures \
    "$RESULTS/functional.subunit" | sed 's/^/functional: /'
# NOTE: "stestr run --subunit" exits 0 even when a test failed; the
# stream's own verdict decides (and so whether the artifacts are kept).
if [ "${PIPESTATUS[0]}" != 0 ] && [ "$rc" = 0 ]; then
    rc=1
fi
"$VENV/bin/python" tools/subunit_report.py "$RESULTS/functional.subunit"
if [ "$rc" = 0 ] && [ "$keep" != always ]; then
    rm -rf "$ARTIFACTS_DIR"
fi
exit $rc
