// The lab's token view: draws rows of tokens that Python (viz/tokens.py view_row) hands
// it, with an optional text box whose text it sends back (Python stays the single source
// of token data). Everything from data goes into the DOM through textContent and
// createElement: never innerHTML, never an event-handler attribute.
// Data format and API: see lab/token_view.py.

import { localReady, requestLocal, useBrowser, verify } from "./live.js";

const STATES = new WeakMap();  // parentElement -> the view's state across reruns
const BLOCK = 400;             // spans per window of the text view
const ID_BLOCK = 2000;         // ids per window of the id list
const TABLE_BLOCK = 200;       // rows per window of the table
const DEBOUNCE_MS = 150;

export default function (component) {
  const { parentElement, data, setStateValue } = component;
  let view = STATES.get(parentElement);
  if (!view) {
    view = mount(parentElement);
    STATES.set(parentElement, view);
  }
  view.setStateValue = setStateValue;
  // Streamlit calls this on every rerun of the page, also when only some other element
  // changed: the same bytes draw the same view, so skip the redraw
  if (!samePayload(view.payload, data)) {
    view.payload = data;
    view.update(unpack(data) || {});
  }
  return undefined;
}

function samePayload(a, b) {
  if (a === b) return true;
  if (!(a instanceof Uint8Array && b instanceof Uint8Array) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// The bytes lab/token_view.py pack() makes: "TV1\0", uint32 header length, JSON header,
// then blobs the header points at: {"$a": [offset, count, type]} a typed array,
// {"$s": [offset, nbytes]} strings joined by \x03, {"$t": [offset, nbytes]} a string.
const ARRAYS = { B: Uint8Array, H: Uint16Array, i: Int32Array };
function unpack(data) {
  if (!data || !(data instanceof Uint8Array || data instanceof ArrayBuffer)) return data;
  const u8 = data instanceof ArrayBuffer ? new Uint8Array(data) : data;
  const dv = new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
  const len = dv.getUint32(4, true);
  const utf8 = new TextDecoder();
  const header = JSON.parse(utf8.decode(u8.subarray(8, 8 + len)));
  const base = 8 + len + ((4 - ((8 + len) % 4)) % 4);
  const walk = (v) => {
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object") {
      if (v.$a) {
        const [offset, count, code] = v.$a;
        const Type = ARRAYS[code];
        const start = u8.byteOffset + base + offset;
        // a typed array needs an aligned start: copy when the payload is not aligned
        if (start % Type.BYTES_PER_ELEMENT === 0) return new Type(u8.buffer, start, count);
        return new Type(u8.slice(base + offset, base + offset + count * Type.BYTES_PER_ELEMENT).buffer);
      }
      if (v.$s) return utf8.decode(u8.subarray(base + v.$s[0], base + v.$s[0] + v.$s[1])).split("\x03");
      if (v.$t) return utf8.decode(u8.subarray(base + v.$t[0], base + v.$t[0] + v.$t[1]));
      const out = {};
      for (const [k, x] of Object.entries(v)) out[k] = walk(x);
      return out;
    }
    return v;
  };
  return walk(header);
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// display text from Python: \x01NAME\x02 is a marker for an invisible character
function fillDisplay(target, text) {
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf("\x01", i);
    if (open < 0) { target.append(text.slice(i)); break; }
    if (open > i) target.append(text.slice(i, open));
    const close = text.indexOf("\x02", open);
    target.append(el("span", "mk", text.slice(open + 1, close)));
    i = close + 1;
  }
}

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));
function hex(bytes) { return Array.from(bytes, (b) => HEX[b]).join(" "); }
function hexToBytes(h) {
  const out = new Uint8Array(h.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(h.substr(2 * i, 2), 16);
  return out;
}

// a string as a JSON-ish literal whose every invisible character is spelled out
function escaped(s) {
  let out = "";
  for (const ch of s) {
    const cp = ch.codePointAt(0);
    if (ch === "\\") out += "\\\\";
    else if (ch === '"') out += '\\"';
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\r") out += "\\r";
    else if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || /[\p{Cf}\p{Zl}\p{Zp}\p{Mn}\p{Co}\p{Cs}]/u.test(ch)
             || (cp >= 0xfe00 && cp <= 0xfe0f) || cp === 0xfeff)
      out += cp > 0xffff ? "\\u{" + cp.toString(16) + "}" : "\\u" + cp.toString(16).padStart(4, "0");
    else out += ch;
  }
  return '"' + out + '"';
}

function luminance(color) {
  const m = color.match(/\d+(\.\d+)?/g);
  if (!m || m.length < 3) return 1;
  const [r, g, b] = m.slice(0, 3).map(Number);
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}

