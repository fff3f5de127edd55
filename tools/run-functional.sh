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
cloud_workdir functional
cloud_artifacts "$ARTIFACTS_DIR/shared" --only-on-failure

"$VENV/bin/glance-multiapi-cloud" --state-dir "$state" up || exit $?
export GLANCE_MULTIAPI_FUNCTIONAL_CLOUD="$state"
# NOTE: the clouds the test classes bring up themselves are gone when the
# run ends; base.CloudTestCase keeps theirs here, dropped below on success.
export GLANCE_MULTIAPI_FUNCTIONAL_ARTIFACTS="$ARTIFACTS_DIR"
"$VENV/bin/stestr" --test-path ./glance_multiapi_tests/selftests/functional \
    --top-dir ./ run --concurrency 1 --subunit "$@" \
    > "$RESULTS/functional.subunit"
rc=$?
"$VENV/bin/python" tools/subunit_summary.py --list-failures \
    "$RESULTS/functional.subunit" | sed 's/^/functional: /'
"$VENV/bin/python" tools/subunit_report.py "$RESULTS/functional.subunit"
if [ "$rc" = 0 ] && [ "$keep" != always ]; then
    rm -rf "$ARTIFACTS_DIR"
fi
exit $rc
