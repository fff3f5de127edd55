#!/bin/bash
# The project's own tests, from a fresh machine: install what is needed,
# then pep8 (flake8 + check-uuid), the unit tests, the plugin alone under
# Python 3.9 and 3.12 (tools/run-python-matrix.sh), the plugin beside other
# tempest plugins (tools/run-coexistence.sh) and the functional tests
# against a real embedded cloud. Ends with "N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/.."
tools/setup-env.sh || exit $?
VENV=${VENV:-.venv}
export RESULTS=${RESULTS:-results}
rm -rf "$RESULTS" && mkdir -p "$RESULTS"
pep8_failed=0

echo "== pep8"
if ! "$VENV/bin/flake8"; then pep8_failed=1; fi
if ! "$VENV/bin/check-uuid" --package glance_multiapi_tests.tests; then
    pep8_failed=1
fi

echo "== unit tests"
"$VENV/bin/stestr" run --subunit > "$RESULTS/unit.subunit"
"$VENV/bin/python" tools/subunit_summary.py --list-failures \
    "$RESULTS/unit.subunit" | sed 's/^/unit: /'

# stage NAME SCRIPT: run a stage that prints its own result line; its
# counts are added to the summary, and a stage that failed without
# counting a failure (it could not start) counts as one.
stage_p=0; stage_f=0; stage_s=0
stage() {
    local log=$RESULTS/$1.log line p f s rc
    "$2" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
    read -r p _ f _ s _ <<<"${line:-0 passed, 0 failed, 0 skipped}"
    if [ "$rc" != 0 ] && [ "${f:-0}" = 0 ]; then
        f=1; echo "FAILED: $1 (exit $rc)"
    fi
    stage_p=$((stage_p + ${p:-0})); stage_f=$((stage_f + ${f:-0}))
    stage_s=$((stage_s + ${s:-0}))
}

echo "== the plugin alone under Python 3.9 and 3.12"
stage python-matrix tools/run-python-matrix.sh

echo "== the plugin beside other tempest plugins"
stage coexistence tools/run-coexistence.sh

echo "== functional tests (real embedded cloud)"
tools/run-functional.sh

echo "== summary"
line=$("$VENV/bin/python" tools/subunit_summary.py \
    "$RESULTS/unit.subunit" "$RESULTS/functional.subunit")
read -r passed _ failed _ skipped _ <<<"$line"
passed=$(( ${passed:-0} + stage_p )); failed=$(( ${failed:-0} + stage_f ))
skipped=$(( ${skipped:-0} + stage_s ))
if [ "$pep8_failed" = 1 ]; then
    failed=$((failed + 1)); echo "FAILED: pep8"
else
    passed=$((passed + 1))
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] && [ "$passed" -gt 1 ]
