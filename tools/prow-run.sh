#!/bin/bash
# Prow-style entry: run the main job (tools/run-suite.sh) with its results
# in $ARTIFACTS/results ($ARTIFACTS defaults to ./artifacts when unset, as
# outside Prow), and put its JUnit XML at the root of $ARTIFACTS as
# junit_suite.xml, where Prow's Spyglass looks for junit*.xml. A job that
# stopped before tempest still gets a junit_suite.xml, with one failure.
# The console output is kept as $ARTIFACTS/run-suite.log. Every other
# setting of run-suite.sh (REQUIRED_GROUPS, WITH_HEAT, CONCURRENCY,
# KEEP_ARTIFACTS, SPEC) passes through. Exit status: the job's.
set -uo pipefail
cd "$(dirname "$0")/.."
ARTIFACTS=${ARTIFACTS:-./artifacts}
mkdir -p "$ARTIFACTS" || exit 1
ARTIFACTS=$(cd "$ARTIFACTS" && pwd)
export RESULTS=$ARTIFACTS/results
# NOTE: run-suite.sh clears its results only once its setup passed; a
# stale green JUnit from an earlier run must not stand for this one.
rm -f "$RESULTS"/suite.* "$ARTIFACTS/junit_suite.xml"

tools/run-suite.sh 2>&1 | tee "$ARTIFACTS/run-suite.log"
rc=${PIPESTATUS[0]}

junit=$RESULTS/suite.junit.xml
if [ ! -s "$junit" ]; then
    # NOTE: it stopped before writing any report (setup, bad settings).
    mkdir -p "$RESULTS"
    "${VENV:-.venv}/bin/python" tools/subunit_report.py \
        "$RESULTS/suite.subunit" 2>/dev/null
fi
if [ -s "$junit" ]; then
    cp "$junit" "$ARTIFACTS/junit_suite.xml"
else
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$ARTIFACTS/run-suite.log" \
        | tail -1)
    cat > "$ARTIFACTS/junit_suite.xml" <<XML
<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="suite" tests="1" failures="1" errors="0" skipped="0"><testcase classname="prow-run" name="run-suite.sh"><failure message="run-suite.sh exited $rc before writing its results (see run-suite.log)">${line:-no result line}</failure></testcase></testsuite></testsuites>
XML
fi
echo "prow-run: exit $rc; JUnit in $ARTIFACTS/junit_suite.xml, results in" \
    "$RESULTS"
exit $rc
