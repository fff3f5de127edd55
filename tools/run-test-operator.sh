#!/bin/bash
# The test-operator path, run for real: the shipped Tempest CR
# (etc/test-operator/tempest-glance-multiapi.yaml, read at run time) in a
# stand-in of test-operator's tempest pod, against an embedded cloud
# deployed as a cluster is (up --tls --with-heat), in namespace
# $TEST_OPERATOR_NAMESPACE (default openstack), with the RBAC manifests a
# cluster admin applies for that CR there as they are (rbac.yaml, and
# rbac-disruptive.yaml when the CR mounts its token): nothing is edited
# for the namespace but what "oc apply -n" gives.
#
# The pod is the one a cluster gets with the CR as shipped (containerImage
# empty): test-operator's default image, podified-antelope-centos9
# openstack-tempest-all, built from tcib's antelope branch (091167fc):
# CentOS Stream 9's python3 (3.9) and run_tempest.sh installing the
# plugin under OpenStack 2023.1's upper-constraints. What it gets, as
# test-operator d0ef1c34 and that run_tempest.sh give it (tools/tcib_pod.py,
# selftests/manifests/tcib_pod.py):
#  - the environment test-operator makes of the CR, and nothing of this
#    machine's ("env -i"); HOME /var/lib/tempest without ~/.kube, no
#    KUBECONFIG; KUBERNETES_SERVICE_HOST/PORT of the cloud's Kubernetes
#    API; the token, ca.crt and namespace of rbac.yaml's ServiceAccount at
#    /var/run/secrets/kubernetes.io/serviceaccount (of the token Secret
#    the CR mounts, in the stage's namespace); clouds.yaml (cloud
#    "default", no cacert) and secure.yaml as keystone-operator writes
#    them; the cloud's CA only in the system trust bundle;
#  - the plugin installed as run_tempest.sh installs an externalPlugin:
#    "python3 -m venv" of the image's Python ($TEST_OPERATOR_PYTHON, 3.9)
#    with the pip CentOS Stream 9's venv brings (21.3.1), "git clone" of
#    this repository's committed HEAD (uncommitted changes are not in it),
#    "pip install -c $TEST_OPERATOR_CONSTRAINTS ./glance-multiapi-tests",
#    the constraints being tools/constraints/openstack-2023.1.txt, the
#    stand-in for the 2023.1 upper-constraints URL of run_tempest.sh;
#  - the image's own discover-tempest-config: python-tempestconf from PyPI
#    in a venv of the same Python with its own tempest, run with the
#    arguments run_tempest.sh builds from the CR; then "tempest run" with
#    the CR's include and exclude lists and concurrency.
# Before the CR's pod, in the same stand-in, the doctor as a cluster admin
# runs it first: the pod of etc/test-operator/doctor.yaml's Job (its
# script, environment and ConfigMap as the manifest has them, read by
# tools/tcib_pod.py doctor; the CR's git URL; its own /tmp), whose
# glance-multiapi-doctor --strict must find the cloud healthy (result
# doctor, its output in doctor.log).
# Then, in the same pod, the CR's consolidated image tests again in each
# state of heat's images the cloud plays (selftests/manifests/
# heat_states.py: healthy ones pass, a fault's fails naming what it
# broke; results heat_state.<case>), the cloud put back after.
# Then, against the same cloud, the images of tcib's main branch
# (podified-master-*), which install the plugin under OpenStack master's
# upper-constraints (tools/constraints/openstack-master.txt), unless
# TEST_OPERATOR_MASTER_PODS=0:
#  - master_py312: a tempest image of that branch on Python 3.12 runs the
#    same CR (its results are recorded as master_py312.<test id>), and
#    every test that passed there must have passed in the default pod too
#    (result same_checks_as_master);
#  - master_python39_pod: podified-master-centos9 (Python 3.9), whose pip
#    install cannot resolve under master's pins (oslo.config 10.7.0 needs
#    Python 3.11) for any plugin: a SKIP quoting pip's error and what the
#    pod did next when it fails that way, a FAILURE when it installs or
#    fails otherwise (selftests/manifests/pod_install.py).
# All of it in a private mount namespace (unshare -m) with overlays on
# /etc, /run and /var/lib: the machine's own paths are never changed.
# Needs root, unshare, and the Python of each image (pyenv or PATH);
# without it that pod is SKIPPED (REQUIRE_PYTHON_MATRIX=1: FAILED).
#
# Results (${RESULTS:-results}): test-operator.subunit (each step and
# each test), and test-operator/ with tempest.conf as discover-tempest-
# config wrote it, its log and what the pod's logs volume holds.
# Ends with "N passed, N failed, N skipped".
# After the pod, the plugin's own verdict gate as a cluster admin runs it:
# the glance-multiapi-report console script of the venv the pod pip-
# installed, with --require $TEST_OPERATOR_REQUIRE (default: every group
# the CR turns on).
# Environment: TEST_OPERATOR_CR (another CR), TEST_OPERATOR_CR_NAME (the
# name the cluster knows it by instead of its metadata.name, as
# ci-framework renames it "<name>-<stage>": glance-multiapi-tempest; the
# pod is named after it), TEST_OPERATOR_NAMESPACE,
# TEST_OPERATOR_NAME (the stage's name in results, default test-operator),
# TEST_OPERATOR_REQUIRE, TEST_OPERATOR_PYTHON (the image's Python, 3.9),
# TEST_OPERATOR_CONSTRAINTS (what pip gets with -c), TEST_OPERATOR_FAULTS
# (faults the stage's cloud starts with, "up --fault" each, to see the
# verdict of a broken cluster), TEST_OPERATOR_PIP (the
# pip of the image's venvs; default 21.3.1 with Python 3.9, empty: the
# interpreter's own), TEST_OPERATOR_MASTER_PODS (0: no pods of tcib's main
# branch), TEST_OPERATOR_FRESH=1 (make
# the venvs anew), TEST_OPERATOR_VENV_MAX_AGE (hours a venv is reused,
# default 24; 0 never), TEST_OPERATOR_HEAT_STATES (0: not the heat
# states' runs), KEEP_STATE=1 (keep the work folder).
set -uo pipefail
. "$(dirname "$0")/cloud-cleanup.sh" || exit 1
cd "$(dirname "$0")/.."
ROOT=$(pwd)
NAME=${TEST_OPERATOR_NAME:-test-operator}
VENV=${VENV:-.venv}
RESULTS=${RESULTS:-results}
mkdir -p "$RESULTS" && RESULTS=$(cd "$RESULTS" && pwd)
STREAM=$RESULTS/$NAME.subunit
OUT=$RESULTS/$NAME
CR=${TEST_OPERATOR_CR:-etc/test-operator/tempest-glance-multiapi.yaml}
NAMESPACE=${TEST_OPERATOR_NAMESPACE:-openstack}
GATE_RBAC=etc/test-operator/rbac.yaml
VENVS=$ROOT/.venv-test-operator
MAX_AGE=${TEST_OPERATOR_VENV_MAX_AGE:-24}
IMAGE_PYTHON=${TEST_OPERATOR_PYTHON:-3.9}
MASTER_CONSTRAINTS=tools/constraints/openstack-master.txt
CONSTRAINTS=${TEST_OPERATOR_CONSTRAINTS:-tools/constraints/openstack-2023.1.txt}
# NOTE: CentOS Stream 9's venv takes pip from python3-pip-wheel, 21.3.1
# (el9); pip's resolver and its messages differ by release.
CS9_PIP=21.3.1
default_pip=""
[ "$IMAGE_PYTHON" = 3.9 ] && default_pip=$CS9_PIP
IMAGE_PIP=${TEST_OPERATOR_PIP-$default_pip}
MASTER_PODS=${TEST_OPERATOR_MASTER_PODS:-1}
TCIB_COMMIT=091167fcd472f1b38f53effd14593b1ee18a734b
started=$SECONDS
rm -rf "$OUT" "$STREAM" && mkdir -p "$OUT"
pip_said=""
[ -n "$IMAGE_PIP" ] && pip_said=" (pip $IMAGE_PIP)"
echo "test-operator: following tcib $TCIB_COMMIT (antelope)" \
    "container-images/tcib/base/os/tempest/run_tempest.sh and" \
    "test-operator d0ef1c343d8cca281f2ab538da610a286e15edeb; CR $CR in" \
    "namespace $NAMESPACE; image Python $IMAGE_PYTHON$pip_said; pip -c" \
    "$CONSTRAINTS" \
    "($(sed -n 's/^# \(openstack\/requirements .*\)/\1/p' "$CONSTRAINTS" \
    2>/dev/null | head -1))"