// Lazy windows inside a scroll box: a window is drawn when it comes near the visible
// area and emptied (keeping its height) when it goes far away, so a 1 MB text keeps only
// a few thousand elements in the DOM.
// A redraw (one per key press) starts from the last drawing, `old` (what windowed
// returned for the same box before): a window that was drawn there is drawn at once,
// not a frame later when the observer reports it, and is moved over as it is when its
// signature (sig(w): a string of everything its drawing depends on) has not changed, so
// typing at the end of a text rebuilds one window, not all the visible ones.
// `done(slots)` gets the windows each pass drew (e.g. to measure them, in one go).
function windowed(box, count, draw, estimate, sig, old, done) {
  const inPlace = old && old.box === box;  // the same box: its kept windows stay put
  if (!inPlace) box.replaceChildren();
  const slots = [];
  const fill = (slot) => {
    slot.style.minHeight = "";
    slot.replaceChildren(draw(slot.index));
    slot.sig = sig ? sig(slot.index) : null;
    slot.drawn = true;
  };
  const observer = new IntersectionObserver((entries) => {
    // the entries carry their boxes' sizes: read nothing from the layout between writes
    const drawn = [];
    for (const entry of entries) {
      const slot = entry.target;
      if (entry.isIntersecting && !slot.drawn) {
        fill(slot);
        drawn.push(slot);
      } else if (!entry.isIntersecting && slot.drawn) {
        slot.style.minHeight = entry.boundingClientRect.height + "px";
        slot.replaceChildren();
        slot.drawn = false;
      }
    }
    if (drawn.length && done) done(drawn);
  }, { root: box, rootMargin: "600px 0px" });
  const drawn = [];
  for (let w = 0; w < count; w++) {
    const before = old && old.slots[w];
    let slot;
    if (before && before.drawn && sig && before.sig === sig(w)) {
      slot = before;  // unchanged: keep its elements
    } else {
      slot = el("div", "win");
      slot.index = w;
      if (before && before.drawn) { fill(slot); drawn.push(slot); }  // it was in view
      else slot.style.minHeight = estimate(w) + "px";
    }
    slots.push(slot);
  }
  if (inPlace) {
    const kids = box.children;
    for (let w = 0; w < count; w++) {
      const cur = kids[w];
      if (cur === slots[w]) continue;
      if (cur && cur === old.slots[w]) box.replaceChild(slots[w], cur);
      else box.insertBefore(slots[w], cur || null);
    }
    while (kids.length > count) box.lastElementChild.remove();
  } else {
    box.append(...slots);
  }
  for (const slot of slots) observer.observe(slot);
  if (drawn.length && done) done(drawn);
  return { box, slots, observer };
}

function mount(parent) {
  const root = parent.querySelector(".tv") || parent.appendChild(el("div", "tv"));
  const editorWrap = el("div", "tv-editor");
  const area = el("textarea", "tv-input");
  area.spellcheck = false;
  area.setAttribute("aria-label", "Text to tokenize");
  const status = el("div", "tv-status");
  editorWrap.append(area, status);
  const summary = el("div", "tv-summary");
  const note = el("div", "tv-note");
  const rows = el("div", "tv-rows");
  const lists = el("div", "tv-lists");
  const card = el("div", "tv-card");
  card.hidden = true;
  root.append(editorWrap, summary, note, rows, lists, card);

  const engine = el("div", "tv-engine");
  const view = {
    engine, encoder: null, encoderKey: null, local: null, localFrame: 0, root, area, status, summary, note, rows, lists, card, setStateValue: null,
    data: null, seq: 0, sent: new Map(), appliedVersion: null, timer: null, patience: 0,
    dirty: false, inflight: false, sentAt: -Infinity, payload: null,
    source: [], index: [], hovered: null, pinned: null, observers: [],
    windows: {}, lastWindows: {}, palette: null,
  };

  area.addEventListener("input", () => {
    view.status.textContent = "updating…";
    view.dirty = true;
    // the browser draws the tokens first, then sends the text for Python's check: a big
    // paste is drawn before its megabyte goes into the websocket
    if (localReady(view)) requestLocal(view, () => schedule(view, true));
    else schedule(view, true);
  });
  root.addEventListener("mouseover", (ev) => {
    const piece = ev.target.closest && ev.target.closest("[data-pa]");
    if (piece && !view.pinned) { showPiece(view, piece); return; }
    const target = ev.target.closest && ev.target.closest("[data-i]");
    if (!target || view.pinned) return;
    show(view, +target.dataset.r, +target.dataset.i, target);
  });
  root.addEventListener("mouseleave", () => { if (!view.pinned) hide(view); });
  root.addEventListener("click", (ev) => {
    const piece = ev.target.closest && ev.target.closest("[data-pa]");
    if (piece) {
      const key = "p" + piece.dataset.pa + ":" + piece.dataset.pb;
      view.pinned = null;
      if (view.pinnedKey === key) { view.pinnedKey = null; card.classList.remove("pinned"); return; }
      showPiece(view, piece);
      view.pinned = view.pinnedKey = key;
      card.classList.add("pinned");
      return;
    }
    const target = ev.target.closest && ev.target.closest("[data-i]");
    if (!target) { if (!card.contains(ev.target)) { view.pinned = null; hide(view); } return; }
    const key = target.dataset.r + ":" + target.dataset.i;
    if (view.pinned === key) { view.pinned = null; card.classList.remove("pinned"); return; }
    view.pinned = null;
    show(view, +target.dataset.r, +target.dataset.i, target);
    view.pinned = key;
    card.classList.add("pinned");
  });
  root.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") { view.pinned = null; hide(view); return; }
    // the keyboard reaches every token: a row's box takes the focus (Tab), the arrow keys
    // move from token to token with the card, Enter pins (or unpins) the card
    const box = ev.target.closest && ev.target.closest(".tokens[data-row]");
    if (!box) return;
    const r = +box.dataset.row;
    const ix = view.index[r];
    if (!ix) return;
    const last = ix.row.n.length - 1;
    const cur = view.hovered && view.hovered[0] === r ? view.hovered[1] : -1;
    let next = null;
    if (ev.key === "ArrowRight" || ev.key === "ArrowDown") next = Math.min(last, cur + 1);
    else if (ev.key === "ArrowLeft" || ev.key === "ArrowUp") next = Math.max(0, cur - 1);
    else if (ev.key === "Home") next = 0;
    else if (ev.key === "End") next = last;
    else if (ev.key === "Enter" && cur >= 0) {
      const key = r + ":" + cur;
      if (view.pinned === key) { view.pinned = null; card.classList.remove("pinned"); }
      else { view.pinned = key; card.classList.add("pinned"); }
      ev.preventDefault();
      return;
    }
    if (next === null || next < 0) return;
    ev.preventDefault();
    const target = box.querySelector(`[data-r="${r}"][data-i="${next}"]`);
    view.pinned = null;
    card.classList.remove("pinned");
    if (!target) { view.hovered = [r, next]; return; }  // in a window not drawn yet
    target.scrollIntoView({ block: "nearest" });
    show(view, r, next, target);
  });

  view.update = (data) => update(view, data);
  view.drawData = (data, text) => drawData(view, data, text);  // live.js draws through it
  watchTheme(view);
  return view;
}

