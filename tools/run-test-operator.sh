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
# What the pod gets, as test-operator d0ef1c34 and tcib 4b51b359 give it
# (tools/tcib_pod.py, selftests/manifests/tcib_pod.py):
#  - the environment test-operator makes of the CR, and nothing of this
#    machine's ("env -i"); HOME /var/lib/tempest without ~/.kube, no
#    KUBECONFIG; KUBERNETES_SERVICE_HOST/PORT of the cloud's Kubernetes
#    API; the token, ca.crt and namespace of rbac.yaml's ServiceAccount at
#    /var/run/secrets/kubernetes.io/serviceaccount (of the token Secret
#    the CR mounts, in the stage's namespace); clouds.yaml (cloud
#    "default", no cacert) and secure.yaml as keystone-operator writes
#    them; the cloud's CA only in the system trust bundle;
#  - the plugin installed as run_tempest.sh installs an externalPlugin:
#    "python3 -m venv" of Python 3.9 (CentOS Stream 9's), "git clone" of
#    this repository's committed HEAD (uncommitted changes are not in it),
#    "pip install ./glance-multiapi-tests" with no pins at all;
#  - the image's own discover-tempest-config: python-tempestconf from PyPI
#    in a Python 3.9 venv of its own with its own tempest, run with the
#    arguments run_tempest.sh builds from the CR; then "tempest run" with
#    the CR's include and exclude lists and concurrency.
# All of it in a private mount namespace (unshare -m) with overlays on
# /etc, /run and /var/lib: the machine's own paths are never changed.
# Needs root, unshare, and Python 3.9 (pyenv or PATH); without Python 3.9
# the stage is SKIPPED (REQUIRE_PYTHON_MATRIX=1: FAILED).
#
# Results (${RESULTS:-results}): test-operator.subunit (each step and
# each test), and test-operator/ with tempest.conf as discover-tempest-
# config wrote it, its log and what the pod's logs volume holds.
# Ends with "N passed, N failed, N skipped".
# After the pod, the plugin's own verdict gate as a cluster admin runs it:
# the glance-multiapi-report console script of the venv the pod pip-
# installed, with --require $TEST_OPERATOR_REQUIRE (default: every group
# the CR turns on).
# Environment: TEST_OPERATOR_CR (another CR), TEST_OPERATOR_NAMESPACE,
# TEST_OPERATOR_NAME (the stage's name in results, default test-operator),
# TEST_OPERATOR_REQUIRE, TEST_OPERATOR_FRESH=1 (make
# the venvs anew), TEST_OPERATOR_VENV_MAX_AGE (hours a venv is reused,
# default 24; 0 never), KEEP_STATE=1 (keep the work folder).
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
TCIB_COMMIT=4b51b3593706bc8c4457a0a05228e9971fae8ecf
started=$SECONDS
rm -rf "$OUT" "$STREAM" && mkdir -p "$OUT"
echo "test-operator: following tcib $TCIB_COMMIT" \
    "container-images/tcib/base/os/tempest/run_tempest.sh and" \
    "test-operator d0ef1c343d8cca281f2ab538da610a286e15edeb; CR $CR in" \
    "namespace $NAMESPACE"

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

# find_python VERSION: the newest interpreter of VERSION, or nothing.
find_python() {
    local version=$1 root="" found=""
    root=$(pyenv root 2>/dev/null) || root=${PYENV_ROOT:-$HOME/.pyenv}
    if [ -d "$root/versions" ]; then
        found=$(ls -d "$root/versions/$version".*/bin/"python$version" \
            2>/dev/null | sort -V | tail -1)
    fi
    [ -z "$found" ] && found=$(command -v "python$version" 2>/dev/null)
    # NOTE: a pyenv shim exists for versions that are not installed.
    if [ -n "$found" ] && "$found" -c "import sys
sys.exit(sys.version_info[:2] != tuple(map(int, '$version'.split('.'))))" \
            2>/dev/null; then
        readlink -f "$found"
    fi
}
PY39=$(find_python 3.9)
if [ -z "$PY39" ]; then
    why="no Python 3.9 interpreter (the python3 of test-operator's default"
    why+=" image, CentOS Stream 9); looked in \$(pyenv root)/versions/3.9.*"
    why+="/bin and PATH; install one, e.g. 'pyenv install 3.9'"
    if [ "${REQUIRE_PYTHON_MATRIX:-0}" = 1 ]; then
        record fail python39 "$why (REQUIRE_PYTHON_MATRIX=1)"
        finish
    fi
    skip "$why"
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

