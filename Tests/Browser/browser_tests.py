#!/usr/bin/env python3
"""Browser tests of `memo serve` in headless Chromium, driven by the DevTools protocol over a
pipe (--remote-debugging-pipe): Python's standard library only, no Selenium, no packages.

Usage: browser_tests.py MEMO_EXECUTABLE ARTEFACTS_DIR
Every wait is bounded; on failure the scenario is printed with what the page showed, and the
screenshots are in ARTEFACTS_DIR.
"""
import base64, json, os, re, shutil, subprocess, sys, tempfile, time

MEMO, ARTEFACTS = sys.argv[1], sys.argv[2]
os.makedirs(ARTEFACTS, exist_ok=True)
CHROMIUM = shutil.which('chromium') or shutil.which('chromium-browser') or shutil.which('google-chrome')
WAIT = 15.0
failures = []


class Browser:
    """Chromium over --remote-debugging-pipe: fd 3 carries commands, fd 4 answers, NUL-separated."""

    def __init__(self, language):
        self.profile = tempfile.mkdtemp(prefix='memo-browser-')
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        os.set_inheritable(to_browser_r, True); os.set_inheritable(from_browser_w, True)

        def fds():
            os.dup2(to_browser_r, 3); os.dup2(from_browser_w, 4)
        self.process = subprocess.Popen(
            [CHROMIUM, '--headless=new', '--remote-debugging-pipe', '--no-sandbox', '--disable-gpu', '--no-first-run',
             '--disable-extensions', '--disable-background-networking', '--user-data-dir=' + self.profile,
             '--lang=' + language, '--accept-lang=' + language, '--window-size=1200,800', 'about:blank'],
            preexec_fn=fds, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r); os.close(from_browser_w)
        self.buffer = b''
        self.next_id = 0
        self.events = []
        target = self.call('Target.createTarget', {'url': 'about:blank'})['targetId']
        self.session = self.call('Target.attachToTarget', {'targetId': target, 'flatten': True})['sessionId']
        self.call('Page.enable', session=True)
        self.call('Runtime.enable', session=True)
        self.call('Emulation.setUserAgentOverride', {'userAgent': 'memo-browser-test', 'acceptLanguage': language}, session=True)

    def call(self, method, params=None, session=False):
        self.next_id += 1
        message = {'id': self.next_id, 'method': method, 'params': params or {}}
        if session: message['sessionId'] = self.session
        os.write(self.to_browser, json.dumps(message).encode() + b'\0')
        deadline = time.time() + WAIT
        while time.time() < deadline:
            while b'\0' in self.buffer:
                raw, self.buffer = self.buffer.split(b'\0', 1)
                answer = json.loads(raw)
                if answer.get('id') == self.next_id:
                    if 'error' in answer: raise RuntimeError(f'{method}: {answer["error"]}')
                    return answer.get('result', {})
                self.events.append(answer)
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk: raise RuntimeError('chromium exited')
            self.buffer += chunk
        raise RuntimeError(f'{method}: no answer within {WAIT} s')

    def js(self, expression):
        # In a function of its own: a `const` of one evaluation never clashes with the next's.
        expression = f'(async () => {{ return ({expression}); }})()' if ';' not in expression else f'(async () => {{ {expression} }})()'
        result = self.call('Runtime.evaluate', {'expression': expression, 'awaitPromise': True, 'returnByValue': True}, session=True)
        if 'exceptionDetails' in result: raise RuntimeError(f'{expression}: {result["exceptionDetails"]}')
        return result['result'].get('value')

    def go(self, url):
        self.call('Page.navigate', {'url': url}, session=True)
        wait(lambda: self.js('document.readyState') == 'complete' and self.js("!!document.getElementById('list')"), 'the page loads')
        wait(lambda: self.js("document.getElementById('new').textContent.length > 0"), 'the page texts')

    def screenshot(self, name):
        data = self.call('Page.captureScreenshot', {'format': 'png'}, session=True)['data']
        path = os.path.join(ARTEFACTS, name + '.png')
        with open(path, 'wb') as f: f.write(base64.b64decode(data))
        return path

    def close(self):
        try: self.call('Browser.close')
        except Exception: pass
        try: self.process.wait(timeout=10)
        except Exception: self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def wait(condition, what, seconds=WAIT, detail=None):
    """Waits for `condition`; on timeout fails saying what it waited for and, when given,
    `detail()` (what the page showed instead)."""
    deadline = time.time() + seconds
    last = None
    while time.time() < deadline:
        try:
            if condition(): return
        except Exception as error:  # noqa: BLE001 - retried until the deadline
            last = error
        time.sleep(0.05)
    seen = ''
    if detail is not None:
        try: seen = f'; {detail()}'
        except Exception as error:  # noqa: BLE001 - the failure is reported either way
            seen = f'; (what was shown could not be read: {error})'
    raise AssertionError(f'waited {seconds} s for: {what}' + (f' (last error: {last})' if last else '') + seen)


class Served:
    """`memo serve --no-open` on a library of its own."""

    def __init__(self, library, options=()):
        self.library = library
        # Its errors go to a file (a pipe nobody reads could fill and stop it).
        self.errors = tempfile.TemporaryFile(mode='w+')
        self.process = subprocess.Popen([MEMO, 'serve', '--no-open', '--library', library, *options], stdout=subprocess.PIPE,
                                        stderr=self.errors, text=True, env={**os.environ, 'LANG': 'C.UTF-8'})
        line = self.process.stdout.readline()
        match = re.search(r'(http://127\.0\.0\.1:\d+/\?token=[0-9a-f]+)', line)
        if not match: raise RuntimeError(f'memo serve printed {line!r}: {self.stopped()}')
        self.url = match.group(1)

    def stopped(self):
        """None while it runs; else how it ended and the end of what it wrote to stderr."""
        if self.process.poll() is None: return None
        self.errors.seek(0)
        return f'memo serve ended with {self.process.returncode}: {self.errors.read()[-2000:]!r}'

    def memo(self, *arguments):
        return subprocess.run([MEMO, *arguments, '--library', self.library], capture_output=True, text=True, timeout=60)

    def stop(self):
        self.process.terminate()
        try: self.process.wait(timeout=10)
        except subprocess.TimeoutExpired: self.process.kill()