// When to send the text: at once when nothing was sent for a while (a single key press
// costs one round trip, no debounce wait), else at most one send per DEBOUNCE_MS and never
// while the page is still answering the previous one (each send reruns the page; a second
// one would only interrupt it): the next goes out when the answer (its echo) arrives.
// typing: true from the box's input event, where a send that is due goes out in the event
// itself rather than from a timer of ours (Streamlit still batches it into the websocket
// with a timer of its own, which fires after the frame that draws the typed character)
function schedule(view, typing) {
  if (!view.dirty) return;
  const now = performance.now();
  const big = view.area.value.length > 200_000;  // a full encode per send: fewer sends
  if (view.inflight && now - view.sentAt < answerWait(view)) return;
  const gap = big ? 4 * DEBOUNCE_MS : DEBOUNCE_MS;
  clearTimeout(view.timer);
  const wait = Math.max(0, view.sentAt + gap - now);
  if (typing && wait === 0) send(view);
  else view.timer = setTimeout(() => send(view), wait);
}

// how long a send may go unanswered before the box sends again (a rerun can be lost,
// e.g. when it meets a run_every fragment's rerun; a 1 MB text takes seconds to encode)
function answerWait(view) {
  return Math.max(view.patience, view.area.value.length > 200_000 ? 15_000 : 1_000);
}

function send(view) {
  view.dirty = false;
  const text = view.area.value;
  const cap = view.data && view.data.editor && view.data.editor.max_chars;
  if (cap && text.length > cap) {
    view.status.textContent = `${text.length.toLocaleString()} characters: over this page's `
      + `limit of ${cap.toLocaleString()}. For bigger texts use the command line: `
      + "python -m bpe encode";
    view.status.classList.add("over");
    return;
  }
  view.status.classList.remove("over");
  view.seq += 1;
  view.sent.set(view.seq, text);
  for (const k of view.sent.keys()) if (k < view.seq - 8) view.sent.delete(k);
  view.inflight = true;
  view.sentAt = performance.now();
  view.setStateValue("text", { seq: view.seq, text });
  const seq = view.seq;
  clearTimeout(view.watchdog);
  view.watchdog = setTimeout(() => {
    if (view.inflight && view.seq === seq) {
      view.patience = Math.min(2 * answerWait(view), 30_000);
      view.inflight = false; view.dirty = true; schedule(view);
    }
  }, answerWait(view) + 50);
}

function update(view, data) {
  view.data = data;
  applyTheme(view);

  // the editor
  const editor = data.editor;
  view.area.parentElement.hidden = !editor;
  let editorText = null;
  if (editor) {
    view.area.placeholder = editor.placeholder || "";
    view.area.setAttribute("aria-label", editor.label || "Text to tokenize");
    view.area.style.height = (editor.height || 180) + "px";
    if (editor.text !== null && editor.text !== undefined && editor.version !== view.appliedVersion) {
      view.appliedVersion = editor.version;
      if (view.area.value !== editor.text) view.area.value = editor.text;
      editorText = editor.text;
    } else {
      editorText = view.sent.has(editor.echo) ? view.sent.get(editor.echo) : view.area.value;
    }
    const fresh = editor.echo === null || editor.echo === undefined || editor.echo >= view.seq;
    if (fresh) { view.inflight = false; view.patience = 0; }
    if (fresh && !view.dirty && !view.status.classList.contains("over")) view.status.textContent = editor.status || "";
    if (fresh && view.dirty) schedule(view);  // typed on while the page answered
    useBrowser(view, data);
    // the browser drew the box's newer text itself: an older answer only gets checked
    if (!fresh && view.local && view.local.text === view.area.value && localReady(view)) {
      if (verify(view, data, editorText) !== false) return;
    }
  }
  drawData(view, data, editorText);
  if (editor) verify(view, data, editorText);
}

