#!/usr/bin/env bash
# Programs only the tests need, installed from Debian's packages when missing (the test command,
# Tests/run.sh, calls this; an app's build never needs them): zsh and fish, so that the
# completion scripts `memo completion zsh|fish` print are run by the real shells
# (FeatureTests.completionInEveryShell fails when one is missing), chromium (with
# chromium-driver) for the browser tests of `memo serve` (Tests/Browser), and GNU parallel for
# the memo-sim study on parallel and over ssh hosts (CommandLineTests). Does nothing when all
# are present or when apt-get is not there (the tests then say what is missing).
set -euo pipefail
missing=()
for program in zsh fish parallel; do
    command -v "$program" >/dev/null 2>&1 || missing+=("$program")
done
if ! command -v chromium >/dev/null 2>&1; then missing+=(chromium chromium-driver); fi
if [[ ${#missing[@]} -eq 0 ]]; then exit 0; fi
if [[ "$(uname -s)" != "Linux" ]] || ! command -v apt-get >/dev/null 2>&1; then
    echo "setup-test-tools: ${missing[*]} missing and apt-get not available; the completion test will say so" >&2
    exit 0
fi
sudo=""
if [[ "$(id -u)" != "0" ]]; then sudo="sudo"; fi
echo "setup-test-tools: installing ${missing[*]} (for the completion, browser and study tests)" >&2
# apt's lock may be held by another installer for a moment: retry a few times.
for attempt in 1 2 3 4 5; do
    if $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null; then
        exit 0
    fi
    echo "setup-test-tools: apt-get failed (attempt $attempt of 5); retrying in 10 s" >&2
    sleep 10
done
exit 1