ONLY = os.environ.get('MEMO_BROWSER_ONLY', '')


def scenario(name):
    def run(body):
        if ONLY not in name: return body
        print(f'browser test: {name}', flush=True)
        try:
            body()
        except Exception as error:  # noqa: BLE001 - reported, then the next scenario runs
            failures.append(name)
            print(f'FAILED: {name}: {error}', flush=True)
        return body
    return run


root = tempfile.mkdtemp(prefix='memo-browser-libraries-')
served = Served(os.path.join(root, 'library'))
browser = Browser('en-US')
memo_id = None
try:
    @scenario('a memo typed in the page appears in memo list')
    def typed():
        global memo_id
        browser.go(served.url)
        browser.js("document.getElementById('new').click()")
        wait(lambda: browser.js("document.activeElement.id") == 'text', 'the new memo is focused')
        browser.call('Input.insertText', {'text': 'Hello from the browser'}, session=True)
        wait(lambda: 'Hello from the browser' in served.memo('list').stdout, 'memo list shows the memo')
        memo_id = served.memo('list', '--json').stdout
        memo_id = json.loads(memo_id)[0]['id'] if memo_id.strip().startswith('[') else json.loads(memo_id)['memos'][0]['id']

    @scenario('Korean typed through IME composition while a remote edit arrives stays as typed')
    def ime():
        browser.js("const t = document.getElementById('text'); t.focus(); t.setSelectionRange(t.value.length, t.value.length)")
        browser.call('Input.insertText', {'text': ' '}, session=True)
        for step in ['ㅎ', '하', '한']:
            browser.call('Input.imeSetComposition', {'text': step, 'selectionStart': len(step), 'selectionEnd': len(step)}, session=True)
        # Another command writes while the composition is open.
        edit = served.memo('edit', memo_id[:8], '--insert', '0', 'REMOTE ')
        assert edit.returncode == 0, edit.stderr
        time.sleep(1.5)
        assert browser.js("document.getElementById('text').value").endswith('한'), 'the composition was disturbed'
        browser.call('Input.insertText', {'text': '한'}, session=True)
        for step in ['ㄱ', '그', '글']:
            browser.call('Input.imeSetComposition', {'text': step, 'selectionStart': len(step), 'selectionEnd': len(step)}, session=True)
        browser.call('Input.insertText', {'text': '글'}, session=True)
        expected = 'REMOTE Hello from the browser 한글'
        wait(lambda: browser.js("document.getElementById('text').value") == expected, 'the page shows ' + expected)
        wait(lambda: served.memo('show', memo_id[:8]).stdout.rstrip('\n').endswith(expected), 'memo show has ' + expected)
        caret = browser.js("document.getElementById('text').selectionStart")
        assert caret == len(expected), f'the caret moved: {caret}'

    @scenario('Ctrl+Z in the page takes back its own typing, never another command\'s edit; Ctrl+Shift+Z brings it back')
    def undo():
        # SERVE.md: undo is the engine's undo of this device's edits, across other commands'
        # changes, which it never undoes.
        before = 'REMOTE Hello from the browser 한글'
        time.sleep(2.2)  # past the engine's 2 s grouping of typing at the caret
        browser.js("const t = document.getElementById('text'); t.focus(); t.setSelectionRange(t.value.length, t.value.length)")
        browser.call('Input.insertText', {'text': ' typed'}, session=True)
        wait(lambda: served.memo('show', memo_id[:8]).stdout.rstrip('\n').endswith(before + ' typed'), 'memo show has the typing')
        edit = served.memo('edit', memo_id[:8], '--insert', '0', 'OTHER ')
        assert edit.returncode == 0, edit.stderr
        wait(lambda: browser.js("document.getElementById('text').value") == 'OTHER ' + before + ' typed', 'the page shows the other edit')

        def ctrl(key, shift=False):
            for kind in ('rawKeyDown', 'keyUp'):
                browser.call('Input.dispatchKeyEvent', {'type': kind, 'key': key.upper() if shift else key, 'code': 'Key' + key.upper(),
                                                        'windowsVirtualKeyCode': ord(key.upper()), 'modifiers': 2 | (8 if shift else 0)}, session=True)
        ctrl('z')
        wait(lambda: browser.js("document.getElementById('text').value") == 'OTHER ' + before, 'Ctrl+Z took back the typing, not the other edit')
        wait(lambda: served.memo('show', memo_id[:8]).stdout.rstrip('\n') == 'OTHER ' + before, 'memo show agrees after the undo')
        ctrl('z', shift=True)
        wait(lambda: browser.js("document.getElementById('text').value") == 'OTHER ' + before + ' typed', 'Ctrl+Shift+Z brought the typing back')
        wait(lambda: served.memo('show', memo_id[:8]).stdout.rstrip('\n') == 'OTHER ' + before + ' typed', 'memo show agrees after the redo')

    @scenario('search highlights matches (accents and case ignored)')
    def search():
        served.memo('new', 'Café au lait')
        browser.js("const s = document.getElementById('search'); s.focus()")
        browser.call('Input.insertText', {'text': 'CAFE'}, session=True)
        wait(lambda: browser.js("document.querySelectorAll('#list li').length") == 1 and browser.js("!!document.querySelector('#list mark')"), 'one result, highlighted')
        assert browser.js("document.querySelector('#list mark').textContent") == 'Café'
        browser.screenshot('search')
        browser.js("const s = document.getElementById('search'); s.value=''; s.dispatchEvent(new Event('input'))")
        wait(lambda: browser.js("document.querySelectorAll('#list li').length") == 2, 'the whole list again')

    @scenario('trash and restore')
    def trash():
        browser.js("document.querySelector('#list li').click()")
        wait(lambda: browser.js("document.getElementById('text').value") == 'Café au lait', 'the memo open')
        browser.js("document.getElementById('delete').click()")
        wait(lambda: browser.js("document.querySelectorAll('#list li').length") == 1, 'one memo left')
        browser.js("document.getElementById('show-trash').click()")
        wait(lambda: browser.js("document.querySelectorAll('#list li').length") == 1, 'one memo in the trash')
        browser.screenshot('trash')
        browser.js("document.getElementById('restore').click()")
        wait(lambda: browser.js("document.querySelectorAll('#list li').length") == 0, 'the trash empty')
        browser.js("document.getElementById('show-trash').click()")
        wait(lambda: browser.js("document.querySelectorAll('#list li').length") == 2, 'both memos back')

    def no_overflow():
        return browser.js("document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1")

    @scenario('light and dark')
    def themes():
        browser.call('Emulation.setEmulatedMedia', {'features': [{'name': 'prefers-color-scheme', 'value': 'light'}]}, session=True)
        assert browser.js("getComputedStyle(document.body).backgroundColor") == 'rgb(255, 255, 255)'
        browser.screenshot('light')
        shutil.copy(os.path.join(ARTEFACTS, 'light.png'), os.path.join(ARTEFACTS, 'screenshot.png'))
        browser.call('Emulation.setEmulatedMedia', {'features': [{'name': 'prefers-color-scheme', 'value': 'dark'}]}, session=True)
        wait(lambda: browser.js("getComputedStyle(document.body).backgroundColor") == 'rgb(23, 24, 26)', 'dark colours')
        assert browser.js("getComputedStyle(document.body).color") == 'rgb(236, 236, 238)'
        browser.screenshot('dark')
        browser.js("document.getElementById('theme').click()")
        wait(lambda: browser.js("getComputedStyle(document.body).backgroundColor") == 'rgb(255, 255, 255)', 'the switch chooses light')
        browser.js("localStorage.removeItem('memo-theme'); delete document.documentElement.dataset.theme")

    @scenario('200% text size: no horizontal overflow')
    def large():
        browser.call('Emulation.setEmulatedMedia', {'features': [{'name': 'prefers-color-scheme', 'value': 'light'}]}, session=True)
        browser.js("document.documentElement.style.fontSize = '200%'")
        assert no_overflow(), 'horizontal overflow at 200% text'
        browser.screenshot('text-200')
        browser.js("document.documentElement.style.fontSize = ''")
        browser.call('Emulation.setDeviceMetricsOverride', {'width': 600, 'height': 400, 'deviceScaleFactor': 2, 'mobile': False}, session=True)
        time.sleep(0.3)
        assert no_overflow(), 'horizontal overflow at 200% zoom'
        browser.screenshot('zoom-200')
        browser.call('Emulation.clearDeviceMetricsOverride', session=True)

    @scenario('a memo made while the page\'s event stream was starting is listed')
    def stream_start():
        # The page's event stream tells what changes from its start on. Hold its request (the
        # DevTools Fetch domain) until `memo new` was merged by the server, so that the list
        # event is posted before the stream starts: the page must fetch the list again when the
        # stream opens, or it never lists the memo (the README screenshot's rare failure).
        assert served.memo('new', 'Made before the page loaded').returncode == 0
        time.sleep(1)   # merged by the server
        browser.call('Fetch.enable', {'patterns': [{'urlPattern': '*/api/events*', 'requestStage': 'Request'}]}, session=True)
        try:
            browser.go(served.url)
            wait(lambda: 'Made before the page' in (browser.js("document.getElementById('list').textContent") or ''), 'the list shown')
            paused = []

            def stream_paused():
                browser.js('1')   # reads what Chromium sent meanwhile into browser.events
                paused[:] = [e['params']['requestId'] for e in browser.events if e.get('method') == 'Fetch.requestPaused']
                return bool(paused)
            wait(stream_paused, 'the event stream request held')
            made = served.memo('new', 'Made while the stream was starting')
            assert made.returncode == 0, f'memo new while served: exit {made.returncode}: {made.stderr}'
            time.sleep(1.5)   # the server looks at the folder every 200 ms: merged, list event posted
            assert 'Made while the stream' not in (browser.js("document.getElementById('list').textContent") or ''), 'listed before the stream started'
            for request in paused:
                browser.call('Fetch.continueRequest', {'requestId': request}, session=True)
        finally:
            browser.events = [e for e in browser.events if e.get('method') != 'Fetch.requestPaused']
            browser.call('Fetch.disable', session=True)
        wait(lambda: 'Made while the stream' in (browser.js("document.getElementById('list').textContent") or ''),
             'the memo listed once the stream opened', seconds=10)

    def press(key, code, key_code):
        for kind in ('rawKeyDown', 'keyUp'):
            browser.call('Input.dispatchKeyEvent', {'type': kind, 'key': key, 'code': code, 'windowsVirtualKeyCode': key_code,
                                                    'nativeVirtualKeyCode': key_code}, session=True)

    def selected_title():
        return browser.js("((document.querySelector('#list li[aria-selected=true] .title') || {}).textContent) || ''")

    @scenario('the keys the page shows: N new memo, / search, arrows move, Enter edit, Esc back to the list')
    def keys():
        # ServeText: "Keys: N new memo, / search, ↑ ↓ move, Enter edit, Esc back to the list".
        for text in ['Keys first\none', 'Keys second\ntwo']:
            assert served.memo('new', text).returncode == 0
        browser.go(served.url)
        # Both memos listed before anything is counted: the server notices another command's
        # memos at its next look at the folder, which on a slow machine may come after the page
        # loaded (a count taken before they arrived missed the new memo's row by two).
        titles = "[...document.querySelectorAll('#list li .title')].map((e) => e.textContent)"
        wait(lambda: {'Keys first', 'Keys second'} <= set(browser.js(titles)), 'both memos listed')
        browser.js("document.activeElement.blur(); document.body.focus()")
        press('/', 'Slash', 191)
        wait(lambda: browser.js("document.activeElement.id") == 'search', '/ focuses search')
        press('Escape', 'Escape', 27)
        wait(lambda: browser.js("document.activeElement.id") == 'list', 'Esc in search goes back to the list')
        press('ArrowDown', 'ArrowDown', 40)
        wait(lambda: selected_title() != '', 'a memo selected')
        first = selected_title()
        press('ArrowDown', 'ArrowDown', 40)
        wait(lambda: selected_title() not in ('', first), 'ArrowDown moves the selection')
        second = selected_title()
        press('ArrowUp', 'ArrowUp', 38)
        wait(lambda: selected_title() == first, 'ArrowUp moves it back')
        wait(lambda: browser.js("document.getElementById('text').value").startswith(first), 'the selected memo shown')
        press('Enter', 'Enter', 13)
        wait(lambda: browser.js("document.activeElement.id") == 'text', 'Enter opens the memo in the editor')
        assert browser.js("document.getElementById('text').value").startswith(first), (first, second)
        press('Escape', 'Escape', 27)
        wait(lambda: browser.js("document.activeElement.id") == 'list', 'Esc in the editor goes back to the list')
        count = browser.js("document.querySelectorAll('#list li').length")
        listed = len(served.memo('list', '--json').stdout)
        press('n', 'KeyN', 78)
        wait(lambda: browser.js("document.activeElement.id") == 'text' and browser.js("document.getElementById('text').value") == '',
             'N makes a new, empty memo and focuses it')
        wait(lambda: browser.js("document.querySelectorAll('#list li').length") == count + 1, 'the new memo listed')
        wait(lambda: len(served.memo('list', '--json').stdout) > listed, 'the new memo saved in the library')

    @scenario('the README screenshot')
    def readme():
        for text in ['Trip to Lisbon\nBook the train to Sintra, pastéis de nata in Belém.',
                     'Groceries\nmilk, eggs, coffee beans, lemons',
                     'Ideas for the talk\nOffline first: every device edits its own copy; copies merge character by character.']:
            made = served.memo('new', text)
            assert made.returncode == 0, f'memo new while served: exit {made.returncode}: {made.stderr}'
        browser.go(served.url)
        # Earlier scenarios left memos: wait for the newest of these (the list is newest first),
        # not for a count the list may reach before the new memos arrive.
        try:
            wait(lambda: (browser.js("(document.querySelector('#list li') || {}).textContent || ''") or '').find('Ideas for the talk') >= 0,
                 'the newest memo listed first', seconds=30)
        except AssertionError as error:
            shown = browser.js("[...document.querySelectorAll('#list li .title')].map((e) => e.textContent).slice(0, 5)")
            listed = served.memo('list').stdout.splitlines()[:5]
            raise AssertionError(f'{error}; the page lists {shown!r}; memo list says {listed!r}; the server: {served.stopped()!r}') from None
        browser.js("document.querySelector('#list li').click()")
        wait(lambda: browser.js("document.getElementById('text').value").startswith('Ideas'), 'the memo open')
        browser.js("const t = document.getElementById('text'); t.focus(); t.setSelectionRange(t.value.length, t.value.length);")
        browser.call('Input.insertText', {'text': ' Two people typing at one place get their words one after the other.'}, session=True)
        browser.js("document.getElementById('search').blur()")
        time.sleep(0.5)
        browser.screenshot('readme')
