#!/bin/bash
# The project's own tests, from a fresh machine: install what is needed,
# then the lint stage (tools/run-lint.sh: flake8, check-uuid, the CI-file
# linters, the docs; one result), the unit tests, the plugin alone under
# Python 3.9 and 3.12 (tools/run-python-matrix.sh), the plugin beside other
# tempest plugins (tools/run-coexistence.sh), the shipped Tempest CR in a
# stand-in of test-operator's pod (tools/run-test-operator.sh) and the
# functional tests against real embedded clouds. Ends with a table of how
# long each stage took and "N passed, N failed, N skipped".
#
# With two cores or more the stages before the functional tests run in
# the background WHILE the functional tests run (those wait on their
# clouds much of the time), taken off one queue by two workers, and
# from the foreground too once the functional tests have ended; their
# output goes to their logs and is shown when they end. SERIAL=1
# runs everything one after another, in the foreground.
# Results (${RESULTS:-results}): unit, functional, python-matrix (with
# py39-unit, py312-unit), coexistence and test-operator, each as .subunit,
# .junit.xml and .html, each stage's log, timings.txt, and
# artifacts/functional when the functional tests failed. What
# tools/run-suite.sh wrote there (suite.*, its deployment map and metrics,
# artifacts/) is left alone.
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/stage-timer.sh || exit 1
stage_begin set-up
tools/setup-env.sh || exit $?
stage_end
VENV=${VENV:-.venv}
export RESULTS=${RESULTS:-results}
mkdir -p "$RESULTS"
find "$RESULTS" -mindepth 1 -maxdepth 1 ! -name 'suite*' ! -name artifacts \
    ! -name 'deployment-map.*' ! -name 'metrics.*' -exec rm -rf {} +
rm -rf "$RESULTS/artifacts/functional"

# run_stage NAME COMMAND...: run one stage with its output in
# $RESULTS/NAME.log (and on the console unless QUIET_STAGES is set); its
# exit status in NAME.rc, its seconds in NAME.seconds and, where a cgroup
# can count them (tools/stage-timer.sh), the CPU seconds of all its
# processes in NAME.cpu.
run_stage() {
    local name=$1 log=$RESULTS/$1.log t0 rc cg cpu
    shift
    t0=$(date +%s.%N)
    cg=$(stage_cpu_group "$name")
    if [ -n "${QUIET_STAGES:-}" ]; then
        (stage_cpu_join "$cg"; "$@") > "$log" 2>&1
        rc=$?
    else
        { stage_cpu_join "$cg"; "$@"; } 2>&1 | tee "$log"
        rc=${PIPESTATUS[0]}
    fi
    echo "$rc" > "$RESULTS/$name.rc"
    _stage_minus "$(date +%s.%N)" "$t0" > "$RESULTS/$name.seconds"
    cpu=$(stage_cpu_close "$cg" 2>> "$log")
    [ -n "$cpu" ] && echo "$cpu" > "$RESULTS/$name.cpu"
    return "$rc"
}

unit_tests() {
    "$VENV/bin/stestr" run --subunit > "$RESULTS/unit.subunit"
    local rc=$? summary failed
    summary=$("$VENV/bin/python" tools/subunit_summary.py --list-failures \
        "$RESULTS/unit.subunit")
    echo "$summary" | sed 's/^/unit: /'
    # NOTE: "stestr run --subunit" exits 0 whatever the tests did (the
    # stage said "exit 0" beside 3 failures); the stream says.
    read -r _ _ failed _ <<<"$(tail -n 1 <<<"$summary")"
    [ "${failed:-0}" != 0 ] && rc=1
    return $rc
}

# The disruptive CR through the same stage, in a namespace that is not
# "openstack": nothing but its git URL is edited for either.
# NOTE: in the default image's pod only (Python 3.9, the 2023.1 pins):
# the pods of tcib's main branch show installs that do not depend on the
# CR, and the gate CR's stage already shows them.
test_operator_disruptive() {
    TEST_OPERATOR_MASTER_PODS=0 TEST_OPERATOR_NAME=test-operator-disruptive \
    TEST_OPERATOR_CR=etc/test-operator/tempest-glance-multiapi-disruptive.yaml\
    TEST_OPERATOR_NAMESPACE=osp-ctlplane tools/run-test-operator.sh
}

# NOTE: every stage but the functional tests, in order: the lint stage
# first, as a broken file is the cheapest thing to learn about.
STAGES=(lint unit python-matrix coexistence test-operator
        test-operator-disruptive)