// everything below the text box, from data (Python's, or the browser's own row)
function drawData(view, data, editorText) {
  view.drawn = data;
  view.summary.replaceChildren();
  for (const [label, value, help] of data.summary || []) {
    const fig = el("div", "fig");
    fig.dataset.label = label;
    fig.append(el("div", "fig-label", label), el("div", "fig-value", value));
    if (help) fig.title = help;
    view.summary.append(fig);
  }
  view.summary.hidden = !(data.summary && data.summary.length);
  if (view.engine) view.summary.append(view.engine);
  view.note.textContent = data.note || "";
  view.note.hidden = !data.note;
  for (const o of view.observers) o.disconnect();
  view.observers = [];
  view.hovered = null;
  view.pinned = null;
  hide(view);  // also takes the highlight off windows the redraw keeps
  view.lastWindows = view.windows;  // windows that did not change are moved over
  view.windows = {};

  // per row: offsets and the bytes behind the tokens (for the hover card)
  const encoder = new TextEncoder();
  const rowsIn = data.pair ? [data.pair.a, data.pair.b] : (data.rows || []);
  let firstBytes = null;
  view.index = rowsIn.map((row, r) => {
    let bytes;
    if (row.hex !== undefined) bytes = hexToBytes(row.hex);
    else if (row.text !== undefined) bytes = encoder.encode(row.text);
    else if (r === 0 && editorText !== null) bytes = encoder.encode(editorText);
    else bytes = firstBytes || new Uint8Array(0);  // a pair's B row: the same text as A
    if (r === 0) firstBytes = bytes;
    const nspans = row.n.length;
    const tokStart = new Int32Array(nspans + 1);
    const charStart = new Float64Array(nspans + 1);
    for (let s = 0; s < nspans; s++) {
      tokStart[s + 1] = tokStart[s] + row.n[s];
      charStart[s + 1] = charStart[s] + row.nc[s];
    }
    const byteStart = new Float64Array(row.nb.length + 1);
    for (let t = 0; t < row.nb.length; t++) byteStart[t + 1] = byteStart[t] + row.nb[t];
    const partStart = new Map();  // multi-token span -> where its tokens sit in row.parts
    for (let s = 0, at = 0; s < nspans; s++) if (row.n[s] > 1) { partStart.set(s, at); at += row.n[s]; }
    const classes = new Map();  // span -> extra classes
    for (const [name, spans] of Object.entries(row.marks || {}))
      for (const s of spans) classes.set(s, (classes.get(s) || "") + " m-" + name);
    return { row, bytes, tokStart, charStart, byteStart, classes, partStart };
  });

  // keep where the reader was scrolled to (a redraw per keystroke must not jump); a box
  // the redraw keeps keeps its scroll position by itself
  const boxes = Array.from(view.root.querySelectorAll(".scroll"));
  const scrolled = boxes.map((e) => e.scrollTop);
  if (data.pair) {
    view.rows.replaceChildren();
    drawPair(view, data);
  } else {
    const wraps = view.index.map((ix, r) => drawRow(view, ix, r, data));
    const kids = view.rows.children;
    if (wraps.length !== kids.length || wraps.some((w, k) => w !== kids[k])) view.rows.replaceChildren(...wraps);
  }
  drawLists(view, data);
  view.root.querySelectorAll(".scroll").forEach((e, k) => {
    if (scrolled[k] && e !== boxes[k]) e.scrollTop = scrolled[k];
  });
}

// The palette follows the theme: light pastels or deep tones, by the luminance of the
// theme's background (CCv2 puts the theme's --st-* variables on a wrapper around the view).
// Called on every update, and when the theme changes without a rerun (watchTheme).
function applyTheme(view) {
  const root = view.root;
  const bg = getComputedStyle(root).getPropertyValue("--st-background-color")
    || getComputedStyle(root).backgroundColor;
  const dark = bg ? luminance(bg.trim().startsWith("#") ? hexColor(bg.trim()) : bg) < 0.5 : false;
  root.classList.toggle("dark", dark);
  const palette = (view.data && view.data.palette) || { light: ["#ddd"], dark: ["#444"] };
  const colors = dark ? palette.dark : palette.light;
  const ink = dark ? palette.ink_dark : palette.ink_light;
  const paletteKey = colors.join() + ink;
  if (view.palette !== paletteKey) {  // the same values again would still restyle the view
    view.palette = paletteKey;
    colors.forEach((c, i) => root.style.setProperty(`--c${i}`, c));
    root.style.setProperty("--ink", ink);
  }
  view.ncolors = colors.length;
}