finally:
    browser.close()

for language, expected in [('ko', '새 메모'), ('ja', '新規メモ')]:
    @scenario(f'texts in {language}')
    def localized():
        other = Browser(language)
        try:
            other.go(served.url)
            wait(lambda: other.js("document.getElementById('new').textContent") == expected, f'the button reads {expected}')
            assert other.js("document.documentElement.lang") == language
            other.screenshot('language-' + language)
        finally:
            other.close()



def open_listed(page, title):
    """Opens `page` on the served library, clicks the memo titled `title` and waits for its
    text; returns the memo's id."""
    page.go(served.url)
    find = f"[...document.querySelectorAll('#list li')].find((e) => e.querySelector('.title').textContent === {json.dumps(title)})"
    wait(lambda: page.js(f"!!{find}"), 'the memo listed')
    page.js(f"{find}.click()")
    wait(lambda: page.js("document.getElementById('text').value") == title, 'the memo open')
    return page.js("state.memo")


@scenario('a reload keeps the typing the server has not confirmed, typed again over what changed meanwhile')
def reload_keeps_typing():
    # SERVE.md, "Reloading keeps the typing": typing the server never confirmed (here never
    # sent, as when an edit is refused or the server restarted) is typed again on the text the
    # reload brings, moved over what another command wrote meanwhile, and reaches the library.
    made = served.memo('new', 'reload base')
    assert made.returncode == 0, made.stderr
    page = Browser('en-US')
    try:
        memo = open_listed(page, 'reload base')
        page.js("const t = document.getElementById('text'); t.value = 'reload base KEPT'; state.collab.edit(t.value);")
        edit = served.memo('edit', memo[:8], '--insert', '0', 'MEANWHILE ')
        assert edit.returncode == 0, edit.stderr
        page.js("void openMemo(state.memo)")
        expected = 'MEANWHILE reload base KEPT'
        shown = lambda: page.js("document.getElementById('text').value")
        wait(lambda: shown() == expected, 'the page shows ' + expected, detail=lambda: f'the page: {shown()!r}')
        wait(lambda: served.memo('show', memo[:8]).stdout.rstrip('\n') == expected, 'memo show has ' + expected,
             detail=lambda: f'memo show: {served.memo("show", memo[:8]).stdout!r}')
    finally:
        page.close()