# record STATUS ID [REASON]: one result of the stage in its stream.
record() {
    local args=("--$1" "$NAME.$2") reason
    if [ -n "${3:-}" ]; then
        reason=$(mktemp)
        printf '%s\n' "$3" > "$reason"
        args+=(--attach-file "$reason" --file-name reason
               --mimetype 'text/plain;charset=utf8')
    fi
    "$VENV/bin/subunit-output" "${args[@]}" >> "$STREAM"
    [ -n "${reason:-}" ] && rm -f "$reason"
    [ "$1" = fail ] && echo "test-operator: FAILED: $2${3:+: $3}"
    return 0
}

finish() {
    local line
    "$VENV/bin/python" tools/subunit_report.py "$STREAM" > /dev/null
    line=$("$VENV/bin/python" tools/subunit_summary.py --list-failures \
        "$STREAM")
    echo "$line" | sed '$d' | sed 's/^/test-operator: /'
    echo "test-operator: done in $((SECONDS - started)) s"
    echo "$line" | tail -1
    read -r _ _ f _ <<<"$(echo "$line" | tail -1)"
    exit $(( ${f:-1} == 0 ? 0 : 1 ))
}

skip() {
    echo "test-operator: SKIPPED: $*"
    record skip stage "$*"
    finish
}

