# Sourced (bash) by run-functional.sh and run-suite.sh: the temporary
# folder of their embedded cloud and its tear-down on exit.
#
# cloud_workdir NAME sets work (a new temporary folder gmt-NAME-XXXXXX)
# and state ($work/cloud, the cloud's --state-dir). On exit the cloud is
# taken down and $work removed; with KEEP_STATE set it is kept and
# "run-NAME: kept $state" is printed. INT and TERM exit 130. Uses VENV.
#
# cloud_artifacts DEST [--only-on-failure]: before that tear-down, keep
# the cloud's configuration, and its logs when the script exits non-zero
# (or KEEP_ARTIFACTS=always), secrets masked, in DEST
# (tools/collect_artifacts.py).
#
# cloud_also STATE DEST: one more cloud (its --state-dir inside $work),
# taken down and its artifacts kept in DEST the same way, before $state.
#
# cloud_teardown RC: that tear-down now, judged by RC instead of the exit
# status (so a script can time it and still print its last lines); the
# exit trap then has nothing left to do.

_cloud_tools=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

cloud_workdir() {
    _cloud_name=$1
    work=$(mktemp -d -t "gmt-$_cloud_name-XXXXXX")
    state="$work/cloud"
    trap _cloud_cleanup EXIT
    trap 'exit 130' INT TERM
}

# keep_artifacts_setting: KEEP_ARTIFACTS if valid (always|failure, default
# failure); else says so and returns 2.
keep_artifacts_setting() {
    case ${KEEP_ARTIFACTS:-failure} in
        always|failure) echo "${KEEP_ARTIFACTS:-failure}" ;;
        *) echo "KEEP_ARTIFACTS=$KEEP_ARTIFACTS: want always or failure" >&2
           return 2 ;;
    esac
}

cloud_artifacts() {
    _cloud_artifacts=$1
    _cloud_artifacts_args=("${@:2}")
}

_cloud_also_states=()
_cloud_also_dests=()
cloud_also() {
    _cloud_also_states+=("$1")
    _cloud_also_dests+=("$2")
}

_cloud_cleanup() {
    cloud_teardown $?
}

cloud_teardown() {
    local rc=$1
    [ -n "${_cloud_torn_down:-}" ] && return 0
    _cloud_torn_down=1
    local i
    for i in "${!_cloud_also_states[@]}"; do
        _cloud_down "$rc" "${_cloud_also_states[$i]}" \
            "${_cloud_also_dests[$i]}"
    done
    _cloud_down "$rc" "$state" "${_cloud_artifacts:-}"
    if [ -n "${KEEP_STATE:-}" ]; then
        echo "run-$_cloud_name: kept $state"
    else
        rm -rf "$work"
    fi
}

# _cloud_down RC STATE DEST: keep STATE's artifacts in DEST (when DEST is
# set), then take that cloud down.
_cloud_down() {
    local rc=$1 dir=$2 dest=$3
    if [ -n "$dest" ] && [ -d "$dir" ]; then
        "$VENV/bin/python" "$_cloud_tools/collect_artifacts.py" \
            --state-dir "$dir" --exit-code "$rc" \
            --keep "$(keep_artifacts_setting 2>/dev/null || echo always)" \
            "${_cloud_artifacts_args[@]}" "$dest"
    fi
    "$VENV/bin/glance-multiapi-cloud" --state-dir "$dir" down >/dev/null 2>&1
}
