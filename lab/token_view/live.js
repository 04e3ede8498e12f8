// Encoding in the browser, for the token view (token_view.js): the page's data.browser
// names the vocabulary files (lab/token_view/browser_vocab.py); encoder.js encodes, rows.js
// makes the row, and view.drawData draws it at once. Python's answer is compared with the browser's
// ids for the same text: "browser ids == Python", or a red error and Python's rows only.
import { loadEncoder } from "./encoder.js";
import { buildRow, summaryOf } from "./rows.js";

// Python's data.browser: {ranks, split, max_chars, specials, whitespace} when the browser
// can encode exactly with the page's tokenizer, {why} when the server must.
export function useBrowser(view, data) {
  const b = data.browser;
  if (!b || b.why) {
    view.encoder = null;
    view.encoderKey = null;
    view.local = null;
    setEngine(view, b ? "server" : null, b ? "Encoded on the server: " + b.why : "");
    return;
  }
  const key = b.ranks + "|" + b.split;
  if (view.encoderKey === key) return;
  view.encoderKey = key;
  view.encoder = null;
  view.local = null;
  setEngine(view, "loading", "Loading the vocabulary into the browser…");
  loadEncoder(new URL("vocab/", import.meta.url), b).then((enc) => {
    if (view.encoderKey !== key) return;
    view.encoder = enc;
    setEngine(view, "browser", "Encoded in your browser as you type; checked against Python.");
    // the page's last answer is for the box's text: check it; else draw the box's text
    if (!view.dirty && view.answered && view.answered.text === view.area.value)
      verify(view, view.answered.data, view.answered.text);
    else requestLocal(view);
  }, (err) => {
    if (view.encoderKey !== key) return;
    setEngine(view, "server", "Encoded on the server: the browser could not load the "
      + "vocabulary (" + err.message + ")");
  });
}

// the browser shows its own tokens for the box's current text
export function drawnHere(view) {
  return !!view.local && view.local.text === view.area.value && !restyled(view) && localReady(view);
}

export function localReady(view) {
  const b = view.data && view.data.browser;
  if (!view.encoder || !b || b.why || view.broken) return false;
  if (b.max_chars && view.area.value.length > b.max_chars) {
    setEngine(view, "server", `Encoded on the server: over ${b.max_chars.toLocaleString("en-US")} `
      + "characters, this tokenizer's owner cuts the text first, which only the server does.");
    return false;
  }
  return true;
}

// one local encode and draw per frame, however fast the keys come
export function requestLocal(view, then) {
  if (then) view.afterLocal = then;
  if (view.localFrame) return;
  view.localFrame = requestAnimationFrame(() => {
    view.localFrame = 0;
    if (localReady(view)) drawLocal(view);
    const after = view.afterLocal;
    view.afterLocal = null;
    if (after) setTimeout(after, 0);  // after this frame is painted
  });
}

// what the browser's drawing depends on besides the text (the page's toggles)
const styleOf = (b) => [!!b.specials, b.whitespace || "", b.color_by || "position"].join("|");

// the browser drew the box's text, but with toggles the page has changed since: draw again
export function restyled(view) {
  const b = view.data && view.data.browser;
  return !!view.local && !!b && !b.why && view.local.style !== styleOf(b);
}

function encodeHere(view, text) {
  const b = view.data.browser;
  if (view.local && view.local.text === text && view.local.specials === !!b.specials) return view.local;
  const { ids, nb } = view.encoder.encode(text, !!b.specials);
  return { text, ids, nb, specials: !!b.specials };
}

function drawLocal(view) {
  const text = view.area.value;
  const b = view.data.browser;
  const local = view.local = Object.assign({}, encodeHere(view, text), { style: styleOf(b) });
  const bytes = new TextEncoder().encode(text.toWellFormed ? text.toWellFormed() : text);
  const row = buildRow(text, bytes, local.ids, local.nb, b.whitespace || null);
  row.color_by = b.color_by || "position";
  const data = Object.assign({}, view.data, {
    rows: text ? [row] : [], summary: text ? summaryOf(text, bytes, local.ids) : null });
  // a redraw for a toggle (whitespace, colors) after Python already agreed on these ids
  // keeps the "==" line: no new check is coming (the page answered), so "checking" would
  // stay up for good
  const v = view.verified;
  if (v && v.ok && v.text === text && v.key === view.encoderKey && v.specials === local.specials)
    setEngine(view, "ok", agreed(v.count));
  else setEngine(view, "browser", "Encoded in your browser · checking with Python…");
  view.drawData(data, text);
}

const agreed = (count) => "Encoded in your browser · browser ids == Python "
  + `(${count.toLocaleString("en-US")} tokens)`;

// a row of Python's ids only (pages/tokenize.py sends one when the browser said it drew
// the text itself): something to check, nothing to draw
export const idsOnly = (data) => !!(data.rows && data.rows[0] && data.rows[0].ids_only);

// Python is the source of truth: its ids for the text it answered must be the browser's
export function verify(view, data, text) {
  if (text !== null && data.rows && data.rows.length) view.answered = { data, text };
  if (!view.encoder || !data.browser || data.browser.why || text === null) return;
  const row = (data.rows || [])[0];
  if (!row || (data.browser.max_chars && text.length > data.browser.max_chars)) return;
  const mine = encodeHere(view, text).ids;
  const theirs = row.ids;
  let at = -1;
  const n = Math.max(mine.length, theirs.length);
  for (let k = 0; k < n; k++) if (mine[k] !== theirs[k]) { at = k; break; }
  // what Python checked: this text, with this vocabulary and this special-token choice
  view.verified = { text, ok: at < 0, key: view.encoderKey, specials: !!data.browser.specials,
    count: theirs.length };
  if (at >= 0 && !view.broken) {
    view.broken = true;
    // Python sent ids only: ask it for its rows (the browser no longer says it drew them)
    if (idsOnly(data)) view.resend();
    else view.drawData(data, text);
  }
  if (at < 0) {
    // an answer for an older text than the box holds is no check of what is shown
    if (text !== view.area.value) return true;
    setEngine(view, "ok", agreed(theirs.length));
  } else {  // from now on the server's tokens only (view.broken)
    setEngine(view, "bad", `browser ids != Python: token ${at} is ${mine[at]} in the browser, `
      + `${theirs[at]} in Python. The tokens shown are Python's.`);
  }
  return at < 0;
}

function setEngine(view, state, text) {
  view.engine.dataset.state = state || "";
  view.engine.textContent = text;
  view.engine.hidden = !state;
  if (!view.engine.isConnected && state) view.summary.append(view.engine);
  if (state) view.summary.hidden = false;
}
