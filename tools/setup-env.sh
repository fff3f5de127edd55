#!/bin/bash
# Install everything the suite and its embedded cloud need, idempotently:
# the system packages of bindep.txt this machine lacks (the OCI registry,
# RabbitMQ, a compiler and the headers uWSGI is built with, the headless
# browser of the deployment map's test; read by
# bindep from a small venv of its own, .venv-bindep, pinned by
# tools/constraints/bindep.txt) and a venv at .venv with the pinned
# Python packages and this project (editable).
# Needs only python3 and apt; run as root or with sudo available. On
# other distributions it names the missing packages and stops.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/venv-stamp.sh

VENV=${VENV:-.venv}
BINDEP_VENV=${BINDEP_VENV:-.venv-bindep}
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
# What bindep.txt lists that is unpacked below rather than installed.
KUBECTL_PACKAGE=kubernetes-client
UNPACKED=("$KUBECTL_PACKAGE")

apt_updated=0
apt_install() {
    echo "setup-env: installing Debian packages: $*"
    if [ "$apt_updated" = 0 ]; then
        $SUDO apt-get update -q >/dev/null
        apt_updated=1
    fi
    # NOTE: policy-rc.d or no systemd keeps the packaged registry service
    # from starting; the cloud runs its own registry on loopback.
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q \
        --no-install-recommends "$@" >/dev/null
}

# NOTE: bindep runs from a venv, and a fresh Debian's python3 has no venv
# module (ensurepip) until python3-venv is there: that one package is
# installed by name, before bindep.txt can be read. It is in bindep.txt
# too, so bindep finds it satisfied.
if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    if ! command -v apt-get >/dev/null; then
        echo "setup-env: python3 cannot make venvs (no ensurepip); install" \
            "its venv support first" >&2
        exit 1
    fi
    apt_install python3-venv
fi
if ! stamped_venv "$BINDEP_VENV" python3 tools/constraints/bindep.txt \
        "$(stamp_key python3 tools/constraints/bindep.txt)" bindep; then
    echo "setup-env: cannot install bindep into $BINDEP_VENV" >&2
    exit 1
fi
# NOTE: bindep exits 1 both for "packages missing" (listed on stdout) and
# for an unreadable bindep.txt (said on stderr).
bindep_err=$(mktemp)
bindep_rc=0
missing=$("$BINDEP_VENV/bin/bindep" -b -f bindep.txt default test \
    2>"$bindep_err") || bindep_rc=$?
if [ "$bindep_rc" -gt 1 ] || [ -s "$bindep_err" ]; then
    echo "setup-env: bindep cannot read bindep.txt:" \
        "$(tr '\n' ' ' <"$bindep_err")" >&2
    rm -f "$bindep_err"
    exit 1
fi
rm -f "$bindep_err"
need=()
for package in $missing; do
    [[ " ${UNPACKED[*]} " == *" $package "* ]] || need+=("$package")
