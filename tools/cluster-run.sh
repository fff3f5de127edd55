#!/bin/bash
# Run the plugin on a cluster through test-operator, as cluster.rst says
# by hand, and leave its results in one folder: for a Prow job (the test
# glance-operator's configuration adds, etc/prow/glance-operator-test.yaml
# in doc/source/prow.rst) or an admin's re-run.
# With "oc" logged in to the cluster, in namespace $CLUSTER_NAMESPACE
# (default openstack, where the control plane is):
#  1. applies etc/test-operator/rbac.yaml (and rbac-disruptive.yaml when
#     the CR mounts that account's token);
#  2. deletes an earlier Tempest CR of the same name (its pod and logs PVC
#     go with it), then applies $CR (default the gate CR,
#     tempest-glance-multiapi.yaml) with metadata.name $CR_NAME,
#     spec.containerImage $TEMPEST_IMAGE (when set) and externalPlugin
#     $PLUGIN_REPOSITORY (+ $PLUGIN_REFSPEC as changeRepository/
#     changeRefspec); in a Prow job of this project they default to the
#     pull request under test (Prow's REPO_OWNER, REPO_NAME, PULL_NUMBER),
#     and another project's job (REPO_NAME another) must set them;
#  3. waits for the test pod (named after the CR) to end, at most
#     $TIMEOUT seconds (3600);
#  4. copies the pod's folder off test-operator's logs volume with
#     etc/test-operator/results-reader.yaml, run with the image the test
#     pod ran, into $OUT (default $ARTIFACT_DIR, else ./cluster-results);
#  5. judges it: glance-multiapi-report --require $REQUIRED_GROUPS
#     (default multiapi) on tempest_results.subunit, and builds the
#     deployment map there from the plugin's records and that stream
#     (--baseline $BASELINE when set: a figure that
#     regressed fails too, unless FAIL_ON_REGRESSION=0); the JUnit report
#     goes to $OUT/junit_tempest.xml, where Prow's Spyglass looks;
#  6. deletes the CR (pod and PVC), unless KEEP_CR=1.
# Exit status: 0 green; 1 a test failed, a required group did not run or a
# figure regressed; 2 bad settings; 3 the pod did not end in time or its
# results could not be copied. Needs oc and the glance-multiapi-report of
# this project ($REPORT, default the one on PATH).
set -uo pipefail
cd "$(dirname "$0")/.."
NS=${CLUSTER_NAMESPACE:-openstack}
CR=${CR:-etc/test-operator/tempest-glance-multiapi.yaml}
REQUIRED=${REQUIRED_GROUPS-multiapi}
TIMEOUT=${TIMEOUT:-3600}
POLL=${POLL_INTERVAL:-10}
OUT=${OUT:-${ARTIFACT_DIR:-./cluster-results}}
REPORT=${REPORT:-glance-multiapi-report}
PYTHON=${PYTHON:-python3}
say() { echo "cluster-run: $*"; }

[ -r "$CR" ] || { say "cannot read CR $CR"; exit 2; }
case $TIMEOUT$POLL in *[!0-9]*) say "TIMEOUT and POLL_INTERVAL are" \
    "seconds"; exit 2 ;; esac
# NOTE: Prow exports the repository and pull request under test
# (REPO_OWNER, REPO_NAME, PULL_NUMBER, PULL_PULL_SHA). They name the
# plugin only in this project's own jobs; in another project's job
# (glance-operator's) they name that project, so PLUGIN_REPOSITORY must
# be given there.
if [ -z "${PLUGIN_REPOSITORY:-}" ] && [ -n "${REPO_NAME:-}" ]; then
    if [ "$REPO_NAME" != glance-multiapi-tests ]; then
        say "this job tests ${REPO_OWNER:-?}/$REPO_NAME, not the plugin:" \
            "set PLUGIN_REPOSITORY (the git URL the pod installs the" \
            "plugin from)"
        exit 2
    fi
    PLUGIN_REPOSITORY=https://github.com/${REPO_OWNER:-openstack-k8s-operators}/$REPO_NAME
    if [ -n "${PULL_NUMBER:-}" ]; then
        PLUGIN_REFSPEC=${PLUGIN_REFSPEC:-refs/pull/$PULL_NUMBER/head}
    fi
fi
[ -n "${PLUGIN_REPOSITORY:-}" ] || { say "set PLUGIN_REPOSITORY (the" \
    "git URL the pod installs the plugin from)"; exit 2; }
export PLUGIN_REPOSITORY PLUGIN_REFSPEC=${PLUGIN_REFSPEC:-} \
    CR_NAME=${CR_NAME:-} TEMPEST_IMAGE=${TEMPEST_IMAGE:-}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 2
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT

