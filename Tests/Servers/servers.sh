#!/usr/bin/env bash
# Runs a command with the remote-store test servers up (Tests/Servers/servers.py): SeaweedFS
# (S3) and wsgidav (WebDAV), each behind a fault-injecting proxy, on free ports of 127.0.0.1,
# their endpoints and random credentials in MEMOSYNC_TEST_* variables; stopped by process id
# when the command ends. Without python3 (or when the servers cannot be installed or started)
# the command runs without them: the remote-store tests then say why they did not run, and fail
# when MEMOSYNC_REQUIRE_REMOTE_SERVERS=1 (.ci/run sets it).
#
#   Tests/Servers/servers.sh swift test --filter RemoteStore
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
state="$(mktemp -d "${TMPDIR:-/tmp}/memosync-servers.XXXXXX")"
cleanup() {
    python3 "$here/servers.py" down "$state" 2>/dev/null
    rm -rf "$state"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if ! command -v python3 >/dev/null; then
    export MEMOSYNC_TEST_SERVERS_MISSING="python3 is not installed"
elif exports="$(python3 "$here/servers.py" up "$state" $$)"; then
    eval "$exports"
    export MEMOSYNC_TEST_SERVERS="$here/servers.py"
else
    export MEMOSYNC_TEST_SERVERS_MISSING="the test servers could not be started (messages above)"
fi
"$@"
