#!/bin/bash
# Bring up ONE embedded cloud, run the functional self-tests against it
# (they share it; faults are injected and cleared by patch), take it down.
# Extra arguments go to "stestr run" (e.g. a test filter).
# Writes the subunit stream to ${RESULTS:-results}/functional.subunit.
set -uo pipefail
. "$(dirname "$0")/cloud-cleanup.sh" || exit 1
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
RESULTS=${RESULTS:-results}
mkdir -p "$RESULTS"
cloud_workdir functional

"$VENV/bin/glance-multiapi-cloud" --state-dir "$state" up || exit $?
export GLANCE_MULTIAPI_FUNCTIONAL_CLOUD="$state"
"$VENV/bin/stestr" --test-path ./glance_multiapi_tests/selftests/functional \
    --top-dir ./ run --concurrency 1 --subunit "$@" \
    > "$RESULTS/functional.subunit"
rc=$?
"$VENV/bin/python" tools/subunit_summary.py --list-failures \
    "$RESULTS/functional.subunit" | sed 's/^/functional: /'
exit $rc
