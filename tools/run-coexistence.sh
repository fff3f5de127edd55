#!/bin/bash
# Coexistence with other tempest plugins. Installs tempest, this plugin and
# the other plugins named below (all pinned in
# tools/constraints/coexistence.txt) into a venv of their own, then, once
# with this plugin loaded first and once with it loaded last:
#  - "tempest run --list-tests" must exit 0 with no import or option error,
#    and every installed plugin must contribute tests (counts printed);
#  - every plugin's options must be registered (tools/coexistence_probe.py);
#  - this plugin's tests that need no cloud (the consolidated image checks,
#    fed the samples of etc/image-check) must run and pass.
# Tempest loads plugins in entry point order, which follows sys.path; this
# plugin is installed into a folder of its own that a .pth file puts after
# site-packages (loaded last) or PYTHONPATH puts before it (loaded first).
# Each check is one result in ${RESULTS:-results}/coexistence.subunit. Ends
# with "N passed, N failed, N skipped"; exits 1 when anything failed.
# Environment: COEXIST_VENV (.venv-coexist), COEXIST_PYTHON (python3).
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/venv-stamp.sh || exit 1
ROOT=$(pwd)
VENV=${COEXIST_VENV:-.venv-coexist}
PYTHON=${COEXIST_PYTHON:-python3}
CONSTRAINTS=tools/constraints/coexistence.txt
PLUGINS=(heat-tempest-plugin glance-tempest-plugin barbican-tempest-plugin
         cinder-tempest-plugin)
OURS=glance_multiapi_tests
# What tempest prints or logs when a plugin failed to load or register.
DISCOVERY_ERRORS='Failed to import|NoSuchOptError|DuplicateOptError|'
DISCOVERY_ERRORS+='raised an exception'
# NOTE: the running-images check of that module reads Deployments through
# the Kubernetes API, so it needs a cloud; these two need only files.
NO_CLOUD_TESTS='^glance_multiapi_tests\.tests\.api\.test_consolidated_images'
NO_CLOUD_TESTS+='\.Consolidated(ImageMapping|ImageReferences)Test\.'
RESULTS=${RESULTS:-results}
mkdir -p "$RESULTS" && RESULTS=$(cd "$RESULTS" && pwd)
STREAM=$RESULTS/coexistence.subunit
WORK=$RESULTS/coexistence
rm -rf "$WORK" && mkdir -p "$WORK" && : > "$STREAM"
started=$SECONDS

key=$(stamp_key "$PYTHON" requirements.txt upper-constraints.txt \
    "$CONSTRAINTS"; echo "${PLUGINS[*]}")
if ! stamped_venv "$VENV" "$PYTHON" "$CONSTRAINTS" "$key" \
        -r requirements.txt tempest "${PLUGINS[@]}"; then
    echo "coexistence: FAILED: could not install $VENV (see above)"
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi
VENV=$(cd "$VENV" && pwd)

# record STATUS TEST_ID [FILE]: one check's result, FILE attached.
record() {
    local args=("--$1" "coexistence.$2")
    [ -n "${3:-}" ] && args+=(--attach-file "$3" --mimetype text/plain)
    "$VENV/bin/subunit-output" "${args[@]}" >> "$STREAM"
    [ "$1" = success ] || echo "coexistence: FAILED: $2"
}

# This plugin, from the work tree, into its own folder: built again
# when a file that goes into it changed (the key: every such file's
# content), else reused. NOTE: built every run it took 124 s of a warm
# run's 376 s on two busy cores (pbr, pip, the wheel).
own="$VENV/own-plugin"
# Outside a git work tree there is no list of files: built every run.
# NOTE: one sha1sum for all files; a tracked file deleted from the work
# tree is left out of the sums (its error dropped), which changes the key.
own_files=(git ls-files -z -co --exclude-standard -- glance_multiapi_tests
           glance_multiapi_cloud glance_image_uploader
           setup.cfg setup.py requirements.txt)
if "${own_files[@]}" > /dev/null 2>&1; then
    own_key=$("${own_files[@]}" | sort -z | xargs -0 -r sha1sum 2>/dev/null \
        | sha1sum | cut -c1-16)
else
    own_key=unknown-$RANDOM$RANDOM
