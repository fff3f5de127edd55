#!/bin/bash
# Install everything the suite and its embedded cloud need, idempotently:
# Debian packages (the OCI registry, a compiler and OpenSSL's headers for
# uWSGI) and a venv at
# .venv with the pinned Python packages and this project (editable).
# Needs only python3, pip and apt; run as root or with sudo available.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${VENV:-.venv}
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi

need_apt=()
command -v docker-registry >/dev/null || need_apt+=(docker-registry)
# NOTE: RabbitMQ carries the RPC of the optional heat (up --with-heat).
[ -x /usr/lib/rabbitmq/bin/rabbitmq-server ] || need_apt+=(rabbitmq-server)
command -v gcc >/dev/null || need_apt+=(gcc)
command -v curl >/dev/null || need_apt+=(curl)
# NOTE: uWSGI is built from source; without OpenSSL's headers it builds
# without https sockets, which up --tls (the main job) needs.
[ -e /usr/include/openssl/ssl.h ] || need_apt+=(libssl-dev)
include=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
[ -e "$include/Python.h" ] || need_apt+=(python3-dev)
python3 -c 'import ensurepip, venv' 2>/dev/null || need_apt+=(python3-venv)
if [ ${#need_apt[@]} -gt 0 ]; then
    echo "setup-env: installing Debian packages: ${need_apt[*]}"
    $SUDO apt-get update -q >/dev/null
    # NOTE: policy-rc.d or no systemd keeps the packaged registry service
    # from starting; the cloud runs its own registry on loopback.
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q \
        --no-install-recommends "${need_apt[@]}" >/dev/null
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
    test-requirements.txt heat-requirements.txt upper-constraints.txt \
    setup.cfg | sha1sum | cut -c1-12)"
if [ ! -e "$stamp" ]; then
    echo "setup-env: installing Python packages into $VENV (a few minutes)"
    "$VENV/bin/pip" install -q pip==26.3 setuptools==84.2.1 wheel==0.48.0
    "$VENV/bin/pip" install -q -c upper-constraints.txt \
        -r requirements.txt -r cloud-requirements.txt \
        -r test-requirements.txt -r heat-requirements.txt -e .
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
if [ ! -x "$kubectl_dir/usr/bin/kubectl" ]; then
    echo "setup-env: unpacking Debian's kubernetes-client into $kubectl_dir"
    debs=$(mktemp -d)
    chmod 755 "$debs"   # NOTE: apt's _apt user downloads into it
    if ! (cd "$debs" && apt-get download -q kubernetes-client \
            >/dev/null 2>&1); then
        $SUDO apt-get update -q >/dev/null
        (cd "$debs" && apt-get download -q kubernetes-client >/dev/null)
    fi
    dpkg -x "$debs"/kubernetes-client_*.deb "$kubectl_dir"
    rm -rf "$debs"
fi
echo "setup-env: ready ($VENV)"
