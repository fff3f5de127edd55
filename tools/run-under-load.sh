#!/bin/bash
# Steadiness under load: run a runner of this project RUNS times with a
# CPU hog beside it, and print one line per run and a summary.
#
#   tools/run-under-load.sh functional   # tools/run-functional.sh
#   tools/run-under-load.sh suite        # tools/run-suite.sh (main job)
#   tools/run-under-load.sh tests        # tools/run-tests.sh
#
# RUNS (default 3) runs, each beside "stress-ng --cpu HOG_WORKERS"
# (default 2: one busy worker per core of a 2-core machine), bounded by
# HOG_SECONDS (default 3600; the hog stops then, or when the run ends,
# whichever is first). Each run's results go to $RESULTS/load-N/ (RESULTS
# defaults to results-load), its console to $RESULTS/load-N.console.log.
# Exit status: 0 when every run passed, 1 when one failed, 2 on bad
# usage, 3 when stress-ng is missing.
set -uo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
    functional) runner=tools/run-functional.sh ;;
    suite) runner=tools/run-suite.sh ;;
    tests) runner=tools/run-tests.sh ;;
    *) echo "usage: $0 functional|suite|tests" >&2; exit 2 ;;
esac
what=$1
RUNS=${RUNS:-3}
HOG_WORKERS=${HOG_WORKERS:-2}
HOG_SECONDS=${HOG_SECONDS:-3600}
for value in "$RUNS" "$HOG_WORKERS" "$HOG_SECONDS"; do
    if ! [[ "$value" =~ ^[1-9][0-9]*$ ]]; then
        echo "run-under-load: RUNS, HOG_WORKERS and HOG_SECONDS must be" \
            "positive integers (got '$value')" >&2
        exit 2
    fi
done
if ! command -v stress-ng > /dev/null; then
    echo "run-under-load: stress-ng is not installed (Debian: apt-get" \
        "install stress-ng; it is bindep.txt's 'load' profile)" >&2
    exit 3
fi
base=${RESULTS:-results-load}
mkdir -p "$base"
base=$(cd "$base" && pwd)

hog=""
stop_hog() {
    if [ -n "$hog" ]; then
        kill "$hog" 2> /dev/null
        wait "$hog" 2> /dev/null
        hog=""
    fi
}
trap 'stop_hog; exit 130' INT TERM
trap stop_hog EXIT

failed=0
summary=()
for run in $(seq 1 "$RUNS"); do
    out=$base/load-$run
    rm -rf "$out"
    mkdir -p "$out"
    stress-ng --cpu "$HOG_WORKERS" --timeout "${HOG_SECONDS}s" --quiet &
    hog=$!
    start=$(date +%s)
    # NOTE: the console beside the run's folder, not in it: run-tests.sh
    # empties its results folder first, and a log it removed while this
    # wrote to it was lost.
    console=$base/load-$run.console.log
    RESULTS=$out "$runner" > "$console" 2>&1
    rc=$?
    seconds=$(( $(date +%s) - start ))
    stop_hog
    result=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$console" |
        tail -1)
    line=$(printf 'run %d of %d: %s, rc %d, %d s: %s' "$run" "$RUNS" \
        "$what" "$rc" "$seconds" "${result:-no result line}")
    echo "$line"
    summary+=("$line")
    if [ "$rc" != 0 ]; then
        failed=$((failed + 1))
        grep -E '(FAIL|fail)' "$console" | head -20 | sed 's/^/  /'
    fi
done
printf '== %s beside stress-ng --cpu %d: %d of %d runs failed\n' "$what" \
    "$HOG_WORKERS" "$failed" "$RUNS" | tee "$base/summary.txt"
printf '%s\n' "${summary[@]}" >> "$base/summary.txt"
[ "$failed" = 0 ]
