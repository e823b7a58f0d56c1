// The page's files, embedded (the only files `memo serve` ever serves: no path is mapped to
// the file system). The sources are these strings; the script's scheme transcribes Collab.swift.
// No packages, no inline script (the Content-Security-Policy forbids it).

/// The files of the page, by path.
enum PageAssets {
    /// Path -> content type and body.
    static let files: [String: (type: String, body: String)] = [
        "/": ("text/html; charset=utf-8", html),
        "/index.html": ("text/html; charset=utf-8", html),
        "/app.css": ("text/css; charset=utf-8", css),
        "/app.js": ("text/javascript; charset=utf-8", script),
        "/strings.js": ("text/javascript; charset=utf-8", ServeText.script),
    ]

    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>MemoSync</title>
<link rel="stylesheet" href="/app.css">
<script src="/strings.js" defer></script>
<script src="/app.js" defer></script>
</head>
<body>
<header class="bar">
  <h1 data-t="app.title">MemoSync</h1>
  <div class="actions">
    <button type="button" id="new" data-t="button.new">New memo</button>
    <button type="button" id="show-trash" data-t="button.trash">Trash</button>
    <button type="button" id="sync" data-t="button.sync">Sync now</button>
    <button type="button" id="theme" data-t-label="button.theme"><span aria-hidden="true">◐</span></button>
  </div>
</header>
<section id="damage" role="alert" hidden>
  <p id="damage-text"></p>
  <button type="button" id="damage-show" data-t="damage.show" hidden>Show their text</button>
  <button type="button" id="damage-restore" data-t="damage.restore" hidden>Restore as new memos</button>
  <div id="damage-texts" hidden></div>
</section>
<main class="split">
  <nav class="sidebar" aria-labelledby="list-heading">
    <label for="search" class="hidden-label" data-t="search.label">Search memos</label>
    <input id="search" type="search" autocomplete="off" spellcheck="false" data-t-placeholder="search.placeholder">
    <h2 id="list-heading" data-t="list.label">Memos</h2>
    <ul id="list" role="listbox" tabindex="0" aria-labelledby="list-heading"></ul>
    <p id="list-empty" hidden></p>
    <button type="button" id="more" hidden></button>
  </nav>
  <section class="editor" aria-labelledby="editor-label">
    <div class="toolbar" role="toolbar" aria-labelledby="editor-label">
      <button type="button" id="undo" data-t="button.undo">Undo</button>
      <button type="button" id="redo" data-t="button.redo">Redo</button>
      <button type="button" id="delete" data-t="button.delete">Move to trash</button>
      <button type="button" id="restore" data-t="button.restore" hidden>Restore</button>
      <button type="button" id="purge" data-t="button.purge" hidden>Delete for good</button>
      <a id="export" class="button" data-t="button.export" download>Export as file</a>
      <button type="button" id="copy" data-t="button.copy">Copy</button>
      <button type="button" id="history-toggle" data-t="button.history" aria-expanded="false" aria-controls="history">History</button>
    </div>
    <label for="text" id="editor-label" class="hidden-label" data-t="editor.label">Memo text</label>
    <p id="editor-note" role="note"></p>
    <textarea id="text" spellcheck="true"></textarea>
    <p id="modified"></p>
    <section id="history" class="history" aria-labelledby="history-title" hidden>
      <div class="history-head">
        <h2 id="history-title" data-t="history.title">History</h2>
        <button type="button" id="history-close" data-t="history.close">Close history</button>
      </div>
      <label for="history-slider" data-t="history.slider">Version</label>
      <input type="range" id="history-slider" min="0" max="0" step="1" value="0">
      <p id="history-version"></p>
      <fieldset class="history-compare">
        <legend data-t="history.compare">Mark changes against</legend>
        <label><input type="radio" name="history-compare" value="current" checked> <span data-t="history.compare.current">the current text</span></label>
        <label><input type="radio" name="history-compare" value="previous"> <span data-t="history.compare.previous">the version before</span></label>
      </fieldset>
      <p id="history-legend" data-t="history.legend"></p>
      <p id="history-message" role="alert" hidden></p>
      <pre id="history-text" tabindex="0" aria-labelledby="history-version"></pre>
      <div class="history-actions">
        <button type="button" id="history-restore" data-t="history.restore" disabled>Restore this version</button>
        <span id="history-note" role="status"></span>
      </div>
    </section>
  </section>
</main>
<footer class="bar">
  <span id="status" role="status" aria-live="polite"></span>
  <span id="keys"></span>
</footer>
</body>
</html>
"""#

    static let css = #"""
/* memo serve's page: rem units throughout (text size follows the browser's setting and zoom),
   light and dark (the system's, or the one chosen: html[data-theme]). */
:root {
  --bg: #ffffff; --fg: #1c1c1e; --muted: #5f6368; --line: #d0d4d9; --panel: #f4f5f7;
  --accent: #0b57d0; --accent-fg: #ffffff; --selected: #dbe6fb; --mark: #ffe58a; --mark-fg: #1c1c1e;
  --ins: #d3f3dc; --ins-fg: #0b3d1a; --del: #fbdada; --del-fg: #5c0b0b;
  color-scheme: light;
}
@media (prefers-color-scheme: dark) {
  :root:not([data-theme="light"]) {
    --bg: #17181a; --fg: #ececee; --muted: #a4a8ae; --line: #3a3d42; --panel: #202225;
    --accent: #8ab4f8; --accent-fg: #0b1a33; --selected: #2c3b55; --mark: #7a5d00; --mark-fg: #fff6d6;
    --ins: #1d4d2b; --ins-fg: #d9fbe3; --del: #5a1d1d; --del-fg: #ffdede;
    color-scheme: dark;
  }
}
:root[data-theme="dark"] {
  --bg: #17181a; --fg: #ececee; --muted: #a4a8ae; --line: #3a3d42; --panel: #202225;
  --accent: #8ab4f8; --accent-fg: #0b1a33; --selected: #2c3b55; --mark: #7a5d00; --mark-fg: #fff6d6;
  --ins: #1d4d2b; --ins-fg: #d9fbe3; --del: #5a1d1d; --del-fg: #ffdede;
  color-scheme: dark;
}
* { box-sizing: border-box; }
html, body { height: 100%; }
body {
  margin: 0; display: flex; flex-direction: column; min-height: 100%;
  background: var(--bg); color: var(--fg);
  font: 1rem/1.5 system-ui, -apple-system, "Segoe UI", "Noto Sans", "Noto Sans CJK KR", "Noto Sans CJK JP", sans-serif;
  overflow-wrap: anywhere;
}
.bar { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem 1rem; padding: 0.5rem 1rem; background: var(--panel); border-bottom: 0.0625rem solid var(--line); }
footer.bar { border-top: 0.0625rem solid var(--line); border-bottom: 0; font-size: 0.875rem; color: var(--muted); }
h1 { font-size: 1.25rem; margin: 0; flex: 1 1 auto; }
h2 { font-size: 0.875rem; margin: 0.75rem 0 0.25rem; color: var(--muted); text-transform: uppercase; letter-spacing: 0.05em; }
.actions { display: flex; flex-wrap: wrap; gap: 0.5rem; }
button, .button {
  font: inherit; font-size: 0.9375rem; color: var(--fg); background: var(--bg); border: 0.0625rem solid var(--line);
  border-radius: 0.375rem; padding: 0.25rem 0.75rem; cursor: pointer; text-decoration: none; display: inline-block;
}
button:hover, .button:hover { border-color: var(--accent); }
#new { background: var(--accent); color: var(--accent-fg); border-color: var(--accent); }
:focus-visible { outline: 0.1875rem solid var(--accent); outline-offset: 0.125rem; }
.split { flex: 1 1 auto; display: grid; grid-template-columns: minmax(14rem, 22rem) minmax(0, 1fr); min-height: 0; }
.sidebar { border-right: 0.0625rem solid var(--line); padding: 0.75rem; overflow-y: auto; min-width: 0; max-height: calc(100vh - 7rem); }
#search { width: 100%; font: inherit; padding: 0.375rem 0.5rem; color: var(--fg); background: var(--bg); border: 0.0625rem solid var(--line); border-radius: 0.375rem; }
#list { list-style: none; margin: 0; padding: 0; }
#list li { display: grid; gap: 0.125rem; padding: 0.5rem; border-radius: 0.375rem; cursor: pointer; border-bottom: 0.0625rem solid var(--line); }
#list li[aria-selected="true"] { background: var(--selected); }
#list .title { font-weight: 600; }
#list .preview { color: var(--muted); font-size: 0.875rem; display: -webkit-box; -webkit-line-clamp: 2; -webkit-box-orient: vertical; overflow: hidden; }
#list .time { color: var(--muted); font-size: 0.75rem; }
mark { background: var(--mark); color: var(--mark-fg); border-radius: 0.125rem; }
#more { margin-top: 0.5rem; width: 100%; }
.editor { display: flex; flex-direction: column; padding: 0.75rem; gap: 0.5rem; min-width: 0; }
.toolbar { display: flex; flex-wrap: wrap; gap: 0.5rem; }
#text {
  flex: 1 1 auto; min-height: 15rem; width: 100%; resize: none; font: inherit; font-size: 1.0625rem; line-height: 1.6;
  padding: 0.75rem; color: var(--fg); background: var(--bg); border: 0.0625rem solid var(--line); border-radius: 0.375rem;
}
#text:disabled { color: var(--muted); }
/* With the history panel open, the editor gives it room (and the page scrolls to it). */
.editor.with-history #text { flex: 0 1 auto; min-height: 6rem; height: 10rem; }
#editor-note, #list-empty { color: var(--muted); margin: 0; }
#editor-note[hidden] { display: none; }
#modified { color: var(--muted); font-size: 0.8125rem; margin: 0; }
/* The history panel (issue 27): a slider over the memo's versions, the text at the chosen one. */
.history { display: grid; gap: 0.5rem; min-width: 0; padding: 0.75rem; background: var(--panel); border: 0.0625rem solid var(--line); border-radius: 0.375rem; }
.history-head { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 0.5rem; }
.history h2 { margin: 0; }
#history-slider { width: 100%; margin: 0; accent-color: var(--accent); }
#history-version, #history-legend, #history-message { margin: 0; }
#history-legend, #history-note { color: var(--muted); font-size: 0.875rem; }
#history-message { padding-left: 0.5rem; border-left: 0.25rem solid var(--accent); }
#damage { padding: 0.5rem 1rem; background: var(--del); color: var(--del-fg); border-bottom: 0.0625rem solid var(--line); }
#damage p { margin: 0 0 0.25rem; }
#damage-texts { max-height: 40vh; overflow: auto; }
#damage-texts h2 { color: inherit; text-transform: none; letter-spacing: normal; }
#damage-texts pre { margin: 0; padding: 0.5rem; white-space: pre-wrap; background: var(--bg); color: var(--fg); border: 0.0625rem solid var(--line); border-radius: 0.375rem; }
.history-compare { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; margin: 0; padding: 0; border: 0; min-width: 0; }
.history-compare legend { padding: 0; margin-bottom: 0.25rem; }
#history-text {
  margin: 0; max-height: 50vh; overflow-y: auto; white-space: pre-wrap; overflow-wrap: anywhere; font: inherit; font-size: 1.0625rem;
  line-height: 1.6; padding: 0.75rem; color: var(--fg); background: var(--bg); border: 0.0625rem solid var(--line); border-radius: 0.375rem;
}
#history-text ins { background: var(--ins); color: var(--ins-fg); text-decoration: underline; }
#history-text del { background: var(--del); color: var(--del-fg); text-decoration: line-through; }
.history-actions { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem 1rem; }
button:disabled { opacity: 0.55; cursor: default; }
[hidden] { display: none !important; }
.hidden-label { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
@media (max-width: 40rem) {
  /* One column: the list above the editor, the page scrolls. */
  .split { display: flex; flex-direction: column; }
  .sidebar { border-right: 0; border-bottom: 0.0625rem solid var(--line); max-height: none; flex: 0 0 auto; }
  #list { max-height: 40vh; overflow-y: auto; }
}
"""#

    static let script = #"""
// memo serve's page (no packages). The scheme with the server is Collab.swift's, transcribed:
// TextOperation and Collab below follow it function by function (SERVE.md).
'use strict';

// ---- Texts ---------------------------------------------------------------------------------
const STRINGS = window.MEMO_STRINGS;
function pickLanguage() {
  const wanted = (navigator.languages && navigator.languages.length) ? navigator.languages : [navigator.language || 'en'];
  for (const tag of wanted) {
    const code = String(tag).toLowerCase().slice(0, 2);
    if (STRINGS[code]) return code;
  }
  return 'en';
}
const LANG = pickLanguage();
document.documentElement.lang = LANG;
function t(key, args) {
  let text = (STRINGS[LANG] && STRINGS[LANG][key]) || STRINGS.en[key] || key;
  for (const name in (args || {})) text = text.split('{' + name + '}').join(String(args[name]));
  return text;
}

// ---- The access token (SERVE.md, "Safe on a shared machine") ---------------------------------
// The address memo serve printed brings it: the server answers it with /#token=..., a fragment no
// request carries. The page keeps it in its session storage (this origin's: this host and port
// only) and sends it in the X-Memo-Token header of every request; no cookie carries it to the
// other servers of this host.
const TOKEN = (() => {
  const given = /^#token=([0-9a-f]{64})$/.exec(location.hash);
  if (given) {
    sessionStorage.setItem('memo-serve-token', given[1]);
    history.replaceState(null, '', '/');
  }
  return sessionStorage.getItem('memo-serve-token') || '';
})();
function withToken(headers) { return Object.assign({ 'X-Memo-Token': TOKEN }, headers || {}); }

// ---- The scheme (Collab.swift) ---------------------------------------------------------------
class TextOperation {
  constructor() { this.ops = []; this.baseLength = 0; this.targetLength = 0; }
  retain(n) {
    if (n <= 0) return this;
    this.baseLength += n; this.targetLength += n;
    const last = this.ops.length - 1;
    if (last >= 0 && typeof this.ops[last] === 'number' && this.ops[last] > 0) this.ops[last] += n;
    else this.ops.push(n);
    return this;
  }
  insert(s) {
    if (s.length === 0) return this;
    this.targetLength += s.length;
    const count = this.ops.length;
    const last = this.ops[count - 1];
    if (typeof last === 'string') this.ops[count - 1] += s;
    else if (typeof last === 'number' && last < 0) {
      if (count >= 2 && typeof this.ops[count - 2] === 'string') this.ops[count - 2] += s;
      else this.ops.splice(count - 1, 0, s);
    } else this.ops.push(s);
    return this;
  }
  delete(n) {
    if (n <= 0) return this;
    this.baseLength += n;
    const last = this.ops.length - 1;
    if (last >= 0 && typeof this.ops[last] === 'number' && this.ops[last] < 0) this.ops[last] -= n;
    else this.ops.push(-n);
    return this;
  }
  isNoop() { return this.ops.every((op) => typeof op === 'number' && op > 0); }
  static replacing(from, to, text, length) {
    return new TextOperation().retain(from).insert(text).delete(to - from).retain(length - to);
  }
  static difference(old, now) {
    const limit = Math.min(old.length, now.length);
    let prefix = 0;
    while (prefix < limit && old.charCodeAt(prefix) === now.charCodeAt(prefix)) prefix++;
    if (prefix > 0 && isLead(old.charCodeAt(prefix - 1))) prefix--;
    let suffix = 0;
    while (suffix < limit - prefix && old.charCodeAt(old.length - 1 - suffix) === now.charCodeAt(now.length - 1 - suffix)) suffix++;
    if (suffix > 0 && isTrail(old.charCodeAt(old.length - suffix))) suffix--;
    return TextOperation.replacing(prefix, old.length - suffix, now.slice(prefix, now.length - suffix), old.length);
  }
  apply(text) {
    if (text.length !== this.baseLength) return null;
    const parts = [];
    let index = 0;
    for (const op of this.ops) {
      if (typeof op === 'string') parts.push(op);
      else if (op > 0) { parts.push(text.slice(index, index + op)); index += op; }
      else index -= op;
    }
    return parts.join('');
  }
  static compose(a, b) {
    if (a.targetLength !== b.baseLength) return null;
    const result = new TextOperation();
    const first = new Cursor(a.ops), second = new Cursor(b.ops);
    for (;;) {
      const x = first.current, y = second.current;
      if (x === null && y === null) return result;
      if (x !== null && typeof x === 'number' && x < 0) { result.delete(-x); first.advance(); continue; }
      if (y !== null && typeof y === 'string') { result.insert(y); second.advance(); continue; }
      if (x === null || y === null) return null;
      if (typeof x === 'number' && x > 0 && typeof y === 'number' && y > 0) {
        const k = Math.min(x, y); result.retain(k); first.consume(k); second.consume(k);
      } else if (typeof x === 'string' && y < 0) {
        const k = Math.min(x.length, -y); first.consume(k); second.consume(k);
      } else if (typeof x === 'string' && y > 0) {
        const k = Math.min(x.length, y); result.insert(x.slice(0, k)); first.consume(k); second.consume(k);
      } else if (typeof x === 'number' && x > 0 && y < 0) {
        const k = Math.min(x, -y); result.delete(k); first.consume(k); second.consume(k);
      } else return null;
    }
  }
  static transform(a, b) {
    if (a.baseLength !== b.baseLength) return null;
    const aPrime = new TextOperation(), bPrime = new TextOperation();
    const first = new Cursor(a.ops), second = new Cursor(b.ops);
    for (;;) {
      const x = first.current, y = second.current;
      if (x === null && y === null) return [aPrime, bPrime];
      if (x !== null && typeof x === 'string') { aPrime.insert(x); bPrime.retain(x.length); first.advance(); continue; }
      if (y !== null && typeof y === 'string') { aPrime.retain(y.length); bPrime.insert(y); second.advance(); continue; }
      if (x === null || y === null) return null;
      if (x > 0 && y > 0) {
        const k = Math.min(x, y); aPrime.retain(k); bPrime.retain(k); first.consume(k); second.consume(k);
      } else if (x < 0 && y < 0) {
        const k = Math.min(-x, -y); first.consume(k); second.consume(k);
      } else if (x < 0 && y > 0) {
        const k = Math.min(-x, y); aPrime.delete(k); first.consume(k); second.consume(k);
      } else {
        const k = Math.min(x, -y); bPrime.delete(k); first.consume(k); second.consume(k);
      }
    }
  }
  mapPosition(offset) {
    let before = 0, after = 0;
    for (const op of this.ops) {
      if (before >= offset) return after;
      if (typeof op === 'string') after += op.length;
      else if (op > 0) {
        const k = Math.min(op, offset - before); before += k; after += k;
        if (k < op) return after;
      } else {
        const k = Math.min(-op, offset - before); before += k;
        if (k < -op) return after;
      }
    }
    return after;
  }
  toJSON() { return this.ops.slice(); }
  static fromJSON(ops) {
    const operation = new TextOperation();
    for (const op of ops) {
      if (typeof op === 'string') operation.insert(op);
      else if (op > 0) operation.retain(op);
      else operation.delete(-op);
    }
    return operation;
  }
}
function isLead(unit) { return unit >= 0xD800 && unit <= 0xDBFF; }
function isTrail(unit) { return unit >= 0xDC00 && unit <= 0xDFFF; }

class Cursor {
  constructor(ops) { this.ops = ops; this.index = 0; this.current = ops.length ? ops[0] : null; }
  advance() { this.index++; this.current = this.index < this.ops.length ? this.ops[this.index] : null; }
  consume(count) {
    const c = this.current;
    if (typeof c === 'number' && c > 0 && c > count) this.current = c - count;
    else if (typeof c === 'number' && c < 0 && -c > count) this.current = c + count;
    else if (typeof c === 'string' && c.length > count) this.current = c.slice(count);
    else this.advance();
  }
}

class Collab {
  constructor(text, revision) { this.text = text; this.revision = revision; this.outstanding = null; this.buffer = null; }
  edit(newText) {
    const operation = TextOperation.difference(this.text, newText);
    this.text = newText;
    if (operation.isNoop()) return null;
    if (this.outstanding === null) { this.outstanding = operation; return { operation, base: this.revision }; }
    this.buffer = this.buffer ? TextOperation.compose(this.buffer, operation) : operation;
    return null;
  }
  confirmed() {
    this.revision += 1;
    this.outstanding = this.buffer;
    this.buffer = null;
    return this.outstanding ? { operation: this.outstanding, base: this.revision } : null;
  }
  received(operation) {
    let incoming = operation;
    if (this.outstanding) {
      const pair = TextOperation.transform(this.outstanding, incoming);
      if (!pair) return null;
      this.outstanding = pair[0]; incoming = pair[1];
      if (this.buffer) {
        const second = TextOperation.transform(this.buffer, incoming);
        if (!second) return null;
        this.buffer = second[0]; incoming = second[1];
      }
    }
    const changed = incoming.apply(this.text);
    if (changed === null) return null;
    this.text = changed;
    this.revision += 1;
    return incoming;
  }
}

// ---- Search highlighting (the engine's folding: case, accents, NFC/NFD) -----------------------
function fold(text) {
  let folded = '';
  const map = [];
  let offset = 0;
  for (const character of text) {
    const f = character.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
    for (let i = 0; i < f.length; i++) map.push([offset, offset + character.length]);
    folded += f;
    offset += character.length;
  }
  return { folded, map };
}
function highlighted(text, query) {
  const fragment = document.createDocumentFragment();
  const needle = fold(query.trim()).folded;
  if (!needle) { fragment.append(text); return fragment; }
  const { folded, map } = fold(text);
  let last = 0;
  let from = folded.indexOf(needle);
  while (from !== -1) {
    const start = map[from][0], end = map[from + needle.length - 1][1];
    if (start >= last) {
      fragment.append(text.slice(last, start));
      const mark = document.createElement('mark');
      mark.textContent = text.slice(start, end);
      fragment.append(mark);
      last = end;
    }
    from = folded.indexOf(needle, from + needle.length);
  }
  fragment.append(text.slice(last));
  return fragment;
}

// ---- The page ------------------------------------------------------------------------------
const $ = (id) => document.getElementById(id);
const ui = {
  list: $('list'), search: $('search'), more: $('more'), empty: $('list-empty'), heading: $('list-heading'),
  text: $('text'), note: $('editor-note'), modified: $('modified'), status: $('status'),
  undo: $('undo'), redo: $('redo'), del: $('delete'), restore: $('restore'), purge: $('purge'),
  exportLink: $('export'), copy: $('copy'), newMemo: $('new'), trash: $('show-trash'), sync: $('sync'), theme: $('theme'),
  historyToggle: $('history-toggle'), historyPanel: $('history'), historyClose: $('history-close'), historySlider: $('history-slider'),
  historyVersion: $('history-version'), historyText: $('history-text'), historyMessage: $('history-message'),
  historyRestore: $('history-restore'), historyNote: $('history-note'), damage: $('damage'),
  damageText: $('damage-text'), damageShow: $('damage-show'), damageRestore: $('damage-restore'), damageTexts: $('damage-texts'),
};
const PAGE = 100;
const state = {
  view: 'memos', items: [], total: 0, selected: null, listRequest: null,
  memo: null, collab: null, client: '', status: 'active', composing: false, queued: [], sending: false, retry: null, load: 0, loading: false,
  // The run the memo's revisions belong to (they restart at 0 each run of memo serve), and the
  // memo's text as the server has it at state.collab.revision (the text without what this page
  // typed and the server has not confirmed): what a reload re-applies the typing against.
  run: '', serverText: '',
};
const dateFormat = new Intl.DateTimeFormat(LANG, { dateStyle: 'medium', timeStyle: 'short' });

function applyTexts() {
  document.querySelectorAll('[data-t]').forEach((e) => { e.textContent = t(e.dataset.t); });
  document.querySelectorAll('[data-t-label]').forEach((e) => { e.setAttribute('aria-label', t(e.dataset.tLabel)); e.title = t(e.dataset.tLabel); });
  document.querySelectorAll('[data-t-placeholder]').forEach((e) => { e.placeholder = t(e.dataset.tPlaceholder); });
  document.title = t('app.title');
  $('keys').textContent = t('keys.help');
}

async function api(method, path, body) {
  const options = { method, headers: withToken(), credentials: 'omit' };
  if (body !== undefined) { options.headers['Content-Type'] = 'application/json'; options.body = JSON.stringify(body); }
  const response = await fetch(path, options);
  let data = null;
  try { data = await response.json(); } catch (e) { data = null; }
  if (!response.ok) {
    const error = new Error((data && data.error) || response.statusText);
    error.status = response.status; error.reload = data && data.reload; error.code = data && data.code; error.count = data && data.count;
    throw error;
  }
  return data;
}

// The list: pages of PAGE memos, newest first; "Show more" loads the next page.
async function loadList(keep) {
  const query = ui.search.value;
  const count = keep ? Math.max(PAGE, state.items.length) : PAGE;
  if (state.listRequest) state.listRequest.abort();
  const controller = new AbortController();
  state.listRequest = controller;
  const path = state.view === 'trash' ? '/api/trash' : '/api/memos';
  let data;
  try {
    const response = await fetch(`${path}?offset=0&limit=${count}&q=${encodeURIComponent(state.view === 'trash' ? '' : query)}`, { signal: controller.signal, headers: withToken(), credentials: 'omit' });
    data = await response.json();
  } catch (e) { return; }
  state.items = data.memos; state.total = data.total;
  renderList();
}
async function loadMore() {
  const path = state.view === 'trash' ? '/api/trash' : '/api/memos';
  const data = await api('GET', `${path}?offset=${state.items.length}&limit=${PAGE}&q=${encodeURIComponent(state.view === 'trash' ? '' : ui.search.value)}`);
  state.items = state.items.concat(data.memos); state.total = data.total;
  renderList();
}
function renderList() {
  const query = state.view === 'trash' ? '' : ui.search.value;
  ui.heading.textContent = t(state.view === 'trash' ? 'trash.title' : 'list.label');
  ui.list.replaceChildren();
  for (const item of state.items) {
    const li = document.createElement('li');
    li.role = 'option'; li.id = 'memo-' + item.id; li.dataset.id = item.id; li.tabIndex = -1;
    li.setAttribute('aria-selected', String(item.id === state.selected));
    const title = document.createElement('span'); title.className = 'title';
    title.append(highlighted(item.title || t('list.untitled'), query));
    const preview = document.createElement('span'); preview.className = 'preview';
    preview.append(highlighted(item.preview, query));
    const time = document.createElement('time'); time.className = 'time';
    time.dateTime = new Date(item.modified).toISOString(); time.textContent = dateFormat.format(new Date(item.modified));
    li.append(title, preview, time);
    li.addEventListener('click', () => select(item.id, true));
    ui.list.append(li);
  }
  const left = state.total - state.items.length;
  ui.more.hidden = left <= 0;
  ui.more.textContent = t('list.more', { count: left });
  ui.empty.hidden = state.items.length > 0;
  ui.empty.textContent = state.view === 'trash' ? t('trash.empty') : query.trim() ? t('list.noMatches', { query }) : t('list.empty');
  if (state.selected) ui.list.setAttribute('aria-activedescendant', 'memo-' + state.selected);
}
let listTimer = null;
function listChangedSoon() { clearTimeout(listTimer); listTimer = setTimeout(() => loadList(true), 100); }

async function select(id, focusEditor) {
  state.selected = id;
  for (const li of ui.list.children) li.setAttribute('aria-selected', String(li.dataset.id === id));
  ui.list.setAttribute('aria-activedescendant', 'memo-' + id);
  await openMemo(id);
  if (focusEditor && !ui.text.disabled) ui.text.focus();
}

// Typing the server has not confirmed, when memo `id` is reloaded (a refused edit, a restarted
// server, missed events): the text the page shows and the server's text it was typed on.
function unconfirmedTyping(id) {
  if (!state.collab || state.memo !== id || state.collab.text === state.serverText) return null;
  return { base: state.serverText, local: state.collab.text, start: ui.text.selectionStart, end: ui.text.selectionEnd };
}
// `typing` re-applied to the server's `text`: both are changes of typing.base, so what the page
// typed is moved over what changed on the server meanwhile (the scheme's transform), never
// applied at positions of a text the server no longer has. Null when it does not fit.
function rebased(typing, text) {
  const mine = TextOperation.difference(typing.base, typing.local);
  const theirs = TextOperation.difference(typing.base, text);
  const pair = TextOperation.transform(mine, theirs);
  return pair ? pair[0].apply(text) : null;
}

// Loads memo `id`. While a load is on its way the page applies no update (they are queued and
// applied after it, as during a composition), so the text it loads is never older than the one
// its typing was made on. When the page has `id` open in the server's current run, it first asks
// for the changes it missed since the revision it heard of and takes them as the events it
// missed (its own are confirmations), so nothing it sent is typed twice; only when the server
// cannot tell (another run, a history no longer kept) or `whole` (a refused edit, a status
// change) does it load the whole text and type its unconfirmed typing again over it.
async function openMemo(id, whole) {
  const load = ++state.load;
  state.loading = true;
  try {
    if (!whole && state.collab && state.memo === id && state.run && await caughtUp(id, load)) return;
    if (load === state.load) await loadWhole(id, load);
  } finally {
    if (load === state.load) {
      state.loading = false;
      const pending = state.queued; state.queued = [];
      for (const update of pending) handleUpdate(update);
      // Typing not on its way (typed during the load, or whose sending failed) goes now.
      if (state.collab && state.collab.outstanding && !state.sending && !state.loading) {
        post({ operation: state.collab.outstanding, base: state.collab.revision });
      }
    }
  }
}
// The changes after the page's revision, taken in order: true when the page is now at the
// server's revision (or a newer load took over), false when the whole text is needed.
async function caughtUp(id, load) {
  let data;
  try {
    data = await api('GET', `/api/memos/${id}/changes?since=${state.collab.revision}&run=${encodeURIComponent(state.run)}`);
  } catch (e) { return false; }
  if (load !== state.load) return true;
  for (const change of data.changes) {
    if (change.revision <= state.collab.revision) continue;
    if (change.revision !== state.collab.revision + 1 || !takeUpdate(change)) return false;
  }
  // A status changed meanwhile (the memo trashed by another command) shows too.
  if (data.status !== state.status) { state.status = data.status; showStatusOfMemo(); }
  ui.modified.textContent = t('modified', { time: dateFormat.format(new Date(data.modified)) });
  return true;
}
async function loadWhole(id, load) {
  let data;
  try { data = await api('GET', '/api/memos/' + id); } catch (e) { if (load === state.load) showNone(); return; }
  if (load !== state.load) return;
  const typing = unconfirmedTyping(id);
  state.memo = id;
  state.client = Math.random().toString(36).slice(2) + Date.now().toString(36);
  state.collab = new Collab(data.text, data.revision);
  state.run = data.run;
  state.serverText = data.text;
  state.queued = state.queued.filter((u) => u.memo === id && u.revision > data.revision);
  state.sending = false;
  state.status = data.status;
  ui.text.value = data.text;
  ui.text.setSelectionRange(0, 0);
  ui.modified.textContent = t('modified', { time: dateFormat.format(new Date(data.modified)) });
  showStatusOfMemo();
  if (historyOpen()) loadHistory(true);
  // What was typed and not confirmed is typed again on the text just loaded (and sent).
  const again = typing && state.status === 'active' ? rebased(typing, state.collab.text) : null;
  if (again !== null && again !== state.collab.text) {
    ui.text.value = again;
    ui.text.setSelectionRange(Math.min(typing.start, again.length), Math.min(typing.end, again.length));
    localEdit();
  }
}
function showNone() {
  state.memo = null; state.collab = null;
  ui.text.value = ''; ui.text.disabled = true; ui.note.textContent = t('editor.none'); ui.note.hidden = false;
  for (const b of [ui.undo, ui.redo, ui.del, ui.restore, ui.purge, ui.copy, ui.exportLink, ui.historyToggle]) b.hidden = true;
  ui.modified.textContent = '';
  showHistory(false);
}
function showStatusOfMemo() {
  const trashed = state.status !== 'active';
  ui.text.disabled = trashed;
  ui.note.hidden = !trashed; ui.note.textContent = trashed ? t('editor.trashed') : '';
  ui.undo.hidden = ui.redo.hidden = ui.del.hidden = trashed;
  ui.restore.hidden = ui.purge.hidden = !trashed;
  ui.copy.hidden = ui.exportLink.hidden = ui.historyToggle.hidden = false;
  ui.exportLink.href = '/api/memos/' + state.memo + '/export';
}
// The export is fetched with the token (a link cannot send it), then saved from memory.
async function exportMemo(e) {
  e.preventDefault();
  if (!state.memo) return;
  const response = await fetch('/api/memos/' + state.memo + '/export', { headers: withToken(), credentials: 'omit' });
  if (!response.ok) return;
  const disposition = response.headers.get('Content-Disposition') || '';
  const named = /filename\*=UTF-8''([^;]+)/.exec(disposition);
  const link = document.createElement('a');
  link.href = URL.createObjectURL(await response.blob());
  link.download = named ? decodeURIComponent(named[1]) : 'memo.txt';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
}

// Local edits: every input event (outside a composition) becomes an operation.
function localEdit() {
  if (!state.collab || state.composing) return;
  const send = state.collab.edit(ui.text.value);
  // During a load it stays unconfirmed typing, sent when the load ends (openMemo).
  if (send && !state.loading) post(send);
}
async function post(send) {
  state.sending = true;
  const memo = state.memo, client = state.client, run = state.run;
  try {
    await api('POST', `/api/memos/${memo}/edits`, { run, revision: send.base, operation: send.operation.toJSON(), client });
  } catch (error) {
    if (memo !== state.memo || client !== state.client) return;
    if (error.reload) { await openMemo(memo, true); return; }
    // Busy or unreachable: send what is outstanding again, moved over what arrived meanwhile
    // (after a load, which sends it itself).
    state.sending = false;
    clearTimeout(state.retry);
    state.retry = setTimeout(() => {
      if (memo === state.memo && client === state.client && state.collab.outstanding && !state.sending && !state.loading) {
        post({ operation: state.collab.outstanding, base: state.collab.revision });
      }
    }, 500);
  }
}

// What the server applied: this page's own (a confirmation) or another's (moved over what is
// unconfirmed, then shown without moving the caret off its characters).
function handleUpdate(update) {
  if (!state.collab || update.memo !== state.memo) return;
  if (historyOpen()) historyChangedSoon();
  if (state.composing || state.loading) { state.queued.push(update); return; }
  if (update.revision <= state.collab.revision) return;
  if (update.revision !== state.collab.revision + 1) { openMemo(state.memo); return; }
  if (!takeUpdate(update)) openMemo(state.memo, true);
}
// Revision collab.revision + 1, an event or a caught-up change: false when it does not fit.
function takeUpdate(update) {
  if (update.client === state.client) {
    const serverText = state.collab.outstanding ? state.collab.outstanding.apply(state.serverText) : null;
    if (serverText === null) return false;
    state.serverText = serverText;
    const next = state.collab.confirmed();
    if (next) post(next); else state.sending = false;
    return true;
  }
  const operation = TextOperation.fromJSON(update.operation);
  const serverText = operation.apply(state.serverText);
  const applied = state.collab.received(operation);
  if (applied === null || serverText === null) return false;
  state.serverText = serverText;
  const start = ui.text.selectionStart, end = ui.text.selectionEnd, direction = ui.text.selectionDirection;
  const scroll = ui.text.scrollTop;
  ui.text.value = state.collab.text;
  ui.text.setSelectionRange(applied.mapPosition(start), applied.mapPosition(end), direction);
  ui.text.scrollTop = scroll;
  return true;
}

async function whenConfirmed() {
  for (let i = 0; i < 100 && state.collab && (state.collab.outstanding || state.composing); i++) await new Promise((r) => setTimeout(r, 20));
}
async function engineUndo(redo) {
  if (!state.memo || ui.text.disabled) return;
  await whenConfirmed();
  try { await api('POST', `/api/memos/${state.memo}/${redo ? 'redo' : 'undo'}`, {}); } catch (e) { /* nothing to undo */ }
}
async function newMemo() {
  const data = await api('POST', '/api/memos', { text: '' });
  if (state.view !== 'memos') await showView('memos');
  ui.search.value = '';
  await loadList(false);
  await select(data.id, true);
}
async function setStatus(action) {
  if (!state.memo) return;
  await whenConfirmed();
  await api('POST', `/api/memos/${state.memo}/${action}`, {});
  if (action === 'purge') { showNone(); state.selected = null; }
  else await openMemo(state.memo, true);
  await loadList(true);
}
async function showView(view) {
  state.view = view;
  ui.trash.textContent = t(view === 'trash' ? 'button.memos' : 'button.trash');
  ui.search.hidden = view === 'trash';
  await loadList(false);
}

// ---- History (issue 27): a slider over the memo's versions (oldest left, the current text
// right), the text at the chosen one with its changes marked against the current text or the
// version before, and "restore" (a revert to it, as a new edit the engine's undo takes back).
const hist = { versions: [], index: -1, ticket: 0, timer: null, reloads: 0 };
function historyOpen() { return !ui.historyPanel.hidden; }
async function showHistory(open) {
  ui.historyPanel.hidden = !open;
  ui.historyPanel.parentElement.classList.toggle('with-history', open);
  ui.historyToggle.setAttribute('aria-expanded', String(open));
  ui.historyNote.textContent = '';
  if (open) { await loadHistory(true); ui.historySlider.focus(); ui.historyPanel.scrollIntoView({ block: 'nearest' }); }
}
function historyChangedSoon() { clearTimeout(hist.timer); hist.timer = setTimeout(() => { if (historyOpen()) loadHistory(false); }, 300); }
function showHistoryMessage(text) { ui.historyMessage.textContent = text; ui.historyMessage.hidden = false; }
function describeVersion(index) {
  const version = hist.versions[index];
  const device = version.thisDevice ? t('history.thisDevice') : t('history.otherDevice', { device: version.device.slice(0, 8) });
  const details = t('history.details', { time: dateFormat.format(new Date(version.time)), device, inserted: version.inserted, deleted: version.deleted });
  const current = index === hist.versions.length - 1 ? ' (' + t('history.current') + ')' : '';
  return t('history.position', { number: index + 1, count: hist.versions.length }) + ': ' + details + current;
}
// The versions again; the one shown stays (unless it was the newest: the newest is shown).
async function loadHistory(toNewest) {
  const memo = state.memo;
  if (!memo) return;
  let data;
  try { data = await api('GET', `/api/memos/${memo}/history`); } catch (error) { showHistoryMessage(error.message); return; }
  if (memo !== state.memo) return;
  const shown = hist.versions[hist.index];
  const keep = !toNewest && shown && hist.index !== hist.versions.length - 1 ? shown.version : null;
  hist.versions = data.versions;
  let index = keep ? hist.versions.findIndex((v) => v.version === keep) : -1;
  if (index < 0) index = hist.versions.length - 1;
  ui.historySlider.max = String(Math.max(0, hist.versions.length - 1));
  ui.historySlider.disabled = hist.versions.length < 2;
  ui.historySlider.value = String(Math.max(0, index));
  await showVersion(index);
}
async function showVersion(index) {
  hist.index = index;
  const ticket = ++hist.ticket;
  const memo = state.memo;
  const version = hist.versions[index];
  ui.historyRestore.disabled = true;
  if (!version) {
    ui.historyVersion.textContent = t('history.none'); ui.historySlider.removeAttribute('aria-valuetext');
    ui.historyText.replaceChildren(); ui.historyText.hidden = true; ui.historyMessage.hidden = true;
    return;
  }
  const description = describeVersion(index);
  ui.historyVersion.textContent = description;
  ui.historySlider.setAttribute('aria-valuetext', description);
  const compare = document.querySelector('input[name="history-compare"]:checked').value;
  let data;
  try {
    data = await api('GET', `/api/memos/${memo}/history/${version.version}?compare=${compare}`);
  } catch (error) {
    if (ticket !== hist.ticket || memo !== state.memo) return;
    ui.historyText.replaceChildren();
    ui.historyText.hidden = true;
    delete ui.historyText.dataset.version;
    if (error.code === 'notRetained') showHistoryMessage(t('history.notRetained', { count: error.count }));
    else if (error.code === 'noSuchVersion' && hist.reloads < 3) { hist.reloads++; showHistoryMessage(t('history.noSuchVersion')); loadHistory(false); }
    else showHistoryMessage(error.message);
    return;
  }
  if (ticket !== hist.ticket || memo !== state.memo) return;
  hist.reloads = 0;
  ui.historyMessage.hidden = true;
  const fragment = document.createDocumentFragment();
  for (const passage of data.passages) {
    if (passage.mark === 'same') { fragment.append(passage.text); continue; }
    const marked = document.createElement(passage.mark === 'version' ? 'ins' : 'del');
    marked.textContent = passage.text;
    fragment.append(marked);
  }
  ui.historyText.replaceChildren(fragment);
  ui.historyText.hidden = false;
  ui.historyText.dataset.version = version.version;
  ui.historyRestore.disabled = data.newest || state.status !== 'active';
}
async function restoreVersion() {
  const version = hist.versions[hist.index];
  if (!state.memo || !version || state.status !== 'active') return;
  await whenConfirmed();
  try {
    await api('POST', `/api/memos/${state.memo}/revert`, { version: version.version });
  } catch (error) {
    showHistoryMessage(error.code === 'notRetained' ? t('history.notRetained', { count: error.count }) : error.message);
    return;
  }
  ui.historyNote.textContent = t('history.restored', { time: dateFormat.format(new Date(version.time)) });
  await loadHistory(true);
}

// Themes: the system's, or the one chosen (kept in this browser).
function applyTheme() {
  const chosen = localStorage.getItem('memo-theme');
  if (chosen) document.documentElement.dataset.theme = chosen; else delete document.documentElement.dataset.theme;
}
function toggleTheme() {
  const dark = document.documentElement.dataset.theme ? document.documentElement.dataset.theme === 'dark' : matchMedia('(prefers-color-scheme: dark)').matches;
  localStorage.setItem('memo-theme', dark ? 'light' : 'dark');
  applyTheme();
}

// Damage the server's open found in the library (SERVE.md, "Damage"): told until the page
// reloads after it is gone (a later start of memo serve finds none).
function showDamage(damage) {
  ui.damage.hidden = !damage;
  if (!damage) return;
  const key = damage.operationsHeldBack > 0 ? 'damage.heldBack' : 'damage.lost';
  ui.damageText.textContent = t(key, { lost: damage.recordsLost, heldBack: damage.operationsHeldBack, kept: damage.keptAs.join(', ') });
  ui.damageShow.hidden = !(damage.operationsHeldBack > 0);
  ui.damageRestore.hidden = !(damage.operationsHeldBack > 0);
}

// The held-back text put into new memos (`memo recover --restore`), once; the operations still
// wait. The new memos come to the list as any other change does.
async function restoreHeldBackTexts() {
  const message = document.createElement('p');
  try {
    const data = await api('POST', '/api/held-back/restore', { language: LANG });
    const created = data.restored.filter((item) => item.created).length;
    message.textContent = data.restored.length === 0 ? t('damage.nothingRestored') : t('damage.restored', { count: created, already: data.restored.length - created });
  } catch (error) {
    message.textContent = error.message;
  }
  ui.damageTexts.replaceChildren(message);
  ui.damageTexts.hidden = false;
}

// What the held-back operations type, memo by memo (`memo recover`), to copy: text only.
async function showHeldBackTexts() {
  let data;
  try { data = await api('GET', '/api/held-back'); } catch (error) {
    const message = document.createElement('p');
    message.textContent = error.message;
    ui.damageTexts.replaceChildren(message);
    ui.damageTexts.hidden = false;
    return;
  }
  ui.damageTexts.replaceChildren();
  for (const memo of data.memos) {
    const heading = document.createElement('h2');
    heading.textContent = memo.title === null ? t('damage.notHere') : memo.title;
    const text = document.createElement('pre');
    text.textContent = memo.text === '' ? t('damage.noText') : memo.text;
    ui.damageTexts.append(heading, text);
  }
  ui.damageTexts.hidden = false;
}

function showSyncStatus(status) {
  showDamage(status.damage);
  const time = status.lastSync ? dateFormat.format(new Date(status.lastSync)) : '';
  const error = status.error || '';
  ui.status.dataset.state = status.state;
  ui.status.textContent = t('status.' + status.state, { time, error });
}

// The event stream (server-sent events), read through fetch: an EventSource cannot send the
// token's header. After a drop it reconnects within a second, from the last event's id.
const streamHandlers = {
  update: (data) => handleUpdate(JSON.parse(data)),
  list: () => listChangedSoon(),
  status: (data) => {
    const status = JSON.parse(data);
    // Another run of memo serve (restarted): its revisions are not this page's.
    if (state.memo && state.run && status.run && status.run !== state.run) openMemo(state.memo, true);
    showSyncStatus(status);
  },
  reload: () => { if (state.memo) openMemo(state.memo); loadList(true); },
};
async function connect() {
  let last = null;
  for (;;) {
    try {
      const headers = withToken(last === null ? {} : { 'Last-Event-ID': last });
      const response = await fetch('/api/events', { headers, credentials: 'omit', cache: 'no-store' });
      if (response.status === 403) {
        // No token, or another run's: only the address memo serve printed brings one.
        ui.status.dataset.state = 'error'; ui.status.textContent = t('status.noToken');
        return;
      }
      if (!response.ok || !response.body) throw new Error(String(response.status));
      // The stream tells what changes from its start on: what changed before (between the page's
      // first fetch of the list and the stream's start, or while it was down) is fetched again.
      if (ui.status.dataset.state === 'disconnected') { ui.status.textContent = ''; }
      listChangedSoon();
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let name = '', data = '', id = null;
          for (const line of block.split('\n')) {
            if (line.startsWith('event: ')) name = line.slice(7);
            else if (line.startsWith('data: ')) data += (data ? '\n' : '') + line.slice(6);
            else if (line.startsWith('id: ')) id = line.slice(4);
          }
          if (id !== null) last = id;
          // After a reload (events were lost), the stream starts again from the newest.
          if (name === 'reload') last = null;
          if (streamHandlers[name]) streamHandlers[name](data);
        }
      }
    } catch (e) { /* reconnects below */ }
    ui.status.dataset.state = 'disconnected'; ui.status.textContent = t('status.disconnected');
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

function moveSelection(step) {
  if (!state.items.length) return;
  const index = state.items.findIndex((m) => m.id === state.selected);
  const next = Math.max(0, Math.min(state.items.length - 1, index < 0 ? 0 : index + step));
  const id = state.items[next].id;
  select(id, false);
  const li = $('memo-' + id); if (li) li.scrollIntoView({ block: 'nearest' });
}

function wire() {
  ui.text.addEventListener('input', (e) => { if (!e.isComposing) localEdit(); });
  ui.text.addEventListener('compositionstart', () => { state.composing = true; });
  ui.text.addEventListener('compositionend', () => {
    state.composing = false;
    localEdit();
    const pending = state.queued; state.queued = [];
    for (const update of pending) handleUpdate(update);
  });
  ui.text.addEventListener('beforeinput', (e) => {
    if (e.inputType === 'historyUndo' || e.inputType === 'historyRedo') { e.preventDefault(); engineUndo(e.inputType === 'historyRedo'); }
  });
  ui.text.addEventListener('keydown', (e) => {
    const mod = e.ctrlKey || e.metaKey;
    if (mod && (e.key === 'z' || e.key === 'Z')) { e.preventDefault(); engineUndo(e.shiftKey); }
    else if (mod && (e.key === 'y' || e.key === 'Y')) { e.preventDefault(); engineUndo(true); }
    else if (e.key === 'Escape') { e.preventDefault(); ui.list.focus(); }
  });
  ui.search.addEventListener('input', () => loadList(false));
  ui.search.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown' || e.key === 'Enter') { e.preventDefault(); ui.list.focus(); moveSelection(0); }
    if (e.key === 'Escape') { ui.search.value = ''; loadList(false); ui.list.focus(); }
  });
  ui.list.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown') { e.preventDefault(); moveSelection(1); }
    else if (e.key === 'ArrowUp') { e.preventDefault(); moveSelection(-1); }
    else if (e.key === 'Home') { e.preventDefault(); moveSelection(-1e9); }
    else if (e.key === 'End') { e.preventDefault(); moveSelection(1e9); }
    else if (e.key === 'Enter' && state.memo) { e.preventDefault(); if (!ui.text.disabled) ui.text.focus(); }
  });
  document.addEventListener('keydown', (e) => {
    const target = e.target;
    if (target === ui.text || target === ui.search || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === 'n' || e.key === 'N') { e.preventDefault(); newMemo(); }
    else if (e.key === '/') { e.preventDefault(); if (state.view !== 'memos') showView('memos'); ui.search.focus(); }
  });
  ui.more.addEventListener('click', loadMore);
  ui.damageShow.addEventListener('click', showHeldBackTexts);
  ui.damageRestore.addEventListener('click', restoreHeldBackTexts);
  ui.newMemo.addEventListener('click', newMemo);
  ui.trash.addEventListener('click', () => showView(state.view === 'trash' ? 'memos' : 'trash'));
  ui.undo.addEventListener('click', () => engineUndo(false));
  ui.redo.addEventListener('click', () => engineUndo(true));
  ui.del.addEventListener('click', () => setStatus('trash'));
  ui.restore.addEventListener('click', () => setStatus('restore'));
  ui.purge.addEventListener('click', () => setStatus('purge'));
  ui.sync.addEventListener('click', () => api('POST', '/api/sync', {}));
  ui.theme.addEventListener('click', toggleTheme);
  ui.historyToggle.addEventListener('click', () => showHistory(!historyOpen()));
  ui.historyClose.addEventListener('click', () => { showHistory(false); ui.historyToggle.focus(); });
  ui.historySlider.addEventListener('input', () => { ui.historyNote.textContent = ''; showVersion(Number(ui.historySlider.value)); });
  document.querySelectorAll('input[name="history-compare"]').forEach((e) => e.addEventListener('change', () => showVersion(hist.index)));
  ui.historyRestore.addEventListener('click', restoreVersion);
  ui.historyPanel.addEventListener('keydown', (e) => { if (e.key === 'Escape') { e.preventDefault(); showHistory(false); ui.historyToggle.focus(); } });
  ui.exportLink.addEventListener('click', exportMemo);
  ui.copy.addEventListener('click', async () => {
    try { await navigator.clipboard.writeText(ui.text.value); ui.note.hidden = false; ui.note.textContent = t('copied'); setTimeout(showStatusOfMemo, 1500); } catch (e) { /* not allowed */ }
  });
}

applyTheme();
applyTexts();
wire();
showNone();
connect();
loadList(false);
"""#
}