declare -A COMMAND=(
    [lint]=tools/run-lint.sh
    [unit]=unit_tests
    [python-matrix]=tools/run-python-matrix.sh
    [coexistence]=tools/run-coexistence.sh
    [test-operator]=tools/run-test-operator.sh
    [test-operator-disruptive]=test_operator_disruptive)
declare -A TITLE=(
    [lint]="lint (flake8, hacking, check-uuid, CI files, docs)"
    [unit]="unit tests"
    [python-matrix]="the plugin alone under Python 3.9 and 3.12"
    [coexistence]="the plugin beside other tempest plugins"
    [test-operator]="the test-operator pod path (tcib's run_tempest.sh)"
    [test-operator-disruptive]="the disruptive CR in that pod, namespace \
osp-ctlplane")

# other_stages NAME...: those stages, one after another.
other_stages() {
    local name
    for name in "$@"; do
        echo "== ${TITLE[$name]}"
        run_stage "$name" "${COMMAND[$name]}"
        [ -n "${QUIET_STAGES:-}" ] && \
            echo "$name: exit $(cat "$RESULTS/$name.rc"), $(tail -n 1 \
                "$RESULTS/$name.log")"
    done
}

# NOTE: the stages before the functional tests come off one queue, taken
# by two background workers as each is free, not in two fixed chains:
# from a fresh clone, lint's venvs made the chain "lint unit
# python-matrix" 1,848 s against the other's 1,494 s. test-operator
# first, as its disruptive stage follows it (test-operator-disruptive
# goes to the head of the queue when test-operator has ended: it reuses
# that stage's venvs) and both wait on their clouds and pods; then the
# Python matrix, the longest; the unit tests, lint and coexistence last,
# as they keep a core busy once the functional tests have ended. With
# lint first (a fresh clone at 88a9eef) the functional tests ended at
# 1,024 s and the stages at 1,492 s. The unit tests, coexistence and the
# disruptive stage ran whole in that tail: 414.3 CPU seconds in 468 s,
# and the disruptive stage (179.5 over 331.5 s) alone for its last 77 s.
# Measured as the wall time over the least the stages' CPU seconds allow
# on two cores: warm, fixed chains 1,365.6 s over 1,107.9 s (1.23) and
# the queue with lint first 1,404.2 s over 1,187.0 s (1.18); from a
# fresh clone, fixed chains 1,912.2 s over 1,531.5 s (1.25), lint first
# 2,242.5 s over 1,802.3 s (1.24) and 1,496.5 s over 1,214.5 s (1.23),
# test-operator first 1,562.5 s over 1,353.2 s (1.15), and with the
# foreground taking stages too (below) 1,400.9 s over 1,245.6 s (1.12):
# 302.5 s after the functional tests, 40.1 s of one chain alone. One
# worker took all six in one
# chain, longer than the functional tests (1,914 s against 1,607 s).
# Each worker writes the stages it ran, in order, to
# $RESULTS/stages-worker-N.txt (tools/suite_times.py profile reads them
# as its chains).
STAGE_QUEUE=(test-operator python-matrix unit lint coexistence)
declare -A THEN=([test-operator]=test-operator-disruptive)
WORKERS=2
queue=$RESULTS/.stage-queue

# queue_take: the next stage of the queue, taken off it; empty when none.
queue_take() {
    (
        flock 9 || exit 1
        head -n 1 "$queue"
        sed -i 1d "$queue"
    ) 9> "$queue.lock"
}

# queue_first NAME: NAME goes to the head of the queue.
queue_first() {
    (
        flock 9 || exit 1
        { echo "$1"; cat "$queue"; } > "$queue.new" && \
            mv "$queue.new" "$queue"
    ) 9> "$queue.lock"
}

# queue_worker TAG: run stages off the queue until it is empty; the
# stages it ran, in order, go to $RESULTS/stages-TAG.txt.
queue_worker() {
    local name
    : > "$RESULTS/stages-$1.txt"
    while name=$(queue_take) && [ -n "$name" ]; do
        QUIET_STAGES=1 other_stages "$name"
        echo "$name" >> "$RESULTS/stages-$1.txt"
        [ -n "${THEN[$name]:-}" ] && queue_first "${THEN[$name]}"
    done
}

cores=$(nproc 2>/dev/null || echo 1)
background=()
if [ -z "${SERIAL:-}" ] && [ "$cores" -ge 2 ]; then
    echo "== lint, unit, Python matrix, coexistence and test-operator:" \
        "$WORKERS workers in the background (logs in $RESULTS/*.log), the" \
        "functional tests meanwhile"
    printf '%s\n' "${STAGE_QUEUE[@]}" > "$queue"
    for ((i = 0; i < WORKERS; i++)); do
        queue_worker "worker-$i" > "$RESULTS/other-stages-$i.log" 2>&1 &
        background+=($!)
    done