tools/setup-env.sh || exit $?
. tools/test-operator-images.sh || exit 1
if [ ! -r "$CONSTRAINTS" ]; then
    record fail constraints "cannot read $CONSTRAINTS"
    finish
fi

PY=$(find_python "$IMAGE_PYTHON")
if [ -z "$PY" ]; then
    why=$(no_python "$IMAGE_PYTHON" "the tempest image the CR runs in")
    if [ "${REQUIRE_PYTHON_MATRIX:-0}" = 1 ]; then
        record fail "python${IMAGE_PYTHON/./}" \
            "$why (REQUIRE_PYTHON_MATRIX=1)"
        finish
    fi
    skip "$why"
fi
# NOTE: the images of tcib's main branch: a Python 3.12 one, and
# podified-master-centos9 (CentOS Stream 9's python3, its pip).
PY312="" no_py312="" PY39M="" no_py39m=""
if [ "$MASTER_PODS" = 1 ]; then
    PY312=$(find_python 3.12)
    [ -z "$PY312" ] && no_py312=$(no_python 3.12 "a tempest image of" \
        "tcib's main branch")
    PY39M=$(find_python 3.9)
    [ -z "$PY39M" ] && no_py39m=$(no_python 3.9 "podified-master-centos9")
fi
if [ "$(id -u)" != 0 ] || ! unshare -m --propagation private true \
        2>/dev/null; then
    skip "the pod's paths are made in a private mount namespace, which" \
        "needs root and unshare -m (util-linux)"
fi
if ! command -v qemu-img > /dev/null; then
    echo "test-operator: installing Debian's qemu-utils (qemu-img)"
    apt-get update -q > /dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
        --no-install-recommends qemu-utils > /dev/null
fi

cloud_workdir "$NAME"
cloud_artifacts "$OUT/cloud" --only-on-failure
pod_pid=""
stage_cleanup() {
    local rc=$?
    if [ -n "$pod_pid" ] && kill -0 "$pod_pid" 2>/dev/null; then
        kill -TERM -- "-$pod_pid" 2>/dev/null
        for _ in $(seq 50); do
            kill -0 "$pod_pid" 2>/dev/null || break
            sleep 0.2
        done
        kill -KILL -- "-$pod_pid" 2>/dev/null
    fi
    (exit "$rc")
    _cloud_cleanup
}
trap stage_cleanup EXIT
# NOTE: the pods read a copy, named as the file at run_tempest.sh's URL.
mkdir -p "$work/antelope" "$work/master"
pod_constraints=$work/antelope/upper-constraints.txt
cp "$CONSTRAINTS" "$pod_constraints"
master_constraints=$work/master/upper-constraints.txt
cp "$MASTER_CONSTRAINTS" "$master_constraints"
# -- the images: their python3 and python-tempestconf (own tempest) --
pod=$work/pod
image=$(make_image "$PY") || {
    record fail image_stand_in "could not install python-tempestconf" \
        "for $("$PY" -V 2>&1)"; finish; }