// A theme picked from Streamlit's menu changes the --st-* variables on the elements around
// the view, with no rerun: watch those elements' style and class (up to the document) and
// the OS's color scheme, and recolour at once.
function watchTheme(view) {
  const again = () => { if (view.data) applyTheme(view); };
  const observer = new MutationObserver(again);
  let node = view.root;
  for (let k = 0; node && k < 12; k++) {
    if (node.nodeType === 1) observer.observe(node, { attributes: true, attributeFilter: ["style", "class"] });
    node = node.parentNode || (node.host !== undefined ? node.host : null);
  }
  matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => requestAnimationFrame(again));
}

function hexColor(h) {
  const v = h.replace("#", "");
  const full = v.length === 3 ? v.split("").map((c) => c + c).join("") : v.slice(0, 6);
  const n = parseInt(full, 16);
  return `rgb(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255})`;
}

function spanColor(view, ix, s) {
  const row = ix.row;
  if (row.colors) return row.colors[s] % view.ncolors;
  if (row.color_by === "id") {
    let h = 0;
    for (let t = ix.tokStart[s]; t < ix.tokStart[s + 1]; t++) h = (Math.imul(h, 1000003) + row.ids[t]) >>> 0;
    return (h ^ (h >>> 13)) % view.ncolors;
  }
  return s % view.ncolors;
}

// the elements of one span: one box per line it covers (a newline inside a token ends
// the box, and the rest continues on the next line as a marked continuation)
function drawSpan(view, ix, r, s, out) {
  const row = ix.row;
  const pieces = row.show[s].split("\n");
  const color = spanColor(view, ix, s);
  const t0 = ix.tokStart[s], t1 = ix.tokStart[s + 1];
  const extra = ix.classes.get(s) || "";
  for (let p = 0; p < pieces.length; p++) {
    const last = p === pieces.length - 1;
    if (last && pieces[p] === "" && p > 0) break;
    const box = el("span", (p === 0 ? "tok" : "tok cont") + extra);
    box.dataset.r = r;
    box.dataset.i = s;
    if (p === 0) {
      box.dataset.ids = row.ids.slice(t0, t1).join(" ");
      box.dataset.bytes = `${ix.byteStart[t0]}-${ix.byteStart[t1]}`;
    }
    if (t1 - t0 > 1) {
      // one grapheme cluster over several tokens: the glyph keeps one plain background;
      // its cuts are thin ticks in a band under it (never stripes across the glyph)
      const total = ix.byteStart[t1] - ix.byteStart[t0];
      const ticks = [];
      for (let t = t0 + 1; t < t1; t++) {
        const at = (100 * (ix.byteStart[t] - ix.byteStart[t0])) / total;
        ticks.push(`transparent calc(${at}% - 1px)`, `var(--cut) calc(${at}% - 1px)`,
          `var(--cut) calc(${at}% + 1px)`, `transparent calc(${at}% + 1px)`);
      }
      box.classList.add(`c${color}`);
      box.style.backgroundImage = `linear-gradient(90deg, transparent 0%, ${ticks.join(", ")}, transparent 100%)`;
      box.classList.add("multi");
      box.dataset.cuts = t1 - t0;
    } else {
      box.classList.add(`c${color}`);
    }
    if (row.chunk) box.classList.add(row.chunk[s] % 2 ? "ch1" : "ch0");
    fillDisplay(box, pieces[p]);
    if (!last && !pieces[p].endsWith("↵")) box.append(el("span", "nl", "↵"));
    out.append(box);
    if (!last) out.append(el("br"));
  }
}

function blockBounds(ix) {
  // windows end after a span holding a newline when one is near, so a window break
  // falls where the text breaks a line anyway
  const show = ix.row.show, n = show.length, bounds = [0];
  let s = 0;
  while (s < n) {
    let end = Math.min(n, s + BLOCK);
    if (end < n) {
      for (let k = end; k < Math.min(n, s + 2 * BLOCK); k++)
        if (show[k].includes("\n")) { end = k + 1; break; }
    }
    bounds.push(end);
    s = end;
  }
  return bounds;
}