else
    other_stages "${STAGES[@]}"
fi

echo "== functional tests (real embedded clouds)"
run_stage functional tools/run-functional.sh
functional_rc=$(cat "$RESULTS/functional.rc")

if [ "${#background[@]}" -gt 0 ]; then
    # NOTE: the functional tests kept the cores busy; once they end, what
    # is left of the queue is taken from here too, beside the workers
    # (their stages wait on clouds and pods much of the time). Its stages
    # go to $RESULTS/stages-after-functional.txt.
    queue_worker after-functional > "$RESULTS/other-stages-after.log" 2>&1
    echo "== the other stages (run meanwhile)"
    wait "${background[@]}"
    for ((i = 0; i < WORKERS; i++)); do
        cat "$RESULTS/other-stages-$i.log"
    done
    cat "$RESULTS/other-stages-after.log"
    rm -f "$queue" "$queue.lock" "$queue.new"
fi
for name in "${STAGES[@]}" functional; do
    [ -e "$RESULTS/$name.seconds" ] && \
        stage_record "$name" "$(cat "$RESULTS/$name.seconds")"
done

echo "== reports (JUnit XML and HTML beside each subunit stream)"
stage_begin reports
streams=()
for name in unit python-matrix py39-unit py312-unit coexistence \
        test-operator test-operator-disruptive; do
    [ -e "$RESULTS/$name.subunit" ] && streams+=("$RESULTS/$name.subunit")
done
# NOTE: run-functional.sh writes its own; when it stopped before, a report
# of no results stands in.
[ -e "$RESULTS/functional.junit.xml" ] \
    || streams+=("$RESULTS/functional.subunit")
"$VENV/bin/python" tools/subunit_report.py "${streams[@]}"
stage_end

echo "== summary"
passed=0; failed=0; skipped=0
add() {
    local p f s
    read -r p _ f _ s _ <<<"$1"
    passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
    skipped=$((skipped + ${s:-0}))
}
# stage_result NAME: the result line a stage printed; a stage that failed
# without counting a failure (it could not start) counts as one.
stage_result() {
    local line rc f
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$RESULTS/$1.log" \
        2>/dev/null | tail -1)
    rc=$(cat "$RESULTS/$1.rc" 2>/dev/null || echo 1)
    read -r _ _ f _ <<<"${line:-0 passed, 0 failed}"
    if [ "$rc" != 0 ] && [ "${f:-0}" = 0 ]; then
        echo "FAILED: $1 (exit $rc)"
        line="0 passed, 1 failed, 0 skipped"
    fi
    add "${line:-0 passed, 0 failed, 0 skipped}"
}
# stream NAME: the counts of $RESULTS/NAME.subunit, with the same rule.
stream() {
    local line rc f
    line=$("$VENV/bin/python" tools/subunit_summary.py \
        "$RESULTS/$1.subunit")
    add "$line"
    rc=$(cat "$RESULTS/$1.rc" 2>/dev/null || echo 1)
    read -r _ _ f _ <<<"$line"
    if [ "$rc" != 0 ] && [ "${f:-0}" = 0 ]; then
        echo "FAILED: $1 (exit $rc)"
        add "0 passed, 1 failed, 0 skipped"
    fi
}
for name in python-matrix coexistence test-operator \
        test-operator-disruptive; do
    stage_result "$name"
done
stream unit
stream functional
if [ "$(cat "$RESULTS/lint.rc" 2>/dev/null || echo 1)" != 0 ]; then
    failed=$((failed + 1)); echo "FAILED: lint"
else
    passed=$((passed + 1))
fi
stage_table "project test stages"
# NOTE: the figures of this run in $RESULTS/profile.json, beside those of
# an earlier one when PROFILE_AGAINST names its profile.json (issue 56).
echo "== where the time went (tools/suite_times.py profile)"
"$VENV/bin/python" tools/suite_times.py profile "$RESULTS" --top 8 \
    --save "$RESULTS/profile.json" \
    ${PROFILE_AGAINST:+--against "$PROFILE_AGAINST"} || true
echo "== the ten slowest tests (seconds, stream, test)"
slow_streams=()
for name in functional unit py39-unit py312-unit coexistence test-operator \
        test-operator-disruptive; do
    slow_streams+=("$RESULTS/$name.subunit")
done
"$VENV/bin/python" tools/suite_times.py slowest 10 "${slow_streams[@]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] && [ "$passed" -gt 1 ]
