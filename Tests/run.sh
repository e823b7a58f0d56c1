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
Tests/Servers/servers.sh swift test
# `memo serve` in headless Chromium (Tests/Browser): screenshots in .build/artefacts/browser.
Tests/Browser/browser-tests.sh
Simulations/ci-swarm.sh
