// The token view's text box: wireEditor() listens for typing (the browser draws its own
// tokens first when it can, live.js), and schedule()/send() decide when the box's text
// goes to Python through setStateValue, with a debounce, one send in flight at a time and
// a watchdog for an answer that never came. It does not draw tokens or read Python's
// answer: token_view.js update() does.

import { drawnHere, localReady, requestLocal } from "./live.js";

const DEBOUNCE_MS = 150;
// the browser drew the tokens itself: Python's check waits until typing pauses this long,
// so a typed word costs the server one rerun, not one per key (bench/browser_encode.py)
export const IDLE_MS = 400;

// Chromium lays one grapheme cluster out in time that grows with the square of its length
// (a letter with 20,000 combining marks: 2.5 s in a text box, 40,000: 9 s; 200,000: the tab
// never drew it), so a run of marks longer than this never goes into the box: the box keeps
// its text and says why. The rows are safe: viz/rows.py and rows.js cut a long cluster
// into boxes of CLUSTER_LIMIT characters.
export const MARK_RUN_LIMIT = 2_000;
const MARK_RUN = /[\p{Grapheme_Extend}\u200d]+/gu;  // one match per run: linear in the text

// "" when the box may hold text, else the sentence saying why not (its longest run of
// combining marks or joiners is past MARK_RUN_LIMIT)
export function refusal(text) {
  let longest = "";
  for (const m of text.matchAll(MARK_RUN)) if (m[0].length > longest.length) longest = m[0];
  const n = Array.from(longest).length;
  if (n <= MARK_RUN_LIMIT) return "";
  return `Not shown: this text holds one character with ${n.toLocaleString("en-US")} combining `
    + `marks or joiners (the most this box takes is ${MARK_RUN_LIMIT.toLocaleString("en-US")}): `
    + "the browser lays such a character out in time that grows with the square of its length. "
    + "Shorten that run, or use the command line: python -m bpe encode";
}

// put text in the box unless refusal() says no; -> whether it went in
export function fill(view, text) {
  const why = refusal(text);
  view.status.classList.toggle("over", !!why);
  if (why) { view.status.textContent = why; return false; }
  if (view.area.value !== text) view.area.value = text;
  return true;
}

export function wireEditor(view) {
  view.accepted = view.area.value;
  view.area.addEventListener("input", () => {
    // a paste of a huge cluster: put the last accepted text back before the frame lays it out
    if (!fill(view, view.area.value)) { view.area.value = view.accepted; return; }
    view.accepted = view.area.value;
    view.status.textContent = "updating…";
    view.dirty = true;
    view.typedAt = performance.now();
    // the browser draws the tokens first, then sends the text for Python's check: a big
    // paste is drawn before its megabyte goes into the websocket
    if (localReady(view)) requestLocal(view, () => schedule(view, true));
    else schedule(view, true);
  });
}

// When to send the text: when the browser drew its tokens (drawnHere), once typing has
// paused for IDLE_MS (the box shows the browser's tokens meanwhile, and the engine line
// says Python's check is pending). Otherwise at once when nothing was sent for a while (a
// single key press costs one round trip, no debounce wait), else at most one send per
// DEBOUNCE_MS. Never while the page is still answering the previous one (each send reruns
// the page; a second one would only interrupt it): the next goes out when the answer (its
// echo) arrives.
// typing: true from the box's input event, where a send that is due goes out in the event
// itself rather than from a timer of ours (Streamlit still batches it into the websocket
// with a timer of its own, which fires after the frame that draws the typed character)
export function schedule(view, typing) {
  if (!view.dirty) return;
  const now = performance.now();
  const big = view.area.value.length > 200_000;  // a full encode per send: fewer sends
  if (view.inflight && now - view.sentAt < answerWait(view)) return;
  const gap = big ? 4 * DEBOUNCE_MS : DEBOUNCE_MS;
  clearTimeout(view.timer);
  const wait = drawnHere(view) ? Math.max(0, (view.typedAt || 0) + IDLE_MS - now)
    : Math.max(0, view.sentAt + gap - now);
  if (typing && wait === 0) send(view);
  else view.timer = setTimeout(() => {
    // the answer to an earlier send schedules again when it arrives (token_view.js)
    if (!(view.inflight && performance.now() - view.sentAt < answerWait(view))) send(view);
  }, wait);
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
  // drawn: the browser shows its own tokens for this text, so the page need only send
  // Python's ids to check them against, not a row to draw (pages/tokenize.py)
  view.setStateValue("text", { seq: view.seq, text, drawn: drawnHere(view) });
  const seq = view.seq;
  clearTimeout(view.watchdog);
  view.watchdog = setTimeout(() => {
    if (view.inflight && view.seq === seq) {
      view.patience = Math.min(2 * answerWait(view), 30_000);
      view.inflight = false; view.dirty = true; schedule(view);
    }
  }, answerWait(view) + 50);
}
