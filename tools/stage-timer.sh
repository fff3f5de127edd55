# Sourced (bash) by the runners (run-suite.sh, run-tests.sh): how long each
# stage took, printed as one table at the end.
#
# stage_begin NAME   starts timing NAME (ends the stage still open).
# stage_end          ends the open stage.
# stage_record NAME SECONDS   records a stage timed elsewhere (e.g. a
#                    stage that ran in the background).
# stage_table [TITLE]  prints "stage  seconds" lines and the wall time
#                    since the script started; also into
#                    $RESULTS/timings.txt (a table for CI logs) when
#                    RESULTS is set.
# Times are date +%s.%N, arithmetic in awk (on every Debian and RPM
# base system; bc is not).

_stage_names=()
_stage_secs=()
# NOTE: the open stage's row is kept from its start, so what is recorded
# while it runs (its parts) is listed after it.
_stage_open=""
_stage_row=""
_stage_t0=""
_stage_started=$(date +%s.%N)

_stage_now() { date +%s.%N; }
_stage_minus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a - b }'; }

stage_begin() {
    stage_end
    _stage_open=$1
    _stage_row=${#_stage_names[@]}
    _stage_names+=("$1")
    _stage_secs+=("")
    _stage_t0=$(_stage_now)
}

stage_end() {
    [ -z "$_stage_open" ] && return 0
    _stage_secs[$_stage_row]=$(_stage_minus "$(_stage_now)" "$_stage_t0")
    _stage_open=""
}

stage_record() {
    _stage_names+=("$1")
    _stage_secs+=("$(awk -v s="$2" 'BEGIN { printf "%.1f", s }')")
}

stage_table() {
    stage_end
    local title=${1:-stages} i wall out
    wall=$(_stage_minus "$(_stage_now)" "$_stage_started")
    out=$(
        printf '== %s (seconds)\n' "$title"
        for i in "${!_stage_names[@]}"; do
            printf '%-34s %8s\n' "${_stage_names[$i]}" "${_stage_secs[$i]}"
        done
        printf '%-34s %8s\n' "wall (whole run)" "$wall"
    )
    echo "$out"
    if [ -n "${RESULTS:-}" ] && [ -d "$RESULTS" ]; then
        echo "$out" >> "$RESULTS/timings.txt"
    fi
}
