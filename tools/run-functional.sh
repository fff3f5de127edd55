#!/bin/bash
# Bring up the shared embedded clouds (one for the classes that inject
# faults, one for the uploader's classes, one for the longest fault
# classes; SERIAL=1: one for all), run the functional self-tests against
# them (faults are injected and cleared by patch), take them down.
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
cloud_workdir functional
cloud_artifacts "$ARTIFACTS_DIR/shared" --only-on-failure

# NOTE: the uploader's classes share a second cloud: they inject no
# faults, so they need not wait for the classes that do. The classes of
# SECOND_FAULT (below) inject theirs into a third cloud, beside those of
# the first. All three come up at once (SERIAL=1: everything uses the
# first one).
uploader_state=$state
second_state=$state
also_up=()
if [ -z "${SERIAL:-}" ]; then
    uploader_state=$work/uploader-cloud
    second_state=$work/second-fault-cloud
    for also in uploader second-fault; do
        cloud_also "$work/$also-cloud" "$ARTIFACTS_DIR/$also"
        "$VENV/bin/glance-multiapi-cloud" --state-dir "$work/$also-cloud" \
            up -q > "$work/$also-up.log" 2>&1 &
        also_up+=("$also:$!")
    done
fi
if ! "$VENV/bin/glance-multiapi-cloud" --state-dir "$state" up; then
    rc=$?
    wait
    exit $rc
fi
for also in "${also_up[@]}"; do
    if ! wait "${also#*:}"; then
        echo "run-functional: the ${also%%:*} cloud did not come up:" >&2
        cat "$work/${also%%:*}-up.log" >&2
        wait
        exit 1
    fi
done
export GLANCE_MULTIAPI_FUNCTIONAL_CLOUD="$state"
export GLANCE_MULTIAPI_FUNCTIONAL_UPLOADER_CLOUD="$uploader_state"
export GLANCE_MULTIAPI_FUNCTIONAL_SECOND_FAULT_CLOUD="$second_state"
# NOTE: the clouds the test classes bring up themselves are gone when the
# run ends; base.CloudTestCase keeps theirs here, dropped below on success.
export GLANCE_MULTIAPI_FUNCTIONAL_ARTIFACTS="$ARTIFACTS_DIR"
# NOTE: five workers. The classes that share the first cloud run one at
# a time in one (they inject faults into it); the uploader's classes, on
# the second cloud, in two; the classes that bring up clouds of their
# own (OWN_CLOUD) in a third, but for the one in the fourth (FOURTH);
# the fault classes of the third cloud and the heat restart faults
# (SECOND_FAULT) in the fifth.
# They wait on their clouds much of the time (a serial run keeps the two
# cores a fifth busy), so the five together take about the longest one's
# time. SERIAL=1: one worker.
OWN_CLOUD='test_heat|test_kubeapi_heat|test_tls|test_kubeapi_rbac'
OWN_CLOUD+='|test_dcn_layout|test_role_without_patch|test_cli_bad_input'
OWN_CLOUD+='|test_restarts_under_load'
UPLOADER='test_uploader_scenarios|test_uploader_chaos|test_uploader_cli'
# NOTE: half the broken-uploader rows and half the chaos kills (the B
# and D classes) share the fourth worker on the uploader's cloud: they
# inject no fault, only run uploaders, and mostly wait. The heat
# operator profile's class (a cloud of its own, about 350 s) joins them:
# it was the own-cloud worker's second longest, and that worker the
# run's critical path. So do the restarts under load (a cloud of their
# own, about 200 s in CI), which were the first worker's, then the
# critical path.
FOURTH='test_uploader_scenarios\.TestBrokenUploadersB'
FOURTH+='|test_uploader_chaos\.TestUploaderChaos[BD]'
FOURTH+='|test_heat\.HeatOperatorProfileTest'
FOURTH+='|test_restarts_under_load'
# NOTE: the fault classes that took the first worker longest (in a CI
# run: about 440 and 180 s of its 1,300), and the broken heat-engine
# restarts (a heat cloud of their own; about 450 s of the third
# worker's 1,640 in a warm run on two busy cores).
SECOND_FAULT='test_multiapi_faults|test_restoration'
SECOND_FAULT+='|test_heat\.HeatRestartFaultsTest'
prefix='glance_multiapi_tests\.selftests\.functional\.'
workers=$work/workers.yaml
if [ -n "${SERIAL:-}" ]; then
    printf -- "- worker: ['^%s']\n" "$prefix" > "$workers"
else
    {
        printf -- "- worker: ['^%s(?!(%s|%s|%s)\\.)']\n" "$prefix" \
            "$OWN_CLOUD" "$UPLOADER" "$SECOND_FAULT"
        printf -- "- worker: ['^%s(?!(%s)\\.)(%s)\\.']\n" "$prefix" \
            "$FOURTH" "$UPLOADER"
        printf -- "- worker: ['^%s(?!(%s|%s)\\.)(%s)\\.']\n" "$prefix" \
            "$FOURTH" "$SECOND_FAULT" "$OWN_CLOUD"
        printf -- "- worker: ['^%s(%s)\\.']\n" "$prefix" "$FOURTH"
        printf -- "- worker: ['^%s(%s)\\.']\n" "$prefix" "$SECOND_FAULT"
    } > "$workers"
fi
"$VENV/bin/stestr" --test-path ./glance_multiapi_tests/selftests/functional \
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