// -> the row's element: the last drawing's, kept in place, when both are windowed with
// the same caption (moved or rebuilt, every token would be laid out and painted again)
function drawRow(view, ix, r, data) {
  const row = ix.row;
  const bounds = blockBounds(ix);
  const windows = bounds.length - 1;
  const old = view.lastWindows["row" + r];
  const keep = windows > 2 && old && old.caption === (row.caption || "");
  const wrap = keep ? old.wrap : el("div", "tv-row");
  const box = keep ? old.box : el("div", "tokens");
  if (!keep) {
    if (row.caption) wrap.append(el("div", "tv-cap", row.caption));
    box.dataset.row = r;
    box.tabIndex = 0;  // the keyboard's way in: arrows move between tokens (see mount)
    box.setAttribute("aria-label", "Tokens: arrow keys move between them, Enter pins the card");
    wrap.append(box);
  }
  const draw = (w) => {
    const frag = document.createDocumentFragment();
    for (let s = bounds[w]; s < bounds[w + 1]; s++) drawSpan(view, ix, r, s, frag);
    return frag;
  };
  if (windows <= 2) {
    box.append(draw(0));
    if (windows === 2) box.append(draw(1));
    markWrapped([box]);
    return wrap;
  }
  box.classList.add("scroll");
  const height = (data.box_height || 420) + "px";
  if (box.style.maxHeight !== height) box.style.maxHeight = height;
  // everything a window's spans are drawn from: text, ids, bytes, color, marks, chunk
  const sig = (w) => {
    const parts = [bounds[w], bounds[w + 1], view.ncolors, row.color_by];
    for (let s = bounds[w]; s < bounds[w + 1]; s++) {
      const t0 = ix.tokStart[s], t1 = ix.tokStart[s + 1];
      parts.push(row.show[s], ix.byteStart[t0], spanColor(view, ix, s), ix.classes.get(s) || "",
        row.chunk ? row.chunk[s] % 2 : "");
      for (let t = t0; t < t1; t++) parts.push(row.ids[t], row.nb[t]);
    }
    return parts.join("\x04");
  };
  const v = windowed(box, windows, draw, (w) => 1.9 * 16 * Math.ceil((bounds[w + 1] - bounds[w]) / 12),
    sig, old, markWrapped);
  const ntok = row.ids.length;
  const cap = keep ? old.cap : wrap.appendChild(el("div", "tv-windowed"));
  cap.textContent = `${ntok.toLocaleString()} tokens in ${windows.toLocaleString()} windows of about ${BLOCK} spans: `
    + "only the windows near the visible part of the box are drawn; scroll to see more. "
    + "Counts, ids and table cover the whole text.";
  view.windows["row" + r] = Object.assign(v, { wrap, cap, caption: row.caption || "" });
  view.observers.push(v.observer);
  return wrap;
}

// a token wider than the line wraps inside its box: say so on the box (and a pair's run
// wider than the line may break between its pieces: say so on the run). All sizes are
// read first (one layout), then the classes written: a read after a write would lay the
// page out again, once per token.
function markWrapped(boxes) {
  const runs = [], toks = [];
  for (const box of boxes) {
    for (const r of box.querySelectorAll(".run")) runs.push(r);
    for (const t of box.querySelectorAll(".tok")) if (t.textContent.length >= 12) toks.push(t);
  }
  if (!runs.length && !toks.length) return;
  // a run marked wrapped lays its pieces out anew: mark the runs before measuring pieces
  for (const r of runs.filter((r) => r.scrollWidth > r.clientWidth + 1)) r.classList.add("wrapped");
  // every .tok has the same line height (token_view.css)
  const lh = toks.length ? parseFloat(getComputedStyle(toks[0]).lineHeight) || 24 : 0;
  for (const t of toks.filter((t) => t.offsetHeight > lh * 1.5)) t.classList.add("wrapped");
}