@scenario('a reload whose answer comes after the events it missed types nothing twice')
def reload_answer_after_events():
    # SERVE.md, "Reloading keeps the typing": while a reload is on its way the page applies no
    # update, and it first asks for the changes it missed. Here every answer is held back a
    # second, so the event of `memo edit` arrives before the answer to the reload, which the
    # server gave before it saw that edit. Before, the page applied the event, then typed its
    # typing again over the older text it loaded, and its typing reached the library twice.
    made = served.memo('new', 'slow base')
    assert made.returncode == 0, made.stderr
    page = Browser('en-US')
    try:
        memo = open_listed(page, 'slow base')
        page.js("const t = document.getElementById('text'); t.value = 'slow base KEPT'; state.collab.edit(t.value);")
        page.js("const original = window.fetch; window.fetch = (u, o) => original(u, o).then((r) => new Promise((ok) => setTimeout(() => ok(r), 1000)));")
        page.js("void openMemo(state.memo)")
        edit = served.memo('edit', memo[:8], '--insert', '0', 'MEANWHILE ')
        assert edit.returncode == 0, edit.stderr
        expected = 'MEANWHILE slow base KEPT'
        shown = lambda: page.js("document.getElementById('text').value")
        wait(lambda: served.memo('show', memo[:8]).stdout.rstrip('\n') == expected, 'memo show has ' + expected,
             detail=lambda: f'memo show: {served.memo("show", memo[:8]).stdout!r}, the page: {shown()!r}')
        wait(lambda: shown() == expected, 'the page shows ' + expected, detail=lambda: f'the page: {shown()!r}')
        time.sleep(1.5)
        assert shown() == expected and served.memo('show', memo[:8]).stdout.rstrip('\n') == expected, \
            f'after the answers: the page {shown()!r}, memo show {served.memo("show", memo[:8]).stdout!r}'
    finally:
        page.close()


