#!/bin/bash
# The project's own tests, from a fresh machine: install what is needed,
# then the lint stage (tools/run-lint.sh: flake8, check-uuid and the
# CI-file linters; one result), the unit tests, the plugin alone under
# Python 3.9 and 3.12 (tools/run-python-matrix.sh), the plugin beside other
# tempest plugins (tools/run-coexistence.sh), the shipped Tempest CR in a
# stand-in of test-operator's pod (tools/run-test-operator.sh) and the
# functional tests against a real embedded cloud. Ends with "N passed, N
# failed, N skipped".
# Results (${RESULTS:-results}): unit, functional, python-matrix (with
# py39-unit, py312-unit), coexistence and test-operator, each as .subunit,
# .junit.xml and
# .html, the stages' logs, and artifacts/functional when the functional
# tests failed. What tools/run-suite.sh wrote there (suite.*, artifacts/)
# is left alone.
set -uo pipefail
cd "$(dirname "$0")/.."
tools/setup-env.sh || exit $?
VENV=${VENV:-.venv}
export RESULTS=${RESULTS:-results}
mkdir -p "$RESULTS"
find "$RESULTS" -mindepth 1 -maxdepth 1 ! -name 'suite.*' ! -name artifacts \
    -exec rm -rf {} +
rm -rf "$RESULTS/artifacts/functional"
lint_failed=0

if [ -x tools/run-lint.sh ]; then
    echo "== lint"
    tools/run-lint.sh || lint_failed=1
else
    # NOTE: until the lint stage exists, its Python part.
    echo "== pep8"
    "$VENV/bin/flake8" || lint_failed=1
    "$VENV/bin/check-uuid" --package glance_multiapi_tests.tests \
        || lint_failed=1
fi

echo "== unit tests"
"$VENV/bin/stestr" run --subunit > "$RESULTS/unit.subunit"
unit_rc=$?
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

echo "== the test-operator pod path (tcib's run_tempest.sh, for real)"
stage test-operator tools/run-test-operator.sh

echo "== functional tests (real embedded cloud)"
tools/run-functional.sh
functional_rc=$?

echo "== reports (JUnit XML and HTML beside each subunit stream)"
streams=()
for name in unit python-matrix py39-unit py312-unit coexistence \
        test-operator; do
    [ -e "$RESULTS/$name.subunit" ] && streams+=("$RESULTS/$name.subunit")
done
# NOTE: run-functional.sh writes its own; when it stopped before, a report
# of no results stands in.
[ -e "$RESULTS/functional.junit.xml" ] \
    || streams+=("$RESULTS/functional.subunit")
"$VENV/bin/python" tools/subunit_report.py "${streams[@]}"

echo "== summary"
# stream NAME RC: add the counts of $RESULTS/NAME.subunit; as in stage(),
# a run that exited non-zero without a counted failure in its stream (it
# could not start, or it crashed part way) counts as one.
passed=$stage_p; failed=$stage_f; skipped=$stage_s
stream() {
    local line p f s
    line=$("$VENV/bin/python" tools/subunit_summary.py \
        "$RESULTS/$1.subunit")
    read -r p _ f _ s _ <<<"$line"
    if [ "$2" != 0 ] && [ "${f:-0}" = 0 ]; then
        f=1; echo "FAILED: $1 (exit $2)"
    fi
    passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
    skipped=$((skipped + ${s:-0}))
}
stream unit "$unit_rc"
stream functional "$functional_rc"
if [ "$lint_failed" = 1 ]; then
    failed=$((failed + 1)); echo "FAILED: lint"
else
    passed=$((passed + 1))
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] && [ "$passed" -gt 1 ]