// the Ids and Table tabs of the first row; their boxes (and the tab shown) are kept from
// one redraw to the next, with the windows whose ids did not change
function drawLists(view, data) {
  if (!data.lists || !view.index.length) {
    view.lists.replaceChildren();
    view.listParts = null;
    return;
  }
  if (!view.listParts) {
    view.lists.replaceChildren();
    const tabs = el("div", "tv-tabs");
    const idsBtn = el("button", "tv-tab on", "Ids");
    const tableBtn = el("button", "tv-tab", "Table");
    tabs.append(idsBtn, tableBtn);
    const idsBox = el("div", "tv-ids scroll");
    const tableBox = el("div", "tv-table scroll");
    tableBox.hidden = true;
    const head = el("div", "tr th");
    head.append(el("span", "td n", "#"), el("span", "td id", "id"), el("span", "td tx", "text"), el("span", "td hx", "bytes"));
    const body = el("div", "tbody");
    tableBox.append(head, body);
    const note = el("div", "tv-windowed");
    view.lists.append(tabs, idsBox, tableBox, note);
    idsBtn.onclick = () => { idsBox.hidden = false; tableBox.hidden = true; idsBtn.classList.add("on"); tableBtn.classList.remove("on"); };
    tableBtn.onclick = () => { idsBox.hidden = true; tableBox.hidden = false; tableBtn.classList.add("on"); idsBtn.classList.remove("on"); };
    view.listParts = { idsBox, body, note };
  }
  const { idsBox, body, note } = view.listParts;
  const ix = view.index[0];
  const row = ix.row;

  const ntok = row.ids.length;
  // token -> span, for hover links from the lists
  const spanOf = new Int32Array(ntok);
  for (let s = 0; s < row.n.length; s++) for (let t = ix.tokStart[s]; t < ix.tokStart[s + 1]; t++) spanOf[t] = s;

  const idWindows = Math.ceil(ntok / ID_BLOCK);
  const drawIds = (w) => {
    const frag = document.createDocumentFragment();
    if (w === 0) frag.append("[");
    for (let t = w * ID_BLOCK; t < Math.min(ntok, (w + 1) * ID_BLOCK); t++) {
      const e = el("span", "id", String(row.ids[t]));
      e.dataset.r = 0; e.dataset.i = spanOf[t]; e.dataset.t = t;
      frag.append(e, t + 1 < ntok ? ", " : "]");
    }
    return frag;
  };
  // a window of ids or table rows is drawn from its tokens' ids and spans (and bytes)
  const listSig = (block, withBytes) => (w) => {
    const parts = [(w + 1) * block >= ntok];  // the last window ends with "]"
    for (let t = w * block; t < Math.min(ntok, (w + 1) * block); t++) {
      parts.push(row.ids[t], spanOf[t]);
      if (withBytes) parts.push(ix.byteStart[t], row.nb[t], tokenShow(ix, spanOf[t], t));
    }
    return parts.join(",");
  };
  const v1 = windowed(idsBox, idWindows, drawIds, () => 22 * Math.ceil(ID_BLOCK / 12),
    listSig(ID_BLOCK, false), view.lastWindows.ids);
  view.windows.ids = v1;
  view.observers.push(v1.observer);

  const drawRows = (w) => {
    const frag = document.createDocumentFragment();
    for (let t = w * TABLE_BLOCK; t < Math.min(ntok, (w + 1) * TABLE_BLOCK); t++) {
      const tr = el("div", "tr");
      const s = spanOf[t];
      tr.dataset.r = 0; tr.dataset.i = s; tr.dataset.t = t;
      const tx = el("span", "td tx");
      fillDisplay(tx, tokenShow(ix, s, t).replaceAll("\n", ""));
      tr.append(el("span", "td n", String(t)), el("span", "td id", String(row.ids[t])), tx,
        el("span", "td hx", hex(ix.bytes.subarray(ix.byteStart[t], ix.byteStart[t + 1]))));
      frag.append(tr);
    }
    return frag;
  };
  const v2 = windowed(body, Math.ceil(ntok / TABLE_BLOCK), drawRows, () => 24 * TABLE_BLOCK,
    listSig(TABLE_BLOCK, true), view.lastWindows.table);
  view.windows.table = v2;
  view.observers.push(v2.observer);
  note.hidden = ntok <= ID_BLOCK;
  note.textContent = note.hidden ? "" : `${ntok.toLocaleString()} ids and table rows, drawn in windows as you scroll.`;
}

function tokenShow(ix, s, t) {
  const row = ix.row;
  if (row.n[s] === 1) return row.show[s];
  return (row.parts && row.parts[ix.partStart.get(s) + t - ix.tokStart[s]]) || "";
}

function show(view, r, s, target, keepHighlight) {
  if (!keepHighlight) highlight(view, r, s);
  if (!view.index[r]) return;
  const card = view.card;
  card.replaceChildren();
  cardSection(view, card, r, s);
  card.hidden = false;
  const rootRect = view.root.getBoundingClientRect();
  const rect = target.getBoundingClientRect();
  let left = rect.left - rootRect.left;
  const maxLeft = view.root.clientWidth - 320;
  card.style.left = Math.max(0, Math.min(left, maxLeft)) + "px";
  // above the token when there is room: below it sit the next lines and the id list,
  // whose entries light up with the token and must stay in sight
  const above = rect.top - rootRect.top - card.offsetHeight - 6;
  card.style.top = (above >= 0 ? above : rect.bottom - rootRect.top + 4) + "px";
}

// the fields of one span in the hover card: index, ids, escaped text, offsets, hex per token
function cardSection(view, card, r, s) {
  const ix = view.index[r];
  const row = ix.row;
  const t0 = ix.tokStart[s], t1 = ix.tokStart[s + 1];
  const b0 = ix.byteStart[t0], b1 = ix.byteStart[t1];
  const label = (row.caption && view.data.pair ? row.caption + ": " : "")
    + (t1 - t0 > 1 ? `tokens ${t0}–${t1 - 1} (one character cluster)` : `token ${t0}`);
  card.append(el("div", "k-index", label));
  const rawBytes = ix.bytes.subarray(b0, b1);
  let raw;
  try { raw = new TextDecoder("utf-8", { fatal: true }).decode(rawBytes); } catch (e) { raw = null; }
  const lines = [
    ["ids", row.ids.slice(t0, t1).join(" "), "k-ids"],
    ["text", raw === null ? "(not whole UTF-8 characters)" : escaped(raw), "k-text"],
    ["chars", `${ix.charStart[s]}–${ix.charStart[s + 1]}`, "k-chars"],
    ["bytes", `${b0}–${b1}`, "k-bytes"],
  ];
  for (const [k, v, cls] of lines) {
    const line = el("div", "kv " + cls);
    line.append(el("span", "k", k), el("span", "v", v));
    card.append(line);
  }
  const hexes = el("div", "kv k-hex");
  hexes.append(el("span", "k", "hex"));
  const hv = el("span", "v");
  for (let t = t0; t < t1; t++) {
    const part = el("span", "hexpart", hex(ix.bytes.subarray(ix.byteStart[t], ix.byteStart[t + 1])));
    part.title = `id ${row.ids[t]}`;
    hv.append(part);
    if (t + 1 < t1) hv.append(el("span", "cutmark", " | "));
  }
  hexes.append(hv);
  card.append(hexes);
  if (row.notes && row.notes[String(s)]) card.append(el("div", "kv k-note", row.notes[String(s)]));
}

