#!/bin/bash
# The main job, from a fresh machine: install what is needed, bring up the
# embedded cloud (real keystone, N glance APIs, OCI registry, file server),
# run the whole glance_multiapi_tests tempest suite against it, print the
# results, tear the cloud down. Ends with "N passed, N failed, N skipped".
# The cloud runs heat too, so the consolidated heat checks run as well.
# Environment: CONCURRENCY (2), SPEC (a cloud spec file), WITH_HEAT=0
# (no heat; its checks skip), KEEP_STATE=1 keeps the cloud's folder (logs,
# tempest.log) for a look afterwards.
set -uo pipefail
. "$(dirname "$0")/cloud-cleanup.sh" || exit 1
cd "$(dirname "$0")/.."
tools/setup-env.sh || exit $?
VENV=${VENV:-.venv}
RESULTS=${RESULTS:-results}
mkdir -p "$RESULTS"
RESULTS=$(cd "$RESULTS" && pwd)
cloud_workdir suite

spec_args=()
[ -n "${SPEC:-}" ] && spec_args=(--spec "$SPEC")
[ "${WITH_HEAT:-1}" != 0 ] && spec_args+=(--with-heat)
"$VENV/bin/glance-multiapi-cloud" --state-dir "$state" up "${spec_args[@]}" \
    || exit $?
tempest=$(cd "$VENV/bin" && pwd)/tempest
(cd "$state/tempest" && "$tempest" run --regex '^glance_multiapi_tests\.' \
    --concurrency "${CONCURRENCY:-2}")
rc=$?
(cd "$state/tempest" && "$(dirname "$tempest")/stestr" last --subunit \
    > "$RESULTS/suite.subunit")
"$VENV/bin/python" tools/subunit_summary.py --list-failures \
    "$RESULTS/suite.subunit"
exit $rc
