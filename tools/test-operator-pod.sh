#!/bin/bash
# The test-operator pod, inside a private mount namespace of its own
# (tools/run-test-operator.sh starts it with "unshare -m --propagation
# private" and "env -i": the environment is the pod's). Root only sets up
# the pod's files, then this script does what tcib's run_tempest.sh
# (container-images/tcib/base/os/tempest/run_tempest.sh of tcib's antelope
# branch, 091167fcd472f1b38f53effd14593b1ee18a734b, and of its main
# branch, 4b51b3593706bc8c4457a0a05228e9971fae8ecf: the two differ only
# in the constraints URL) does with an externalPlugin: run_git_tempest,
# run_tempest, generate_test_results.
#
# Usage: test-operator-pod.sh POD_DIR PROJECT_PYTHON TOOLS PLUGIN_VENV
#                             CONSTRAINTS [REQUIRED_GROUPS [DOCTOR_DIR
#                             [RERUN_REGEX [RERUN_CONF]]]]
# POD_DIR holds what run-test-operator.sh prepared: etc-test_operator/
# (the CR's ConfigMap files), openstack/ (clouds.yaml, secure.yaml), sa/
# (token, ca.crt, namespace), bundle.pem (the pod's system trust),
# image-bin/ (the image's own commands), home/ (the pod's /var/lib/tempest)
# and steps.txt, where each step's outcome is appended ("NAME ok|fail").
# PLUGIN_VENV is the folder kept for the plugin's venv between runs.
# CONSTRAINTS: the file pip gets with -c, the stand-in for the OpenStack
# upper-constraints URL run_tempest.sh gives it (2023.1 on the antelope
# branch, master on the main branch). POD_DIR/image-venv-pip names the
# pip the image's venvs get (CentOS Stream 9's: 21.3.1), empty for the
# interpreter's own. What pip printed
# is kept in POD_DIR/pip.log (its exit status in pip.rc), what tempest run
# printed in tempest-run.log (tempest_run.rc), stestr last's exit status
# in results.rc.
# After the results, the deployment map and the figures beside them
# (glance-multiapi-report over the records and tempest_results.subunit):
# its output in POD_DIR/map.txt, its step report_map.
# REQUIRED_GROUPS: after the results, the verdict gate a cluster admin
# runs on tempest_results.subunit (glance-multiapi-report --require, the
# console script of the venv pip installed here: no checkout, no
# PYTHONPATH); its output in POD_DIR/report.txt, its step report_require.
# DOCTOR_DIR: first, what a cluster admin runs before the CR, the pod of
# etc/test-operator/doctor.yaml's Job, as tcib_pod.py doctor wrote it
# there (doctor.sh, env: NUL-separated, conf/ for the folder named in
# conf-dir, pip-cache/ kept between runs): with the pod's token,
# clouds.yaml and CA bundle, its ConfigMap mounted, its own /tmp (its
# HOME); its output in POD_DIR/doctor.log, its step doctor.
# RERUN_REGEX: instead of all that, after the same mounts, the tests it
# selects run again in the workspace, tempest.conf and plugin venv an
# earlier run of this pod left (the stage's heat cases): what tempest
# printed in POD_DIR/rerun.log, its stream in POD_DIR/rerun.subunit.
# RERUN_CONF: the rerun's tempest.conf (tempest run --config-file), a path
# in the pod's view; empty: the workspace's own, as the first run left it.
# Nothing mounted here outlives the namespace.
set -uo pipefail
POD=$1 HELPER_PY=$2 TOOLS=$3 PLUGIN_VENV=$4 CONSTRAINTS=$5 REQUIRE=${6:-}
DOCTOR=${7:-} RERUN=${8:-} RERUN_CONF=${9:-}
STEPS=$POD/steps.txt

say() { echo "test-operator-pod: $*"; }
# step NAME ok|fail [REASON]: one line of steps.txt.
step() { echo "$1 $2${3:+ ${*:3}}" >> "$STEPS"; }
die() { say "FAILED: $*" >&2; exit 90; }