fi
install_own() {
    rm -rf "$own"
    _pip_quiet "$VENV/bin/pip" install -q --no-deps --no-build-isolation \
        --target "$own" . && echo "$own_key" > "$own/.built-from"
}
# NOTE: pbr takes the version from git twice per build; a commit landing
# in between fails the build, which a second try does not meet.
if [ "$(cat "$own/.built-from" 2>/dev/null)" = "$own_key" ]; then
    echo "coexistence: $own reused (no file of the plugin changed)"
    record success install-this-plugin
elif install_own || install_own; then
    record success install-this-plugin
else
    record fail install-this-plugin
fi
site=$("$VENV/bin/python" -c 'import sysconfig
print(sysconfig.get_paths()["purelib"])')
echo "$own" > "$site/zz-glance-multiapi-tests-own.pth"
echo "coexistence: venv ready after $((SECONDS - started)) s"

# A tempest.conf for the no-cloud tests; tempest init copies it.
mkdir -p "$WORK/etc"
samples=$ROOT/etc/image-check
cat > "$WORK/etc/tempest.conf" <<EOF
[consolidated_images]
mappings_file = $samples/image-mappings.yaml
version_file = $samples/openstackversion.json
env_file = $samples/related-images.env
known_image_names_file = $samples/known-image-names.txt
EOF

# in_order ORDER: the checks with this plugin loaded ORDER (first|last).
in_order() {
    local order=$1 ws="$WORK/$1" path=""
    [ "$order" = first ] && path=$own
    # NOTE: stevedore caches entry points per sys.path under the XDG
    # cache; a cache of our own keeps each run's from piling up in HOME.
    local run=(env PYTHONPATH="$path" XDG_CACHE_HOME="$WORK/cache")
    "${run[@]}" "$VENV/bin/tempest" init --config-dir "$WORK/etc" \
        --workspace-path "$WORK/workspace.yaml" "$ws" \
        > "$WORK/init-$order.log" 2>&1 \
        || { record fail "$order.tempest_init" "$WORK/init-$order.log";
             return; }

    local list=$WORK/list-$order.txt rc
    (cd "$ws" && "${run[@]}" "$VENV/bin/tempest" run --list-tests) \
        > "$list" 2>&1
    rc=$?
    cat "$ws/logs/tempest.log" >> "$list" 2>/dev/null
    if [ "$rc" = 0 ] && ! grep -qE "$DISCOVERY_ERRORS" "$list"; then
        record success "$order.discovery"
    else
        record fail "$order.discovery" "$list"
    fi
    local counts="" pkg n
    for pkg in tempest "$OURS" "${PLUGINS[@]//-/_}"; do
        n=$(grep -cE "^$pkg\." "$list")
        counts+=" $pkg=$n"
        if [ "$n" -gt 0 ]; then
            record success "$order.tests_from.$pkg"
        else
            record fail "$order.tests_from.$pkg" "$list"
        fi
    done
    echo "coexistence [$OURS $order]: tests listed per package:$counts"

    local probe=$WORK/probe-$order.txt
    if (cd "$ws" && "${run[@]}" "$VENV/bin/python" \
            "$ROOT/tools/coexistence_probe.py" "--$order" "$OURS") \
            > "$probe" 2>&1; then
        record success "$order.options"
    else
        record fail "$order.options" "$probe"
    fi
    sed "s/^/coexistence [$OURS $order]: /" "$probe"

    local sub=$WORK/no-cloud-$order.subunit line
    (cd "$ws" && "${run[@]}" "$VENV/bin/tempest" run --subunit \
        --regex "$NO_CLOUD_TESTS") > "$sub" 2> "$WORK/no-cloud-$order.log"
    cat "$sub" >> "$STREAM"
    line=$(PYTHONPATH=$ROOT "$VENV/bin/python" tools/subunit_summary.py \
        "$sub")
    echo "coexistence [$OURS $order]: no-cloud tests: $line"
    case $line in
        [1-9]*" passed, 0 failed, 0 skipped")
            record success "$order.no_cloud_tests_pass" ;;
        *) record fail "$order.no_cloud_tests_pass" \
            "$WORK/no-cloud-$order.log" ;;
    esac
}

in_order first
in_order last
echo "coexistence: done in $((SECONDS - started)) s"
PYTHONPATH=$ROOT "$VENV/bin/python" tools/subunit_summary.py "$STREAM"
