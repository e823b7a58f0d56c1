#!/usr/bin/env bash
# The project's test command (README; `.ci/run` runs exactly this): every test, with the engine's
# self-checks and deliberately broken variants compiled in (MEMOSYNC_SELF_CHECKS=1, read by
# Package.swift; an app's build never sets it), then the simulation swarm.
set -euo pipefail
cd "$(dirname "$0")/.."
# The system's libcrypto (libssl-dev) for the encryption target, installed when missing.
Tests/setup-system.sh
export MEMOSYNC_SELF_CHECKS=1
swift test
Simulations/ci-swarm.sh
