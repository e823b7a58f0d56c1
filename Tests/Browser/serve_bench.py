#!/usr/bin/env python3
"""Figures of `memo serve` with 10,000 memos (BENCHMARKS.md), through its HTTP API as the page
uses it: the first page of the list, a search, and a keystroke's round trip (POST of the edit to
its confirmation on the event stream). Prints one JSON object.

Usage: serve_bench.py MEMO_EXECUTABLE [MEMOS]   (MEMO_BENCH_DIR=DIR keeps and reuses the library)
"""
import http.client, json, os, re, socket, subprocess, sys, tempfile, time

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
server = subprocess.Popen([MEMO, 'serve', '--no-open', '--library', library], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
url = re.search(r'http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]+)', server.stdout.readline())
port, token = int(url.group(1)), url.group(2)
host = f'127.0.0.1:{port}'
headers = {'Host': host, 'Cookie': f'memo_serve={token}'}
post = {**headers, 'Origin': f'http://{host}', 'Content-Type': 'application/json'}


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
events.sendall(f'GET /api/events HTTP/1.1\r\nHost: {host}\r\nCookie: memo_serve={token}\r\nSec-Fetch-Site: same-origin\r\n\r\n'.encode())
events.settimeout(10)
buffer = b''
round_trips = []
for index in range(300):
    start = time.perf_counter()
    connection.request('POST', f'/api/memos/{memo_id}/edits', headers=post,
                       body=json.dumps({'revision': revision, 'operation': [length, 'k'], 'client': 'bench'}))
    connection.getresponse().read()
    while f'"revision":{revision + 1}'.encode() not in buffer:
        buffer += events.recv(65536)
    round_trips.append((time.perf_counter() - start) * 1000)
    buffer = buffer[buffer.index(f'"revision":{revision + 1}'.encode()):]
    revision += 1
    length += 1
    time.sleep(0.01)
server.terminate()
server.wait(timeout=10)


def percentile(values, p):
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * p))], 3)


print(json.dumps({'benchmark': 'serve', 'memos': COUNT,
                  'first_page_ms_median': percentile(first, 0.5), 'first_page_ms_max': round(max(first), 3),
                  'search_ms_median': percentile(search, 0.5), 'search_ms_max': round(max(search), 3),
                  'keystroke_round_trip_ms_median': percentile(round_trips, 0.5), 'keystroke_round_trip_ms_p99': percentile(round_trips, 0.99)}))
