#!/usr/bin/env bash
# The browser tests of `memo serve` (Tests/Browser/browser_tests.py): headless Chromium, driven
# by the DevTools protocol over a pipe (no Selenium, no Python packages). Tests/run.sh runs it
# after `swift test` (which builds `memo`). Chromium comes from Debian's `chromium` package,
# which Tests/setup-test-tools.sh installs when missing. Screenshots go to the run's artefacts folder:
# $MEMOSYNC_ARTEFACTS/browser (default .build/artefacts/browser).
set -euo pipefail
cd "$(dirname "$0")/../.."
artefacts="${MEMOSYNC_ARTEFACTS:-.build/artefacts}/browser"
memo="$(swift build --show-bin-path)/memo"
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
    echo "browser tests: chromium is missing (Tests/setup-test-tools.sh installs it); not run" >&2
    exit 1
fi
exec python3 Tests/Browser/browser_tests.py "$memo" "$artefacts"
