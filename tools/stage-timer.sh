# Sourced (bash) by the runners (run-suite.sh, run-tests.sh): how long each
# stage took, printed as one table at the end.
#
# stage_begin NAME   starts timing NAME (ends the stage still open).
# stage_end          ends the open stage.
# stage_record NAME SECONDS   records a stage timed elsewhere (e.g. a
#                    stage that ran in the background).
# stage_cpu_group NAME  prints the folder of a new cgroup for a stage
#                    (cgroup v1 cpuacct, else v2; root only), or nothing
#                    where none can be made; stage_cpu_join DIR moves the
#                    calling (sub)shell into it; stage_cpu_close DIR
#                    prints the CPU seconds every process ever in it used
#                    (detached services too, which "time" never sees)
#                    and removes it. See stage_cpu_close for leftovers.
# stage_table [TITLE]  prints "stage  seconds" lines and the wall time
#                    since the script started; also into
#                    $RESULTS/timings.txt (a table for CI logs) when
#                    RESULTS is set.
# Times are date +%s.%N, arithmetic in awk (on every Debian and RPM
# base system; bc is not). The table ends with how busy the machine's
# cores were meanwhile (Linux /proc/stat; left out elsewhere): a run that
# keeps them half idle waits, and more at once would finish sooner.

_stage_names=()
_stage_secs=()
# NOTE: the open stage's row is kept from its start, so what is recorded
# while it runs (its parts) is listed after it.
_stage_open=""
_stage_row=""
_stage_t0=""
_stage_started=$(date +%s.%N)

# _stage_cpu: "busy idle" clock ticks of every core since boot.
_stage_cpu() {
    [ -r /proc/stat ] || return 0
    awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' \
        /proc/stat
}
_stage_cpu0=$(_stage_cpu)

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

# _stage_busy: "cores busy  N %" since the script started, when known.
_stage_busy() {
    local now
    now=$(_stage_cpu)
    [ -n "$now" ] && [ -n "$_stage_cpu0" ] || return 0
    awk -v a="$_stage_cpu0" -v b="$now" 'BEGIN {
        split(a, x, " "); split(b, y, " ")
        busy = y[1] - x[1]; all = busy + y[2] - x[2]
        if (all > 0) printf "%-34s %8.0f %%\n", "cores busy (whole machine)", \
            100 * busy / all }'
}

# NOTE: the CPU of a stage's processes, measured where the kernel keeps
# it: a cgroup holds every process forked into it, also those that
# detach (setsid, reparented to PID 1), as the clouds' services do.
_stage_cg_base() {
    local base
    for base in /sys/fs/cgroup/cpuacct /sys/fs/cgroup/unified /sys/fs/cgroup
    do
        if [ -e "$base/cpuacct.usage" ] || [ -e "$base/cgroup.controllers" ]
        then
            [ -w "$base" ] && echo "$base"
            return 0
        fi
    done
}

stage_cpu_group() {
    local base dir
    base=$(_stage_cg_base)
    [ -n "$base" ] || return 0
    dir=$base/gmt-stage-$$-$1
    mkdir "$dir" 2>/dev/null && echo "$dir"
    return 0
}

stage_cpu_join() {
    [ -n "${1:-}" ] && echo "$BASHPID" > "$1/cgroup.procs" 2>/dev/null
    return 0
}

# stage_cpu_close DIR: its CPU seconds (one decimal), nothing when it
# cannot be read. NOTE: a process still in it after its stage ended was
# left running by that stage: named on stderr, moved out so the group
# can go (stopping it is the stage's own cleanup, not this).
stage_cpu_close() {
    local dir=${1:-} usage="" pid left=0
    [ -n "$dir" ] && [ -d "$dir" ] || return 0
    if [ -r "$dir/cpuacct.usage" ]; then
        usage=$(awk '{ printf "%.1f", $1 / 1e9 }' "$dir/cpuacct.usage")
    elif [ -r "$dir/cpu.stat" ]; then
        usage=$(awk '$1 == "usage_usec" { printf "%.1f", $2 / 1e6 }' \
            "$dir/cpu.stat")
    fi
    while read -r pid; do
        [ -n "$pid" ] || continue
        left=$((left + 1))
        echo "$(dirname "$dir")/cgroup.procs: moving out pid $pid" \
            "($(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | cut -c1-80))," \
            "still running after its stage" >&2
        echo "$pid" > "$(dirname "$dir")/cgroup.procs" 2>/dev/null
    done < "$dir/cgroup.procs"
    rmdir "$dir" 2>/dev/null
    echo "$usage"
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
        _stage_busy
    )
    echo "$out"
    if [ -n "${RESULTS:-}" ] && [ -d "$RESULTS" ]; then
        echo "$out" >> "$RESULTS/timings.txt"
    fi
}