# -- the CR as applied ----------------------------------------------------
read -r name disruptive < <("$PYTHON" - "$CR" "$work/cr.yaml" <<'EOF'
import os
import sys

import yaml

with open(sys.argv[1]) as f:
    cr = yaml.safe_load(f)
env = os.environ
cr['metadata']['name'] = env.get('CR_NAME') or cr['metadata']['name']
spec = cr['spec']
if env.get('TEMPEST_IMAGE'):
    spec['containerImage'] = env['TEMPEST_IMAGE']
plugin = {'repository': env['PLUGIN_REPOSITORY']}
if env.get('PLUGIN_REFSPEC'):
    plugin.update(changeRepository=env['PLUGIN_REPOSITORY'],
                  changeRefspec=env['PLUGIN_REFSPEC'])
spec['tempestRun']['externalPlugin'] = [plugin]
with open(sys.argv[2], 'w') as f:
    yaml.safe_dump(cr, f, sort_keys=False)
print(cr['metadata']['name'],
      int('glance-multiapi-tests-disruptive-token' in yaml.safe_dump(cr)))
EOF
) || { say "cannot render $CR"; exit 2; }
cp "$work/cr.yaml" "$OUT/tempest-cr.yaml"

# -- apply ----------------------------------------------------------------
roles=(etc/test-operator/rbac.yaml)
[ "$disruptive" = 1 ] && roles+=(etc/test-operator/rbac-disruptive.yaml)
for role in "${roles[@]}"; do
    oc apply -n "$NS" -f "$role" || { say "cannot apply $role"; exit 2; }
done
# NOTE: a re-run: test-operator does not rerun an ended CR; deleting it
# takes its pod and its logs PVC.
oc delete tempest -n "$NS" "$name" --ignore-not-found --wait=true
oc apply -n "$NS" -f "$work/cr.yaml" || { say "cannot apply the CR"; exit 2; }
say "Tempest CR $name applied in $NS; plugin from $PLUGIN_REPOSITORY" \
    "${PLUGIN_REFSPEC:-(default branch)}${PULL_PULL_SHA:+ (head $PULL_PULL_SHA)}"

# -- wait for the pod (named after the CR: no workflow) ---------------------
phase=""
deadline=$((SECONDS + TIMEOUT))
while [ "$SECONDS" -lt "$deadline" ]; do
    phase=$(oc get pod -n "$NS" "$name" -o jsonpath='{.status.phase}' \
        2>/dev/null)
    case $phase in Succeeded|Failed) break ;; esac
    sleep "$POLL"
done
case $phase in
    Succeeded|Failed) say "pod $name ended $phase" ;;
    *) say "pod $name did not end within $TIMEOUT s (last phase:" \
           "${phase:-none}); the CR is kept"
       exit 3 ;;
esac

# -- copy the results off the logs volume ---------------------------------
pvc=$(oc get pvc -n "$NS" -l "instanceName=$name,operator=test-operator" \
    -o jsonpath='{.items[0].metadata.name}')
image=$(oc get pod -n "$NS" "$name" -o jsonpath='{.spec.containers[0].image}')
[ -n "$pvc" ] && [ -n "$image" ] || { say "no logs PVC or image of $name";
                                     exit 3; }
sed -e "s|LOGS_PVC|$pvc|" -e "s|READER_IMAGE|$image|" \
    etc/test-operator/results-reader.yaml > "$work/reader.yaml"
oc delete pod -n "$NS" glance-multiapi-results --ignore-not-found --wait=true
copied=0
if oc apply -n "$NS" -f "$work/reader.yaml" &&
        oc wait -n "$NS" --for=condition=Ready pod/glance-multiapi-results \
            --timeout=300s &&
        oc cp -n "$NS" "glance-multiapi-results:/results/$name" "$OUT/$name"
then
    copied=1
fi
oc delete pod -n "$NS" glance-multiapi-results --ignore-not-found --wait=false
[ "$copied" = 1 ] || { say "could not copy the results of $name"; exit 3; }

# -- the verdict ------------------------------------------------------------
rc=0
"$REPORT" --require "$REQUIRED" "$OUT/$name/tempest_results.subunit" || rc=1
baseline_args=()
if [ -n "${BASELINE:-}" ]; then
    baseline_args=(--baseline "$BASELINE")
    [ "${FAIL_ON_REGRESSION:-1}" != 0 ] && \
        baseline_args+=(--fail-on-regression)
fi
"$REPORT" "$OUT/$name" "${baseline_args[@]}"
case $? in
    0) ;;
    3) rc=1 ;;
    *) say "the deployment map of $name could not be built" ;;
esac
[ -s "$OUT/$name/tempest_results.xml" ] && \
    cp "$OUT/$name/tempest_results.xml" "$OUT/junit_tempest.xml"

if [ "${KEEP_CR:-0}" != 1 ]; then
    oc delete tempest -n "$NS" "$name" --ignore-not-found --wait=false
fi
say "results in $OUT/$name (deployment-map.html, tempest_results.html)"
exit $rc
