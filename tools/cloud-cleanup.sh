# Sourced (bash) by run-functional.sh and run-suite.sh: the temporary
# folder of their embedded cloud and its tear-down on exit.
#
# cloud_workdir NAME sets work (a new temporary folder gmt-NAME-XXXXXX)
# and state ($work/cloud, the cloud's --state-dir). On exit the cloud is
# taken down and $work removed; with KEEP_STATE set it is kept and
# "run-NAME: kept $state" is printed. INT and TERM exit 130. Uses VENV.

cloud_workdir() {
    _cloud_name=$1
    work=$(mktemp -d -t "gmt-$_cloud_name-XXXXXX")
    state="$work/cloud"
    trap _cloud_cleanup EXIT
    trap 'exit 130' INT TERM
}

_cloud_cleanup() {
    "$VENV/bin/glance-multiapi-cloud" --state-dir "$state" down >/dev/null 2>&1
    if [ -n "${KEEP_STATE:-}" ]; then
        echo "run-$_cloud_name: kept $state"
    else
        rm -rf "$work"
    fi
}