@scenario('events lost on their way: the page catches up, its own edit confirmed, not typed again')
def lost_events_caught_up():
    # SERVE.md, "Reloading keeps the typing": the page sends its typing, the server applies it
    # and `memo edit` changes the memo too, but both events are lost (dropped here); a reload
    # then takes the changes since the page's revision, its own as the confirmation.
    made = served.memo('new', 'lost base')
    assert made.returncode == 0, made.stderr
    page = Browser('en-US')
    try:
        memo = open_listed(page, 'lost base')
        page.js("window.droppedUpdates = []; window.keptUpdate = streamHandlers.update; streamHandlers.update = (data) => droppedUpdates.push(data);")
        page.js("const t = document.getElementById('text'); t.value = 'lost base SENT'; localEdit();")
        wait(lambda: served.memo('show', memo[:8]).stdout.rstrip('\n') == 'lost base SENT', 'memo show has the typing')
        edit = served.memo('edit', memo[:8], '--insert', '0', 'MEANWHILE ')
        assert edit.returncode == 0, edit.stderr
        wait(lambda: page.js("droppedUpdates.length") == 2, 'both events dropped', detail=lambda: f'{page.js("droppedUpdates")!r}')
        page.js("streamHandlers.update = keptUpdate; void openMemo(state.memo)")
        expected = 'MEANWHILE lost base SENT'
        shown = lambda: page.js("document.getElementById('text').value")
        wait(lambda: shown() == expected and page.js("state.collab.outstanding === null"), 'the page shows ' + expected + ', confirmed',
             detail=lambda: f'the page: {shown()!r}')
        time.sleep(1)
        assert served.memo('show', memo[:8]).stdout.rstrip('\n') == expected, served.memo('show', memo[:8]).stdout
    finally:
        page.close()


@scenario('a page that catches up shows a memo trashed meanwhile as trashed')
def caught_up_status():
    # SERVE.md, "Reloading keeps the typing, once": the changes' answer carries the memo's
    # status, and a page that catches up (here after `memo delete`) shows it.
    made = served.memo('new', 'trashed meanwhile')
    assert made.returncode == 0, made.stderr
    page = Browser('en-US')
    try:
        memo = open_listed(page, 'trashed meanwhile')
        assert page.js("document.getElementById('text').disabled") is False
        deleted = served.memo('delete', memo[:8])
        assert deleted.returncode == 0, deleted.stderr
        # Once the server saw it (the page's list drops the memo), the page catches up.
        wait(lambda: not page.js("[...document.querySelectorAll('#list li .title')].some((e) => e.textContent === 'trashed meanwhile')"),
             'the memo gone from the list')
        assert page.js("document.getElementById('text').disabled") is False, 'the page learnt the status before catching up'
        page.js("void openMemo(state.memo)")
        wait(lambda: page.js("document.getElementById('text').disabled") is True and page.js("state.status") == 'trashed',
             'the editor shown as trashed', detail=lambda: f'status {page.js("state.status")!r}')
    finally:
        page.close()


@scenario('the token stays out of cookies and the address bar; export and a reload of / still work')
def token_kept_by_the_page():
    # SERVE.md, "Safe on a shared machine": no cookie (a cookie is the host's, sent to every
    # server on 127.0.0.1); the page keeps the token in its session storage and sends it in a
    # header, also for the export (a download fetched with it) and after a reload of "/".
    made = served.memo('new', 'export me')
    assert made.returncode == 0, made.stderr
    page = Browser('en-US')
    downloads = tempfile.mkdtemp(prefix='memo-browser-downloads-')
    try:
        page.go(served.url)
        wait(lambda: page.js("location.href").endswith('/') and '?' not in page.js("location.href") and '#' not in page.js("location.href"),
             'the token dropped from the address bar')
        cookies = page.call('Storage.getCookies')['cookies']
        assert cookies == [], f'cookies: {cookies!r}'
        page.call('Page.reload', session=True)
        find = "[...document.querySelectorAll('#list li')].find((e) => e.querySelector('.title').textContent === 'export me')"
        wait(lambda: page.js(f"!!{find}"), 'the memo listed after a reload of /')
        page.js(f"{find}.click()")
        wait(lambda: page.js("document.getElementById('text').value") == 'export me', 'the memo open')
        page.call('Browser.setDownloadBehavior', {'behavior': 'allow', 'downloadPath': downloads})
        page.js("document.getElementById('export').click()")
        wait(lambda: os.path.exists(os.path.join(downloads, 'export me.txt')), 'the export downloaded as "export me.txt"')
        with open(os.path.join(downloads, 'export me.txt'), encoding='utf-8') as exported:
            assert exported.read().rstrip('\n') == 'export me'
    finally:
        page.close()
        shutil.rmtree(downloads, ignore_errors=True)


