#!/usr/bin/env python3
"""A fault-injecting HTTP proxy for the remote-store tests (standard library only).

    faultproxy.py LISTEN_PORT UPSTREAM_PORT

Forwards every request to 127.0.0.1:UPSTREAM_PORT unchanged (the Host header included, so that
signatures still match), except that, while faults are on, each request may be:
    delayed      by up to `delay_ms` milliseconds before it is forwarded
    dropped      the connection broken at the start of the answer, before forwarding or after
                 (then the server did the request but the client never hears of it)
    answered 500 or 503 without being forwarded
    truncated    forwarded, and its answer's body cut short (the connection then closed)
each with its probability, drawn from a seeded random generator.

Control, on the proxy's own port (never forwarded):
    POST /__faults__  with a JSON body {"seed": 1, "delay_ms": 20, "drop": 0.1, "error500": 0.1,
                      "error503": 0.1, "truncate": 0.1}: sets the faults (missing keys are 0)
    POST /__faults__  with {}: turns every fault off
    GET  /__faults__  the faults and how many of each were injected, as JSON (a POST answers the
                      same, as they were before it)
"""

import http.client
import http.server
import json
import random
import socket
import sys
import threading
import time

UPSTREAM_PORT = 0
DEBUG = False
LOCK = threading.Lock()
FAULTS = {}
COUNTS = {}
RANDOM = random.Random(0)
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"}


def draw(name):
    """Whether the fault `name` strikes this request (counted when it does)."""
    with LOCK:
        hit = RANDOM.random() < FAULTS.get(name, 0)
        if hit:
            COUNTS[name] = COUNTS.get(name, 0) + 1
        return hit


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def setup(self):
        super().setup()
        # Headers and body go out as separate writes: without this, Nagle's algorithm and the
        # client's delayed acknowledgement add 40 ms to every answer.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def handle_one_request(self):
        try:
            super().handle_one_request()
        except (ConnectionError, TimeoutError):
            self.close_connection = True

    def control(self, body):
        global RANDOM
        with LOCK:
            answer = json.dumps({"faults": FAULTS, "injected": COUNTS}).encode()
        if self.command == "POST":
            settings = json.loads(body or b"{}")
            with LOCK:
                FAULTS.clear()
                FAULTS.update({k: float(v) for k, v in settings.items() if k != "seed"})
                RANDOM = random.Random(int(settings.get("seed", 0)))
                COUNTS.clear()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def forward(self):
        if DEBUG:
            print(f"{time.time():.3f} {self.command} {self.path} len={self.headers.get('Content-Length')} te={self.headers.get('Transfer-Encoding')} expect={self.headers.get('Expect')}", file=sys.stderr, flush=True)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.path.startswith("/__faults__"):
            return self.control(body)
        delay = FAULTS.get("delay_ms", 0)
        if delay:
            with LOCK:
                pause = RANDOM.random() * delay / 1000
            time.sleep(pause)
        drop = draw("drop")
        with LOCK:
            drop_before = drop and RANDOM.random() < 0.5
        if drop_before:
            return self.break_answer()  # the server never saw the request
        for status in (500, 503):
            if draw(f"error{status}"):
                return self.answer_error(status)
        started = time.time()
        upstream = http.client.HTTPConnection("127.0.0.1", UPSTREAM_PORT, timeout=60)
        upstream.connect()
        upstream.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        upstream.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
        for name, value in self.headers.items():
            if name.lower() not in HOP_BY_HOP and name.lower() != "content-length":
                upstream.putheader(name, value)
        upstream.putheader("Content-Length", str(len(body)))
        upstream.endheaders(body)
        response = upstream.getresponse()
        payload = response.read()
        upstream.close()
        if time.time() - started > 1:
            print(f"slow upstream: {self.command} {self.path} {response.status} {time.time() - started:.1f} s", file=sys.stderr, flush=True)
        if drop:
            return self.break_answer()  # done by the server, the answer lost
        self.send_response(response.status, response.reason)
        for name, value in response.getheaders():
            if name.lower() not in HOP_BY_HOP and name.lower() != "content-length":
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        if payload and draw("truncate"):
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(payload[: len(payload) // 2])
            self.close_connection = True
            return
        self.end_headers()
        self.wfile.write(payload)

    def break_answer(self):
        """Breaks the connection at the start of an answer: its head, then nothing of the body it
        announces. (Two ways of breaking a connection are left out, because the client, not
        the store, fails on them: closed before a whole status line, libcurl under
        swift-corelibs-foundation sends the request again on a new connection without its
        body, which then waits for its timeout; closed after a status line but before the end
        of the head, swift-corelibs-foundation stops the process with "Transfer completed, but
        there's no response". See Sources/MemoSyncRemote/HTTP/URLSessionTransport.swift.)"""
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 64\r\n\r\n")
        self.wfile.flush()
        self.close_connection = True

    def answer_error(self, status):
        body = f"<Error><Code>{'InternalError' if status == 500 else 'ServiceUnavailable'}</Code><Message>injected by the fault proxy</Message></Error>".encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = forward
    do_PROPFIND = do_MKCOL = do_MOVE = do_COPY = do_OPTIONS = do_PROPPATCH = do_LOCK = do_UNLOCK = forward


def main():
    global UPSTREAM_PORT
    port, UPSTREAM_PORT = int(sys.argv[1]), int(sys.argv[2])
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    main()
