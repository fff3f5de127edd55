#!/bin/bash
# The project's own tests, from a fresh machine: install what is needed,
# then pep8 (flake8 + check-uuid), the unit tests and the functional tests
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

echo "== functional tests (real embedded cloud)"
tools/run-functional.sh

echo "== summary"
line=$("$VENV/bin/python" tools/subunit_summary.py \
    "$RESULTS/unit.subunit" "$RESULTS/functional.subunit")
read -r passed _ failed _ skipped _ <<<"$line"
passed=${passed:-0}; failed=${failed:-0}; skipped=${skipped:-0}
if [ "$pep8_failed" = 1 ]; then
    failed=$((failed + 1)); echo "FAILED: pep8"
else
    passed=$((passed + 1))
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] && [ "$passed" -gt 1 ]
