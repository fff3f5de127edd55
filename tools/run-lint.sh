#!/bin/bash
# The lint stage: flake8 (with hacking) and check-uuid over the Python,
# zuulcilint and tools/check_zuul_jobs.py over zuul.d/, Zuul's own parser
# over the pasted job in its tenant (tools/check_zuul_tenant.py, from
# .venv-zuul: tools/ci-venv.sh, which also makes .venv-cifmw for the
# tests that run the ci-framework's hooks), ansible-lint over
# playbooks/ and yamllint over every YAML file of the repository
# (settings in .yamllint). The linters live in a venv of their own,
# LINT_VENV (.venv-lint), pinned by tools/constraints/lint.txt and made
# again only when those pins or the interpreter change. check-uuid and check_zuul_jobs.py import the
# plugin, so they run from the project's venv, VENV (.venv, made by
# tools/setup-env.sh).
# Then it builds the documentation (doc/source) and the release notes
# (releasenotes/) with sphinx-build -W, every warning an error, from a
# third venv, DOCS_VENV (.venv-docs), pinned by tools/constraints/docs.txt
# beside upper-constraints.txt: the docs import the plugin (its options,
# its parsers), so it holds the plugin's requirements and the plugin
# (editable). It too is made again only when what went into it changes.
# Prints one line per tool, "lint: TOOL: ok" or "lint: TOOL: FAILED",
# after that tool's own output; exits 1 when any failed (the docs lines
# fail too when their venv cannot be made), 2 when the lint venv cannot
# be made. Environment: LINT_PYTHON (python3).
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/venv-stamp.sh || exit 2
VENV=${VENV:-.venv}
LINT_VENV=${LINT_VENV:-.venv-lint}
PYTHON=${LINT_PYTHON:-python3}
CONSTRAINTS=tools/constraints/lint.txt
TOOLS=(flake8 hacking zuulcilint ansible-lint yamllint)

key=$(stamp_key "$PYTHON" "$CONSTRAINTS")
if ! stamped_venv "$LINT_VENV" "$PYTHON" "$CONSTRAINTS" "$key" \
        "${TOOLS[@]}"; then
    echo "lint: FAILED: cannot make $LINT_VENV from $CONSTRAINTS"
    exit 2
fi
bin=$LINT_VENV/bin

failed=0
# lint TOOL COMMAND...: run one linter and print its verdict.
lint() {
    local tool=$1
    shift
    if "$@"; then
        echo "lint: $tool: ok"
    else
        echo "lint: $tool: FAILED"
        failed=1
    fi
}

lint flake8 "$bin/flake8"
if [ -x "$VENV/bin/check-uuid" ]; then
    lint check-uuid "$VENV/bin/check-uuid" \
        --package glance_multiapi_tests.tests
else
    echo "check-uuid: $VENV/bin/check-uuid missing; run tools/setup-env.sh"
    echo "lint: check-uuid: FAILED"
    failed=1
fi
# NOTE: the nodesets and parent jobs come from the Zuul tenant, not from
# this repository, so zuulcilint warns that it cannot find them; the
# warnings are printed, only errors fail.
lint zuulcilint "$bin/zuulcilint" --check-playbook-paths zuul.d/
# What zuulcilint cannot resolve: the ci-framework's jobs, variables and
# hooks (etc/zuul/ci-framework-facts.txt) and the Tempest CR the podified
# jobs make. It reads the plugin's options, so it runs from VENV.
lint zuul-jobs "$VENV/bin/python" tools/check_zuul_jobs.py
# NOTE: Zuul itself loads etc/zuul/tenant.yaml with the paste and zuul.d/.
if zuul_venv=$(tools/ci-venv.sh zuul); then
    lint zuul-tenant "$zuul_venv/bin/python" tools/check_zuul_tenant.py
else
    echo "lint: zuul-tenant: FAILED"
    failed=1
fi
tools/ci-venv.sh cifmw >/dev/null || { echo "lint: cifmw-venv: FAILED";
                                        failed=1; }
# NOTE: ansible-lint's PATH check complains when the venv's bin is not on
# PATH; ansible-lint runs ansible-playbook --syntax-check from there.
lint ansible-lint env PATH="$(cd "$bin" && pwd):$PATH" ANSIBLE_NOCOLOR=1 \
    "$bin/ansible-lint" --offline --nocolor playbooks/
lint yamllint "$bin/yamllint" --strict .

DOCS_VENV=${DOCS_VENV:-.venv-docs}
DOCS_CONSTRAINTS=tools/constraints/docs.txt
docs_key=$(stamp_key "$PYTHON" "$DOCS_CONSTRAINTS" doc/requirements.txt \
    upper-constraints.txt requirements.txt setup.cfg)
if stamped_venv "$DOCS_VENV" "$PYTHON" "$DOCS_CONSTRAINTS" "$docs_key" \
        -c upper-constraints.txt -r requirements.txt \
        -r doc/requirements.txt -e .; then
    # NOTE: -E reads every page again: the references are generated from
    # config.py and the parsers, which Sphinx does not know to watch, and
    # a page read from the cache would not repeat its warnings.
    lint docs "$DOCS_VENV/bin/sphinx-build" -q -E -W --keep-going \
        -b html doc/source doc/build/html
    lint releasenotes "$DOCS_VENV/bin/sphinx-build" -q -a -E -W \
        --keep-going -d releasenotes/build/doctrees -b html \
        releasenotes/source releasenotes/build/html
else
    echo "$DOCS_VENV: cannot make it from $DOCS_CONSTRAINTS"
    echo "lint: docs: FAILED"
    echo "lint: releasenotes: FAILED"
    failed=1
fi

[ "$failed" = 0 ]
