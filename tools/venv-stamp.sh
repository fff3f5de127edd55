# Sourced by the stages that need a venv of their own (coexistence, the
# Python matrix): make a venv once and reuse it while what went into it is
# unchanged, the way tools/setup-env.sh stamps .venv.

# NOTE: a pip configured with an extra local index that lacks a package
# warns once per package; those lines say nothing about this project.
_pip_quiet() {
    "$@" 2>&1 | grep -v '^WARNING: Location .* is ignored'
    return "${PIPESTATUS[0]}"
}

# stamped_venv VENV PYTHON CONSTRAINTS KEY ARGUMENTS [-- ARGUMENTS...]
# Reuses VENV when its stamp matches KEY (text naming everything that went
# in) and its interpreter still runs; otherwise makes it anew with PYTHON,
# installs pip, setuptools and wheel as pinned in CONSTRAINTS, then runs
# "pip install -c CONSTRAINTS ARGUMENTS" once per "--"-separated group,
# in order, without byte-compiling what it installs (--no-compile): a
# module is compiled when something first imports it, and these venvs
# import a small part of what their requirements bring (the Python
# matrix reads bytecode from a prefix of its own, never from what pip
# wrote). A Python 3.9 matrix venv took 54.0 CPU-s with pip's compiling,
# 40.6 without. Returns non-zero on failure.
stamped_venv() {
    local venv=$1 python=$2 constraints=$3 key=$4
    shift 4
    local stamp
    stamp="$venv/.installed-$(printf '%s\n' "$key" | sha1sum | cut -c1-12)"
    if [ -e "$stamp" ] && "$venv/bin/python" -c '' 2>/dev/null; then
        echo "$venv: reused (stamp matches)"
        return 0
    fi
    echo "$venv: creating with $("$python" -V 2>&1)"
    rm -rf "$venv"
    "$python" -m venv "$venv" || return 1
    _pip_quiet "$venv/bin/pip" install -q -c "$constraints" \
        pip setuptools wheel || return 1
    local step=()
    while [ $# -gt 0 ] || [ ${#step[@]} -gt 0 ]; do
        if [ $# -gt 0 ] && [ "$1" != -- ]; then
            step+=("$1")
            shift
            continue
        fi
        [ $# -gt 0 ] && shift
        _pip_quiet "$venv/bin/pip" install -q --no-compile \
            -c "$constraints" "${step[@]}" || return 1
        step=()
    done
    touch "$stamp"
}

# The text a stamp is made from: the files' contents and the interpreter.
stamp_key() {
    local python=$1
    shift
    echo "$python"
    "$python" -VV 2>&1
    cat "$@"
}
