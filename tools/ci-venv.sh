#!/bin/bash
# Make (or reuse) the small venv of a CI system's own tools and print its
# path: the lint stage and the tests that run those tools call it.
#   zuul   .venv-zuul, tools/constraints/zuul.txt: Zuul's own parser
#          (zuul.configloader) and the ansible-core its executor runs job
#          playbooks with, for tools/check_zuul_tenant.py and Zuul's
#          zuul_return on the post-run playbooks;
#   cifmw  .venv-cifmw, tools/constraints/cifmw-ansible.txt: the
#          ansible-core the ci-framework runs its hooks with;
#   report .venv-cifmw-report, requirements.txt under the constraints the
#          post_tests hook (playbooks/podified/post-tests.yaml) picks for
#          this python3: the venv that hook installs this checkout's
#          glance-multiapi-report into, its dependencies already there,
#          for the test that runs the whole hook (the hook's own pip task
#          still installs the checkout).
# Usage: tools/ci-venv.sh zuul|cifmw|report. The venv is made again only
# when its pins (and requirements) or the interpreter change
# (tools/venv-stamp.sh); a lock makes a second caller wait for the first
# (the lint stage and the unit tests may ask at once), at most
# CI_VENV_LOCK_TIMEOUT seconds (900). Messages go to stderr, the path
# alone to stdout. Exit status: 0 made or reused, 1 cannot make it, 2
# usage. Environment: CI_VENV_PYTHON (python3).
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/venv-stamp.sh || exit 1
PYTHON=${CI_VENV_PYTHON:-python3}
pinned=()
case ${1:-} in
    zuul) venv=.venv-zuul; constraints=tools/constraints/zuul.txt
          packages=(zuul ansible-core) ;;
    cifmw) venv=.venv-cifmw; constraints=tools/constraints/cifmw-ansible.txt
           packages=(ansible-core) ;;
    report) venv=.venv-cifmw-report; constraints=upper-constraints.txt
            # NOTE: the hook's gmt_constraints: upper-constraints.txt
            # needs Python 3.10 or later.
            "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' ||
                constraints=tools/constraints/py39.txt
            packages=(-r requirements.txt); pinned=(requirements.txt) ;;
    *) echo "usage: tools/ci-venv.sh zuul|cifmw|report" >&2; exit 2 ;;
esac
key=$(stamp_key "$PYTHON" "$constraints" "${pinned[@]}")
(
    # NOTE: flock waits on the lock without polling; its -w bounds it.
    flock -w "${CI_VENV_LOCK_TIMEOUT:-900}" 9 || {
        echo "ci-venv: $venv is being made by another process for too" \
            "long" >&2
        exit 1
    }
    stamped_venv "$venv" "$PYTHON" "$constraints" "$key" \
        "${packages[@]}" >&2 || {
        echo "ci-venv: cannot make $venv from $constraints" >&2
        exit 1
    }
) 9> "$(pwd)/$venv.lock" || exit 1
echo "$(pwd)/$venv"