@scenario('two libraries, two pages typing in one memo at once, synced through a folder')
def two_libraries():
    store = os.path.join(root, 'store')
    os.makedirs(store)
    first, second = os.path.join(root, 'a'), os.path.join(root, 'b')
    def memo(library, *arguments):
        done = subprocess.run([MEMO, *arguments, '--library', library], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, f'memo {arguments}: {done.stderr}'
        return done.stdout
    memo(first, 'new', 'Shared memo')
    memo(first, 'sync', '--store', store)
    memo(second, 'sync', '--store', store)
    servers = [Served(first, ['--sync-interval', '1']), Served(second, ['--sync-interval', '1'])]
    pages = []
    try:
        for server in servers:
            page = Browser('en-US')
            pages.append(page)
            page.go(server.url)
            wait(lambda: page.js("document.querySelectorAll('#list li').length") == 1, 'the shared memo listed')
            page.js("document.querySelector('#list li').click()")
            wait(lambda: page.js("document.getElementById('text').value") == 'Shared memo', 'the shared memo open')
        for page in pages:
            # Every reopen of the memo (a gap in the updates, a refusal) is counted: it would
            # drop what is unconfirmed and move the caret, and the failure says so.
            page.js("window.reopens = []; const original = openMemo; openMemo = (id) => { window.reopens.push(new Error().stack); return original(id); }; return true;")
        pages[0].js("const t = document.getElementById('text'); t.focus(); t.setSelectionRange(t.value.length, t.value.length);")
        pages[1].js("const t = document.getElementById('text'); t.focus(); t.setSelectionRange(0, 0);")
        for index in range(12):
            pages[0].call('Input.insertText', {'text': 'a'}, session=True)
            pages[1].call('Input.insertText', {'text': 'b'}, session=True)
            time.sleep(0.15)
        expected = 'b' * 12 + 'Shared memo' + 'a' * 12
        typed = time.time()
        for number, page in enumerate(pages):
            try:
                wait(lambda: page.js("document.getElementById('text').value") == expected, f'page {number + 1} shows {expected!r}', seconds=30)
            except AssertionError as error:
                shown = [other.js("[document.getElementById('text').value, document.getElementById('status').textContent, window.reopens]") for other in pages]
                ended = [server.stopped() for server in servers]
                raise AssertionError(f'{error}; the pages show (text, status line, reopens) {shown!r}; the servers: {ended!r}') from None
        for number, page in enumerate(pages):
            reopens = page.js('window.reopens')
            assert reopens == [], f'page {number + 1} opened the memo again while typing: {reopens!r}'
        if os.environ.get('MEMO_BROWSER_TIMES'): print(f'both pages converged {time.time() - typed:.1f} s after the last keystroke', flush=True)
        for library in (first, second):
            wait(lambda: memo(library, 'show', memo(library, 'list', '--json').split('"id" : "')[1][:8]).rstrip('\n').endswith(expected), 'memo show', seconds=30)
        assert pages[0].js("document.getElementById('text').selectionStart") == len(expected), 'the caret of page 1 moved'
        assert pages[1].js("document.getElementById('text').selectionStart") == 12, 'the caret of page 2 moved'
        pages[0].screenshot('two-libraries')
        for server in servers: assert server.stopped() is None, server.stopped()
    finally:
        for page in pages: page.close()
        for server in servers: server.stop()


@scenario('a damaged library is told above the list')
def damaged_library():
    library = os.path.join(root, 'damaged')
    for text in ['first memo alpha', 'second', 'third']:
        made = subprocess.run([MEMO, 'new', text, '--library', library], capture_output=True, text=True, timeout=60)
        assert made.returncode == 0, made.stderr
    journal = os.path.join(library, 'journal-0')
    with open(journal, 'r+b') as f:  # one bit of the first record (README: bit rot)
        f.seek(20); byte = f.read(1)[0]; f.seek(20); f.write(bytes([byte ^ 4]))
    server = Served(library)
    pages = []
    try:
        for language, expected in [('en-US', 'This library was damaged: 1 saved record(s) lost, and '), ('ko', '이 라이브러리가 손상되었습니다')]:
            page = Browser(language)
            pages.append(page)
            page.go(server.url)
            wait(lambda: not page.js("document.getElementById('damage').hidden"), 'the damage notice shown (' + language + ')')
            notice = page.js("document.getElementById('damage-text').textContent")
            assert notice.startswith(expected), notice
            assert 'journal-0.damaged-1' in notice and 'memo recover' in notice, notice
            assert page.js("document.getElementById('damage').getAttribute('role')") == 'alert'
        # The held-back text, shown on request, memo by memo, as text.
        page = pages[0]
        page.js("document.getElementById('damage-show').click()")
        texts = "[...document.querySelectorAll('#damage-texts pre')].map((e) => e.textContent).sort()"
        wait(lambda: page.js(texts) == ['second', 'third'], 'the held-back texts shown')
        headings = page.js("[...document.querySelectorAll('#damage-texts h2')].map((e) => e.textContent)")
        assert headings == ['Not in this library (its creation waits too)'] * 2, headings
        # Titles and texts as written: not in the headings' capitals of the list.
        assert page.js("getComputedStyle(document.querySelector('#damage-texts h2')).textTransform") == 'none'
        pages[0].screenshot('damage')
        # The memos saved after the lost record wait; memo recover gives their text.
        recovered = server.memo('recover', '--json')
        assert sorted(m['text'] for m in json.loads(recovered.stdout)['memos']) == ['second', 'third'], recovered.stdout
        # Restored as new memos (Korean page): they come to the list; a second restore makes none.
        korean = pages[1]
        assert not korean.js("document.getElementById('damage-restore').hidden")
        korean.js("document.getElementById('damage-restore').click()")
        wait(lambda: korean.js("document.getElementById('damage-texts').textContent").startswith('보류된 텍스트를 새 메모 2개에'), 'the restore told (ko)')
        titles = "[...document.querySelectorAll('#list li')].map((e) => e.querySelector('.title') ? e.querySelector('.title').textContent : e.textContent)"
        for page in pages:
            wait(lambda: sum(1 for title in page.js(titles) if title.startswith('second') or title.startswith('third')) == 2, 'the restored memos listed')
        page = pages[0]
        page.js("document.getElementById('damage-restore').click()")
        wait(lambda: page.js("document.getElementById('damage-texts').textContent").startswith('0 new memo(s) hold the held-back text (2 restored before)'), 'a second restore creates none')
        assert json.loads(server.memo('recover', '--json').stdout)['heldBackOperations'] > 0, 'the held-back operations still wait'
        assert server.stopped() is None, server.stopped()
    finally:
        for page in pages: page.close()
        server.stop()
    # An undamaged library shows no notice (the first scenarios' page).
    check = Browser('en-US')
    try:
        check.go(served.url)
        # The status event (which carries the damage) has arrived once the status line is set.
        wait(lambda: check.js("document.getElementById('status').textContent.length > 0"), 'the status shown')
        assert check.js("document.getElementById('damage').hidden"), 'a notice on an undamaged library'
    finally:
        check.close()


@scenario('history panel: an older version shown, restored; a version not retained says so')
def history_panel():
    library, other, store = os.path.join(root, 'history'), os.path.join(root, 'history-phone'), os.path.join(root, 'history-store')
    os.makedirs(store)
    day = 86_400_000
    then = int(time.time() * 1000) - 3 * day

    def run(folder, *arguments, at=None):
        # `at`: the wall clock of a self-check build's test hook (MEMO_TEST_NOW_MILLISECONDS),
        # for a library that keeps deleted text: ignored by one that keeps none.
        environment = {**os.environ, **({'MEMO_TEST_NOW_MILLISECONDS': str(at)} if at else {})}
        return subprocess.run([MEMO, *arguments, '--library', folder], capture_output=True, text=True, timeout=60, env=environment)

    def ok(folder, *arguments, at=None):
        done = run(folder, *arguments, at=at)
        assert done.returncode == 0, f'memo {arguments}: {done.stderr}'
        return done.stdout
    # A memo whose first version no library keeps: a paragraph deleted on another device three
    # days ago, and this library keeps deleted text for a day at most (or keeps none).
    ok(library, 'new', 'Plans\nA paragraph deleted on the phone.\nThe rest.', at=then)
    ok(library, 'sync', '--store', store, at=then)
    ok(other, 'sync', '--store', store, at=then)
    plans = json.loads(ok(other, 'list', '--json'))
    plans = (plans if isinstance(plans, list) else plans['memos'])[0]['id']
    ok(other, 'edit', plans[:8], '--delete', '6', '34', at=then + 3_600_000)
    ok(other, 'sync', at=then + 3_600_000)
    ok(library, 'sync', at=then + 7_200_000)
    run(library, 'history', '--keep', '1')   # a library without retention has no such option
    ok(library, 'new', 'Groceries\nmilk')
    server = Served(library)
    pages = []
    try:
        listed = json.loads(server.memo('list', '--json').stdout)
        memo = next(m['id'] for m in (listed if isinstance(listed, list) else listed['memos']) if m['title'] == 'Groceries')
        # Another device: `memo edit` while the server shares the library takes an id of its own.
        edit = server.memo('edit', memo[:8], '--insert', '14', '\neggs')
        assert edit.returncode == 0, edit.stderr
        page = Browser('en-US')
        pages.append(page)
        page.go(server.url)
        groceries = "[...document.querySelectorAll('#list li')].find((e) => e.textContent.startsWith('Groceries'))"
        wait(lambda: page.js(f"!!{groceries}"), 'the memo listed')
        page.js(f"{groceries}.click()")
        wait(lambda: page.js("document.getElementById('text').value") == 'Groceries\nmilk\neggs', 'the memo open with the edit')
        shown = "[...document.getElementById('history-text').childNodes].filter((n) => n.nodeName !== 'DEL').map((n) => n.textContent).join('')"
        page.js("document.getElementById('history-toggle').click()")
        wait(lambda: page.js("document.getElementById('history-slider').max") == '1', 'two versions on the slider')
        wait(lambda: page.js(shown) == 'Groceries\nmilk\neggs', 'the newest version shown')
        assert page.js("document.getElementById('history-restore').disabled"), 'restore offered for the current text'
        assert page.js("document.activeElement.id") == 'history-slider', 'the slider has the focus'

        def key(name, code):
            for kind in ('keyDown', 'keyUp'):
                page.call('Input.dispatchKeyEvent', {'type': kind, 'key': name, 'code': name, 'windowsVirtualKeyCode': code}, session=True)
        key('ArrowLeft', 37)   # the slider, by keyboard: the older version
        wait(lambda: page.js(shown) == 'Groceries\nmilk', 'the older version shown')
        deleted = "[...document.querySelectorAll('#history-text del')].map((e) => e.textContent)"
        assert page.js(deleted) == ['\neggs'], 'the edit since marked'
        assert 'Version 1 of 2' in page.js("document.getElementById('history-slider').getAttribute('aria-valuetext')")
        assert 'this device' in page.js("document.getElementById('history-version').textContent")
        page.screenshot('history')
        # Against the version before it (none: the empty text), the whole version is its own.
        page.js("document.querySelector('input[name=\"history-compare\"][value=\"previous\"]').click()")
        wait(lambda: page.js("[...document.querySelectorAll('#history-text ins')].map((e) => e.textContent)") == ['Groceries\nmilk'], 'marked against the version before')
        page.js("document.querySelector('input[name=\"history-compare\"][value=\"current\"]').click()")
        wait(lambda: page.js(deleted) == ['\neggs'], 'marked against the current text again')
        # Light and dark, and 200% text: the marks keep their colours, nothing overflows.
        page.call('Emulation.setEmulatedMedia', {'features': [{'name': 'prefers-color-scheme', 'value': 'dark'}]}, session=True)
        wait(lambda: page.js("getComputedStyle(document.querySelector('#history-text del')).backgroundColor") == 'rgb(90, 29, 29)', 'dark marks')
        assert page.js("getComputedStyle(document.getElementById('history')).backgroundColor") == 'rgb(32, 34, 37)'
        page.js("document.documentElement.style.fontSize = '200%'")
        assert page.js("document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1"), 'horizontal overflow at 200% text'
        page.js("document.getElementById('history-text').scrollIntoView({ block: 'end' })")
        page.screenshot('history-dark-200')
        page.js("document.documentElement.style.fontSize = ''")
        page.call('Emulation.setEmulatedMedia', {'features': [{'name': 'prefers-color-scheme', 'value': 'light'}]}, session=True)
        wait(lambda: page.js("getComputedStyle(document.querySelector('#history-text del')).backgroundColor") == 'rgb(251, 218, 218)', 'light marks')

        # Restore: the memo's text is the older version's, in the page and in the library.
        wait(lambda: not page.js("document.getElementById('history-restore').disabled"), 'restore offered')
        page.js("document.getElementById('history-restore').click()")
        wait(lambda: page.js("document.getElementById('text').value") == 'Groceries\nmilk', 'the page shows the restored text')
        wait(lambda: server.memo('show', memo[:8]).stdout.rstrip('\n') == 'Groceries\nmilk', 'memo show has the restored text')
        wait(lambda: 'Undo' in page.js("document.getElementById('history-note').textContent"), 'the restore told')
        wait(lambda: page.js("document.getElementById('history-slider').max") == '2', 'the restore is a third version')
        # Home: the oldest. A change arriving while the panel is open (another device's edit)
        # adds a version; the panel keeps the version shown and marks the new text.
        page.js("document.getElementById('history-slider').focus()")
        key('Home', 36)
        wait(lambda: page.js(shown) == 'Groceries\nmilk' and page.js(deleted) == [], 'the oldest version shown')
        edit = server.memo('edit', memo[:8], '--insert', '0', 'Today: ')
        assert edit.returncode == 0, edit.stderr
        wait(lambda: page.js("document.getElementById('history-slider').max") == '3', 'the new version on the slider')
        wait(lambda: page.js(deleted) == ['Today: '], 'the new text marked')
        assert page.js("document.getElementById('history-slider').value") == '0', 'the version shown changed'
        assert page.js(shown) == 'Groceries\nmilk'

        # The memo whose first version no library keeps: the slider has it, the panel says why
        # it cannot be shown (with the count), and offers no restore.
        plans_item = "[...document.querySelectorAll('#list li')].find((e) => e.textContent.startsWith('Plans'))"
        page.js(f"{plans_item}.click()")
        wait(lambda: page.js("document.getElementById('text').value") == 'Plans\nThe rest.', 'the other memo open')
        wait(lambda: page.js("document.getElementById('history-slider').max") == '1' and page.js(shown) == 'Plans\nThe rest.', 'its versions')
        page.js("document.getElementById('history-slider').focus()")
        key('ArrowLeft', 37)
        message = "document.getElementById('history-message')"
        wait(lambda: not page.js(message + '.hidden') and page.js(message + '.textContent').startswith('This version cannot be shown: 34 deleted characters'),
             'the not-retained message',
             detail=lambda: 'message hidden %r: %r; shown %r; slider %r of %r' % (
                 page.js(message + '.hidden'), page.js(message + '.textContent'), page.js(shown),
                 page.js("document.getElementById('history-slider').value"), page.js("document.getElementById('history-slider').max")))
        assert page.js("document.getElementById('history-text').hidden"), 'a text shown for a version not retained'
        assert page.js("document.getElementById('history-restore').disabled")
        assert 'Version 1 of 2' in page.js("document.getElementById('history-slider').getAttribute('aria-valuetext')")
        page.screenshot('history-not-retained')
        # The same message in Korean.
        korean = Browser('ko')
        pages.append(korean)
        korean.go(server.url)
        wait(lambda: korean.js(f"!!{plans_item}"), 'the memo listed (ko)')
        korean.js(f"{plans_item}.click()")
        wait(lambda: korean.js("document.getElementById('text').value") == 'Plans\nThe rest.', 'the memo open (ko)')
        assert korean.js("document.getElementById('history-toggle').textContent") == '기록'
        korean.js("document.getElementById('history-toggle').click()")
        wait(lambda: korean.js("document.getElementById('history-slider').max") == '1', 'two versions (ko)')
        korean.js("const s = document.getElementById('history-slider'); s.value = '0'; s.dispatchEvent(new Event('input'))")
        wait(lambda: '삭제된 글자 34개' in (korean.js(message + '.textContent') or ''), 'the not-retained message in Korean')
        assert server.stopped() is None, server.stopped()
    finally:
        for page in pages: page.close()
        server.stop()

if served.stopped():
    failures.append('the served library')
    print(f'FAILED: the server of the first scenarios stopped: {served.stopped()}', flush=True)
served.stop()
shutil.rmtree(root, ignore_errors=True)
if failures:
    print(f'browser tests: {len(failures)} failed: {", ".join(failures)} (screenshots in {ARTEFACTS})')
    sys.exit(1)
print(f'browser tests: all passed (screenshots in {ARTEFACTS})')
