#!/bin/bash
# The plugin alone under the oldest and the newest Python it supports.
# For each case (3.9, 3.9-antelope and 3.12 unless given as arguments:
# VERSION or VERSION-PINS) a venv of its own (.venv-py39,
# .venv-py39-antelope, .venv-py312) gets requirements.txt and
# test-requirements.txt pinned by tools/constraints/py<version>[-PINS].txt,
# and this project (editable): py39 and py312 are the newest releases for
# each Python, py39-antelope the OpenStack 2023.1 pins that
# test-operator's default image installs the plugin under; the embedded cloud's services
# (cloud-requirements.txt, heat-requirements.txt) are left out on purpose,
# as in a test-operator pod. Then, under that interpreter, the package is
# byte-compiled (syntax the version lacks) and the unit tests run, but
# those of the bash runners (RUNNER_TESTS): none of them may need the
# cloud's services. Their property tests run with
# the Hypothesis profile MATRIX_HYPOTHESIS_PROFILE (default "matrix", a
# few examples each; selftests/fuzzing.py).
# Interpreters come from pyenv ($(pyenv root)/versions/<version>.*, or
# $PYENV_ROOT, or ~/.pyenv when pyenv is not on PATH) or from PATH. A
# version with no interpreter is SKIPPED (one skipped result, its reason
# saying how to install one), unless REQUIRE_PYTHON_MATRIX=1 (as .ci/run
# sets): then it FAILED.
# Each check is one result in ${RESULTS:-results}/python-matrix.subunit.
# Ends with "N passed, N failed, N skipped"; exits 1 when anything failed
# or nothing ran nor skipped.
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/venv-stamp.sh || exit 1
ROOT=$(pwd)
VERSIONS=("$@")
[ ${#VERSIONS[@]} = 0 ] && VERSIONS=(3.9 3.9-antelope 3.12)
RESULTS=${RESULTS:-results}
mkdir -p "$RESULTS" && RESULTS=$(cd "$RESULTS" && pwd)
STREAM=$RESULTS/python-matrix.subunit
RUNNER_TESTS='selftests\.unit\.(test_runner_scripts|test_ci_run)\.'
: > "$STREAM"
started=$SECONDS
# Failures and skips found when no venv could record them in the stream.
unrecorded=0
unrecorded_skips=0
summary_python=""
# NOTE: results found before a version has a venv of its own (no
# interpreter, no install) are written with the project's venv, which
# tools/run-tests.sh makes first.
MAIN_VENV=${VENV:-.venv}
[[ $MAIN_VENV == /* ]] || MAIN_VENV=$ROOT/$MAIN_VENV
[ -x "$MAIN_VENV/bin/python" ] && summary_python=$MAIN_VENV/bin/python

# record STATUS TEST_ID MESSAGE: one result python-matrix.TEST_ID, the
# message attached (a skip's reason, a failure's text); counted as
# unrecorded when there is no subunit-output to write it with.
record() {
    local status=$1 id=python-matrix.$2 message=$3 name=reason
    [ "$status" = fail ] && name=message
    if [ -x "$MAIN_VENV/bin/subunit-output" ]; then
        # NOTE: subunit-output 1.4.6 cannot attach stdin ("-").
        printf '%s\n' "$message" > "$RESULTS/$2-$status.txt"
        "$MAIN_VENV/bin/subunit-output" "--$status" "$id" \
            --attach-file "$RESULTS/$2-$status.txt" --file-name "$name" \
            --mimetype 'text/plain;charset=utf8' >> "$STREAM"
        rm -f "$RESULTS/$2-$status.txt"
    elif [ "$status" = fail ]; then
        unrecorded=$((unrecorded + 1))
    else
        unrecorded_skips=$((unrecorded_skips + 1))
    fi
}

# not_run TAG MESSAGE [skippable]: the case could not be checked.
# SKIPPED when skippable (only its interpreter is missing) and the matrix
# is not required, FAILED otherwise.
not_run() {
    local tag=$1
    if [ "${3:-}" = skippable ] && [ "${REQUIRE_PYTHON_MATRIX:-0}" != 1 ]
    then
        echo "python-matrix: SKIPPED: $2 (REQUIRE_PYTHON_MATRIX=1 makes" \
            "this a failure)"
        record skip "$tag" "$2"
    else
        echo "python-matrix: FAILED: $2"
        record fail "$tag" "$2"
    fi
}

# pyenv_root: where pyenv keeps its versions (whether or not it is
# installed).
pyenv_root() {
    pyenv root 2>/dev/null || echo "${PYENV_ROOT:-$HOME/.pyenv}"
}

# find_python VERSION: the newest interpreter of VERSION, or nothing.
find_python() {
    local version=$1 root="" found=""
    root=$(pyenv_root)
    if [ -d "$root/versions" ]; then
        found=$(ls -d "$root/versions/$version".*/bin/"python$version" \
            2>/dev/null | sort -V | tail -1)
    fi
    [ -z "$found" ] && found=$(command -v "python$version" 2>/dev/null)
    # NOTE: a pyenv shim exists for versions that are not installed, so
    # ask the interpreter itself.
    if [ -n "$found" ] && "$found" -c "import sys
sys.exit(sys.version[:len('$version') + 1] != '$version.')" 2>/dev/null
    then
        echo "$found"
    fi
}

# check NAME COMMAND...: one result python-matrix.<tag>.NAME, pass when
# COMMAND exits 0; its output goes to a log, shown when it failed.
check() {
    local name=$1 log=$RESULTS/$tag-$1.log
    shift
    if "$@" > "$log" 2>&1; then
        "$venv/bin/subunit-output" --success "python-matrix.$tag.$name"
    else
        echo "python-matrix: FAILED: $tag $name" >&2
        grep -v 'runs inside a service' "$log" | sed 's/^/    /' >&2
        "$venv/bin/subunit-output" --fail "python-matrix.$tag.$name" \
            --attach-file "$log" --mimetype text/plain
    fi >> "$STREAM"
}

for case in "${VERSIONS[@]}"; do
    version=${case%%-*}
    tag=py${case//./}
    t0=$SECONDS
    python=$(find_python "$version")
    if [ -z "$python" ]; then
        why="no Python $version interpreter (looked in"
        why+=" $(pyenv_root)/versions/$version.*/bin and on PATH);"
        why+=" install one, e.g. 'pyenv install $version'"
        not_run "$tag" "$why" skippable
        continue
    fi
    constraints=tools/constraints/$tag.txt
    if [ ! -e "$constraints" ]; then
        not_run "$tag" "no $constraints for Python $version"
        continue
    fi
    venv=.venv-$tag
    # NOTE: a file the constraints include (-c) is part of what went in.
    included=()
    while read -r _ path; do
        included+=("tools/constraints/$path")
    done < <(grep -E '^-c ' "$constraints")
    key=$(stamp_key "$python" requirements.txt test-requirements.txt \
        upper-constraints.txt setup.cfg "$constraints" "${included[@]}")
    # NOTE: the build backend comes from the venv (pbr is a requirement,
    # installed by the first step), so the editable install needs no
    # second download of it.
    if ! stamped_venv "$venv" "$python" "$constraints" "$key" \
            -r requirements.txt -r test-requirements.txt \
            -- --no-deps --no-build-isolation -e .; then
        not_run "$tag" \
            "could not install $venv for Python $version (see above)"
        continue
    fi
    [ -n "$summary_python" ] || summary_python=$ROOT/$venv/bin/python

    # NOTE: bytecode goes to a folder of the venv's, not into the tree,
    # and stays for the next run: made anew each run, it cost every
    # version's run the compiling of tempest and its libraries again (a
    # source changed since is compiled again, so compileall still reads
    # it). With a prefix, Python reads bytecode from there alone, not
    # from the __pycache__ folders pip wrote, so PYTHONDONTWRITEBYTECODE
    # (set in some CI images and containers) would leave the prefix
    # without the standard library and the venv's packages: every
    # process compiled them again, 3.1 to 3.7 CPU-s for one
    # tools/subunit_report.py under Python 3.12 (0.65 s once written),
    # and the Python 3.9 unit run took 344 s. The prefix is the venv's,
    # so writing there leaves the tree alone. An empty tempest config
    # folder keeps any tempest.conf of the machine's from being read by
    # modules that load tempest's config.
    export PYTHONPYCACHEPREFIX=$ROOT/$venv/pycache
    unset PYTHONDONTWRITEBYTECODE
    export TEMPEST_CONFIG_DIR=$RESULTS/$tag-tempest-etc
    mkdir -p "$TEMPEST_CONFIG_DIR"
    pins=${case#"$version"}
    label="python-matrix [$("$python" -V 2>&1)${pins:+, ${pins#-} pins}]"
    check compileall "$venv/bin/python" -m compileall -q glance_multiapi_kernel glance_multiapi_tests glance_multiapi_cloud glance_image_uploader
    check import_every_module "$venv/bin/python" tools/import_every_module.py
    echo "$label: $(tail -1 "$RESULTS/$tag-import_every_module.log")"
    # This tempest release loads the plugin and registers its options.
    check tempest_loads_plugin "$venv/bin/python" tools/coexistence_probe.py

    # NOTE: a stestr repository of the run's own: the one in the tree
    # belongs to the main unit test run.
    sub=$RESULTS/$tag-unit.subunit
    rm -rf "$RESULTS/$tag-stestr" && mkdir -p "$RESULTS/$tag-stestr"
    # NOTE: the property tests with the matrix profile's few examples
    # (selftests/fuzzing.py): the unit stage runs them with 200 each.
    # NOTE: the tests of the bash runners (test_runner_scripts,
    # test_ci_run) are left to the unit stage: they drive tools/*.sh,
    # which run with the project's venv on a developer's machine or CI,
    # never in a pod, and they were a third of each version's time.
    HYPOTHESIS_PROFILE=${MATRIX_HYPOTHESIS_PROFILE:-matrix} \
        "$venv/bin/stestr" --repo-url "$RESULTS/$tag-stestr" run \
        --exclude-regex "$RUNNER_TESTS" \
        --subunit > "$sub" 2> "$RESULTS/$tag-unit.log"
    cat "$sub" >> "$STREAM"
    unset PYTHONPYCACHEPREFIX TEMPEST_CONFIG_DIR
    line=$("$venv/bin/python" tools/subunit_summary.py --list-failures "$sub")
    echo "$line" | sed "s/^/$label: unit: /"
    echo "python-matrix: $tag done in $((SECONDS - t0)) s"
done

if [ -n "$summary_python" ]; then
    line=$("$summary_python" tools/subunit_summary.py "$STREAM")
else
    line="0 passed, 0 failed, 0 skipped"
fi
read -r passed _ failed _ skipped _ <<<"$line"
failed=$((failed + unrecorded))
skipped=$((skipped + unrecorded_skips))
echo "python-matrix: done in $((SECONDS - started)) s"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] && [ $((passed + skipped)) -gt 0 ]