pod_folder "$pod" "$PY" "$image" "$IMAGE_PIP"
if [ -n "$PY312" ]; then
    pod312=$work/pod-master-py312
    if image312=$(make_image "$PY312"); then
        pod_folder "$pod312" "$PY312" "$image312" ""
    else
        no_py312="could not install python-tempestconf for Python 3.12"
        PY312=""
    fi
fi
if [ -n "$PY39M" ]; then
    pod39=$work/pod-master-python39
    if image39=$(make_image "$PY39M"); then
        pod_folder "$pod39" "$PY39M" "$image39" "$CS9_PIP"
    else
        no_py39m="could not install python-tempestconf for Python 3.9"
        PY39M=""
    fi
fi

# -- this repository, as its git URL serves it --------------------------
head=$(git rev-parse HEAD)
dirty=$(git status --porcelain --untracked-files=no | wc -l)
if [ "$dirty" != 0 ]; then
    echo "test-operator: NOTE: $dirty uncommitted change(s) are NOT in" \
        "the pod: it installs the committed HEAD, as a cluster installs" \
        "from the repository; commit them to test them"
fi
repo=$work/git/glance-multiapi-tests.git
git clone -q --bare "$ROOT" "$repo" &&
    git --git-dir="$repo" update-ref --no-deref HEAD "$head" || {
        record fail clone_source "git clone --bare of $ROOT failed"; finish; }
echo "test-operator: the pod clones $(git log -1 --format='%h %s' "$head")"
# plugin_key PYTHON PIP CONSTRAINTS: what a kept plugin venv is made of.
plugin_key() {
    echo "$("$1" -VV) pip ${2:-own} $(git show "$head:requirements.txt" \
        "$head:setup.cfg" | cat - "$3" | sha1sum)"
}
plugin=$VENVS/plugin-python${IMAGE_PYTHON}
key=$(plugin_key "$PY" "$IMAGE_PIP" "$CONSTRAINTS")
fresh_venv "$plugin" "$key" && new_plugin_venv=1 || new_plugin_venv=0

# -- the cloud, deployed as a cluster is ---------------------------------
# NOTE: which token the CR mounts says which manifests the admin applied:
# rbac.yaml always, and the file declaring that token.
read -r secret account rbac_file < <("$VENV/bin/python" tools/tcib_pod.py \
    identity --cr "$CR" --rbac "$GATE_RBAC" \
    --rbac etc/test-operator/rbac-disruptive.yaml) || {
    record fail cr_token "$CR mounts no token of the shipped RBAC manifests"
    finish; }
ROLES=("$GATE_RBAC")
[ "$rbac_file" != "$GATE_RBAC" ] && ROLES+=("$rbac_file")
role_args=() kube_role_args=()
for role in "${ROLES[@]}"; do
    role_args+=(--role "$role")
    kube_role_args+=(--kube-role "$role")
done
echo "test-operator: the pod acts as $account (Secret $secret of" \
    "$rbac_file); applied: ${ROLES[*]}"
fault_args=()
for fault in ${TEST_OPERATOR_FAULTS:-}; do
    fault_args+=(--fault "$fault")
done
"$VENV/bin/glance-multiapi-cloud" --state-dir "$state" up --tls \
    --with-heat --kube-namespace "$NAMESPACE" \
    "${kube_role_args[@]}" "${fault_args[@]}" \
    --kube-service-account "$account" | tail -2
[ "${PIPESTATUS[0]}" = 0 ] || { record fail cloud_up "the cloud did not" \
    "come up (see above)"; finish; }

