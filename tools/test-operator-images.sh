# Sourced by tools/run-test-operator.sh: the interpreters and venvs of
# the images its pods stand in for, and a pod's folders. Uses VENVS (where
# the venvs are kept), MAX_AGE (hours one is reused; 0 never) and
# TEST_OPERATOR_FRESH=1 (make them anew).

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
# no_python VERSION WHAT: why there is no pod of that image here.
no_python() {
    echo "no Python $1 interpreter (the python3 of $2); looked in" \
        "\$(pyenv root)/versions/$1.*/bin and PATH; install one, e.g." \
        "'pyenv install $1'"
}

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

# make_image PYTHON: $VENVS/image-<version>, the image's own commands
# (made anew as fresh_venv says), on stdout; its freeze on stderr.
make_image() {
    local python=$1 image key version
    version=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    image=$VENVS/image-$version
    # NOTE: junitxml stands for python3-junitxml, which the image's
    # subunit-filters (subunit2junitxml) needs (tcib tempest.yaml packages).
    local packages=(python-tempestconf junitxml)
    key="$("$python" -VV) ${packages[*]}"
    if fresh_venv "$image" "$key" >&2; then
        echo "test-operator: making the image stand-in $image (newest" \
            "${packages[*]} for $("$python" -V 2>&1))" >&2
        if "$python" -m venv "$image" && "$image/bin/pip" install -q \
                "${packages[@]}" 2>&1 | grep -v '^WARNING: Location ' >&2; \
                [ "${PIPESTATUS[0]}" = 0 ]; then
            stamp_venv "$image" "$key"
        else
            return 1
        fi
    fi
    echo "test-operator: image stand-in of Python $version" \
        "(discover-tempest-config):" >&2
    "$image/bin/pip" freeze 2>/dev/null | grep -iE \
        '^(python-tempestconf|tempest|openstacksdk|requests|urllib3)==' \
        | sed 's/^/    /' >&2
    echo "$image"
}
# pod_folder DIR PYTHON IMAGE [PIP]: the folders of a pod of that image;
# PIP: the pip its python3's venvs get (the image's ensurepip wheel; empty:
# the interpreter's own), in DIR/image-venv-pip.
pod_folder() {
    local dir=$1 python=$2 image=$3 cmd
    mkdir -p "$dir"/{home,sa,openstack,etc-test_operator,image-bin,tmp}
    : > "$dir/steps.txt"
    printf '%s' "${4:-}" > "$dir/image-venv-pip"
    ln -s "$python" "$dir/image-bin/python3"
    ln -s "$python" "$dir/image-bin/$(basename "$python")"
    for cmd in discover-tempest-config tempest stestr subunit2junitxml \
            subunit2html; do
        [ -x "$image/bin/$cmd" ] && ln -s "$image/bin/$cmd" "$dir/image-bin/"
    done
    qemu-img create -q -f qcow2 "$dir/home/tempestconf-image.qcow2" 1M
}
