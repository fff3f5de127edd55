#!/bin/bash
# Install this checkout's glance-multiapi-report into a venv of its own,
# with the project's constraints: upper-constraints.txt, or
# tools/constraints/py39.txt when python3 is older than 3.10 (the pins
# of the podified post_tests hook, playbooks/podified/post-tests.yaml).
# For a job step that has this checkout but not the report (the Prow
# stanza of another project, etc/prow/glance-operator-test.yaml).
# Usage: tools/install-report.sh VENV; prints VENV/bin/glance-multiapi-report.
# Exit status: 0 installed, 1 the venv or the install failed, 2 usage.
set -uo pipefail
[ $# -eq 1 ] || { echo "usage: tools/install-report.sh VENV" >&2; exit 2; }
venv=$1
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    constraints=upper-constraints.txt
else
    constraints=tools/constraints/py39.txt
fi
"$PYTHON" -m venv "$venv" || exit 1
"$venv/bin/pip" install -q -c "$constraints" . >&2 || {
    echo "install-report: cannot install glance-multiapi-report with" \
        "$constraints" >&2
    exit 1
}
echo "$venv/bin/glance-multiapi-report"