# fresh_venv DIR KEY: true (and DIR emptied) when DIR must be made anew:
# no stamp of KEY, older than MAX_AGE hours, or TEST_OPERATOR_FRESH=1.
fresh_venv() {
    local dir=$1 stamp=$1/.stamp-$(printf '%s' "$2" | sha1sum | cut -c1-12)
    if [ "${TEST_OPERATOR_FRESH:-0}" != 1 ] && [ -e "$stamp" ] && \
            [ "$MAX_AGE" != 0 ] && \
            [ -n "$(find "$stamp" -mmin -$((MAX_AGE * 60)))" ]; then
        echo "test-operator: $dir reused (made $(date -r "$stamp" \
            '+%F %T'); TEST_OPERATOR_FRESH=1 makes it anew)"
        return 1
    fi
    rm -rf "$dir" && mkdir -p "$dir"
    return 0
}
stamp_venv() {
    touch "$1/.stamp-$(printf '%s' "$2" | sha1sum | cut -c1-12)"
}

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
pod=$work/pod
mkdir -p "$pod"/{home,sa,openstack,etc-test_operator,image-bin,tmp}
: > "$pod/steps.txt"

# -- the image: python3.9 and python-tempestconf (its own tempest) ------
image=$VENVS/image
# NOTE: junitxml stands for python3-junitxml, which the image's
# subunit-filters (subunit2junitxml) needs (tcib tempest.yaml packages).
image_packages=(python-tempestconf junitxml)
key="$("$PY39" -VV) ${image_packages[*]}"
if fresh_venv "$image" "$key"; then
    echo "test-operator: making the image stand-in $image (newest" \
        "${image_packages[*]} for $("$PY39" -V 2>&1))"
    if "$PY39" -m venv "$image" && "$image/bin/pip" install -q \
            "${image_packages[@]}" 2>&1 | grep -v '^WARNING: Location '; \
            [ "${PIPESTATUS[0]}" = 0 ]; then
        stamp_venv "$image" "$key"
    else
        record fail image_stand_in "could not install python-tempestconf"
        finish
    fi
fi
echo "test-operator: image stand-in (discover-tempest-config):"
"$image/bin/pip" freeze 2>/dev/null | grep -iE \
    '^(python-tempestconf|tempest|openstacksdk|requests|urllib3)==' \
    | sed 's/^/    /'
ln -s "$PY39" "$pod/image-bin/python3"
ln -s "$PY39" "$pod/image-bin/python3.9"
for cmd in discover-tempest-config tempest stestr subunit2junitxml \
        subunit2html; do
    [ -x "$image/bin/$cmd" ] && ln -s "$image/bin/$cmd" "$pod/image-bin/"
done
qemu-img create -q -f qcow2 "$pod/home/tempestconf-image.qcow2" 1M

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
plugin=$VENVS/plugin
key="$("$PY39" -VV) $(git show "$head:requirements.txt" \
    "$head:setup.cfg" | sha1sum)"
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
"$VENV/bin/glance-multiapi-cloud" --state-dir "$state" up --tls \
    --with-heat --kube-namespace "$NAMESPACE" \
    "${kube_role_args[@]}" \
    --kube-service-account "$account" | tail -2
[ "${PIPESTATUS[0]}" = 0 ] || { record fail cloud_up "the cloud did not" \
    "come up (see above)"; finish; }

