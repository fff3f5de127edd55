#!/bin/bash
# Make sure the Python interpreters a job claims are here, or say which
# are not: for each VERSION (e.g. 3.9 3.12), an interpreter found as the
# Python matrix and the test-operator stage find it (pythonVERSION on
# PATH, else $PYENV_ROOT/versions/VERSION.*), else one built with pyenv
# into $PYENV_ROOT (default /opt/glance-multiapi-pyenv): pyenv cloned
# from $PYENV_GIT (its default branch, or the tag or branch $PYENV_REF),
# the build dependencies installed with apt-get. INSTALL=0 only looks.
# Prints one line per version, "python VERSION: PATH" or "MISSING: python
# VERSION: WHY", and exits 0 when every version is there, 1 when one is
# missing (the lines say which and why), 2 for bad usage.
# Usage: ensure-pythons.sh VERSION [VERSION ...]
set -uo pipefail
[ "$#" -gt 0 ] || { echo "usage: ensure-pythons.sh VERSION..." >&2; exit 2; }
for version in "$@"; do
    case $version in
        3.[0-9]|3.[0-9][0-9]) ;;
        *) echo "ensure-pythons: $version is not a Python version like 3.12" \
               >&2; exit 2 ;;
    esac
done
export PYENV_ROOT=${PYENV_ROOT:-/opt/glance-multiapi-pyenv}
PYENV_GIT=${PYENV_GIT:-https://github.com/pyenv/pyenv.git}
PYENV_REF=${PYENV_REF:-}
# NOTE: what CPython's build needs for the modules the project uses (ssl,
# sqlite3, lzma, bz2, ctypes, readline), on Debian and Ubuntu.
BUILD_DEPS=(build-essential git curl libssl-dev zlib1g-dev libbz2-dev
            libreadline-dev libsqlite3-dev libffi-dev liblzma-dev)

# found VERSION: the interpreter of VERSION, or nothing.
found() {
    local version=$1 candidate
    for candidate in $(command -v "python$version" 2>/dev/null) \
            $(ls -d "$PYENV_ROOT/versions/$version".*/bin/"python$version" \
              2>/dev/null | sort -V | tail -1); do
        # NOTE: a pyenv shim answers for versions that are not installed.
        if "$candidate" -c "import sys
sys.exit(sys.version_info[:2] != tuple(map(int, '$version'.split('.'))))" \
                2>/dev/null; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

# build VERSION: build it with pyenv; what went wrong on stdout.
build() {
    local version=$1 log
    if ! command -v apt-get > /dev/null; then
        echo "no apt-get to install CPython's build dependencies; install" \
            "${BUILD_DEPS[*]} and run again"
        return 1
    fi
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
            --no-install-recommends "${BUILD_DEPS[@]}" > /dev/null 2>&1; then
        apt-get update -q > /dev/null 2>&1
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
            --no-install-recommends "${BUILD_DEPS[@]}" > /dev/null 2>&1 || {
            echo "apt-get could not install ${BUILD_DEPS[*]}"; return 1; }
    fi
    if [ ! -x "$PYENV_ROOT/bin/pyenv" ]; then
        git clone -q --depth 1 ${PYENV_REF:+--branch "$PYENV_REF"} \
            "$PYENV_GIT" "$PYENV_ROOT" > /dev/null 2>&1
        [ -x "$PYENV_ROOT/bin/pyenv" ] || {
            echo "could not clone pyenv ${PYENV_REF:-} from $PYENV_GIT"
            return 1; }
    fi
    log=$(mktemp)
    if ! "$PYENV_ROOT/bin/pyenv" install -s "$version" > "$log" 2>&1; then
        echo "pyenv install $version failed: $(grep -m1 -E 'ERROR|error' \
            "$log" || tail -1 "$log")"
        rm -f "$log"
        return 1
    fi
    rm -f "$log"
}

missing=0
for version in "$@"; do
    if path=$(found "$version"); then
        echo "python $version: $path"
        continue
    fi
    if [ "${INSTALL:-1}" = 0 ]; then
        echo "MISSING: python $version: not on PATH nor in" \
            "$PYENV_ROOT/versions (INSTALL=0: nothing installed)"
        missing=1
        continue
    fi
    echo "python $version: not here; building it with pyenv into $PYENV_ROOT"
    why=$(build "$version")
    if path=$(found "$version"); then
        echo "python $version: $path"
    else
        echo "MISSING: python $version: ${why:-pyenv built no python$version}"
        missing=1
    fi
done
exit $missing
