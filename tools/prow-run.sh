#!/bin/bash
# Prow-style entry: run the main job (tools/run-suite.sh) with its results
# in $ARTIFACTS_ROOT/results, and put each stream's JUnit XML at the root
# of $ARTIFACTS_ROOT as junit_<stream>.xml (junit_suite.xml,
# junit_suite-oci.xml, ... one per results/<stream>.junit.xml the job
# wrote), where Prow's Spyglass looks for junit*.xml, so a failure in any
# pass shows. $ARTIFACTS_ROOT is $ARTIFACT_DIR (set by openshift-ci),
# else $ARTIFACTS, else ./artifacts. A job that stopped before tempest
# still gets a junit_suite.xml, with one failure. The console output is
# kept as run-suite.log there. The deployment map and the metrics
# (deployment-map.html/.json, metrics.json/.prom) are in
# $ARTIFACTS_ROOT/results with the rest. Every other setting of run-suite.sh
# (REQUIRED_GROUPS, WITH_HEAT, CONCURRENCY, KEEP_ARTIFACTS, SPEC,
# BASELINE, FAIL_ON_REGRESSION) passes through. Exit status: the job's.
set -uo pipefail
cd "$(dirname "$0")/.."
ARTIFACTS_ROOT=${ARTIFACT_DIR:-${ARTIFACTS:-./artifacts}}
mkdir -p "$ARTIFACTS_ROOT" || exit 1
ARTIFACTS_ROOT=$(cd "$ARTIFACTS_ROOT" && pwd)
export RESULTS=$ARTIFACTS_ROOT/results
# NOTE: run-suite.sh clears its results only once its setup passed; a
# stale green JUnit from an earlier run must not stand for this one, nor
# what was published from it.
for junit in "$RESULTS"/*.junit.xml; do
    [ -e "$junit" ] || continue
    name=$(basename "$junit" .junit.xml)
    rm -f "$ARTIFACTS_ROOT/junit_$name.xml" "$RESULTS/$name".*
done
rm -f "$RESULTS"/deployment-map.html "$RESULTS"/deployment-map.json \
    "$RESULTS"/metrics.json "$RESULTS"/metrics.prom

tools/run-suite.sh 2>&1 | tee "$ARTIFACTS_ROOT/run-suite.log"
rc=${PIPESTATUS[0]}

if [ ! -s "$RESULTS/suite.junit.xml" ]; then
    # NOTE: it stopped before writing any report (setup, bad settings).
    mkdir -p "$RESULTS"
    "${VENV:-.venv}/bin/python" tools/subunit_report.py \
        "$RESULTS/suite.subunit" 2>/dev/null
fi
published=()
for junit in "$RESULTS"/*.junit.xml; do
    [ -s "$junit" ] || continue
    name=$(basename "$junit" .junit.xml)
    cp "$junit" "$ARTIFACTS_ROOT/junit_$name.xml"
    published+=("junit_$name.xml")
done
if [ ! -s "$ARTIFACTS_ROOT/junit_suite.xml" ]; then
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' \
        "$ARTIFACTS_ROOT/run-suite.log" | tail -1)
    cat > "$ARTIFACTS_ROOT/junit_suite.xml" <<XML
<?xml version="1.0" encoding="utf-8"?>
<testsuite name="suite" tests="1" failures="1" errors="0">
<testcase classname="prow-run" name="run-suite.sh">
<failure message="run-suite.sh exited $rc before writing its results
(see run-suite.log)">${line:-no result line}</failure>
</testcase>
</testsuite>
XML
    published+=(junit_suite.xml)
fi
echo "prow-run: exit $rc; JUnit in $ARTIFACTS_ROOT: ${published[*]};" \
    "results in $RESULTS"
if [ -s "$RESULTS/deployment-map.html" ]; then
    echo "prow-run: deployment map $RESULTS/deployment-map.html," \
        "metrics $RESULTS/metrics.prom"
fi
exit $rc