done
if [ ${#need[@]} -gt 0 ]; then
    if ! command -v apt-get >/dev/null; then
        echo "setup-env: not a Debian or Ubuntu machine; install these" \
            "packages of bindep.txt first: ${need[*]}" >&2
        exit 1
    fi
    apt_install "${need[@]}"
fi

# NOTE: tox 4 (PEP 832) leaves a .venv *file* pointing at its last
# environment when no .venv folder exists; that file is tox's to remake,
# this venv needs the name.
if [ -f "$VENV" ] && [ ! -L "$VENV" ]; then
    if grep -qx '\.tox/[^/]*' "$VENV"; then
        echo "setup-env: replacing tox's redirect file $VENV ($(cat "$VENV"))"
        rm -f "$VENV"
    else
        echo "setup-env: $VENV is a file, not a venv; move it or set VENV" >&2
        exit 1
    fi
fi
if [ ! -x "$VENV/bin/python" ]; then
    echo "setup-env: creating $VENV"
    python3 -m venv "$VENV"
fi
stamp="$VENV/.installed-$(cat requirements.txt cloud-requirements.txt \
    test-requirements.txt heat-requirements.txt browser-requirements.txt \
    upper-constraints.txt setup.cfg | sha1sum | cut -c1-12)"
if [ ! -e "$stamp" ]; then
    echo "setup-env: installing Python packages into $VENV (a few minutes)"
    "$VENV/bin/pip" install -q pip==26.3 setuptools==84.2.1 wheel==0.48.0
    "$VENV/bin/pip" install -q -c upper-constraints.txt \
        -r requirements.txt -r cloud-requirements.txt \
        -r test-requirements.txt -r heat-requirements.txt \
        -r browser-requirements.txt -e .
    rm -f "$VENV"/.installed-*
    touch "$stamp"
fi
# NOTE: a uWSGI built before libssl-dev was there (or a cached wheel of
# one) lacks https sockets; rebuild it once from source against OpenSSL.
if ! "$VENV/bin/uwsgi" --help 2>/dev/null | grep -q -- '--https-socket '; then
    uwsgi_pin=$(grep -i '^uwsgi==' upper-constraints.txt)
    echo "setup-env: rebuilding $uwsgi_pin with SSL (https sockets)"
    "$VENV/bin/pip" install -q --no-cache-dir --force-reinstall --no-deps \
        --no-binary uWSGI "$uwsgi_pin"
    if ! "$VENV/bin/uwsgi" --help | grep -q -- '--https-socket '; then
        echo "setup-env: $VENV/bin/uwsgi has no SSL support even with" \
            "libssl-dev; up --tls cannot work" >&2
        exit 1
    fi
fi
# NOTE: Debian's kubectl (package kubernetes-client, 1.20) drives the
# embedded Kubernetes-style API in the functional tests, as an operator
# would on a cluster. It is unpacked into the venv rather than installed:
# another package (a cloud SDK's kubectl) may own /usr/bin/kubectl, and
# the tests must run the Debian one whatever else is on PATH.
kubectl_dir="$VENV/debian-kubectl"
if [ ! -x "$kubectl_dir/usr/bin/kubectl" ] && ! command -v apt-get >/dev/null
then
    echo "setup-env: no apt-get; the functional tests use the kubectl on" \
        "PATH, if any (bindep.txt: $KUBECTL_PACKAGE)"
elif [ ! -x "$kubectl_dir/usr/bin/kubectl" ]; then
    echo "setup-env: unpacking Debian's $KUBECTL_PACKAGE into $kubectl_dir"
    debs=$(mktemp -d)
    chmod 755 "$debs"   # NOTE: apt's _apt user downloads into it
    if ! (cd "$debs" && apt-get download -q "$KUBECTL_PACKAGE" \
            >/dev/null 2>&1); then
        $SUDO apt-get update -q >/dev/null
        (cd "$debs" && apt-get download -q "$KUBECTL_PACKAGE" >/dev/null)
    fi
    dpkg -x "$debs"/"$KUBECTL_PACKAGE"_*.deb "$kubectl_dir"
    rm -rf "$debs"
fi
# NOTE: the project's bytecode, written once here: an environment with
# PYTHONDONTWRITEBYTECODE (some CI images and containers set it) leaves
# the tree without it, and then every process compiled each of the
# plugin's modules it imports again (about 0.1 to 0.25 CPU-s for a
# tempest worker or a cloud CLI, of which a run of the project's tests
# starts some thousand). compileall writes whatever that variable says,
# only what changed since, and into the ignored __pycache__ folders.
"$VENV/bin/python" -m compileall -q glance_multiapi_kernel glance_multiapi_tests glance_multiapi_cloud glance_image_uploader > /dev/null ||
    echo "setup-env: could not byte-compile glance_multiapi_tests" \
        "(not needed, only slower)" >&2
echo "setup-env: ready ($VENV)"
