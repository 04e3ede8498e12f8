// The lab's token view: draws rows of tokens that Python (viz/tokens.py view_row) hands
// it, with an optional text box whose text it sends back (Python stays the single source
// of token data). Everything from data goes into the DOM through textContent and
// createElement: never innerHTML, never an event-handler attribute.
// This file is the entry Streamlit loads (export default): it mounts the view's elements,
// wires the modules, and on each rerun applies the editor's answer and redraws. It does
// not draw spans (spans.js), lists (lists.js), the pair (pair.js) or the card (card.js),
// nor send the text (editor.js) or encode in the browser (live.js).
// Data format and API: see lab/token_view/__init__.py.

import { hide, wireCard } from "./card.js";
import { el, hexToBytes } from "./dom.js";
import { fill, schedule, wireEditor } from "./editor.js";
import { drawLists } from "./lists.js";
import { idsOnly, localReady, requestLocal, restyled, useBrowser, verify } from "./live.js";
import { drawPair } from "./pair.js";
import { samePayload, unpack } from "./payload.js";
import { drawRow } from "./spans.js";
import { applyTheme, watchTheme } from "./theme.js";

const STATES = new WeakMap();  // parentElement -> the view's state across reruns

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

  wireEditor(view);
  wireCard(view);

  view.update = (data) => update(view, data);
  view.resend = () => { view.dirty = true; schedule(view); };  // ask Python for its rows
  view.drawData = (data, text) => drawData(view, data, text);  // live.js draws through it
  watchTheme(view);
  return view;
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
      if (fill(view, editor.text)) view.accepted = editor.text;
      editorText = editor.text;
    } else {
      editorText = view.sent.has(editor.echo) ? view.sent.get(editor.echo) : view.area.value;
    }
    const fresh = editor.echo === null || editor.echo === undefined || editor.echo >= view.seq;
    if (fresh) { view.inflight = false; view.patience = 0; }
    if (fresh && !view.dirty && !view.status.classList.contains("over")) view.status.textContent = editor.status || "";
    if (fresh && view.dirty) schedule(view);  // typed on while the page answered
    useBrowser(view, data);
    // the browser drew the box's newer text itself: an answer for an older text (an older
    // send, or the last send while more was typed since) only gets checked, so neither
    // the rows nor the figures go back to the older text
    const current = fresh && editorText === view.area.value;
    if (!current && view.local && view.local.text === view.area.value && localReady(view)) {
      if (verify(view, data, editorText) !== false) {
        if (restyled(view)) requestLocal(view);  // e.g. a toggle flipped while typing
        return;
      }
    }
    if (idsOnly(data)) {
      // Python's ids for a text the browser drew itself: check them and keep the drawing
      // (drawn again if a toggle changed since); with nothing here to check them against,
      // ask for Python's rows
      const checked = verify(view, data, editorText);
      if (checked === undefined) view.resend();
      else if (checked && restyled(view)) requestLocal(view);
      return;
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

