#!/bin/bash
# The plugin alone under the oldest and the newest Python it supports.
# For each version (3.9 and 3.12 unless given as arguments) a venv of its
# own (.venv-py39, .venv-py312) gets requirements.txt and
# test-requirements.txt pinned by tools/constraints/py<version>.txt, and
# this project (editable); the embedded cloud's services
# (cloud-requirements.txt, heat-requirements.txt) are left out on purpose,
# as in a test-operator pod. Then, under that interpreter, the package is
# byte-compiled (syntax the version lacks) and the unit tests run: none of
# them may need the cloud's services.
# Interpreters come from pyenv ($(pyenv root)/versions/<version>.*) or PATH.
# Each check is one result in ${RESULTS:-results}/python-matrix.subunit.
# Ends with "N passed, N failed, N skipped"; exits 1 when anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/venv-stamp.sh || exit 1
ROOT=$(pwd)
VERSIONS=("$@")
[ ${#VERSIONS[@]} = 0 ] && VERSIONS=(3.9 3.12)
RESULTS=${RESULTS:-results}
mkdir -p "$RESULTS" && RESULTS=$(cd "$RESULTS" && pwd)
STREAM=$RESULTS/python-matrix.subunit
: > "$STREAM"
started=$SECONDS
# Failures found before a venv could record them in the stream.
unrecorded=0
summary_python=""

# find_python VERSION: the newest interpreter of VERSION, or nothing.
find_python() {
    local version=$1 root="" found=""
    root=$(pyenv root 2>/dev/null) || root=""
    if [ -n "$root" ]; then
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

for version in "${VERSIONS[@]}"; do
    tag=py${version//./}
    t0=$SECONDS
    python=$(find_python "$version")
    if [ -z "$python" ]; then
        echo "python-matrix: FAILED: no Python $version interpreter" \
            "(looked in \$(pyenv root)/versions/$version.*/bin and PATH);" \
            "install one, e.g. 'pyenv install $version'"
        unrecorded=$((unrecorded + 1))
        continue
    fi
    constraints=tools/constraints/$tag.txt
    if [ ! -e "$constraints" ]; then
        echo "python-matrix: FAILED: no $constraints for Python $version"
        unrecorded=$((unrecorded + 1))
        continue
    fi
    venv=.venv-$tag
    key=$(stamp_key "$python" requirements.txt test-requirements.txt \
        upper-constraints.txt setup.cfg "$constraints")
    # NOTE: the build backend comes from the venv (pbr is a requirement,
    # installed by the first step), so the editable install needs no
    # second download of it.
    if ! stamped_venv "$venv" "$python" "$constraints" "$key" \
            -r requirements.txt -r test-requirements.txt \
            -- --no-deps --no-build-isolation -e .; then
        echo "python-matrix: FAILED: could not install $venv for" \
            "Python $version (see above)"
        unrecorded=$((unrecorded + 1))
        continue
    fi
    summary_python=$ROOT/$venv/bin/python

    # NOTE: bytecode goes to a folder of the run's, not into the tree.
    export PYTHONPYCACHEPREFIX=$RESULTS/$tag-pycache
    log=$RESULTS/$tag-compileall.log
    if "$venv/bin/python" -m compileall -q glance_multiapi_tests \
            > "$log" 2>&1; then
        "$venv/bin/subunit-output" --success \
            "python-matrix.$tag.compileall" >> "$STREAM"
    else
        echo "python-matrix: FAILED: $tag compileall"
        sed 's/^/    /' "$log"
        "$venv/bin/subunit-output" --fail "python-matrix.$tag.compileall" \
            --attach-file "$log" --mimetype text/plain >> "$STREAM"
    fi

    log=$RESULTS/$tag-imports.log
    # NOTE: an empty tempest config folder, so that no tempest.conf of the
    # machine's is read by modules that load tempest's config.
    mkdir -p "$RESULTS/$tag-tempest-etc"
    if TEMPEST_CONFIG_DIR=$RESULTS/$tag-tempest-etc "$venv/bin/python" \
            tools/import_every_module.py > "$log" 2>&1; then
        "$venv/bin/subunit-output" --success \
            "python-matrix.$tag.import_every_module" >> "$STREAM"
    else
        echo "python-matrix: FAILED: $tag import_every_module"
        grep -v 'runs inside a service' "$log" | sed 's/^/    /'
        "$venv/bin/subunit-output" --fail \
            "python-matrix.$tag.import_every_module" \
            --attach-file "$log" --mimetype text/plain >> "$STREAM"
    fi
    echo "python-matrix [$("$python" -V 2>&1)]: $(tail -1 "$log")"

    # NOTE: a stestr repository of the run's own: the one in the tree
    # belongs to the main unit test run.
    sub=$RESULTS/$tag-unit.subunit
    rm -rf "$RESULTS/$tag-stestr" && mkdir -p "$RESULTS/$tag-stestr"
    "$venv/bin/stestr" --repo-url "$RESULTS/$tag-stestr" run --subunit \
        > "$sub" 2> "$RESULTS/$tag-unit.log"
    cat "$sub" >> "$STREAM"
    rm -rf "$PYTHONPYCACHEPREFIX"
    unset PYTHONPYCACHEPREFIX
    line=$("$venv/bin/python" tools/subunit_summary.py --list-failures "$sub")
    echo "$line" | sed "s/^/python-matrix [$("$python" -V 2>&1)]: unit: /"
    echo "python-matrix: $tag done in $((SECONDS - t0)) s"
done

if [ -n "$summary_python" ]; then
    line=$("$summary_python" tools/subunit_summary.py "$STREAM")
else
    line="0 passed, 0 failed, 0 skipped"
fi
read -r passed _ failed _ skipped _ <<<"$line"
failed=$((failed + unrecorded))
echo "python-matrix: done in $((SECONDS - started)) s"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