# overlay DIR: a copy-on-write view of DIR, for this namespace only.
overlay() {
    local dir=$1 ov=$POD/ov${1//\//_} below
    # NOTE: an overlay shows the folder's own file system only; a mount
    # below it (a container's /etc/resolv.conf) would vanish.
    below=$(findmnt -rn -o TARGET | grep "^$dir/" | head -3)
    [ -z "$below" ] || die "$dir has mounts below it ($below); an overlay" \
        "would hide them"
    mkdir -p "$ov/u" "$ov/w"
    mount -t overlay overlay -o "lowerdir=$dir,upperdir=$ov/u,workdir=$ov/w" \
        "$dir" || die "cannot mount an overlay on $dir"
}

# -- the pod's volumes (test-operator internal/tempest/volumes.go) ------
overlay /run
overlay /etc
overlay /var/lib
# NOTE: tcib's tempest images carry neither oc nor kubectl, so this
# machine's are taken out of the pod's /usr (an overlay whiteout, a 0/0
# character device in its upper folder): the plugin cannot lean on one.
ov_usr=$POD/ov_usr
for cmd in oc kubectl; do
    IFS=: read -ra dirs <<< "$PATH"
    for dir in "${dirs[@]}"; do
        path=$(realpath -s "$dir/$cmd")
        [ -e "$path" ] || [ -L "$path" ] || continue
        path=$(realpath "$dir")/$cmd
        [ -c "$ov_usr/u${path#/usr}" ] && continue
        case $path in
            /usr/*) mkdir -p "$ov_usr/u$(dirname "${path#/usr}")" &&
                    mknod "$ov_usr/u${path#/usr}" c 0 0 ||
                        die "cannot hide $path" ;;
            *) die "$path is on the pod's PATH; the image has no $cmd" ;;
        esac
        say "hid this machine's $path: the image has no $cmd"
    done
done
overlay /usr
hash -r
for cmd in oc kubectl; do
    ! command -v "$cmd" > /dev/null || die "$cmd is still on the pod's PATH"
done
# The Secret of rbac.yaml, as the CR's extraMounts mounts it (readOnly);
# /var/run is a symlink to /run.
sa=/run/secrets/kubernetes.io/serviceaccount
mkdir -p "$sa" && mount --bind "$POD/sa" "$sa" &&
    mount -o remount,bind,ro "$sa" || die "cannot mount the token at $sa"
# The config ConfigMap at /etc/test_operator, clouds.yaml and secure.yaml
# at /etc/openstack (and clouds.yaml in ~/.config/openstack, below).
mkdir -p /etc/test_operator /etc/openstack
cp "$POD"/etc-test_operator/* /etc/test_operator/ 2>/dev/null
cp "$POD"/openstack/clouds.yaml "$POD"/openstack/secure.yaml /etc/openstack/
# NOTE: test-operator mounts combined-ca-bundle over the image's system
# bundle (/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem); Debian's
# OpenSSL reads /etc/ssl/certs/ca-certificates.crt instead, so both.
mkdir -p /etc/pki/ca-trust/extracted/pem
cp "$POD/bundle.pem" /etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem
cp "$POD/bundle.pem" /etc/ssl/certs/ca-certificates.crt
# The workdir volume (/var/lib/tempest), its logs volume and the kept venv.
mkdir -p /var/lib/tempest && mount --bind "$POD/home" /var/lib/tempest ||
    die "cannot mount /var/lib/tempest"
mkdir -p /var/lib/tempest/external_files /var/lib/tempest/.config/openstack
cp "$POD/openstack/clouds.yaml" /var/lib/tempest/.config/openstack/
mkdir -p /var/lib/tempest/external-plugins/.venv &&
    mount --bind "$PLUGIN_VENV" /var/lib/tempest/external-plugins/.venv ||
    die "cannot mount the plugin venv"
# The image's own commands (python3, discover-tempest-config, stestr, ...).
mount --bind "$POD/image-bin" /usr/local/bin || die "cannot mount image-bin"
[ ! -e "$HOME/.kube" ] || die "$HOME/.kube exists: a pod has no kubeconfig"

# -- a rerun of some of the CR's tests, in what the first run left -------
if [ -n "$RERUN" ]; then
    cd /var/lib/tempest/openshift || die "no tempest workspace to rerun in"
    # shellcheck disable=SC1091
    . /var/lib/tempest/external-plugins/.venv/bin/activate
    tempest run --serial --regex "$RERUN" \
        ${RERUN_CONF:+--config-file "$RERUN_CONF"} > "$POD/rerun.log" 2>&1
    echo $? > "$POD/rerun.rc"
    stestr last --subunit > "$POD/rerun.subunit" 2> /dev/null
    exit 0
fi


# -- the doctor's Job, before the CR (etc/test-operator/doctor.yaml) ----
if [ -n "$DOCTOR" ]; then
    conf_dir=$(cat "$DOCTOR/conf-dir")
    mkdir -p "$conf_dir" && cp "$DOCTOR"/conf/* "$conf_dir/" ||
        die "cannot mount the doctor's ConfigMap at $conf_dir"
    # NOTE: the pod folder may lie under /tmp, which the doctor's own
    # /tmp hides: what it needs of it is read, and its log opened, first.
    mapfile -d '' doctor_env < "$DOCTOR/env"
    doctor_script=$(cat "$DOCTOR/doctor.sh")
    exec 8> "$POD/doctor.log"
    mkdir -p "$DOCTOR/tmp/.cache/pip" "$DOCTOR/pip-cache" &&
        mount --bind "$DOCTOR/pip-cache" "$DOCTOR/tmp/.cache/pip" &&
        mount --rbind "$DOCTOR/tmp" /tmp ||
        die "cannot give the doctor its /tmp"
    say "the doctor's Job runs (its log: doctor.log)"
    (cd / && env -i "${doctor_env[@]}" bash -c "$doctor_script") >&8 2>&8
    doctor_rc=$?
    exec 8>&-
    umount -R /tmp && umount "$DOCTOR/tmp/.cache/pip" ||
        die "cannot give /tmp back"
    say "glance-multiapi-doctor exited $doctor_rc: $(grep -m1 \
        'glance-multiapi-doctor: ' "$POD/doctor.log" || tail -1 \
        "$POD/doctor.log")"
    if [ "$doctor_rc" = 0 ]; then
        step doctor ok
    else
        step doctor fail "the doctor's Job exited $doctor_rc:" \
            "$(grep -E '^(FAIL|SKIP) ' "$POD/doctor.log" | head -3 \
               | tr '\n' ' ')$(grep -m1 'glance-multiapi-doctor: ' \
               "$POD/doctor.log")"
    fi
fi

# -- run_tempest.sh from here on (its variable names) -------------------
HOMEDIR=/var/lib/tempest
TEMPEST_DIR=$HOMEDIR/openshift
TEMPEST_PATH=$HOMEDIR/
[ -n "${USE_EXTERNAL_FILES:-}" ] && TEMPEST_PATH=$HOMEDIR/external_files/
TEMPEST_LOGS_DIR="${TEMPEST_PATH}/${TEMPEST_WORKFLOW_STEP_DIR_NAME:-tempest}/"
FAILED_TESTS_FILE="${TEMPEST_LOGS_DIR}/stestr_failing.txt"
VENV_DIR=$HOMEDIR/external-plugins/.venv
cd "$HOMEDIR" || die "no $HOMEDIR"
export OS_CLOUD=default
if [ ! -f "${TEMPEST_PATH}/include.txt" ] && \
        [ -z "${TEMPEST_INCLUDE_LIST:-}" ]; then
    echo "tempest.api.identity.v3" > "${TEMPEST_PATH}/include.txt"
fi
if [ ! -f "${TEMPEST_PATH}/exclude.txt" ] && \
        [ -z "${TEMPEST_EXCLUDE_LIST:-}" ]; then
    touch "${TEMPEST_PATH}/exclude.txt"
fi
# NOTE: the first expansion of the overrides happens here, in the
# image's working directory (this stage: the pod's home).
first_cwd=$(pwd)

# run_git_tempest
mkdir -p "$HOMEDIR/external-plugins" && cd "$HOMEDIR/external-plugins"
say "python3 -m venv $VENV_DIR ($(python3 -V 2>&1), $(command -v python3))"
python3 -m venv "$VENV_DIR" || { step venv fail; exit 1; }
# shellcheck disable=SC1091
. "$VENV_DIR/bin/activate"
# NOTE: the image's python3 takes the pip of its venvs from the
# distribution's wheel (CentOS Stream 9: python3-pip-wheel), not from
# the ensurepip this stand-in's interpreter bundles: that pip, not ours,
# is the one run_tempest.sh installs the plugin with.
image_pip=$(cat "$POD/image-venv-pip" 2>/dev/null)
if [ -n "$image_pip" ] && [ "$(pip --version | cut -d' ' -f2)" != \
        "$image_pip" ]; then
    pip install -q "pip==$image_pip" 2>&1 | grep -v '^WARNING: Location '
    [ "$(pip --version | cut -d' ' -f2)" = "$image_pip" ] ||
        die "cannot give the venv the image's pip $image_pip"
fi
IFS=, read -ra urls <<< "${TEMPEST_EXTERNAL_PLUGIN_GIT_URL:-}"
IFS=, read -ra change_urls <<< "${TEMPEST_EXTERNAL_PLUGIN_CHANGE_URL:-}"
IFS=, read -ra refspecs <<< "${TEMPEST_EXTERNAL_PLUGIN_REFSPEC:-}"
for i in "${!urls[@]}"; do
    name=$(basename -s .git "${urls[i]}")
    rm -rf "$name"
    git clone -q "${urls[i]}" || { step clone fail; exit 1; }
    if [ "${change_urls[i]:--}" != - ] && [ "${refspecs[i]:--}" != - ]; then
        (cd "$name" && git fetch -q "${change_urls[i]}" "${refspecs[i]}" &&
            git checkout -q FETCH_HEAD) || { step clone fail; exit 1; }
    fi
    say "cloned $name at $(git -C "$name" log -1 --format='%h %s')"
    step clone ok
    # NOTE: run_tempest.sh gives -c the URL of OpenStack's
    # upper-constraints, which CI cannot reach; CONSTRAINTS stands in for
    # it. Like run_tempest.sh, a failed install does not stop the pod:
    # tempest is then the image's own, which lacks the plugin.
    say "pip install -c $(basename "$CONSTRAINTS") ./$name (pip" \
        "$(pip --version | cut -d' ' -f2), $(python3 -V 2>&1))"
    pip install -c "$CONSTRAINTS" "./$name" > "$POD/pip.log" 2>&1
    pip_rc=$?
    echo "$pip_rc" > "$POD/pip.rc"
    if [ "$pip_rc" = 0 ]; then
        step pip_install ok
    else
        say "pip exited $pip_rc; what it said from its first error on:"
        grep -v '^WARNING: Location ' "$POD/pip.log" | sed -n '/^ERROR:/,$p' \
            | sed 's/^/    /'
        step pip_install fail "pip exited $pip_rc:" \
            "$(grep -m1 '^ERROR: ' "$POD/pip.log" | cut -c1-300)"
    fi
done
say "pip freeze of $VENV_DIR:"
pip freeze | sed 's/^/    /'

# run_tempest
cd "$HOMEDIR" && tempest init openshift > /dev/null || {
    step tempest_init fail; exit 1; }
cd "$TEMPEST_DIR" || exit 1
mkdir -p "$TEMPEST_LOGS_DIR"
mapfile -d '' conf_argv < <("$HELPER_PY" "$TOOLS/tcib_pod.py" \
    discover-argv --first-cwd "$first_cwd" 2> "$POD/render.err")
mapfile -d '' run_argv < <("$HELPER_PY" "$TOOLS/tcib_pod.py" tempest-argv)
if [ "${#conf_argv[@]}" = 0 ]; then
    cat "$POD/render.err" >&2
    step discover_tempest_config fail "$(tr '\n' ' ' < "$POD/render.err")"
    exit 1
fi
say "discover-tempest-config is $(command -v discover-tempest-config)"
say "discover-tempest-config ${conf_argv[*]}"
# NOTE: the image's python-requests (an RPM) is patched to trust the
# system bundle; this stand-in's is PyPI's, which trusts certifi's, so
# only this process is pointed at the system bundle.
REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt \
    discover-tempest-config "${conf_argv[@]}" > "$POD/discover.log" 2>&1
conf_rc=$?
if [ "$conf_rc" = 0 ]; then
    step discover_tempest_config ok
    say "tempest is $(command -v tempest); tempest run ${run_argv[*]}"
    tempest run "${run_argv[@]}" 2>&1 | tee "$POD/tempest-run.log"
    RETURN_VALUE=${PIPESTATUS[0]}
    # NOTE: stestr's "doesn't match" ends without a newline.
    [ -n "$(tail -c1 "$POD/tempest-run.log")" ] && echo
    echo "$RETURN_VALUE" > "$POD/tempest_run.rc"
else
    step discover_tempest_config fail "discover-tempest-config exited" \
        "$conf_rc: $(grep -v ' DEBUG ' "$POD/discover.log" | tail -1)"
    say "discover-tempest-config exited $conf_rc; its last lines:"
    grep -v ' DEBUG ' "$POD/discover.log" | tail -15 | sed 's/^/    /'
    RETURN_VALUE=$conf_rc
fi
deactivate

# save_config_files, generate_test_results (the image's stestr and
# subunit filters: run_git_tempest has deactivated the venv by then).
mkdir -p "${TEMPEST_LOGS_DIR}/etc"
cp -f "$TEMPEST_DIR"/etc/*.conf "${TEMPEST_LOGS_DIR}/etc/" 2>/dev/null
if [ -d "$TEMPEST_DIR/.stestr" ]; then
    stestr failing --list 2>/dev/null | sed 's/\[.*\]//g' \
        > "$FAILED_TESTS_FILE"
    stestr last --subunit > "${TEMPEST_LOGS_DIR}/tempest_results.subunit"
    # NOTE: with no run recorded stestr prints a sentence there, exit 1.
    echo $? > "$POD/results.rc"
    results=${TEMPEST_LOGS_DIR}/tempest_results
    # NOTE: subunit2junitxml exits 1 when a test failed, its report
    # written all the same: only no report is its failure.
    subunit2junitxml "$results.subunit" -o "$results.xml" \
        > "$POD/subunit2junitxml.log" 2>&1
    if [ ! -s "$results.xml" ]; then
        say "subunit2junitxml wrote no $results.xml: $(tail -1 \
            "$POD/subunit2junitxml.log")"
    fi
    if command -v subunit2html > /dev/null; then
        subunit2html "$results.subunit" "$results.html" > /dev/null 2>&1
    else
        say "subunit2html: not in this image stand-in"
    fi
fi
# NOTE: the map and the figures, beside tempest_results.*: the plugin's
# tests only record while they run; the report builds both once, from
# the records and tempest_results.subunit (read from the folder), as an
# admin does after copying the volume's folder off (tools/cluster-run.sh).
if [ -d "${TEMPEST_LOGS_DIR}/glance-multiapi-records" ]; then
    (cd /tmp && env -u PYTHONPATH "$VENV_DIR/bin/glance-multiapi-report" \
        "${TEMPEST_LOGS_DIR}") > "$POD/map.txt" 2>&1
    map_rc=$?
    say "glance-multiapi-report (the map): exit $map_rc," \
        "$(tail -1 "$POD/map.txt")"
    if [ "$map_rc" = 0 ]; then
        step report_map ok
    else
        step report_map fail "exit $map_rc: $(tail -1 "$POD/map.txt")"
    fi
fi
if [ -n "$REQUIRE" ] && [ "$(cat "$POD/results.rc" 2>/dev/null)" = 0 ]
then
    (cd /tmp && env -u PYTHONPATH "$VENV_DIR/bin/glance-multiapi-report" \
        --require "$REQUIRE" "${TEMPEST_LOGS_DIR}/tempest_results.subunit") \
        > "$POD/report.txt" 2>&1
    report_rc=$?
    say "glance-multiapi-report --require $REQUIRE: exit $report_rc," \
        "$(tail -1 "$POD/report.txt")"
    # NOTE: a failed test fails the verdict too, but it is counted as
    # itself already; this step fails for what only the gate sees.
    if [ "$report_rc" = 0 ] || { [ "$report_rc" = 1 ] &&
            ! grep -q '^FAILED: required group' "$POD/report.txt"; }; then
        step report_require ok
    else
        step report_require fail "$(grep -m3 '^FAILED: required' \
            "$POD/report.txt" | tr '\n' ' ')exit $report_rc"
    fi
fi
exit "$RETURN_VALUE"