# -- what the pod is given -----------------------------------------------
# NOTE: the pod is named after the CR, and the API server knows it: the
# disruptive scenarios watch their own Pod (common/own_pod.py).
cr_name=${TEST_OPERATOR_CR_NAME:-$("$VENV/bin/python" -c 'import sys, yaml
print(yaml.safe_load(open(sys.argv[1]))["metadata"]["name"])' "$CR")}
"$VENV/bin/python" - "$state" "$NAMESPACE" "$cr_name" <<'EOF' || {
import sys
from glance_multiapi_cloud.kubeapi.embedded import pods as kubepods
state, namespace, name = sys.argv[1:]
kubepods.Store(state).create(namespace, {
    'metadata': {'name': name, 'labels': {'instanceName': name,
                                          'operator': 'test-operator'}},
    'spec': {'terminationGracePeriodSeconds': 30}})
EOF
    record fail pod_object "could not register pod $cr_name"; finish; }
kube_port=$("$VENV/bin/python" - "$state" "$pod/sa" "$NAMESPACE" \
    "$secret" <<'EOF'
import json, os, shutil, sys
state, sa, namespace, secret = sys.argv[1:]
data = json.load(open(os.path.join(state, 'state.json')))
# NOTE: what the token controller put into the Secret the CR mounts.
with open(os.path.join(sa, 'token'), 'w') as out:
    out.write(data['kube']['secrets'][secret])
with open(os.path.join(sa, 'namespace'), 'w') as out:
    out.write(namespace)
shutil.copy(os.path.join(state, 'kubeapi', 'ca.crt'),
            os.path.join(sa, 'ca.crt'))
print(data['ports']['kubeapi'])
EOF
)
chmod 0644 "$pod"/sa/*
"$VENV/bin/python" tools/tcib_pod.py clouds --state-dir "$state" \
    --out-dir "$pod/openstack"
cat /etc/ssl/certs/ca-certificates.crt "$state/tls/ca.crt" \
    > "$pod/bundle.pem"
# NOTE: the one stand-in for the world outside: discover-tempest-config
# --create downloads a cirros image from the internet unless the CR names
# one (tempestconfRun.image); here a small qcow2 of qemu-img's.
mapfile -d '' pod_env < <("$VENV/bin/python" tools/tcib_pod.py env \
    --cr "$CR" --files-dir "$pod/etc-test_operator" \
    --set "TEMPEST_EXTERNAL_PLUGIN_GIT_URL=$repo," \
    --set TEMPESTCONF_IMAGE=/var/lib/tempest/tempestconf-image.qcow2)
[ "${#pod_env[@]}" -gt 0 ] || { record fail render_cr "cannot read $CR"
                                finish; }
# What kubelet (and the image) adds to every pod.
kubelet_env=(LANG=C.UTF-8
             PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
             KUBERNETES_SERVICE_HOST=127.0.0.1
             "KUBERNETES_SERVICE_PORT=$kube_port"
             "KUBERNETES_SERVICE_PORT_HTTPS=$kube_port"
             "KUBERNETES_PORT=tcp://127.0.0.1:$kube_port")
# The image's environment (tcib_envs).
pod_env+=(HOME=/var/lib/tempest USE_EXTERNAL_FILES=true "HOSTNAME=$cr_name"
          "${kubelet_env[@]}" "TMPDIR=/var/lib/tempest/.tmp")
mkdir -p "$pod/home/.tmp"

# -- the doctor's Job (etc/test-operator/doctor.yaml), run before the CR --
# NOTE: its folder lies outside /tmp, over which its pod gets a /tmp of
# its own, and holds this repository's HEAD where the Job's git URL
# points in it (the git URL of the CR, in the pod's view).
doctor=$VENVS/doctor
rm -rf "$doctor/tmp" "$doctor/conf" "$doctor/env"
mkdir -p "$doctor/tmp/repo" "$doctor/pip-cache" && git clone -q --bare \
    "$repo" "$doctor/tmp/repo/glance-multiapi-tests.git" &&
"$VENV/bin/python" tools/tcib_pod.py doctor \
    --manifest etc/test-operator/doctor.yaml --out-dir "$doctor" \
    --set REPOSITORY=/tmp/repo/glance-multiapi-tests.git \
    --set HOSTNAME=glance-multiapi-doctor-x7k2p \
    "${kubelet_env[@]/#/--set=}" > "$doctor/env" || {
    record fail doctor_manifest "cannot play etc/test-operator/doctor.yaml"
    finish; }

# NOTE: set but empty turns the pod's verdict gate off.
require=${TEST_OPERATOR_REQUIRE-$("$VENV/bin/python" tools/tcib_pod.py \
    groups --cr "$CR")}

# NOTE: what a disruptive run must put back (keystoneEndpoint, the APIs,
# the heat-engine Deployment), as the cloud holds it before the pod.
# NOTE: empty when it cannot be read, which fails deployment_as_before:
# two failed reads must never compare equal.
before=$("$VENV/bin/python" tools/tcib_pod.py deployment \
    --state-dir "$state") || before=""

# -- the pod -------------------------------------------------------------
# run_pod DIR PLUGIN_VENV CONSTRAINTS REQUIRE [DOCTOR [RERUN [CONF]]]: one
# pod (the doctor's Job first, with DOCTOR; with RERUN, only the tests
# that regex selects again, with CONF: under that tempest.conf, a path
# in the pod's view), its exit status in pod_rc.
run_pod() {
    local started=$SECONDS
    setsid unshare -m --propagation private -- env -i "${pod_env[@]}" \
        bash tools/test-operator-pod.sh "$1" "$ROOT/$VENV/bin/python" \
        "$ROOT/tools" "$2" "$3" "$4" "${5:-}" "${6:-}" "${7:-}" &
    pod_pid=$!
    wait "$pod_pid"
    pod_rc=$?
    pod_pid=""
    pod_seconds=$((SECONDS - started))
}
echo "test-operator: the pod starts (a private mount namespace; image" \
    "Python $("$PY" -V 2>&1 | cut -d' ' -f2))"
run_pod "$pod" "$plugin" "$pod_constraints" "$require" "$doctor"
echo "test-operator: the pod exited $pod_rc after $pod_seconds s (plugin" \
    "venv $([ "$new_plugin_venv" = 1 ] && echo new || echo reused))"
grep -q '^pip_install ok' "$pod/steps.txt" && stamp_venv "$plugin" "$key"
main_rc=$pod_rc

# -- results ---------------------------------------------------------------
while read -r step outcome reason; do
    if [ "$outcome" = ok ]; then
        record success "$step"
    else
        record fail "$step" "${reason:-see $NAME.log}"
    fi
done < "$pod/steps.txt"
logs=$pod/home/external_files/$cr_name
if [ "$(cat "$pod/results.rc" 2>/dev/null)" = 0 ] && \
        [ -s "$logs/tempest_results.subunit" ]; then
    cat "$logs/tempest_results.subunit" >> "$STREAM"
elif grep -q '^discover_tempest_config ok' "$pod/steps.txt"; then
    record fail tempest_run "tempest run left no results (exit" \
        "$(cat "$pod/tempest_run.rc" 2>/dev/null): $(grep . \
        "$pod/tempest-run.log" 2>/dev/null | tail -1); the pod exited" \
        "$main_rc)"
fi

# -- heat's states, judged by the CR's consolidated image tests ---------
# NOTE: the cloud put in each state of heat's images a real cluster is in
# (and a fault for each kind of drift: selftests/manifests/heat_states.py),
# the CR's consolidated image tests run again in the same pod (its
# tempest.conf, token and Role), each run judged: every healthy state
# passes, each broken one fails the test that looks at what it broke.
# Then the cloud is put back as it was. TEST_OPERATOR_HEAT_STATES=0: not.
if [ "${TEST_OPERATOR_HEAT_STATES:-1}" = 1 ] && \
        [ -s "$pod/home/openshift/etc/tempest.conf" ]; then
    mkdir -p "$OUT/heat-states"
    heat_regex=$("$VENV/bin/python" tools/tcib_pod.py heat-cases --regex)
    heat_conf=$pod/home/openshift/etc/heat-case.conf
    heat_started=$SECONDS
    while read -r heat_case heat_state heat_faults; do
        heat_args=(--clear-faults --heat-state "$heat_state")
        for heat_fault in $heat_faults; do
            heat_args+=(--fault "$heat_fault")
        done
        if ! "$VENV/bin/glance-multiapi-cloud" --state-dir "$state" patch \
                "${heat_args[@]}" > "$OUT/heat-states/$heat_case.patch.log" \
                2>&1; then
            record fail "heat_state.$heat_case" "glance-multiapi-cloud" \
                "patch ${heat_args[*]} failed: $(tail -1 \
                "$OUT/heat-states/$heat_case.patch.log")"
            continue
        fi
        rm -f "$pod/rerun.subunit" "$pod/rerun.log" "$heat_conf"
        # NOTE: the pod's tempest.conf, but where the case sets options
        # (selftests/manifests/heat_states.py: the stuck rollout's wait).
        heat_conf_in_pod=""
        if ! said=$("$VENV/bin/python" tools/tcib_pod.py heat-conf \
                --case "$heat_case" --out "$heat_conf" \
                --conf "$pod/home/openshift/etc/tempest.conf" 2>&1); then
            record fail "heat_state.$heat_case" "tools/tcib_pod.py" \
                "heat-conf failed: $said"
            continue
        fi
        [ "$said" = options ] && \
            heat_conf_in_pod=/var/lib/tempest/openshift/etc/heat-case.conf
        run_pod "$pod" "$plugin" "$pod_constraints" "" "" "$heat_regex" \
            "$heat_conf_in_pod"
        cp "$pod/rerun.subunit" "$OUT/heat-states/$heat_case.subunit" \
            2> /dev/null
        cp "$pod/rerun.log" "$OUT/heat-states/$heat_case.log" 2> /dev/null
        if heat_said=$("$VENV/bin/python" tools/tcib_pod.py heat-verdict \
                --case "$heat_case" "$pod/rerun.subunit" 2>&1); then
            record success "heat_state.$heat_case"
        else
            record fail "heat_state.$heat_case" "$heat_said"
        fi
        echo "test-operator: heat_state.$heat_case ($pod_seconds s):" \
            "$heat_said"
    done < <("$VENV/bin/python" tools/tcib_pod.py heat-cases)
    # NOTE: a copy of tempest.conf holds the admin password too.
    rm -f "$heat_conf"
    "$VENV/bin/glance-multiapi-cloud" --state-dir "$state" patch \
        --clear-faults --heat-state tcib > /dev/null ||
        record fail heat_state_restored "could not put heat back in state" \
            "tcib"
    echo "test-operator: heat's states judged in $((SECONDS - heat_started))" \
        "s (results in $OUT/heat-states)"
fi

# -- the pods of tcib's main branch (podified-master-*) ----------------
# NOTE: the same CR and cloud in the images built from tcib's main
# branch, whose run_tempest.sh installs under OpenStack master's pins:
# what a user of those images gets, beside what the default image gives.
# not_there NAME WHY: a pod whose Python is missing here.
not_there() {
    if [ "${REQUIRE_PYTHON_MATRIX:-0}" = 1 ]; then
        record fail "$1" "$2 (REQUIRE_PYTHON_MATRIX=1)"
    else
        record skip "$1" "$2"
    fi
}
# like_the_first DIR: the pod's inputs, as the first pod had them.
like_the_first() {
    local part
    for part in sa openstack etc-test_operator bundle.pem home/.tmp; do
        cp -rT "$pod/$part" "$1/$part"
    done
}
if [ "$MASTER_PODS" = 1 ] && [ -z "$PY312" ]; then
    not_there master_py312 "$no_py312"
elif [ -n "$PY312" ]; then
    like_the_first "$pod312"
    plugin312=$VENVS/plugin-master-python3.12
    key312=$(plugin_key "$PY312" "" "$MASTER_CONSTRAINTS")
    fresh_venv "$plugin312" "$key312"
    echo "test-operator: the pod of a tcib main-branch image starts" \
        "(Python $("$PY312" -V 2>&1 | cut -d' ' -f2), pip -c" \
        "$MASTER_CONSTRAINTS)"
    run_pod "$pod312" "$plugin312" "$master_constraints" ""
    echo "test-operator: that pod exited $pod_rc after $pod_seconds s"
    grep -q '^pip_install ok' "$pod312/steps.txt" &&
        stamp_venv "$plugin312" "$key312"
    while read -r step outcome reason; do
        if [ "$outcome" = ok ]; then
            record success "master_py312.$step"
        else
            record fail "master_py312.$step" "${reason:-see $NAME.log}"
        fi
    done < "$pod312/steps.txt"
    logs312=$pod312/home/external_files/$cr_name
    if [ "$(cat "$pod312/results.rc" 2>/dev/null)" = 0 ] && \
            [ -s "$logs312/tempest_results.subunit" ]; then
        "$VENV/bin/python" tools/tcib_pod.py prefix-stream \
            --prefix master_py312. "$logs312/tempest_results.subunit" \
            >> "$STREAM"
        # NOTE: every check that passed under master's pins on Python
        # 3.12 must pass in the default pod too.
        if same=$("$VENV/bin/python" tools/tcib_pod.py compare-pods \
                --default "$logs/tempest_results.subunit" \
                --other "$logs312/tempest_results.subunit" \
                --other-name "master_py312 (Python 3.12, master's pins)"); then
            record success same_checks_as_master
        else
            record fail same_checks_as_master "$same"
        fi
        echo "test-operator: same_checks_as_master: $same"
    else
        record fail master_py312.tempest_run "that pod left no results" \
            "(exit $pod_rc; see $NAME.log)"
    fi
fi
if [ "$MASTER_PODS" = 1 ] && [ -z "$PY39M" ]; then
    not_there master_python39_pod "$no_py39m"
elif [ -n "$PY39M" ]; then
    like_the_first "$pod39"
    echo "test-operator: the pod of podified-master-centos9 starts (Python" \
        "$("$PY39M" -V 2>&1 | cut -d' ' -f2), pip $CS9_PIP, a fresh" \
        "plugin venv)"
    mkdir -p "$work/plugin-master-python39"
    run_pod "$pod39" "$work/plugin-master-python39" "$master_constraints" ""
    { read -r verdict; read -r why; } < <("$VENV/bin/python" \
        tools/tcib_pod.py python39-verdict --pod-dir "$pod39" \
        --pod-rc "$pod_rc" --constraints "$MASTER_CONSTRAINTS")
    echo "test-operator: that pod exited $pod_rc after $pod_seconds s;" \
        "master_python39_pod: ${verdict:-fail}"
    record "${verdict:-fail}" master_python39_pod \
        "${why:-no verdict (see the log)}"
    # NOTE: not its tempest.conf nor discover-tempest-config's log, which
    # hold the admin password; what it says of itself is in these.
    mkdir -p "$OUT/master-python39"
    for file in steps.txt pip.log tempest-run.log; do
        [ -e "$pod39/$file" ] && grep -v '^WARNING: Location ' \
            "$pod39/$file" > "$OUT/master-python39/$file"
    done
fi
# NOTE: as it was before the pod; a restart's rollout may still be
# finishing, so it is given a minute.
after=""
for _ in $(seq 60); do
    after=$("$VENV/bin/python" tools/tcib_pod.py deployment \
        --state-dir "$state") || after=""
    [ "$after" = "$before" ] && break
    sleep 1
done
if [ -z "$before" ]; then
    record fail deployment_as_before "could not read the deployment" \
        "before the pod (tools/tcib_pod.py deployment failed; see above)"
elif [ "$after" = "$before" ]; then
    record success deployment_as_before
else
    record fail deployment_as_before "before the pod: $before; after: $after"
fi
# NOTE: the pod's identity is its token's account: no request of the
# run may have been refused (which grants it used depends on the CR's
# options, so none is required here; the main job checks that).
allow=()
while read -r grant; do
    allow+=(--allow-unused "$grant")
done < <("$VENV/bin/python" - "$account" "${ROLES[@]}" <<'EOF'
import sys
from selftests.manifests import rbac
docs = [d for path in sys.argv[2:] for d in rbac.load_documents(path)]
for grant in rbac.account_grants(docs, sys.argv[1]):
    print('%s:%s%s' % (grant.verb, grant.resource,
                       '/' + grant.name if grant.name else ''))
EOF
)
if role_out=$("$VENV/bin/python" tools/check_role_usage.py \
        "${role_args[@]}" --service-account "$account" \
        "${allow[@]}" "$state" 2>&1); then
    record success no_request_refused
else
    record fail no_request_refused "$role_out"
fi
echo "$role_out" | tail -1 | sed 's/^/test-operator: /'
# NOTE: a pod that failed before its first step (or after its last)
# counts as a failure too.
read -r _ _ failed_so_far _ <<<"$("$VENV/bin/python" \
    tools/subunit_summary.py "$STREAM" | tail -1)"
if [ "$main_rc" != 0 ] && [ "${failed_so_far:-0}" = 0 ]; then
    record fail pod "the pod exited $main_rc (see $NAME.log)"
fi
[ -d "$logs" ] && cp -r "$logs" "$OUT/logs-volume"
[ -e "$pod/report.txt" ] && cp "$pod/report.txt" "$OUT/report.txt"
[ -e "$pod/doctor.log" ] && cp "$pod/doctor.log" "$OUT/doctor.log"
[ -e "$pod/discover.log" ] && cp "$pod/discover.log" \
    "$OUT/discover-tempest-config.log"
conf=$(ls "$OUT"/logs-volume/etc/tempest.conf 2>/dev/null)
[ -n "$conf" ] && "$VENV/bin/python" tools/collect_artifacts.py \
    --state-dir "$state" --mask "$conf" \
    $([ -e "$OUT/discover-tempest-config.log" ] && echo \
        --mask "$OUT/discover-tempest-config.log") > /dev/null
finish
