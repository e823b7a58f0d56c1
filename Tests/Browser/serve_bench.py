#!/usr/bin/env python3
"""Figures of `memo serve` with 10,000 memos (BENCHMARKS.md), through its HTTP API as the page
uses it: the first page of the list, a search, and a keystroke's round trip (POST of the edit to
its confirmation on the event stream). Prints one JSON object.

With --remote, also the time from a change being written to a folder store to its showing on
another library's open page (its event stream), that page's server syncing on a 1 s interval:
two libraries of the same memos (the second made by `memo sync` from the first through the
store), two `memo serve --store STORE --sync-interval 1`; an edit typed through the first
server's API, the store folder watched for the blob its sync writes, the second server's event
stream read until the edit arrives there.

Usage: serve_bench.py MEMO_EXECUTABLE [MEMOS] [--remote]   (MEMO_BENCH_DIR=DIR keeps and reuses the libraries)
"""
import http.client, json, os, random, re, socket, subprocess, sys, tempfile, threading, time

REMOTE = '--remote' in sys.argv[1:]
sys.argv = [a for a in sys.argv if a != '--remote']

MEMO = sys.argv[1]
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
root = os.environ.get('MEMO_BENCH_DIR') or tempfile.mkdtemp(prefix='memo-serve-bench-')
files = os.path.join(root, 'files')
library = os.path.join(root, 'library')
os.makedirs(files, exist_ok=True)
words = 'apple banana cherry delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa'.split()
for index in range(COUNT):
    with open(os.path.join(files, f'{index:05}.txt'), 'w') as f:
        f.write(f'Memo {index} {words[index % len(words)]}\n' + ' '.join(words[(index + k) % len(words)] for k in range(40)) + '\n')
if not os.path.exists(library):   # MEMO_BENCH_DIR: a library made by an earlier run is reused
    subprocess.run([MEMO, 'import', files, '--library', library, '--quiet'], check=True, capture_output=True)


