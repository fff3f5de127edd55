#!/bin/bash
# The main job, from a fresh machine: install what is needed, bring up the
# embedded cloud (real keystone, N glance APIs, OCI registry, file server),
# run the whole glance_multiapi_tests tempest suite against it, print the
# results, tear the cloud down. Ends with "N passed, N failed, N skipped".
# The cloud runs heat too, so the consolidated heat checks run as well.
# The plugin reaches the deployment through the cloud's Kubernetes API,
# authorised against the Role shipped for clusters
# (etc/test-operator/rbac.yaml); after tempest, tools/check_role_usage.py
# shows that no request was refused and that every grant was used, and
# counts as one more check in the summary (its failure fails the job).
# Environment: CONCURRENCY (2), SPEC (a cloud spec file), WITH_HEAT=0
# (no heat; its checks skip), KEEP_STATE=1 keeps the cloud's folder (logs,
# tempest.log, kubeapi-audit.log) for a look afterwards.
set -uo pipefail
. "$(dirname "$0")/cloud-cleanup.sh" || exit 1
cd "$(dirname "$0")/.."
tools/setup-env.sh || exit $?
VENV=${VENV:-.venv}
RESULTS=${RESULTS:-results}
mkdir -p "$RESULTS"
RESULTS=$(cd "$RESULTS" && pwd)
cloud_workdir suite

ROLE=etc/test-operator/rbac.yaml
# NOTE: the suite names neither the Glance nor the OpenStackVersion, so
# the plugin lists them; the Role's "get" of each serves configurations
# that name them. Without heat nothing reads the OpenStackVersion or the
# heat Deployments.
allow_unused=(--allow-unused get:glances
              --allow-unused get:openstackversions)
spec_args=(--kube-role "$ROLE")
[ -n "${SPEC:-}" ] && spec_args+=(--spec "$SPEC")
if [ "${WITH_HEAT:-1}" != 0 ]; then
    spec_args+=(--with-heat)
else
    allow_unused+=(--allow-unused list:openstackversions
                   --allow-unused get:deployments)
fi
"$VENV/bin/glance-multiapi-cloud" --state-dir "$state" up "${spec_args[@]}" \
    || exit $?
tempest=$(cd "$VENV/bin" && pwd)/tempest
(cd "$state/tempest" && "$tempest" run --regex '^glance_multiapi_tests\.' \
    --concurrency "${CONCURRENCY:-2}")
rc=$?
(cd "$state/tempest" && "$(dirname "$tempest")/stestr" last --subunit \
    > "$RESULTS/suite.subunit")

echo "== Kubernetes API requests against $ROLE"
role_ok=1
if ! "$VENV/bin/python" tools/check_role_usage.py --role "$ROLE" \
        "${allow_unused[@]}" "$state"; then
    role_ok=0
fi

summary=$("$VENV/bin/python" tools/subunit_summary.py --list-failures \
    "$RESULTS/suite.subunit")
echo "$summary" | sed '$d'
read -r passed _ failed _ skipped _ <<<"$(echo "$summary" | tail -n 1)"
passed=${passed:-0}; failed=${failed:-0}; skipped=${skipped:-0}
if [ "$role_ok" = 1 ]; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
    echo "FAILED: role usage: the run's Kubernetes API requests and" \
        "$ROLE disagree (see the lines above)"
    [ "$rc" = 0 ] && rc=1
fi
echo "$passed passed, $failed failed, $skipped skipped"
exit $rc