function highlight(view, r, s) {
  for (const e of view.root.querySelectorAll(".hl")) e.classList.remove("hl");
  for (const e of view.root.querySelectorAll(`[data-r="${r}"][data-i="${s}"]`)) e.classList.add("hl");
  view.hovered = [r, s];
}

function hide(view) {
  for (const e of view.root.querySelectorAll(".hl, .hl-b")) e.classList.remove("hl", "hl-b");
  view.card.hidden = true;
  view.card.classList.remove("pinned");
}

// --- two tokenizations of one text, aligned (viz/pair.py pair_view) --------------------
// The text once, in pieces cut at every span boundary of A or B: A's spans are a band
// above the pieces, B's a band below; a cut only one of them makes is marked.
function drawPair(view, data) {
  const pair = data.pair, pieces = pair.pieces;
  const [ixA, ixB] = view.index;
  const wrap = el("div", "tv-row pair");
  // one item per phrase, spaced by the flex gap: text separators collapsed and ran two
  // phrases together ("makes═ under")
  const legend = el("div", "tv-cap legend");
  legend.append(el("span", "band-a", "▀ " + (pair.a.caption || "A")),
    el("span", "band-b", "▄ " + (pair.b.caption || "B")),
    el("span", "legend-diff", "┃ a cut only one of them makes;"),
    el("span", "legend-diff", "═ under a character: they cut inside it differently"));
  const box = el("div", "tokens aligned");
  wrap.append(legend, box);
  view.rows.append(wrap);
  const n = pieces.nb.length;
  let byteAt = 0;
  const frag = document.createDocumentFragment();
  // pieces between two cuts both sides make form one run that never breaks across lines
  // (class "run"): a line wraps only where A and B both cut (or at a newline)
  let run = null;
  for (let p = 0; p < n; p++) {
    const sa = pieces.sa[p], sb = pieces.sb[p];
    const startA = p === 0 || pieces.sa[p - 1] !== sa, startB = p === 0 || pieces.sb[p - 1] !== sb;
    if (startA && startB) run = null;
    const lines = pieces.show[p].split("\n");
    for (let k = 0; k < lines.length; k++) {
      const last = k === lines.length - 1;
      if (last && lines[k] === "" && k > 0) break;
      const e = el("span", "tok piece");
      e.dataset.pa = sa; e.dataset.pb = sb;
      if (k === 0) {
        e.dataset.bytes = `${byteAt}-${byteAt + pieces.nb[p]}`;
        if (startA) { e.dataset.idsA = spanIds(ixA, sa); e.classList.add("cut-a"); }
        if (startB) { e.dataset.idsB = spanIds(ixB, sb); e.classList.add("cut-b"); }
        if (p > 0 && startA !== startB) e.classList.add("cut-diff");
        const inner = pair.pieces.inner && pair.pieces.inner[String(p)];
        if (inner) {  // A and B cut inside this character (cluster) differently
          e.classList.add("cut-diff-in");
          e.dataset.innerA = inner[0].join(" ");
          e.dataset.innerB = inner[1].join(" ");
        }
      }
      e.style.setProperty("--ca", `var(--c${spanColor(view, ixA, sa)})`);
      e.style.setProperty("--cb", `var(--c${spanColor(view, ixB, sb)})`);
      fillDisplay(e, lines[k]);
      if (!last && !lines[k].endsWith("↵")) e.append(el("span", "nl", "↵"));
      if (!run) { run = el("span", "run"); frag.append(run); }
      run.append(e);
      if (!last) { frag.append(el("br")); run = null; }
    }
    byteAt += pieces.nb[p];
  }
  box.append(frag);
  markWrapped([box]);
}

function spanIds(ix, s) { return ix.row.ids.slice(ix.tokStart[s], ix.tokStart[s + 1]).join(" "); }

function showPiece(view, piece) {
  const sa = +piece.dataset.pa, sb = +piece.dataset.pb;
  for (const e of view.root.querySelectorAll(".hl, .hl-b")) e.classList.remove("hl", "hl-b");
  // A's span under the mouse, and every B span that overlaps it
  const overlapB = new Set();
  for (const e of view.root.querySelectorAll(`[data-pa="${sa}"]`)) { e.classList.add("hl"); overlapB.add(e.dataset.pb); }
  for (const b of overlapB) for (const e of view.root.querySelectorAll(`[data-pb="${b}"]`)) e.classList.add("hl-b");
  show(view, 0, sa, piece, true);
  const second = el("div", "tv-card-b");
  cardSection(view, second, 1, sb);
  view.card.append(second);
}