def serve(path, *options):
    """Starts `memo serve` on the library at `path`: the process, its port, GET and POST headers."""
    process = subprocess.Popen([MEMO, 'serve', '--no-open', '--library', path, *options], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    found = re.search(r'http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]+)', process.stdout.readline())
    served_port, served_token = int(found.group(1)), found.group(2)
    get = {'Host': f'127.0.0.1:{served_port}', 'X-Memo-Token': served_token}
    return process, served_port, get, {**get, 'Origin': f'http://127.0.0.1:{served_port}', 'Content-Type': 'application/json'}


def event_stream(served_port, get):
    """A connection reading the server's event stream."""
    stream = socket.create_connection(('127.0.0.1', served_port))
    stream.sendall(f'GET /api/events HTTP/1.1\r\nHost: {get["Host"]}\r\nCookie: {get["Cookie"]}\r\nSec-Fetch-Site: same-origin\r\n\r\n'.encode())
    stream.settimeout(15)
    return stream


server, port, headers, post = serve(library)
host = headers['Host']
token = headers['X-Memo-Token']


def timed_get(connection, path):
    start = time.perf_counter()
    connection.request('GET', path, headers=headers)
    body = connection.getresponse().read()
    return (time.perf_counter() - start) * 1000, json.loads(body)


connection = http.client.HTTPConnection('127.0.0.1', port)
first = [timed_get(connection, '/api/memos?offset=0&limit=100')[0] for _ in range(20)]
search = [timed_get(connection, '/api/memos?q=' + q)[0] for q in ['ban', 'banana', 'memo+99', 'CHERRY', 'zz'] * 4]
memo_id = timed_get(connection, '/api/memos?limit=1')[1]['memos'][0]['id']
_, memo = timed_get(connection, '/api/memos/' + memo_id)
revision, length = memo['revision'], len(memo['text'].encode('utf-16-le')) // 2

events = socket.create_connection(('127.0.0.1', port))
events.sendall(f'GET /api/events HTTP/1.1\r\nHost: {host}\r\nX-Memo-Token: {token}\r\nSec-Fetch-Site: same-origin\r\n\r\n'.encode())
events.settimeout(10)
buffer = b''
# The stream is registered once its first event (the status) arrives: an edit's confirmation
# posted before that would never reach this stream.
while b'event: status' not in buffer:
    buffer += events.recv(65536)
round_trips = []
for index in range(300):
    start = time.perf_counter()
    connection.request('POST', f'/api/memos/{memo_id}/edits', headers=post,
                       body=json.dumps({'run': memo['run'], 'revision': revision, 'operation': [length, 'k'], 'client': 'bench'}))
    connection.getresponse().read()
    while f'"revision":{revision + 1}'.encode() not in buffer:
        buffer += events.recv(65536)
    round_trips.append((time.perf_counter() - start) * 1000)
    buffer = buffer[buffer.index(f'"revision":{revision + 1}'.encode()):]
    revision += 1
    length += 1
    time.sleep(0.01)
server.terminate()
server.wait(timeout=30)


def remote_figures(runs=10):
    """Milliseconds from the store holding a change to the other library's page being told."""
    store = os.path.join(root, 'store')
    other = os.path.join(root, 'library-b')
    if not os.path.exists(other):
        subprocess.run([MEMO, 'sync', '--library', library, '--store', store, '--quiet'], check=True, capture_output=True)
        subprocess.run([MEMO, 'sync', '--library', other, '--store', store, '--quiet'], check=True, capture_output=True)
    writer, writer_port, writer_get, writer_post = serve(library, '--store', store, '--sync-interval', '1')
    reader, reader_port, reader_get, _ = serve(other, '--store', store, '--sync-interval', '1')
    try:
        def get(served_port, get_headers, path):
            connection = http.client.HTTPConnection('127.0.0.1', served_port, timeout=30)
            connection.request('GET', path, headers=get_headers)
            return json.loads(connection.getresponse().read())

        def post(path, body):
            connection = http.client.HTTPConnection('127.0.0.1', writer_port, timeout=30)
            connection.request('POST', path, headers=writer_post, body=body)
            connection.getresponse().read()

        shown_id = get(writer_port, writer_get, '/api/memos?limit=1')['memos'][0]['id']
        get(reader_port, reader_get, '/api/memos/' + shown_id)   # the memo open on the other page
        stream = event_stream(reader_port, reader_get)
        delays = []
        for index in range(runs):
            time.sleep(random.uniform(0.5, 1.5))   # no phase lock with the 1 s intervals
            marker = f'[{index}:{random.randrange(10**9)}]'   # typed at the end: the other server's change is exactly it
            before = {os.path.join(d, f) for d, _, names in os.walk(store) for f in names}
            written = []
            stop = threading.Event()

            def watch():
                while not stop.is_set():
                    now = {os.path.join(d, f) for d, _, names in os.walk(store) for f in names}
                    if any('tmp' not in os.path.basename(f) for f in now - before):
                        written.append(time.perf_counter())
                        return
                    time.sleep(0.002)

            watcher = threading.Thread(target=watch)
            watcher.start()
            memo = get(writer_port, writer_get, '/api/memos/' + shown_id)
            length = len(memo['text'].encode('utf-16-le')) // 2
            post(f'/api/memos/{shown_id}/edits', json.dumps({'run': memo['run'], 'revision': memo['revision'], 'operation': [length, marker], 'client': 'bench'}))
            post('/api/sync', '{}')   # as the page's sync button
            received = b''
            deadline = time.perf_counter() + 30
            while marker.encode() not in received and time.perf_counter() < deadline:
                received = received[-len(marker):] + stream.recv(65536)
            shown = time.perf_counter()
            stop.set()
            watcher.join()
            if marker.encode() in received and written:
                delays.append((shown - written[0]) * 1000)
        return delays
    finally:
        for process in (writer, reader):
            process.terminate()
            process.wait(timeout=30)


def percentile(values, p):
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * p))], 3)


figures = {'benchmark': 'serve', 'memos': COUNT,
           'first_page_ms_median': percentile(first, 0.5), 'first_page_ms_max': round(max(first), 3),
           'search_ms_median': percentile(search, 0.5), 'search_ms_max': round(max(search), 3),
           'keystroke_round_trip_ms_median': percentile(round_trips, 0.5), 'keystroke_round_trip_ms_p99': percentile(round_trips, 0.99)}
if REMOTE:
    delays = remote_figures()
    figures.update({'remote_runs': 10, 'remote_shown': len(delays),
                    'remote_shown_ms_median': percentile(delays, 0.5) if delays else None,
                    'remote_shown_ms_max': round(max(delays), 3) if delays else None})
print(json.dumps(figures))