# -- what the pod is given -----------------------------------------------
# NOTE: the pod is named after the CR, and the API server knows it: the
# disruptive scenarios watch their own Pod (common/own_pod.py).
cr_name=$("$VENV/bin/python" -c 'import sys, yaml
print(yaml.safe_load(open(sys.argv[1]))["metadata"]["name"])' "$CR")
"$VENV/bin/python" - "$state" "$NAMESPACE" "$cr_name" <<'EOF' || {
import sys
from glance_multiapi_tests.localcloud import kubepods
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
# The image's environment (tcib_envs) and what kubelet adds to every pod.
pod_env+=(HOME=/var/lib/tempest USE_EXTERNAL_FILES=true LANG=C.UTF-8
          PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
          "HOSTNAME=$cr_name"
          KUBERNETES_SERVICE_HOST=127.0.0.1
          "KUBERNETES_SERVICE_PORT=$kube_port"
          "KUBERNETES_SERVICE_PORT_HTTPS=$kube_port"
          "KUBERNETES_PORT=tcp://127.0.0.1:$kube_port"
          "TMPDIR=/var/lib/tempest/.tmp")
mkdir -p "$pod/home/.tmp"

# NOTE: set but empty turns the pod's verdict gate off.
require=${TEST_OPERATOR_REQUIRE-$("$VENV/bin/python" tools/tcib_pod.py \
    groups --cr "$CR")}

# NOTE: what a disruptive run must put back (keystoneEndpoint, the APIs,
# the heat-engine Deployment), as the cloud holds it before the pod.
before=$("$VENV/bin/python" tools/tcib_pod.py deployment --state-dir "$state")

# -- the pod -------------------------------------------------------------
echo "test-operator: the pod starts (a private mount namespace)"
pod_started=$SECONDS
setsid unshare -m --propagation private -- env -i "${pod_env[@]}" \
    bash tools/test-operator-pod.sh "$pod" "$ROOT/$VENV/bin/python" \
    "$ROOT/tools" "$plugin" "$require" &
pod_pid=$!
wait "$pod_pid"
pod_rc=$?
pod_pid=""
echo "test-operator: the pod exited $pod_rc after $((SECONDS - pod_started))" \
    "s (plugin venv $([ "$new_plugin_venv" = 1 ] && echo new || echo \
    reused))"
grep -q '^pip_install ok' "$pod/steps.txt" && stamp_venv "$plugin" "$key"

# -- results ---------------------------------------------------------------
while read -r step outcome reason; do
    if [ "$outcome" = ok ]; then
        record success "$step"
    else
        record fail "$step" "${reason:-see $NAME.log}"
    fi
done < "$pod/steps.txt"
logs=$pod/home/external_files/$cr_name
if [ -s "$logs/tempest_results.subunit" ]; then
    cat "$logs/tempest_results.subunit" >> "$STREAM"
elif grep -q '^discover_tempest_config ok' "$pod/steps.txt"; then
    record fail tempest_run "tempest run left no results (exit $pod_rc)"
fi
# NOTE: as it was before the pod; a restart's rollout may still be
# finishing, so it is given a minute.
after=""
for _ in $(seq 60); do
    after=$("$VENV/bin/python" tools/tcib_pod.py deployment \
        --state-dir "$state")
    [ "$after" = "$before" ] && break
    sleep 1
done
if [ "$after" = "$before" ]; then
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
from glance_multiapi_tests.selftests.manifests import rbac
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
if [ "$pod_rc" != 0 ] && [ "${failed_so_far:-0}" = 0 ]; then
    record fail pod "the pod exited $pod_rc (see $NAME.log)"
fi
[ -d "$logs" ] && cp -r "$logs" "$OUT/logs-volume"
[ -e "$pod/report.txt" ] && cp "$pod/report.txt" "$OUT/report.txt"
[ -e "$pod/discover.log" ] && cp "$pod/discover.log" \
    "$OUT/discover-tempest-config.log"
conf=$(ls "$OUT"/logs-volume/etc/tempest.conf 2>/dev/null)
[ -n "$conf" ] && "$VENV/bin/python" tools/collect_artifacts.py \
    --state-dir "$state" --mask "$conf" \
    $([ -e "$OUT/discover-tempest-config.log" ] && echo \
        --mask "$OUT/discover-tempest-config.log") > /dev/null
finish
