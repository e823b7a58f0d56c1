#!/usr/bin/env bash
# Makes sure the system libraries MemoSync builds against are present (issue 16): the system's
# libcrypto (OpenSSL 3) headers, from Debian's libssl-dev, for the `CLibCrypto` system library
# target. Does nothing when pkg-config finds libcrypto; otherwise installs libssl-dev (and
# pkg-config) with apt-get, through sudo when not root. Tests/run.sh calls it; so can a newcomer
# before the first `swift run memo demo` (README). Also installs Debian's chromium (and
# chromium-driver) when missing, for the browser tests of `memo serve` (Tests/Browser).
set -euo pipefail
# Headless Chromium for the browser tests of `memo serve` (Tests/Browser), when missing.
if [[ "$(uname -s)" == "Linux" ]] && ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    chromium_sudo=""
    if [[ "$(id -u)" != "0" ]]; then chromium_sudo="sudo"; fi
    echo "setup-system: installing chromium and chromium-driver (for the browser tests)" >&2
    $chromium_sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $chromium_sudo apt-get install -y -qq chromium chromium-driver >/dev/null
fi
if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists libcrypto; then
    exit 0
fi
if [[ "$(uname -s)" != "Linux" ]]; then
    # Apple platforms use CryptoKit: nothing to install.
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup-system: libcrypto (OpenSSL 3 development files) is missing and apt-get is not available;" >&2
    echo "install your distribution's OpenSSL development package (and pkg-config), then retry." >&2
    exit 1
fi
sudo=""
if [[ "$(id -u)" != "0" ]]; then sudo="sudo"; fi
echo "setup-system: installing libssl-dev and pkg-config (for the system's libcrypto)" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libssl-dev pkg-config >/dev/null
pkg-config --exists libcrypto
