#!/usr/bin/env bash
# The project's test command (README; `.ci/run` runs exactly this): every test, with the engine's
# self-checks and deliberately broken variants compiled in (MEMOSYNC_SELF_CHECKS=1, read by
# Package.swift; an app's build never sets it), then the simulation swarm. The remote-store tests
# run against real S3 and WebDAV servers that Tests/Servers/servers.sh starts around `swift test`
# (from a cached, pinned Python environment; without Python they say why they did not run).
set -euo pipefail
cd "$(dirname "$0")/.."
# The system's libcrypto (libssl-dev) for the encryption target, installed when missing.
Tests/setup-system.sh
# Programs the tests run (zsh and fish for the completion tests), installed when missing.
Tests/setup-test-tools.sh
export MEMOSYNC_SELF_CHECKS=1
# Each part says how long it took (seconds since this script started), so that a slow CI run
# shows where its time went.
phase() { echo "run.sh: $1 done at ${SECONDS} s"; }
phase "setup"
swift build --build-tests
phase "test build"
# The swarm's release build (Simulations/ci-swarm.sh) starts now, at the lowest priority (nice
# 19): it takes only what the tests leave idle (they keep the two cores about 90 % busy), then
# shares the cores with the next two parts, whose browser tests wait on Chromium and the server
# much of the time. (Started beside the test build instead, it slowed that build from about 270
# to 500 s.) Its output is shown when it fails; it is stopped if a part fails.
mkdir -p .build
nice -n 19 Simulations/ci-swarm.sh --build-only > .build/swarm-build.log 2>&1 &
swarm_build=$!
stop_swarm_build() {
    local status=$?
    pkill -TERM -P "$swarm_build" 2>/dev/null || true
    kill "$swarm_build" 2>/dev/null || true
    exit "$status"
}
trap stop_swarm_build EXIT
Tests/Servers/servers.sh swift test --skip-build
phase "swift test"
# What an app that depends on the package gets: no test machinery, Debug included (README,
# "Tests"); the test build's memo shows the check finds the mutants where they are.
Tests/ClientCheck/check.sh .build/debug/memo
phase "client check"
# `memo serve` in headless Chromium (Tests/Browser): screenshots in .build/artefacts/browser.
Tests/Browser/browser-tests.sh
phase "browser tests"
if ! wait "$swarm_build"; then
    cat .build/swarm-build.log
    echo "run.sh: the swarm's release build failed" >&2
    exit 1
fi
tail -1 .build/swarm-build.log
phase "swarm build"
Simulations/ci-swarm.sh
phase "simulation swarm"
